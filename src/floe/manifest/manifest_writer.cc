#include "floe/manifest/manifest_writer.h"

#include <arrow/io/interfaces.h>

#include "floe/avro/container_writer.h"
#include "floe/manifest/avro_schemas.h"
#include "floe/spec/table_metadata.h"

namespace floe::manifest {

namespace {

avro::Value OptionalLong(std::optional<int64_t> v) {
  return v ? avro::Value::Union(1, avro::Value::Long(*v)) : avro::Value::Union(0, avro::Value::Null());
}

// An empty map is written as null unless `keep_empty` (it was read as an empty map).
template <typename V, typename MakeValue>
avro::Value OptionalIntMap(const IdMap<V>& map, bool keep_empty, MakeValue make) {
  if (map.empty() && !keep_empty) return avro::Value::Union(0, avro::Value::Null());
  std::vector<avro::Value> items;
  items.reserve(map.size());
  for (const auto& [k, v] : map) {
    items.push_back(avro::Value::Record({avro::Value::Int(k), make(v)}));
  }
  return avro::Value::Union(1, avro::Value::Array(std::move(items)));
}

avro::Value DataFileToAvro(const DataFile& f, int32_t format_version) {
  std::vector<avro::Value> partition;
  partition.reserve(f.partition.size());
  for (const auto& p : f.partition) partition.push_back(LiteralToAvro(p));
  auto long_value = [](int64_t v) { return avro::Value::Long(v); };
  auto bytes_value = [](const std::string& v) { return avro::Value::Bytes(v); };
  std::vector<avro::Value> split_offsets, equality_ids;
  for (int64_t o : f.split_offsets) split_offsets.push_back(avro::Value::Long(o));
  for (int32_t id : f.equality_ids) equality_ids.push_back(avro::Value::Int(id));
  std::vector<avro::Value> fields = {
      avro::Value::Int(static_cast<int32_t>(f.content)),
      avro::Value::String(f.file_path),
      avro::Value::String(f.file_format),
      avro::Value::Record(std::move(partition)),
      avro::Value::Long(f.record_count),
      avro::Value::Long(f.file_size_in_bytes),
      OptionalIntMap(f.column_sizes, f.empty_metric_maps & kColumnSizesMap, long_value),
      OptionalIntMap(f.value_counts, f.empty_metric_maps & kValueCountsMap, long_value),
      OptionalIntMap(f.null_value_counts, f.empty_metric_maps & kNullValueCountsMap, long_value),
      OptionalIntMap(f.nan_value_counts, f.empty_metric_maps & kNanValueCountsMap, long_value),
      OptionalIntMap(f.lower_bounds, f.empty_metric_maps & kLowerBoundsMap, bytes_value),
      OptionalIntMap(f.upper_bounds, f.empty_metric_maps & kUpperBoundsMap, bytes_value),
      f.key_metadata ? avro::Value::Union(1, avro::Value::Bytes(*f.key_metadata))
                     : avro::Value::Union(0, avro::Value::Null()),
      f.split_offsets.empty() ? avro::Value::Union(0, avro::Value::Null())
                              : avro::Value::Union(1, avro::Value::Array(std::move(split_offsets))),
      f.equality_ids.empty() ? avro::Value::Union(0, avro::Value::Null())
                             : avro::Value::Union(1, avro::Value::Array(std::move(equality_ids))),
      f.sort_order_id ? avro::Value::Union(1, avro::Value::Int(*f.sort_order_id))
                      : avro::Value::Union(0, avro::Value::Null()),
  };
  if (format_version >= 3) {
    fields.push_back(OptionalLong(f.first_row_id));
    fields.push_back(f.referenced_data_file ? avro::Value::Union(1, avro::Value::String(*f.referenced_data_file))
                                            : avro::Value::Union(0, avro::Value::Null()));
    fields.push_back(OptionalLong(f.content_offset));
    fields.push_back(OptionalLong(f.content_size_in_bytes));
  }
  return avro::Value::Record(std::move(fields));
}

// Tracks one partition field's summary for the manifest list.
struct SummaryBuilder {
  PartitionFieldSummary summary;
  std::optional<spec::Literal> lower, upper;

  void Add(const spec::Literal& v) {
    if (v.is_null()) {
      summary.contains_null = true;
      return;
    }
    auto id = v.type()->id();
    if (id == spec::TypeId::kFloat || id == spec::TypeId::kDouble) {
      double d = id == spec::TypeId::kFloat ? v.get<float>() : v.get<double>();
      if (d != d) {
        summary.contains_nan = true;
        return;
      }
    }
    if (!lower || v.Compare(*lower) < 0) lower = v;
    if (!upper || v.Compare(*upper) > 0) upper = v;
  }

