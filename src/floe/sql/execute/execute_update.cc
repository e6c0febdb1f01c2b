// UPDATE t SET c = e, ... [WHERE cond], as Spark with Iceberg does it, per write.update.mode:
//   - copy-on-write (the default) rewrites each data file holding a matching row, with the
//     new values in the matching rows (an `overwrite`);
//   - merge-on-read writes position delete files naming the matching rows and new data files
//     with their new values (an `overwrite` too).
// Values are stored as INSERT stores them (Spark's store assignment); rows where the condition
// is NULL keep their values. On a v3 table the files written store each row's `_row_id`, and
// the `_last_updated_sequence_number` of the rows kept (NULL for the updated ones, which take
// the new snapshot's).

#include <algorithm>
#include <map>
#include <set>

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "floe/sql/bind/binder.h"
#include "floe/sql/execute/executors.h"
#include "floe/sql/parse/parse_error.h"
#include "floe/sql/plan/relation.h"
#include "floe/sql/execute/result_tables.h"
#include "floe/sql/execute/row_assignments.h"
#include "floe/sql/execute/row_level.h"
#include "floe/table/row_level_writes.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/rolling_writer.h"
#include "floe/table/snapshot_producer.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

Result<StatementResult> ExecuteUpdate(ExecContext& ctx, const sql::Update& update) {
  const std::string& sql = ctx.sql;
  const RowLevelTarget target{update.table, update.alias, update.where};
  ARROW_ASSIGN_OR_RAISE(auto table, LoadTargetTable(ctx, target, "UPDATE", "updating"));
  auto md = table->metadata();
  auto schema = md->current_schema();
  ARROW_ASSIGN_OR_RAISE(auto table_schema, table::ToArrowSchema(*schema));

  ARROW_ASSIGN_OR_RAISE(auto assigned,
                        ResolveAssignments(sql, *schema, *table_schema, update.assignments,
                                           update.table, update.alias));

  // Every row with its file, position, on v3 its lineage, the condition and the new values;
  // binding it first reports errors in the condition or the values before anything is read.
  const bool lineage = table::CarriesRowLineage(*md);
  ARROW_ASSIGN_OR_RAISE(auto rows_query, TargetQuery(lineage ? StrCat("SELECT *, _file, _pos, ",
                                                                      kRowLineageColumns, " FROM t")
                                                             : "SELECT *, _file, _pos FROM t",
                                                     target, false));
  auto* select = std::get_if<Select>(&rows_query.body);
  const int columns = table_schema->num_fields();
  const int row_id_column = columns + 2, sequence_column = columns + 3;
  const int read_columns = columns + (lineage ? 4 : 2);
  int condition_column = -1;
  if (update.where) {
    condition_column = read_columns;
    select->items.push_back(SelectItem{*update.where, std::nullopt});
  }
  const int first_value = read_columns + (update.where ? 1 : 0);
  for (size_t i = 0; i < update.assignments.size(); ++i) {
    select->items.push_back(SelectItem{update.assignments[i].value, std::nullopt});
    assigned[i].value = first_value + static_cast<int>(i);
  }
  {
    QueryPlanner planner = ctx.binder.Planner();
    ARROW_RETURN_NOT_OK(StreamQuery(planner, rows_query).status());
  }
  const spec::Snapshot* head = md->current_snapshot();
  if (!head) return Written(0);
  ARROW_ASSIGN_OR_RAISE(auto plan, PlanRowLevel(ctx, table, target, "update"));
  const std::string table_sql =
      StrCat("`", ctx.state.catalog->name(), "`.`", table->ident().ns.ToString(), "`.`",
             table->ident().name, "`");

  auto writer = table::MakeRowLevelWriter(*table);
  if (!writer.ok()) return WithContext(writer.status(), "Cannot update " + table->name());
  std::vector<int> table_columns(static_cast<size_t>(columns));
  for (int i = 0; i < columns; ++i) table_columns[i] = i;

  if (plan.merge_on_read) {
    // The matching rows: deleted where they are, written again with their new values.
    ARROW_ASSIGN_OR_RAISE(auto reader, StreamRows(ctx, rows_query));
    FilePositions positions;
    int64_t updated_rows = 0;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
      if (!batch) break;
      ARROW_ASSIGN_OR_RAISE(auto matched, Matched(*batch, condition_column));
      ARROW_ASSIGN_OR_RAISE(auto picked,
                            arrow::compute::Filter(arrow::Datum(batch), arrow::Datum(matched)));
      auto rows = picked.record_batch();
      if (rows->num_rows() == 0) continue;
      updated_rows += rows->num_rows();
      CollectPositions(static_cast<const arrow::StringArray&>(*rows->column(columns)),
                       static_cast<const arrow::Int64Array&>(*rows->column(columns + 1)),
                       &positions);
      ARROW_ASSIGN_OR_RAISE(
          auto all, arrow::MakeArrayFromScalar(arrow::BooleanScalar(true), rows->num_rows()));
      ARROW_ASSIGN_OR_RAISE(auto updated, ApplyAssignments(*rows, table_schema, assigned, all,
                                                           table_sql, sql, update.table.pos));
      // An updated row keeps its id and takes the new snapshot's sequence number.
      if (lineage) {
        ARROW_ASSIGN_OR_RAISE(updated, WithRowLineage(*updated, rows->column(row_id_column),
                                                      rows->column(sequence_column), all));
      }
      Status written = (*writer)->Write(*updated);
      if (!written.ok()) return WithContext(written, "Cannot update " + table->name());
    }
    auto data = (*writer)->Finish();
    if (!data.ok()) return WithContext(data.status(), "Cannot update " + table->name());
    ARROW_RETURN_NOT_OK(ctx.state.cancel->Check());
    Status committed =
        CommitPositionDeletes(*table, plan, std::move(positions), std::move(data).ValueUnsafe());
    if (!committed.ok()) return WithContext(committed, "Cannot update " + table->name());
    return Written(updated_rows);
  }

  // Copy-on-write: the files holding a matching row, rewritten whole.
  ARROW_ASSIGN_OR_RAISE(auto affected, AffectedFiles(ctx, target));
  if (affected.empty()) return Written(0);
  ARROW_ASSIGN_OR_RAISE(auto reader, StreamRows(ctx, rows_query));
  int64_t updated_rows = 0;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (!batch) break;
    ARROW_ASSIGN_OR_RAISE(
        auto keep,
        RowsOfFiles(static_cast<const arrow::StringArray&>(*batch->column(columns)), affected));
    ARROW_ASSIGN_OR_RAISE(auto picked,
                          arrow::compute::Filter(arrow::Datum(batch), arrow::Datum(keep)));
    auto rows = picked.record_batch();
    if (rows->num_rows() == 0) continue;
    ARROW_ASSIGN_OR_RAISE(auto matched, Matched(*rows, condition_column));
    updated_rows += CountTrue(*matched);
    ARROW_ASSIGN_OR_RAISE(auto updated, ApplyAssignments(*rows, table_schema, assigned, matched,
                                                         table_sql, sql, update.table.pos));
    // Every row keeps its id; an updated one takes the new snapshot's sequence number.
    if (lineage) {
      ARROW_ASSIGN_OR_RAISE(updated, WithRowLineage(*updated, rows->column(row_id_column),
                                                    rows->column(sequence_column), matched));
    }
    Status written = (*writer)->Write(*updated);
    if (!written.ok()) return WithContext(written, "Cannot update " + table->name());
  }
  auto files = (*writer)->Finish();
  if (!files.ok()) return WithContext(files.status(), "Cannot update " + table->name());
  std::vector<std::string> paths(affected.begin(), affected.end());
  ARROW_RETURN_NOT_OK(ctx.state.cancel->Check());
  auto committed = table::OverwriteFiles(
      *table, std::move(files).ValueUnsafe(),
      table::OverwriteFilter::Files(paths, plan.may_match, plan.condition), plan.options);
  if (!committed.ok()) return WithContext(committed.status(), "Cannot update " + table->name());
  return Written(updated_rows);
}

}  // namespace floe::sql
