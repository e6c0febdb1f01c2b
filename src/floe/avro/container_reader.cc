#include "floe/avro/container_reader.h"

#include <cstring>

#include <arrow/buffer.h>

#include "floe/avro/container_magic.h"

namespace floe::avro {

namespace {

constexpr size_t kSyncSize = 16;

}  // namespace

ContainerReader::~ContainerReader() = default;

template <typename... Args>
Status ContainerReader::Error(Args&&... args) const {
  return Status::Invalid("Invalid Avro file ", path_, ": ", std::forward<Args>(args)...);
}

Status ContainerReader::Fail(Status st) {
  error_ = st;
  return st;
}

Result<std::unique_ptr<ContainerReader>> ContainerReader::Open(
    std::shared_ptr<arrow::Buffer> data, std::string path, ContainerReaderOptions options) {
  if (data == nullptr) return Status::Invalid("Avro container reader needs data for ", path);
  std::unique_ptr<ContainerReader> reader(new ContainerReader());
  reader->data_ = std::move(data);
  reader->path_ = std::move(path);
  reader->options_ = options;
  ARROW_RETURN_NOT_OK(reader->ReadHeader());
  return reader;
}

const std::string* ContainerReader::FindMetadata(std::string_view key) const {
  for (const auto& [k, v] : metadata_) {
    if (k == key) return &v;
  }
  return nullptr;
}

Status ContainerReader::ReadHeader() {
  const uint8_t* bytes = data_->data();
  const auto size = static_cast<size_t>(data_->size());
  if (size < sizeof kContainerMagic || std::memcmp(bytes, kContainerMagic, sizeof kContainerMagic) != 0) {
    return Error("not an Avro object container (bad magic)");
  }
  Decoder d(bytes + sizeof kContainerMagic, size - sizeof kContainerMagic);
  // The metadata is an Avro map of bytes.
  while (true) {
    int64_t count;
    Status st = d.ReadBlockCount(&count);
    if (st.ok() && static_cast<uint64_t>(count) > d.remaining() / 2) {
      st = Status::Invalid("metadata count ", count, " exceeds the remaining bytes");
    }
    if (!st.ok()) return Error("truncated or corrupt header: ", st.message());
    if (count == 0) break;
    for (int64_t i = 0; i < count; ++i) {
      std::string key, value;
      st = d.ReadString(&key);
      if (st.ok()) st = d.ReadBytes(&value);
      if (!st.ok()) return Error("truncated or corrupt header: ", st.message());
      if (FindMetadata(key) != nullptr) return Error("duplicate header metadata key '", key, "'");
      metadata_.emplace_back(std::move(key), std::move(value));
    }
  }
  std::string_view sync;
  if (!d.ReadFixedView(kSyncSize, &sync).ok()) {
    return Error("truncated header (no sync marker)");
  }
  std::memcpy(sync_.data(), sync.data(), kSyncSize);
  next_block_ = sizeof kContainerMagic + d.position();

  const std::string* schema_json = FindMetadata("avro.schema");
  if (schema_json == nullptr) return Error("header has no avro.schema");
  auto schema = Schema::Parse(*schema_json);
  if (!schema.ok()) return Error("bad avro.schema: ", schema.status().message());
  ARROW_ASSIGN_OR_RAISE(datum_reader_, DatumReader::Make(std::move(schema).ValueUnsafe()));

  const std::string* codec_name = FindMetadata("avro.codec");
  auto codec = CodecFromName(codec_name == nullptr ? "null" : *codec_name);
  if (!codec.ok()) return Error(codec.status().message());
  auto block_codec = BlockCodec::Make(*codec);
  if (!block_codec.ok()) return Error(block_codec.status().message());
  codec_ = std::move(block_codec).ValueUnsafe();
  return Status::OK();
}

Result<bool> ContainerReader::NextBlock() {
  if (!error_.ok()) return error_;
  values_left_ = 0;
  if (next_block_ == static_cast<size_t>(data_->size())) return false;
  ARROW_RETURN_NOT_OK(Fail(LoadBlock()));
  return true;
}

Status ContainerReader::LoadBlock() {
  ++block_number_;
  const int64_t n = block_number_;
  Decoder d(data_->data() + next_block_, static_cast<size_t>(data_->size()) - next_block_);
  int64_t count, size;
  if (!d.ReadLong(&count).ok() || !d.ReadLong(&size).ok()) return Error("truncated block ", n);
  if (count < 0 || size < 0) {
    return Error("block ", n, " has a negative object count or size (", count, ", ", size, ")");
  }
  if (static_cast<uint64_t>(size) > d.remaining() ||
      d.remaining() - static_cast<size_t>(size) < kSyncSize) {
    return Error("truncated block ", n, " (", size, " bytes and a sync marker expected, ",
                 d.remaining(), " left)");
  }
  const std::string_view compressed(reinterpret_cast<const char*>(d.current()),
                                    static_cast<size_t>(size));
  if (std::memcmp(d.current() + size, sync_.data(), kSyncSize) != 0) {
    return Error("sync marker mismatch after block ", n);
  }
  next_block_ += d.position() + static_cast<size_t>(size) + kSyncSize;

  std::string_view raw = compressed;
  if (codec_->codec() != Codec::kNull) {
    Status st = codec_->Decompress(compressed, options_.max_block_size, &block_buffer_);
    if (!st.ok()) return Error(st.message(), " in block ", n);
    raw = block_buffer_;
  }
  zero_size_budget_ = options_.max_zero_size_items_per_block;
  const uint32_t min_size = datum_reader_->min_value_size();
  if (min_size > 0 ? static_cast<uint64_t>(count) > raw.size() / min_size
                   : count > zero_size_budget_) {
    return Error("block ", n, " claims ", count, " objects in ", raw.size(), " bytes");
  }
  if (min_size == 0) zero_size_budget_ -= count;
  if (count == 0 && !raw.empty()) {
    return Error("block ", n, " holds ", raw.size(), " bytes but no objects");
  }
  block_ = Decoder(raw);
  values_left_ = count;
  values_read_in_block_ = 0;
  return Status::OK();
}

Result<bool> ContainerReader::Next(Value* out) {
  return NextWith(
      [&](Decoder* decoder) { return datum_reader_->Read(decoder, out, &zero_size_budget_); });
}

Result<bool> ContainerReader::NextWith(const std::function<Status(Decoder*)>& decode) {
  if (!error_.ok()) return error_;
  while (values_left_ == 0) {
    ARROW_ASSIGN_OR_RAISE(bool more, NextBlock());
    if (!more) return false;
  }
  Status st = decode(&block_);
  if (!st.ok()) {
    return Fail(Error(st.message(), " in block ", block_number_, " (object ",
                      values_read_in_block_ + 1, ")"));
  }
  ++values_read_in_block_;
  if (--values_left_ == 0 && !block_.AtEnd()) {
    return Fail(Error("block ", block_number_, " has ", block_.remaining(),
                      " bytes after its last object"));
  }
  return true;
}

Result<std::vector<Value>> ContainerReader::ReadAll() {
  std::vector<Value> values;
  Value v;
  while (true) {
    ARROW_ASSIGN_OR_RAISE(bool more, Next(&v));
    if (!more) break;
    values.push_back(std::move(v));
  }
  return values;
}

}  // namespace floe::avro
