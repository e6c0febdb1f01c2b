#include "floe/manifest/manifest_reader.h"

#include <algorithm>
#include <unordered_map>

#include <arrow/buffer.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "floe/avro/container_reader.h"
#include "floe/avro/container_writer.h"
#include "floe/manifest/avro_schemas.h"
#include "floe/manifest/entry_decoder.h"
#include "floe/manifest/inheritance.h"
#include "floe/manifest/manifest_columns.h"

namespace floe::manifest {

namespace {

// Field positions of a record schema, by Iceberg field id.
std::unordered_map<int32_t, size_t> FieldsById(const avro::Schema& schema, const avro::Node& node) {
  std::unordered_map<int32_t, size_t> out;
  const avro::Node& record = schema.Resolve(node);
  for (size_t i = 0; i < record.fields.size(); ++i) {
    if (auto id = record.fields[i].field_id()) out[*id] = i;
  }
  return out;
}

// The record node inside an optional union (or the node itself).
const avro::Node& NonNull(const avro::Schema& schema, const avro::Node& node) {
  const avro::Node& n = schema.Resolve(node);
  if (n.type != avro::Type::kUnion) return n;
  for (const auto& branch : n.children) {
    const avro::Node& b = schema.Resolve(branch);
    if (b.type != avro::Type::kNull) return b;
  }
  return n;
}

class Fields {
 public:
  Fields(const avro::Value& record, const std::unordered_map<int32_t, size_t>& ids)
      : record_(record), ids_(ids) {}
  const avro::Value* Get(int32_t id) const {
    auto it = ids_.find(id);
    if (it == ids_.end() || it->second >= record_.size()) return nullptr;
    const avro::Value& v = record_.field(it->second);
    return v.IsNull() ? nullptr : &v;
  }

