// DELETE FROM t [WHERE c], as Spark with Iceberg does it:
//   - whole data files when the condition is decided by identity partition values alone (or
//     there is none): a `delete` snapshot that writes no file;
//   - else per `write.delete.mode`: copy-on-write rewrites each data file holding a matching row
//     without those rows (an `overwrite`); merge-on-read writes position delete files naming the
//     matching rows, or on a format-version 3 table deletion vectors (a `delete`).
// Rows where the condition is NULL stay, as everywhere in SQL. On a v3 table the rewritten files
// store each kept row's `_row_id` and `_last_updated_sequence_number` (the row keeps both).

#include <algorithm>
#include <map>
#include <set>

#include <arrow/api.h>
#include <arrow/compute/api_vector.h>

#include "floe/sql/bind/binder.h"
#include "floe/sql/execute/executors.h"
#include "floe/sql/execute/result_tables.h"
#include "floe/sql/execute/row_assignments.h"
#include "floe/sql/execute/row_level.h"
#include "floe/sql/parse/parse_error.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/rolling_writer.h"
#include "floe/table/row_level_writes.h"
#include "floe/table/snapshot_producer.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

Result<StatementResult> ExecuteDelete(ExecContext& ctx, const sql::Delete& del) {
  const RowLevelTarget target{del.table, del.alias, del.where};
  ARROW_ASSIGN_OR_RAISE(auto table, LoadTargetTable(ctx, target, "DELETE FROM", "deleting from"));
  if (del.where) {
    // The condition is bound before anything else, so that its errors come first, even on
    // an empty table or when partition values decide it.
    ARROW_ASSIGN_OR_RAISE(auto check, TargetQuery("SELECT _file FROM t", target, true));
    QueryPlanner planner = ctx.binder.Planner();
    ARROW_RETURN_NOT_OK(StreamQuery(planner, check).status());
  }
  auto md = table->metadata();
  const spec::Snapshot* head = md->current_snapshot();
  if (!head) return Written(0);  // an empty table
  ARROW_ASSIGN_OR_RAISE(auto plan, PlanRowLevel(ctx, table, target, "delete"));
  const auto& options = plan.options;

  // Whole files: no condition, or one decided by identity partition values.
  if (!del.where || plan.all_pushable) {
    auto whole = WholeFiles(*md, plan.predicates, plan.tasks);
    if (whole) {
      if (whole->empty()) return Written(0);
      std::vector<std::string> paths(whole->begin(), whole->end());
      int64_t deleted = 0;
      for (const auto& path : paths) {
        auto live = plan.live.find(path);
        if (live != plan.live.end()) deleted += live->second->record_count;
      }
      ARROW_RETURN_NOT_OK(ctx.state.cancel->Check());
      auto committed = table::DeleteFiles(
          *table, table::OverwriteFilter::Files(paths, plan.may_match, plan.condition), options);
      if (!committed.ok())
        return WithContext(committed.status(), "Cannot delete from " + table->name());
      return Written(deleted);
    }
  }

  if (plan.merge_on_read) {
    ARROW_ASSIGN_OR_RAISE(auto query, TargetQuery("SELECT _file, _pos FROM t", target, true));
    ARROW_ASSIGN_OR_RAISE(auto reader, StreamRows(ctx, query));
    FilePositions positions;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
      if (!batch) break;
      CollectPositions(static_cast<const arrow::StringArray&>(*batch->column(0)),
                       static_cast<const arrow::Int64Array&>(*batch->column(1)), &positions);
    }
    int64_t deleted = 0;
    for (const auto& [path, rows] : positions) deleted += static_cast<int64_t>(rows.size());
    ARROW_RETURN_NOT_OK(ctx.state.cancel->Check());
    Status committed = CommitPositionDeletes(*table, plan, std::move(positions), {});
    if (!committed.ok()) return WithContext(committed, "Cannot delete from " + table->name());
    return Written(deleted);
  }

  // Copy-on-write: the files holding a matching row, then their other rows written anew.
  ARROW_ASSIGN_OR_RAISE(auto affected, AffectedFiles(ctx, target));
  if (affected.empty()) return Written(0);
  // Every row (on v3 with its lineage, which a row kept keeps) with the file it came from and
  // the condition's value: NULL or false stays.
  const bool lineage = table::CarriesRowLineage(*md);
  ARROW_ASSIGN_OR_RAISE(
      auto rows_query,
      TargetQuery(lineage ? StrCat("SELECT *, ", kRowLineageColumns, ", _file FROM t")
                          : "SELECT *, _file FROM t",
                  target, false));
  if (del.where) {
    auto* select = std::get_if<Select>(&rows_query.body);
    select->items.push_back(SelectItem{*del.where, std::nullopt});
  }
  ARROW_ASSIGN_OR_RAISE(auto rows_reader, StreamRows(ctx, rows_query));
  const int columns = rows_reader->schema()->num_fields() - (del.where ? 2 : 1);
  ARROW_ASSIGN_OR_RAISE(auto table_schema,
                        table::ToArrowSchema(lineage ? *spec::WithRowLineage(*md->current_schema())
                                                     : *md->current_schema()));
  if (table_schema->num_fields() != columns) {
    return Status::Invalid("internal: DELETE read ", columns, " columns of ", table->name(),
                           ", which has ", table_schema->num_fields());
  }
  std::vector<int> kept_columns(static_cast<size_t>(columns));
  for (int i = 0; i < columns; ++i) kept_columns[i] = i;
  auto writer = table::MakeRowLevelWriter(*table);
  if (!writer.ok()) return WithContext(writer.status(), "Cannot delete from " + table->name());
  int64_t deleted = 0;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(rows_reader->ReadNext(&batch));
    if (!batch) break;
    // Rows of the rewritten files that the condition does not match stay.
    ARROW_ASSIGN_OR_RAISE(
        auto in_files,
        RowsOfFiles(static_cast<const arrow::StringArray&>(*batch->column(columns)), affected));
    ARROW_ASSIGN_OR_RAISE(auto matched, Matched(*batch, del.where ? columns + 1 : -1));
    ARROW_ASSIGN_OR_RAISE(auto mask, arrow::compute::CallFunction("and_not", {in_files, matched}));
    ARROW_ASSIGN_OR_RAISE(auto gone, arrow::compute::CallFunction("and", {in_files, matched}));
    deleted += CountTrue(*gone.make_array());
    ARROW_ASSIGN_OR_RAISE(auto data, batch->SelectColumns(kept_columns));
    ARROW_ASSIGN_OR_RAISE(auto filtered, arrow::compute::Filter(arrow::Datum(data), mask));
    auto filtered_rows = filtered.record_batch();
    if (filtered_rows->num_rows() == 0) continue;
    // The plan's columns, under the table's names.
    auto rows =
        arrow::RecordBatch::Make(table_schema, filtered_rows->num_rows(), filtered_rows->columns());
    Status written = (*writer)->Write(*rows);
    if (!written.ok()) return WithContext(written, "Cannot delete from " + table->name());
  }
  auto files = (*writer)->Finish();
  if (!files.ok()) return WithContext(files.status(), "Cannot delete from " + table->name());
  std::vector<std::string> paths(affected.begin(), affected.end());
  ARROW_RETURN_NOT_OK(ctx.state.cancel->Check());
  auto committed = table::OverwriteFiles(
      *table, std::move(files).ValueUnsafe(),
      table::OverwriteFilter::Files(paths, plan.may_match, plan.condition), options);
  if (!committed.ok())
    return WithContext(committed.status(), "Cannot delete from " + table->name());
  return Written(deleted);
}

}  // namespace floe::sql
