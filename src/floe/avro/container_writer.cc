#include "floe/avro/container_writer.h"

#include <random>

#include <arrow/io/interfaces.h>

#include "floe/avro/container_magic.h"

namespace floe::avro {

namespace {

std::array<uint8_t, 16> RandomSyncMarker() {
  std::random_device device;
  std::array<uint8_t, 16> sync;
  for (size_t i = 0; i < sync.size(); i += 4) {
    const uint32_t r = device();
    for (size_t k = 0; k < 4; ++k) sync[i + k] = static_cast<uint8_t>(r >> (8 * k));
  }
  return sync;
}

}  // namespace

ContainerWriter::~ContainerWriter() = default;

Result<std::unique_ptr<ContainerWriter>> ContainerWriter::Make(
    std::shared_ptr<arrow::io::OutputStream> out, std::shared_ptr<const Schema> schema,
    Codec codec, Metadata metadata, ContainerWriterOptions options) {
  if (out == nullptr) return Status::Invalid("Avro container writer needs an output stream");
  for (const auto& [key, value] : metadata) {
    if (key == "avro.schema" || key == "avro.codec") {
      return Status::Invalid("Avro metadata key '", key, "' is set by the writer");
    }
  }
  std::unique_ptr<ContainerWriter> writer(new ContainerWriter());
  ARROW_ASSIGN_OR_RAISE(writer->datum_writer_, DatumWriter::Make(schema));
  ARROW_ASSIGN_OR_RAISE(writer->codec_, BlockCodec::Make(codec, options.compression_level));
  writer->out_ = std::move(out);
  writer->sync_ = options.sync_marker ? *options.sync_marker : RandomSyncMarker();
  writer->options_ = std::move(options);

  Encoder header;
  header.WriteRaw(std::string_view(kContainerMagic, sizeof kContainerMagic));
  header.WriteBlockCount(static_cast<int64_t>(metadata.size()) + 2);
  header.WriteString("avro.schema");
  header.WriteBytes(schema->ToJson());
  header.WriteString("avro.codec");
  header.WriteBytes(CodecName(codec));
  for (const auto& [key, value] : metadata) {
    header.WriteString(key);
    header.WriteBytes(value);
  }
  header.WriteBlockCount(0);
  header.WriteFixed(std::string_view(reinterpret_cast<const char*>(writer->sync_.data()),
                                     writer->sync_.size()));
  ARROW_RETURN_NOT_OK(writer->WriteBytes(header.buffer()));
  return writer;
}

Status ContainerWriter::WriteBytes(const std::string& bytes) {
  ARROW_RETURN_NOT_OK(out_->Write(bytes.data(), static_cast<int64_t>(bytes.size())));
  bytes_written_ += static_cast<int64_t>(bytes.size());
  return Status::OK();
}

Status ContainerWriter::Write(const Value& value) {
  if (closed_) return Status::Invalid("Avro container writer is closed");
  ARROW_RETURN_NOT_OK(datum_writer_->Write(value, &block_));
  ++block_count_;
  ++values_written_;
  if (block_.size() >= options_.block_size) return Flush();
  return Status::OK();
}

Status ContainerWriter::Flush() {
  if (closed_) return Status::Invalid("Avro container writer is closed");
  if (block_count_ == 0) return Status::OK();
  compressed_.clear();
  ARROW_RETURN_NOT_OK(codec_->Compress(block_.buffer(), &compressed_));
  frame_.Clear();
  frame_.WriteLong(block_count_);
  frame_.WriteLong(static_cast<int64_t>(compressed_.size()));
  frame_.WriteRaw(compressed_);
  frame_.WriteFixed(std::string_view(reinterpret_cast<const char*>(sync_.data()), sync_.size()));
  ARROW_RETURN_NOT_OK(WriteBytes(frame_.buffer()));
  block_.Clear();
  block_count_ = 0;
  return Status::OK();
}

Status ContainerWriter::Close() {
  if (closed_) return Status::OK();
  ARROW_RETURN_NOT_OK(Flush());
  closed_ = true;
  return out_->Flush();
}

}  // namespace floe::avro