  PartitionFieldSummary Finish() const {
    PartitionFieldSummary out = summary;
    if (!out.contains_nan) out.contains_nan = false;
    if (lower) out.lower_bound = spec::ToSingleValueBinary(*lower);
    if (upper) out.upper_bound = spec::ToSingleValueBinary(*upper);
    return out;
  }
};

}  // namespace

ManifestWriter::~ManifestWriter() = default;

Result<std::unique_ptr<ManifestWriter>> ManifestWriter::Make(
    std::shared_ptr<FileIO> io, std::string location, const spec::Schema& schema,
    const spec::PartitionSpec& spec, int64_t snapshot_id, ManifestContent content,
    int32_t format_version, std::string codec) {
  if (format_version != 2 && format_version != 3) {
    return Status::NotImplemented("Writing format version ", format_version, " manifests");
  }
  std::unique_ptr<ManifestWriter> w(new ManifestWriter());
  w->io_ = io;
  w->location_ = std::move(location);
  w->spec_ = spec;
  w->snapshot_id_ = snapshot_id;
  w->content_ = content;
  w->format_version_ = format_version;
  ARROW_ASSIGN_OR_RAISE(w->partition_type_, spec.PartitionType(schema));
  ARROW_ASSIGN_OR_RAISE(auto avro_schema, ManifestEntrySchema(*w->partition_type_, format_version));
  ARROW_ASSIGN_OR_RAISE(auto avro_codec, avro::CodecFromName(codec));
  avro::Metadata metadata = {
      {"schema", spec::SchemaToJson(schema)},
      {"schema-id", std::to_string(schema.schema_id())},
      {"partition-spec", spec::PartitionFieldsToJson(spec)},
      {"partition-spec-id", std::to_string(spec.spec_id())},
      {"format-version", std::to_string(format_version)},
      {"content", content == ManifestContent::kData ? "data" : "deletes"},
  };
  ARROW_ASSIGN_OR_RAISE(w->sink_, io->OpenOutputStream(w->location_, FileKind::kManifest));
  ARROW_ASSIGN_OR_RAISE(w->writer_, avro::ContainerWriter::Make(w->sink_, avro_schema, avro_codec,
                                                                std::move(metadata)));
  w->result_.manifest_path = w->location_;
  w->result_.partition_spec_id = spec.spec_id();
  w->result_.content = content;
  w->result_.added_snapshot_id = snapshot_id;
  return w;
}

Status ManifestWriter::Write(const ManifestEntry& entry) {
  if (closed_) return Status::Invalid("Manifest ", location_, " is already closed");
  if (entry.data_file.partition.size() != spec_.fields().size()) {
    return Status::Invalid("Data file ", entry.data_file.file_path, " has ",
                           entry.data_file.partition.size(), " partition values, spec ",
                           spec_.spec_id(), " has ", spec_.fields().size(), " fields");
  }
  avro::Value value = avro::Value::Record({
      avro::Value::Int(static_cast<int32_t>(entry.status)),
      OptionalLong(entry.snapshot_id),
      OptionalLong(entry.sequence_number),
      OptionalLong(entry.file_sequence_number),
      DataFileToAvro(entry.data_file, format_version_),
  });
  ARROW_RETURN_NOT_OK(writer_->Write(value));
  const int64_t rows = entry.data_file.record_count;
  switch (entry.status) {
    case EntryStatus::kAdded:
      ++result_.added_files_count;
      result_.added_rows_count += rows;
      break;
    case EntryStatus::kExisting:
      ++result_.existing_files_count;
      result_.existing_rows_count += rows;
      break;
    case EntryStatus::kDeleted:
      ++result_.deleted_files_count;
      result_.deleted_rows_count += rows;
      break;
  }
  if (entry.status != EntryStatus::kDeleted && entry.sequence_number) {
    if (!min_sequence_number_ || *entry.sequence_number < *min_sequence_number_) {
      min_sequence_number_ = entry.sequence_number;
    }
  }
  if (result_.partitions.empty() && !spec_.fields().empty()) {
    result_.partitions.resize(spec_.fields().size());
  }
  return Status::OK();
}

Status ManifestWriter::Add(const DataFile& file) {
  ManifestEntry entry;
  entry.status = EntryStatus::kAdded;
  entry.snapshot_id = snapshot_id_;
  entry.data_file = file;
  ARROW_RETURN_NOT_OK(Write(entry));
  partition_values_.push_back(file.partition);
  return Status::OK();
}

Status ManifestWriter::Add(const DataFile& file, int64_t data_sequence_number) {
  ManifestEntry entry;
  entry.status = EntryStatus::kAdded;
  entry.snapshot_id = snapshot_id_;
  entry.sequence_number = data_sequence_number;
  entry.data_file = file;
  ARROW_RETURN_NOT_OK(Write(entry));
  partition_values_.push_back(file.partition);
  return Status::OK();
}

Status ManifestWriter::Existing(const ManifestEntry& entry) {
  ManifestEntry e = entry;
  e.status = EntryStatus::kExisting;
  ARROW_RETURN_NOT_OK(Write(e));
  partition_values_.push_back(entry.data_file.partition);
  return Status::OK();
}

Status ManifestWriter::Delete(const ManifestEntry& entry) {
  ManifestEntry e = entry;
  e.status = EntryStatus::kDeleted;
  e.snapshot_id = snapshot_id_;
  ARROW_RETURN_NOT_OK(Write(e));
  partition_values_.push_back(entry.data_file.partition);
  return Status::OK();
}

Result<ManifestFile> ManifestWriter::Close() {
  if (closed_) return Status::Invalid("Manifest ", location_, " is already closed");
  closed_ = true;
  ARROW_RETURN_NOT_OK(writer_->Close());
  ARROW_ASSIGN_OR_RAISE(result_.manifest_length, sink_->Tell());
  ARROW_RETURN_NOT_OK(sink_->Close());
  std::vector<SummaryBuilder> summaries(spec_.fields().size());
  for (const auto& tuple : partition_values_) {
    for (size_t i = 0; i < tuple.size() && i < summaries.size(); ++i) summaries[i].Add(tuple[i]);
  }
  result_.partitions.clear();
  for (const auto& s : summaries) result_.partitions.push_back(s.Finish());
  result_.sequence_number = kUnassignedSequenceNumber;
  result_.min_sequence_number = min_sequence_number_.value_or(kUnassignedSequenceNumber);
  return result_;
}

}  // namespace floe::manifest
