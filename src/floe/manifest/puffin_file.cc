#include "floe/manifest/puffin_file.h"

#include <cstring>
#include <limits>
#include <utility>

#include <arrow/buffer.h>
#include <arrow/io/interfaces.h>
#include <rapidjson/document.h>

#include "floe/spec/json_document.h"
#include "floe/util/json_writer.h"

namespace floe::manifest {

namespace {

using rapidjson::Value;

constexpr char kMagic[4] = {'P', 'F', 'A', '1'};
constexpr int64_t kMagicSize = 4;
// What follows the footer's payload: its size, the flags, the magic.
constexpr int64_t kFooterStructSize = 12;
// The smallest Puffin file: the magic, then a footer with an empty payload.
constexpr int64_t kSmallestFile = kMagicSize + kMagicSize + kFooterStructSize;
// Flags byte 0, bit 0: the payload is LZ4-compressed. The spec defines no other flag.
constexpr uint32_t kFooterCompressed = 1;

template <typename... Args>
Status Invalid(const std::string& path, Args&&... args) {
  return Status::IOError("Invalid Puffin file ", path, ": ", std::forward<Args>(args)...);
}

uint32_t LoadLittleEndian32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}

std::string LittleEndian32(uint32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(v >> (8 * i));
  return out;
}

std::string_view Str(const Value& v) { return {v.GetString(), v.GetStringLength()}; }

// ---------------------------------------------------------------------------------------
// The footer's JSON, in the shapes of Java's FileMetadataParser. Errors name the file and,
// for a blob, its index.

Status ReadStringMap(const Value& v, const std::string& path, const std::string& where,
                     std::map<std::string, std::string>* out) {
  if (!v.IsObject()) return Invalid(path, where, " is not a JSON object");
  for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
    if (!m->value.IsString()) {
      return Invalid(path, where, " value of \"", Str(m->name), "\" is not a string");
    }
    if (!out->emplace(std::string(Str(m->name)), std::string(Str(m->value))).second) {
      return Invalid(path, where, " names \"", Str(m->name), "\" twice");
    }
  }
  return Status::OK();
}

Result<const Value*> Required(const Value& object, const char* name, const std::string& path,
                              const std::string& where) {
  auto m = object.FindMember(name);
  if (m == object.MemberEnd() || m->value.IsNull()) {
    return Invalid(path, where, " has no \"", name, "\"");
  }
  return &m->value;
}

Result<int64_t> RequiredLong(const Value& object, const char* name, const std::string& path,
                             const std::string& where) {
  ARROW_ASSIGN_OR_RAISE(const Value* v, Required(object, name, path, where));
  if (!v->IsInt64()) return Invalid(path, where, " \"", name, "\" is not a long");
  return v->GetInt64();
}

Result<PuffinBlobMetadata> ReadBlob(const Value& v, const std::string& path,
                                    const std::string& where) {
  if (!v.IsObject()) return Invalid(path, where, " is not a JSON object");
  PuffinBlobMetadata blob;
  ARROW_ASSIGN_OR_RAISE(const Value* type, Required(v, "type", path, where));
  if (!type->IsString()) return Invalid(path, where, " \"type\" is not a string");
  blob.type = std::string(Str(*type));
  ARROW_ASSIGN_OR_RAISE(const Value* fields, Required(v, "fields", path, where));
  if (!fields->IsArray()) return Invalid(path, where, " \"fields\" is not a list");
  for (const Value& field : fields->GetArray()) {
    if (!field.IsInt()) return Invalid(path, where, " \"fields\" holds a value that is not an int");
    blob.fields.push_back(field.GetInt());
  }
  ARROW_ASSIGN_OR_RAISE(blob.snapshot_id, RequiredLong(v, "snapshot-id", path, where));
  ARROW_ASSIGN_OR_RAISE(blob.sequence_number, RequiredLong(v, "sequence-number", path, where));
  ARROW_ASSIGN_OR_RAISE(blob.offset, RequiredLong(v, "offset", path, where));
  ARROW_ASSIGN_OR_RAISE(blob.length, RequiredLong(v, "length", path, where));
  auto codec = v.FindMember("compression-codec");
  if (codec != v.MemberEnd() && !codec->value.IsNull()) {
    if (!codec->value.IsString()) {
      return Invalid(path, where, " \"compression-codec\" is not a string");
    }
    blob.compression_codec = std::string(Str(codec->value));
  }
  auto properties = v.FindMember("properties");
  if (properties != v.MemberEnd()) {
    ARROW_RETURN_NOT_OK(
        ReadStringMap(properties->value, path, where + " \"properties\"", &blob.properties));
  }
  return blob;
}

