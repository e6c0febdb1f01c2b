#include "floe/scan/rewrite_data_files.h"

#include <algorithm>

#include "floe/scan/row_group_stream.h"
#include "floe/scan/table_scan.h"
#include "floe/table/row_level_writes.h"

namespace floe::scan {

Result<table::RewriteDataFilesResult> RewriteDataFiles(const std::shared_ptr<table::Table>& table,
                                                       const RewriteDataFilesOptions& options) {
  ARROW_RETURN_NOT_OK(
      table::CheckRewriteDataFilesOptions(*table, options.strategy, options.options));
  auto md = table->metadata();
  const spec::Snapshot* current = md->current_snapshot();
  if (!current) return table::RewriteDataFilesResult{};
  const spec::SchemaPtr schema = md->current_schema();
  if (!schema) return Status::Invalid("Table ", table->name(), " has no current schema");

  // Every live file is planned (a delete file is dropped only when no file it applies to
  // stays); the filter only decides which may be rewritten.
  TableScan scan(table);
  scan.UseSnapshot(current->snapshot_id);
  std::vector<int32_t> stats;
  for (const auto& p : options.filter) stats.push_back(p.field_id);
  scan.IncludeColumnStats(std::move(stats));
  ARROW_ASSIGN_OR_RAISE(auto tasks, scan.PlanFiles());
  table::RewriteDataFilesRequest request;
  request.strategy = options.strategy;
  request.options = options.options;
  request.starting_snapshot_id = current->snapshot_id;
  request.dry_run = options.dry_run;
  for (auto& task : tasks) {
    if (!options.filter.empty()) {
      const spec::PartitionSpec* spec = md->SpecById(task.file.spec_id);
      request.eligible.push_back(!spec || FileMayMatch(task.file, options.filter, *spec));
    }
    request.candidates.push_back(
        {std::move(task.file), std::move(task.deletes), task.data_sequence_number});
  }

  auto read = [&](const std::vector<const table::RewriteCandidate*>& group)
      -> Result<std::shared_ptr<arrow::RecordBatchReader>> {
    std::vector<ScanFile> files;
    for (const table::RewriteCandidate* c : group) {
      for (const auto& d : c->deletes) {
        for (int32_t id : d.equality_ids) {
          const auto& fields = schema->fields();
          if (std::none_of(fields.begin(), fields.end(),
                           [id](const spec::NestedField& f) { return f.id == id; })) {
            return Status::NotImplemented(
                "Cannot rewrite ", c->file.file_path, " of ", table->name(),
                ": equality delete file ", d.file_path, " compares field id ", id,
                ", which is not a top-level column of the current schema");
          }
        }
      }
      ARROW_ASSIGN_OR_RAISE(ScanFile file,
                            ScanFileOf(c->file, c->data_sequence_number, c->deletes));
      files.push_back(std::move(file));
    }
    // On v3 each row's lineage, stored or inherited, is read beside it and written with it.
    const spec::SchemaPtr projection =
        table::CarriesRowLineage(*md) ? spec::WithRowLineage(*schema) : schema;
    return MakeRowGroupStream(table->io(), std::move(files), projection, {}, schema,
                              std::make_shared<RowGroupCounters>());
  };
  return table::RewriteDataFiles(*table, request, read);
}

}  // namespace floe::scan
