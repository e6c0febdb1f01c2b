#include "floe/scan/table_scan.h"

#include <algorithm>
#include <unordered_map>

#include <arrow/io/interfaces.h>
#include <arrow/table.h>
#include <arrow/util/parallel.h>
#include <arrow/util/thread_pool.h>

#include "floe/io/read_pool.h"
#include "floe/manifest/manifest_cache.h"
#include "floe/manifest/manifest_reader.h"
#include "floe/manifest/partition_key.h"
#include "floe/scan/equality_deletes.h"
#include "floe/scan/metadata_columns.h"
#include "floe/scan/position_deletes.h"
#include "floe/scan/row_group_stream.h"
#include "floe/table/arrow_schema.h"

namespace floe::scan {

TableScan& TableScan::UseSnapshot(int64_t snapshot_id) {
  snapshot_id_ = snapshot_id;
  return *this;
}

TableScan& TableScan::UseRef(std::string ref) {
  ref_ = std::move(ref);
  return *this;
}

TableScan& TableScan::Filter(std::vector<ColumnPredicate> predicates) {
  predicates_ = std::move(predicates);
  return *this;
}

TableScan& TableScan::IncludeColumnStats(std::vector<int32_t> field_ids) {
  stats_columns_ = std::move(field_ids);
  return *this;
}

TableScan& TableScan::IncludeColumnStats() {
  all_stats_ = true;
  return *this;
}

TableScan& TableScan::Select(std::vector<std::string> columns) {
  columns_ = std::move(columns);
  return *this;
}

Result<const spec::Snapshot*> TableScan::ResolveSnapshot(const spec::TableMetadata& md) const {
  if (snapshot_id_ && ref_) {
    return ValidationError("Cannot scan ", table_->name(), " by both snapshot id and ref");
  }
  if (snapshot_id_) {
    const spec::Snapshot* snap = md.SnapshotById(*snapshot_id_);
    if (!snap) return NotFound("Cannot find snapshot with ID ", *snapshot_id_, " in table ", table_->name());
    return snap;
  }
  if (ref_) {
    auto it = md.refs.find(*ref_);
    if (it == md.refs.end()) return NotFound("Cannot find ref ", *ref_, " in table ", table_->name());
    const spec::Snapshot* snap = md.SnapshotById(it->second.snapshot_id);
    if (!snap) return Status::Invalid("Ref ", *ref_, " of ", table_->name(), " points to missing snapshot ",
                                      it->second.snapshot_id);
    return snap;
  }
  return md.current_snapshot();
}

Result<spec::SchemaPtr> TableScan::SnapshotSchema(const spec::TableMetadata& md) const {
  bool use_snapshot_schema = snapshot_id_.has_value();
  if (ref_) {
    auto it = md.refs.find(*ref_);
    use_snapshot_schema = it != md.refs.end() && !it->second.is_branch();
  }
  spec::SchemaPtr schema = md.current_schema();
  if (use_snapshot_schema) {
    ARROW_ASSIGN_OR_RAISE(const spec::Snapshot* snap, ResolveSnapshot(md));
    if (snap && snap->schema_id) {
      if (auto s = md.SchemaById(*snap->schema_id)) schema = s;
    }
  }
  if (!schema) return Status::Invalid("Table ", table_->name(), " has no schema");
  return schema;
}

Result<std::optional<int64_t>> TableScan::SnapshotId() const {
  auto md = table_->metadata();
  ARROW_ASSIGN_OR_RAISE(const spec::Snapshot* snap, ResolveSnapshot(*md));
  if (!snap) return std::optional<int64_t>();
  return std::optional<int64_t>(snap->snapshot_id);
}

Result<spec::SchemaPtr> TableScan::ReadSchema() const {
  auto md = table_->metadata();
  ARROW_ASSIGN_OR_RAISE(spec::SchemaPtr schema, SnapshotSchema(*md));
  if (columns_.empty()) return schema;
  std::vector<spec::NestedField> fields;
  for (const auto& name : columns_) {
    const spec::NestedField* f = schema->FindFieldByName(name);
    if (!f) f = schema->FindFieldByNameCaseInsensitive(name);
    if (!f) {
      if (auto metadata = MetadataColumn(name)) {
        fields.push_back(std::move(*metadata));
        continue;
      }
    }
    bool top_level = false;
    for (const auto& top : schema->fields()) top_level |= f && top.id == f->id;
    if (!f || !top_level) {
      return NotFound("Cannot find column '", name, "' in table ", table_->name());
    }
    fields.push_back(*f);
  }
  return std::make_shared<const spec::Schema>(schema->schema_id(), std::move(fields));
}

Result<std::vector<FileScanTask>> TableScan::PlanFiles() const {
  auto md = table_->metadata();
  ARROW_ASSIGN_OR_RAISE(const spec::Snapshot* snap, ResolveSnapshot(*md));
  std::vector<FileScanTask> tasks;
  if (!snap) return tasks;
  auto& io = *table_->io();
  // Manifests and lists never change once written: the process-wide cache decodes each once.
  auto& cache = manifest::ManifestCache::Global();
  ARROW_ASSIGN_OR_RAISE(auto manifests, cache.ReadManifestList(io, snap->manifest_list));
  metrics_ = Metrics();
  auto schema = md->current_schema();

  // Manifests whose partition ranges rule the filter out are not read at all.
  std::vector<const manifest::ManifestFile*> to_read;
  std::vector<const spec::PartitionSpec*> specs;
  for (const auto& mf : *manifests) {
    ++metrics_.manifests;
    const spec::PartitionSpec* spec = md->SpecById(mf.partition_spec_id);
    if (!predicates_.empty() && spec && mf.content == manifest::ManifestContent::kData &&
        !ManifestMayMatch(mf, predicates_, *spec, *schema)) {
      ++metrics_.manifests_skipped;
      continue;
    }
    to_read.push_back(&mf);
    specs.push_back(spec);
  }

  // Tasks only need the metrics the filter evaluates and those asked for.
  manifest::ReadManifestOptions options;
  std::vector<int32_t> ids = stats_columns_;
  for (const auto& p : predicates_) {
    if (std::find(ids.begin(), ids.end(), p.field_id) == ids.end()) ids.push_back(p.field_id);
  }
  // Position delete files name the data files they cover by their file_path bounds.
  ids.push_back(kDeleteFilePathId);
  if (!all_stats_) options.projection.metric_ids = std::move(ids);

  // Cached manifests are taken as they are; the others are decoded in parallel on Arrow's
  // I/O pool. Results keep manifest-list order.
  std::vector<Result<manifest::ManifestCache::EntriesPtr>> read(
      to_read.size(), Status::UnknownError("manifest not read"));
  std::vector<size_t> misses;
  for (size_t i = 0; i < to_read.size(); ++i) {
    if (auto hit = cache.Find(io, *to_read[i], options)) {
      read[i] = std::move(hit);
    } else {
      misses.push_back(i);
    }
  }
  auto read_one = [&](int k) {
    const size_t i = misses[k];
    read[i] = cache.ReadManifest(io, *to_read[i], *md, options);
    return Status::OK();
  };
  arrow::internal::ThreadPool* pool = ReadPool();
  const bool parallel = misses.size() > 1 && !pool->OwnsThisThread();
  ARROW_RETURN_NOT_OK(arrow::internal::OptionalParallelFor(
      parallel, static_cast<int>(misses.size()), read_one, pool));

  std::vector<manifest::ManifestEntry> deletes;
  for (size_t i = 0; i < to_read.size(); ++i) {
    const spec::PartitionSpec* spec = specs[i];
    ARROW_ASSIGN_OR_RAISE(manifest::ManifestCache::EntriesPtr entries, std::move(read[i]));
    const manifest::ManifestColumns& columns = *entries;
    const bool delete_manifest = to_read[i]->content == manifest::ManifestContent::kDeletes;
    for (size_t row = 0; row < columns.size(); ++row) {
      if (columns.status(row) == manifest::EntryStatus::kDeleted) continue;
      if (delete_manifest) {
        deletes.push_back(columns.Entry(row));
        continue;
      }
      ++metrics_.files;
      if (!predicates_.empty() && spec && !FileMayMatch(columns, row, predicates_, *spec)) {
        ++metrics_.files_skipped;
        continue;
      }
      // Only the files kept become DataFiles.
      manifest::ManifestEntry e = columns.Entry(row);
      tasks.push_back({std::move(e.data_file), e.sequence_number.value_or(0), {}});
    }
  }
  if (!deletes.empty()) ARROW_RETURN_NOT_OK(AssignDeletes(*md, *snap, deletes, &tasks));
  return tasks;
}

namespace {

// Whether a position delete file's file_path bounds (when written) admit `path`.
bool MayNamePath(const manifest::DataFile& deletes, const std::string& path) {
  auto lower = deletes.lower_bounds.find(kDeleteFilePathId);
  if (lower != deletes.lower_bounds.end() && path < lower->second) return false;
  auto upper = deletes.upper_bounds.find(kDeleteFilePathId);
  return upper == deletes.upper_bounds.end() || path <= upper->second;
}

}  // namespace

// Spec, "Scan Planning": a position delete applies to data files of its partition (all of
// them when its spec is unpartitioned) whose data sequence number is at most its own; an
// equality delete only to those with a strictly smaller one.
Status TableScan::AssignDeletes(const spec::TableMetadata& md, const spec::Snapshot& snap,
                                const std::vector<manifest::ManifestEntry>& deletes,
                                std::vector<FileScanTask>* tasks) const {
  using Delete = const manifest::ManifestEntry*;
  std::vector<Delete> global;
  std::unordered_map<std::string, std::vector<Delete>> by_partition;
  // Deletes naming their one data file (deletion vectors, always) are found by its path.
  std::unordered_map<std::string, std::vector<Delete>> by_data_file;
  for (const auto& e : deletes) {
    const manifest::DataFile& file = e.data_file;
    if (file.is_deletion_vector() && !file.referenced_data_file) {
      return Status::IOError("Deletion vector in ", file.file_path, " of snapshot ", snap.snapshot_id, " of ",
                             table_->name(), " has no referenced_data_file");
    }
    if (file.content == manifest::FileContent::kPositionDeletes && file.referenced_data_file) {
      by_data_file[*file.referenced_data_file].push_back(&e);
      continue;
    }
    const spec::PartitionSpec* spec = md.SpecById(file.spec_id);
    if (!spec || spec->fields().empty()) {
      global.push_back(&e);
    } else {
      by_partition[manifest::PartitionKey(file)].push_back(&e);
    }
  }
  for (auto& task : *tasks) {
    const std::vector<Delete>* local = nullptr;
    if (!by_partition.empty()) {
      auto it = by_partition.find(manifest::PartitionKey(task.file));
      if (it != by_partition.end()) local = &it->second;
    }
    const std::vector<Delete>* named = nullptr;
    if (!by_data_file.empty()) {
      auto it = by_data_file.find(task.file.file_path);
      if (it != by_data_file.end()) named = &it->second;
    }
    for (const std::vector<Delete>* list : {static_cast<const std::vector<Delete>*>(&global), local, named}) {
      if (!list) continue;
      for (Delete d : *list) {
        const manifest::DataFile& file = d->data_file;
        const int64_t seq = d->sequence_number.value_or(0);
        if (file.content == manifest::FileContent::kPositionDeletes) {
          if (seq < task.data_sequence_number || !MayNamePath(file, task.file.file_path)) continue;
        } else if (file.content == manifest::FileContent::kEqualityDeletes) {
          if (seq <= task.data_sequence_number) continue;
          if (file.equality_ids.empty()) {
            return Status::IOError("Equality delete file ", file.file_path, " of snapshot ", snap.snapshot_id, " of ",
                                   table_->name(), " has no equality field ids");
          }
        }
        task.deletes.push_back(file);
      }
    }
  }
  return Status::OK();
}

Result<std::shared_ptr<arrow::Table>> TableScan::ToArrowTable() const {
  ARROW_ASSIGN_OR_RAISE(auto reader, ToRecordBatchReader());
  return arrow::Table::FromRecordBatchReader(reader.get());
}

Result<std::shared_ptr<arrow::RecordBatchReader>> TableScan::ToRecordBatchReader() const { return MakeReader(true); }

Result<std::shared_ptr<arrow::RecordBatchReader>> TableScan::ToUnorderedRecordBatchReader() const {
  return MakeReader(false);
}

namespace {

// The top-level column an equality delete file compares on: of the schema read, else of the
// newest earlier schema that has it (a column dropped since the delete was written).
Result<spec::NestedField> EqualityField(const spec::TableMetadata& md, const spec::Schema& schema, int32_t id,
                                        const std::string& delete_file) {
  auto find = [id](const spec::Schema& s) -> const spec::NestedField* {
    for (const auto& f : s.fields()) {
      if (f.id == id) return &f;
    }
    return nullptr;
  };
  const spec::NestedField* field = find(schema);
  for (auto it = md.schemas.rbegin(); !field && it != md.schemas.rend(); ++it) field = find(**it);
  if (!field) {
    return Status::NotImplemented("Equality delete file ", delete_file, " compares field id ", id,
                                  ", which is not a top-level column of the table");
  }
  spec::NestedField out = *field;
  out.required = false;
  return out;
}

}  // namespace

std::string FileTaskKey(const FileScanTask& task) {
  std::vector<std::string> deletes;
  for (const auto& d : task.deletes) deletes.push_back(manifest::DeleteFileId(d));
  std::sort(deletes.begin(), deletes.end());
  std::string key = task.file.file_path;
  for (const auto& d : deletes) key += "\n" + d;
  return key;
}

Result<ScanFile> ScanFileOf(const manifest::DataFile& file, int64_t data_sequence_number,
                            const std::vector<manifest::DataFile>& deletes) {
  if (file.key_metadata) {
    return Status::NotImplemented("Cannot read data file ", file.file_path,
                                  ": it is encrypted, and floe does not read encrypted tables");
  }
  ScanFile out(file.file_path);
  for (const auto& d : deletes) {
    if (d.is_deletion_vector()) {
      if (!d.content_offset || !d.content_size_in_bytes) {
        return Status::IOError("Deletion vector in ", d.file_path, " for ", file.file_path,
                               " has no content_offset or content_size_in_bytes");
      }
      out.deletion_vectors.push_back({d.file_path, *d.content_offset, *d.content_size_in_bytes, d.record_count});
    } else if (d.content == manifest::FileContent::kPositionDeletes) {
      out.position_deletes.push_back(d.file_path);
    } else {
      out.equality_deletes.push_back({d.file_path, d.equality_ids});
    }
  }
  out.lineage = {file.first_row_id, data_sequence_number};
  if (file.file_size_in_bytes > 0) out.size = file.file_size_in_bytes;
  return out;
}

Result<ScanFilesPlan> PlanScanFiles(const spec::TableMetadata& md, std::vector<FileScanTask> tasks,
                                    spec::SchemaPtr projection, const spec::Schema& schema) {
  ScanFilesPlan plan;
  plan.files.reserve(tasks.size());
  // Columns equality deletes compare on are read too, and dropped once they are applied.
  std::vector<spec::NestedField> extra;
  for (auto& task : tasks) {
    ARROW_ASSIGN_OR_RAISE(ScanFile file, ScanFileOf(task.file, task.data_sequence_number, task.deletes));
    for (const auto& d : task.deletes) {
      if (d.content != manifest::FileContent::kEqualityDeletes) continue;
      for (int32_t id : d.equality_ids) {
        auto read = [id](const std::vector<spec::NestedField>& fields) {
          return std::any_of(fields.begin(), fields.end(), [id](const spec::NestedField& f) { return f.id == id; });
        };
        if (read(projection->fields()) || read(extra)) continue;
        ARROW_ASSIGN_OR_RAISE(auto field, EqualityField(md, schema, id, d.file_path));
        extra.push_back(std::move(field));
      }
    }
    plan.files.push_back(std::move(file));
  }
  if (!extra.empty()) {
    plan.output_columns = static_cast<int>(projection->fields().size());
    std::vector<spec::NestedField> fields = projection->fields();
    fields.insert(fields.end(), extra.begin(), extra.end());
    projection = std::make_shared<const spec::Schema>(projection->schema_id(), std::move(fields));
  }
  plan.projection = std::move(projection);
  return plan;
}

Result<TableScan::Planned> TableScan::PlanRead() const {
  Planned planned;
  ARROW_ASSIGN_OR_RAISE(auto projection, ReadSchema());
  ARROW_ASSIGN_OR_RAISE(planned.schema, SnapshotSchema(*table_->metadata()));
  ARROW_ASSIGN_OR_RAISE(auto tasks, PlanFiles());
  ARROW_ASSIGN_OR_RAISE(ScanFilesPlan files,
                        PlanScanFiles(*table_->metadata(), std::move(tasks), std::move(projection), *planned.schema));
  planned.projection = std::move(files.projection);
  planned.files = std::move(files.files);
  planned.output_columns = files.output_columns;
  row_groups_ = std::make_shared<RowGroupCounters>();
  return planned;
}

Result<std::shared_ptr<arrow::RecordBatchReader>> TableScan::MakeReader(bool ordered) const {
  ARROW_ASSIGN_OR_RAISE(auto planned, PlanRead());
  RowGroupStreamOptions options;
  options.ordered = ordered;
  options.output_columns = planned.output_columns;
  return MakeRowGroupStream(table_->io(), std::move(planned.files), std::move(planned.projection), predicates_,
                            std::move(planned.schema), row_groups_, options);
}

Result<std::shared_ptr<SharedRowGroupScan>> TableScan::ToSharedRowGroupScan(int64_t batch_rows) const {
  ARROW_ASSIGN_OR_RAISE(auto planned, PlanRead());
  return SharedRowGroupScan::Make(table_->io(), std::move(planned.files), std::move(planned.projection), predicates_,
                                  std::move(planned.schema), row_groups_, batch_rows, planned.output_columns);
}

const TableScan::Metrics& TableScan::metrics() const {
  if (row_groups_) {
    metrics_.row_groups = row_groups_->total.load();
    metrics_.row_groups_skipped_by_stats = row_groups_->skipped_by_stats.load();
    metrics_.row_groups_skipped_by_bloom_filter = row_groups_->skipped_by_bloom_filter.load();
    metrics_.row_groups_skipped_by_page_index = row_groups_->skipped_by_page_index.load();
    metrics_.row_groups_skipped_by_filter_columns = row_groups_->skipped_by_filter_columns.load();
  }
  return metrics_;
}

}  // namespace floe::scan