// `blobs_end`: where the footer starts, so where every blob has ended.
Result<PuffinFooter> ReadFooterJson(std::string_view json, const std::string& path,
                                    int64_t blobs_end) {
  std::string buffer;
  rapidjson::Document doc;
  Status parsed = spec::ParseJsonDocument(json, &buffer, &doc);
  if (!parsed.ok()) return Invalid(path, "its footer is not JSON: ", parsed.message());
  const Value& root = doc;
  if (!root.IsObject()) return Invalid(path, "its footer is not a JSON object");
  PuffinFooter footer;
  ARROW_ASSIGN_OR_RAISE(const Value* blobs, Required(root, "blobs", path, "its footer"));
  if (!blobs->IsArray()) return Invalid(path, "its footer's \"blobs\" is not a list");
  for (rapidjson::SizeType i = 0; i < blobs->Size(); ++i) {
    const std::string where = StrCat("blobs[", i, "]");
    ARROW_ASSIGN_OR_RAISE(PuffinBlobMetadata blob, ReadBlob((*blobs)[i], path, where));
    if (blob.offset < kMagicSize || blob.length < 0 || blob.offset > blobs_end ||
        blob.length > blobs_end - blob.offset) {
      return Invalid(path, where, " has offset ", blob.offset, " and length ", blob.length,
                     ", outside the file's blobs (bytes ", kMagicSize, " to ", blobs_end, ")");
    }
    footer.blobs.push_back(std::move(blob));
  }
  auto properties = root.FindMember("properties");
  if (properties != root.MemberEnd()) {
    ARROW_RETURN_NOT_OK(
        ReadStringMap(properties->value, path, "its footer's \"properties\"", &footer.properties));
  }
  return footer;
}

void WriteStringMap(JsonWriter& json, const std::map<std::string, std::string>& map) {
  json.StartObject();
  for (const auto& [key, value] : map) json.Key(key).String(value);
  json.EndObject();
}

// FileMetadata as Java writes it: optional members only when they have something.
std::string FooterJson(const PuffinFooter& footer) {
  JsonWriter json;
  json.StartObject().Key("blobs").StartArray();
  for (const PuffinBlobMetadata& blob : footer.blobs) {
    json.StartObject().Key("type").String(blob.type).Key("fields").StartArray();
    for (int32_t field : blob.fields) json.Int64(field);
    json.EndArray()
        .Key("snapshot-id")
        .Int64(blob.snapshot_id)
        .Key("sequence-number")
        .Int64(blob.sequence_number)
        .Key("offset")
        .Int64(blob.offset)
        .Key("length")
        .Int64(blob.length);
    if (blob.compression_codec) json.Key("compression-codec").String(*blob.compression_codec);
    if (!blob.properties.empty()) WriteStringMap(json.Key("properties"), blob.properties);
    json.EndObject();
  }
  json.EndArray();
  if (!footer.properties.empty()) WriteStringMap(json.Key("properties"), footer.properties);
  json.EndObject();
  return json.Take();
}

Result<std::string> ReadRange(arrow::io::RandomAccessFile& file, int64_t offset, int64_t length,
                              const std::string& context) {
  auto bytes = file.ReadAt(offset, length);
  if (!bytes.ok()) return WithContext(bytes.status(), context);
  if ((*bytes)->size() != length) {
    return Status::IOError(context, ": expected ", length, " bytes at offset ", offset, ", read ",
                           (*bytes)->size());
  }
  return (*bytes)->ToString();
}

}  // namespace

PuffinBlobMetadata DeletionVectorBlobMetadata(const std::string& referenced_data_file,
                                              int64_t cardinality) {
  PuffinBlobMetadata blob;
  blob.type = std::string(kDeletionVectorBlobType);
  blob.fields = {kRowPositionFieldId};
  blob.properties = {{"referenced-data-file", referenced_data_file},
                     {"cardinality", std::to_string(cardinality)}};
  return blob;
}

Result<std::unique_ptr<PuffinWriter>> PuffinWriter::Make(
    FileIO& io, std::string location, std::map<std::string, std::string> properties) {
  std::unique_ptr<PuffinWriter> writer(new PuffinWriter());
  writer->location_ = std::move(location);
  writer->footer_.properties = std::move(properties);
  writer->footer_.properties.emplace("created-by", "floe");
  ARROW_ASSIGN_OR_RAISE(writer->sink_, io.OpenOutputStream(writer->location_, FileKind::kDelete));
  ARROW_RETURN_NOT_OK(writer->sink_->Write(kMagic, kMagicSize));
  writer->position_ = kMagicSize;
  return writer;
}

PuffinWriter::~PuffinWriter() {
  // FileIO's streams remove their file when dropped unclosed; say so rather than rely on it.
  if (sink_ != nullptr && !finished_) (void)sink_->Abort();
}