 private:
  const avro::Value& record_;
  const std::unordered_map<int32_t, size_t>& ids_;
};

Status Corrupt(const std::string& path, const std::string& what) {
  return Status::IOError("Invalid manifest file ", path, ": ", what);
}

Result<std::string> GetBytes(const avro::Value& v) {
  ARROW_ASSIGN_OR_RAISE(auto s, v.GetBytes());
  return std::string(s);
}

// A large manifest's entries fill tens of megabytes that are written once, front to back:
// backed by huge pages they fault in 2 MB at a time instead of 4 KB.
void AdviseHugePages(void* data, size_t bytes) {
#ifdef MADV_HUGEPAGE
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  if (bytes < 2 * kHuge) return;
  const auto start = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const auto end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (end > start) madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

// How many entries the manifest list says a manifest has (zero when a writer left it out).
size_t ListedEntries(const ManifestFile& manifest) {
  return static_cast<size_t>(std::max<int64_t>(
      0, int64_t{manifest.added_files_count} + manifest.existing_files_count + manifest.deleted_files_count));
}

// A manifest opened for decoding: its container, the spec it was written with and a
// decoder for its entries.
struct OpenedManifest {
  std::unique_ptr<avro::ContainerReader> reader;
  std::unique_ptr<EntryDecoder> decoder;
  int32_t spec_id = 0;
  bool v1 = false;  // no sequence numbers: all are 0
};

Result<OpenedManifest> OpenManifest(FileIO& io, const ManifestFile& manifest, const spec::TableMetadata& metadata,
                                    const ReadManifestOptions& options) {
  const std::string& path = manifest.manifest_path;
  std::optional<int64_t> length;
  if (manifest.manifest_length > 0) length = manifest.manifest_length;
  ARROW_ASSIGN_OR_RAISE(auto buffer, io.ReadFile(path, FileKind::kManifest, length));
  OpenedManifest opened;
  ARROW_ASSIGN_OR_RAISE(opened.reader, avro::ContainerReader::Open(buffer, path));
  const avro::ContainerReader& reader = *opened.reader;
  const avro::Schema& schema = *reader.schema();
  const avro::Node& root = schema.Resolve(schema.root());
  if (root.type != avro::Type::kRecord) return Corrupt(path, "entries are not records");
  // Partition values are typed by the spec the manifest was written with.
  opened.spec_id = manifest.partition_spec_id;
  if (const std::string* s = reader.FindMetadata("partition-spec-id")) {
    try {
      opened.spec_id = std::stoi(*s);
    } catch (...) {
    }
  }
  const spec::PartitionSpec* spec = metadata.SpecById(opened.spec_id);
  if (!spec) return Corrupt(path, "unknown partition spec id " + std::to_string(opened.spec_id));
  spec::SchemaPtr table_schema = metadata.current_schema();
  if (const std::string* s = reader.FindMetadata("schema")) {
    auto parsed = spec::SchemaFromJson(*s);
    if (parsed.ok()) table_schema = *parsed;
  }
  ARROW_ASSIGN_OR_RAISE(auto partition_type, spec->PartitionType(*table_schema));
  ARROW_ASSIGN_OR_RAISE(opened.decoder, EntryDecoder::Make(reader.schema(), partition_type, options.projection));
  opened.v1 = metadata.format_version == 1 || manifest.sequence_number == 0;
  return opened;
}

Result<std::vector<ManifestEntry>> ReadManifestImpl(FileIO& io, const ManifestFile& manifest,
                                                    const spec::TableMetadata& metadata,
                                                    const ReadManifestOptions& options) {
  const std::string& path = manifest.manifest_path;
  ARROW_ASSIGN_OR_RAISE(OpenedManifest opened, OpenManifest(io, manifest, metadata, options));
  std::vector<ManifestEntry> entries;
  // The manifest list knows how many entries there are (zero when a writer left it out).
  entries.reserve(ListedEntries(manifest));
  AdviseHugePages(entries.data(), entries.capacity() * sizeof(ManifestEntry));
  // Entries are decoded in place: no temporary to reset and move per entry.
  auto decode = [&](avro::Decoder* d) { return opened.decoder->DecodeNew(d, &entries.emplace_back()); };
  while (true) {
    ARROW_ASSIGN_OR_RAISE(bool more, opened.reader->NextWith(decode));
    if (!more) break;
    ManifestEntry& e = entries.back();
    if (e.data_file.file_path.empty()) return Corrupt(path, "data file without file_path");
    e.data_file.spec_id = opened.spec_id;
    InheritSequenceNumbers(manifest, opened.v1, e.status, e.snapshot_id, e.sequence_number, e.file_sequence_number);
  }
  FirstRowIds row_ids(manifest);
  for (auto& e : entries) {
    DataFile& f = e.data_file;
    if (auto id = row_ids.Next(e.status, f.content, f.first_row_id.has_value(), f.record_count)) f.first_row_id = id;
  }
  return entries;
}

Status WithPath(const Status& st, const std::string& path) {
  if (st.ok() || st.message().find(path) != std::string::npos) return st;
  return Status(st.code(), "Invalid manifest file " + path + ": " + st.message(), st.detail());
}

}  // namespace

Result<std::vector<ManifestEntry>> ReadManifest(FileIO& io, const ManifestFile& manifest,
                                                const spec::TableMetadata& metadata,
                                                const ReadManifestOptions& options) {
  auto result = ReadManifestImpl(io, manifest, metadata, options);
  if (!result.ok()) return WithPath(result.status(), manifest.manifest_path);
  return result;
}

Result<std::shared_ptr<const ManifestColumns>> ReadManifestColumns(FileIO& io, const ManifestFile& manifest,
                                                                  const spec::TableMetadata& metadata,
                                                                  const ReadManifestOptions& options) {
  auto read = [&]() -> Result<std::shared_ptr<const ManifestColumns>> {
    ARROW_ASSIGN_OR_RAISE(OpenedManifest opened, OpenManifest(io, manifest, metadata, options));
    auto columns = std::make_shared<ManifestColumns>();
    ARROW_RETURN_NOT_OK(opened.decoder->DecodeAll(opened.reader.get(), ListedEntries(manifest), columns.get()));
    columns->Inherit(manifest, opened.spec_id, opened.v1);
    return columns;
  };
  auto result = read();
  if (!result.ok()) return WithPath(result.status(), manifest.manifest_path);
  return result;
}

Status WriteManifestList(FileIO& io, const std::string& location, int64_t snapshot_id,
                         std::optional<int64_t> parent_snapshot_id, int64_t sequence_number,
                         const std::vector<ManifestFile>& manifests, int32_t format_version,
                         const std::string& codec, ManifestListRowIds* row_ids) {
  if (format_version != 2 && format_version != 3) {
    return Status::NotImplemented("Writing format version ", format_version, " manifest lists");
  }
  const bool v3 = format_version >= 3;
  if (v3 && !row_ids) return Status::Invalid("A format-version 3 manifest list needs its first row id");
  ARROW_ASSIGN_OR_RAISE(auto schema, ManifestListSchema(format_version));
  ARROW_ASSIGN_OR_RAISE(auto avro_codec, avro::CodecFromName(codec));
  avro::Metadata metadata = {
      {"snapshot-id", std::to_string(snapshot_id)},
      {"parent-snapshot-id", parent_snapshot_id ? std::to_string(*parent_snapshot_id) : "null"},
      {"sequence-number", std::to_string(sequence_number)},
      {"format-version", std::to_string(format_version)},
  };
  if (v3) {
    metadata.emplace_back("first-row-id", std::to_string(row_ids->first_row_id));
    row_ids->assigned = 0;
  }
  ARROW_ASSIGN_OR_RAISE(auto sink, io.OpenOutputStream(location, FileKind::kManifestList));
  ARROW_ASSIGN_OR_RAISE(auto writer,
                        avro::ContainerWriter::Make(sink, schema, avro_codec, metadata));
  auto optional_bytes = [](const std::optional<std::string>& v) {
    return v ? avro::Value::Union(1, avro::Value::Bytes(*v))
             : avro::Value::Union(0, avro::Value::Null());
  };
  for (const auto& m : manifests) {
    int64_t seq =
        m.sequence_number == kUnassignedSequenceNumber ? sequence_number : m.sequence_number;
    int64_t min_seq = m.min_sequence_number == kUnassignedSequenceNumber ? sequence_number
                                                                         : m.min_sequence_number;
    std::vector<avro::Value> partitions;
    for (const auto& p : m.partitions) {
      partitions.push_back(avro::Value::Record({
          avro::Value::Bool(p.contains_null),
          p.contains_nan ? avro::Value::Union(1, avro::Value::Bool(*p.contains_nan))
                         : avro::Value::Union(0, avro::Value::Null()),
          optional_bytes(p.lower_bound),
          optional_bytes(p.upper_bound),
      }));
    }
    std::vector<avro::Value> fields = {
        avro::Value::String(m.manifest_path),
        avro::Value::Long(m.manifest_length),
        avro::Value::Int(m.partition_spec_id),
        avro::Value::Int(static_cast<int32_t>(m.content)),
        avro::Value::Long(seq),
        avro::Value::Long(min_seq),
        avro::Value::Long(m.added_snapshot_id),
        avro::Value::Int(m.added_files_count),
        avro::Value::Int(m.existing_files_count),
        avro::Value::Int(m.deleted_files_count),
        avro::Value::Long(m.added_rows_count),
        avro::Value::Long(m.existing_rows_count),
        avro::Value::Long(m.deleted_rows_count),
        avro::Value::Union(1, avro::Value::Array(std::move(partitions))),
        optional_bytes(m.key_metadata),
    };
    if (v3) {
      std::optional<int64_t> first_row_id = m.first_row_id;
      if (!first_row_id && m.content == ManifestContent::kData) {
        first_row_id = row_ids->first_row_id + row_ids->assigned;
        row_ids->assigned += m.added_rows_count + m.existing_rows_count;
      }
      fields.push_back(first_row_id ? avro::Value::Union(1, avro::Value::Long(*first_row_id))
                                    : avro::Value::Union(0, avro::Value::Null()));
    }
    ARROW_RETURN_NOT_OK(writer->Write(avro::Value::Record(std::move(fields))));
  }
  ARROW_RETURN_NOT_OK(writer->Close());
  return sink->Close();
}

Result<std::vector<ManifestFile>> ReadManifestList(FileIO& io, const std::string& location) {
  ARROW_ASSIGN_OR_RAISE(auto buffer, io.ReadFile(location, FileKind::kManifestList));
  auto read = [&]() -> Result<std::vector<ManifestFile>> {
    ARROW_ASSIGN_OR_RAISE(auto reader, avro::ContainerReader::Open(buffer, location));
    const avro::Schema& schema = *reader->schema();
    const avro::Node& root = schema.Resolve(schema.root());
    if (root.type != avro::Type::kRecord) return Status::IOError("entries are not records");
    auto ids = FieldsById(schema, root);
    std::unordered_map<int32_t, size_t> summary_ids;
    auto partitions_it = ids.find(507);
    if (partitions_it != ids.end()) {
      const avro::Node& array = NonNull(schema, root.fields[partitions_it->second].type);
      if (array.type == avro::Type::kArray) summary_ids = FieldsById(schema, array.items());
    }
    std::vector<ManifestFile> out;
    avro::Value value;
    while (true) {
      ARROW_ASSIGN_OR_RAISE(bool more, reader->Next(&value));
      if (!more) break;
      Fields f(value, ids);
      ManifestFile m;
      const avro::Value* path = f.Get(500);
      if (!path) return Status::IOError("manifest entry without manifest_path");
      ARROW_ASSIGN_OR_RAISE(auto path_text, path->GetString());
      m.manifest_path = std::string(path_text);
      if (auto* v = f.Get(501)) {
        ARROW_ASSIGN_OR_RAISE(m.manifest_length, v->GetInt64());
      }
      if (auto* v = f.Get(502)) {
        ARROW_ASSIGN_OR_RAISE(m.partition_spec_id, v->GetInt32());
      }
      if (auto* v = f.Get(517)) {
        ARROW_ASSIGN_OR_RAISE(int32_t content, v->GetInt32());
        if (content < 0 || content > 1) return Status::IOError("invalid manifest content");
        m.content = static_cast<ManifestContent>(content);
      }
      if (auto* v = f.Get(515)) {
        ARROW_ASSIGN_OR_RAISE(m.sequence_number, v->GetInt64());
      }
      if (auto* v = f.Get(516)) {
        ARROW_ASSIGN_OR_RAISE(m.min_sequence_number, v->GetInt64());
      }
      if (auto* v = f.Get(503)) {
        ARROW_ASSIGN_OR_RAISE(m.added_snapshot_id, v->GetInt64());
      }
      if (auto* v = f.Get(504)) {
        ARROW_ASSIGN_OR_RAISE(m.added_files_count, v->GetInt32());
      }
      if (auto* v = f.Get(505)) {
        ARROW_ASSIGN_OR_RAISE(m.existing_files_count, v->GetInt32());
      }
      if (auto* v = f.Get(506)) {
        ARROW_ASSIGN_OR_RAISE(m.deleted_files_count, v->GetInt32());
      }
      if (auto* v = f.Get(512)) {
        ARROW_ASSIGN_OR_RAISE(m.added_rows_count, v->GetInt64());
      }
      if (auto* v = f.Get(513)) {
        ARROW_ASSIGN_OR_RAISE(m.existing_rows_count, v->GetInt64());
      }
      if (auto* v = f.Get(514)) {
        ARROW_ASSIGN_OR_RAISE(m.deleted_rows_count, v->GetInt64());
      }
      if (auto* v = f.Get(507)) {
        for (const auto& item : v->items()) {
          Fields s(item, summary_ids);
          PartitionFieldSummary summary;
          if (auto* x = s.Get(509)) {
            ARROW_ASSIGN_OR_RAISE(summary.contains_null, x->GetBool());
          }
          if (auto* x = s.Get(518)) {
            ARROW_ASSIGN_OR_RAISE(summary.contains_nan, x->GetBool());
          }
          if (auto* x = s.Get(510)) {
            ARROW_ASSIGN_OR_RAISE(summary.lower_bound, GetBytes(*x));
          }
          if (auto* x = s.Get(511)) {
            ARROW_ASSIGN_OR_RAISE(summary.upper_bound, GetBytes(*x));
          }
          m.partitions.push_back(std::move(summary));
        }
      }
      if (auto* v = f.Get(519)) {
        ARROW_ASSIGN_OR_RAISE(m.key_metadata, GetBytes(*v));
      }
      if (auto* v = f.Get(520)) {
        ARROW_ASSIGN_OR_RAISE(m.first_row_id, v->GetInt64());
      }
      out.push_back(std::move(m));
    }
    return out;
  };
  auto result = read();
  if (!result.ok()) {
    const auto& st = result.status();
    if (st.message().find(location) != std::string::npos) return st;
    return Status(st.code(), "Invalid manifest list " + location + ": " + st.message(),
                  st.detail());
  }
  return result;
}

}  // namespace floe::manifest