Status PuffinWriter::CheckWritable() const {
  if (finished_) return Status::Invalid("Puffin file ", location_, " is already finished");
  if (failed_) return Status::Invalid("Puffin file ", location_, " failed to write earlier");
  return Status::OK();
}

// A write that failed may have written part of its bytes: nothing more may follow them.
Status PuffinWriter::Failed(Status status) {
  if (!status.ok()) failed_ = true;
  return status;
}

Result<PuffinWriter::BlobPlacement> PuffinWriter::Add(PuffinBlobMetadata metadata,
                                                      std::string_view bytes) {
  ARROW_RETURN_NOT_OK(CheckWritable());
  BlobPlacement placement{position_, static_cast<int64_t>(bytes.size())};
  ARROW_RETURN_NOT_OK(Failed(sink_->Write(bytes.data(), placement.length)));
  position_ += placement.length;
  metadata.offset = placement.offset;
  metadata.length = placement.length;
  footer_.blobs.push_back(std::move(metadata));
  return placement;
}

Result<PuffinWriter::FileSize> PuffinWriter::Finish() {
  ARROW_RETURN_NOT_OK(CheckWritable());
  const std::string payload = FooterJson(footer_);
  if (payload.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return Status::Invalid("Puffin file ", location_, ": its footer would take ", payload.size(),
                           " bytes, more than a Puffin footer can");
  }
  std::string footer;
  footer.reserve(kMagicSize + payload.size() + kFooterStructSize);
  footer.append(kMagic, kMagicSize)
      .append(payload)
      .append(LittleEndian32(static_cast<uint32_t>(payload.size())))
      .append(LittleEndian32(0))  // flags: not compressed
      .append(kMagic, kMagicSize);
  ARROW_RETURN_NOT_OK(Failed(sink_->Write(footer.data(), static_cast<int64_t>(footer.size()))));
  ARROW_RETURN_NOT_OK(Failed(sink_->Close()));
  finished_ = true;
  const auto footer_size = static_cast<int64_t>(footer.size());
  return FileSize{position_ + footer_size, footer_size};
}

Result<PuffinFooter> ReadPuffinFooter(FileIO& io, const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(auto file, io.OpenInputFile(path, FileKind::kDelete));
  const std::string context = StrCat("Cannot read file ", path);
  auto size_or = file->GetSize();
  if (!size_or.ok()) return WithContext(size_or.status(), context);
  const int64_t size = *size_or;
  if (size < kSmallestFile) {
    return Invalid(path, "it has ", size, " bytes, fewer than the ", kSmallestFile,
                   " of a Puffin file without blobs");
  }
  ARROW_ASSIGN_OR_RAISE(std::string head, ReadRange(*file, 0, kMagicSize, context));
  if (std::memcmp(head.data(), kMagic, kMagicSize) != 0) {
    return Invalid(path, "it does not start with the magic PFA1");
  }
  ARROW_ASSIGN_OR_RAISE(std::string tail,
                        ReadRange(*file, size - kFooterStructSize, kFooterStructSize, context));
  if (std::memcmp(tail.data() + 8, kMagic, kMagicSize) != 0) {
    return Invalid(path, "it does not end with the magic PFA1");
  }
  const auto payload_size = static_cast<int32_t>(LoadLittleEndian32(tail.data()));
  if (payload_size < 0 || payload_size > size - kSmallestFile) {
    return Invalid(path, "its footer payload size ", payload_size, " does not fit in its ", size,
                   " bytes");
  }
  const int64_t footer_start = size - kFooterStructSize - payload_size - kMagicSize;
  ARROW_ASSIGN_OR_RAISE(std::string footer,
                        ReadRange(*file, footer_start, kMagicSize + payload_size, context));
  if (std::memcmp(footer.data(), kMagic, kMagicSize) != 0) {
    return Invalid(path, "its footer does not start with the magic PFA1 (payload size ",
                   payload_size, ")");
  }
  // Flags are read once the footer's frame holds, so a damaged file is not taken for a
  // compressed one.
  const uint32_t flags = LoadLittleEndian32(tail.data() + 4);
  if ((flags & kFooterCompressed) != 0) {
    return Status::IOError("Cannot read Puffin file ", path,
                           ": its footer is LZ4-compressed, which floe does not read");
  }
  if (flags != 0) {
    return Invalid(path, "its footer sets flags floe does not know (", flags, ")");
  }
  ARROW_RETURN_NOT_OK(WithContext(file->Close(), context));
  return ReadFooterJson(std::string_view(footer).substr(kMagicSize), path, footer_start);
}

}  // namespace floe::manifest
