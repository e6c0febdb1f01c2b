// Procedures that move a table between its snapshots and refs; none touches data files.

#include <arrow/api.h>

#include "floe/sql/procedures/procedure_registry.h"
#include "floe/table/restore_table.h"
#include "floe/table/snapshot_management.h"

namespace floe::sql {

namespace {

using Type = ProcedureArgType;

std::shared_ptr<arrow::Schema> LongPair(const std::string& a, const std::string& b) {
  return arrow::schema({arrow::field(a, arrow::int64()), arrow::field(b, arrow::int64())});
}

Result<std::shared_ptr<arrow::Table>> LongPairRow(const std::shared_ptr<arrow::Schema>& schema,
                                                  std::optional<int64_t> a, int64_t b) {
  arrow::Int64Builder x, y;
  ARROW_RETURN_NOT_OK(a ? x.Append(*a) : x.AppendNull());
  ARROW_RETURN_NOT_OK(y.Append(b));
  ARROW_ASSIGN_OR_RAISE(auto xa, x.Finish());
  ARROW_ASSIGN_OR_RAISE(auto ya, y.Finish());
  return arrow::Table::Make(schema, {xa, ya});
}

// Procedures answering (previous_snapshot_id, current_snapshot_id).
Procedure SnapshotChange(std::string name, std::string description, std::vector<ProcedureParameter> params,
                         std::function<Result<table::SetCurrentResult>(const ProcedureCall&)> change) {
  auto schema = LongPair("previous_snapshot_id", "current_snapshot_id");
  return Procedure{std::move(name), std::move(description), std::move(params), schema,
                   [schema, change](const ProcedureCall& call) -> Result<std::shared_ptr<arrow::Table>> {
                     ARROW_ASSIGN_OR_RAISE(auto r, change(call));
                     return LongPairRow(schema, r.previous_snapshot_id, r.current_snapshot_id);
                   }};
}

}  // namespace

void AddSnapshotProcedures(std::vector<Procedure>* out) {
  out->push_back(SnapshotChange(
      "rollback_to_snapshot", "Rolls the table back to a snapshot that is an ancestor of the current one.",
      {{"table", Type::kString, true}, {"snapshot_id", Type::kLong, true}},
      [](const ProcedureCall& c) { return table::RollbackToSnapshot(*c.table, *c.args.Long("snapshot_id")); }));
  out->push_back(SnapshotChange(
      "rollback_to_timestamp", "Rolls the table back to the snapshot that was current at a time.",
      {{"table", Type::kString, true}, {"timestamp", Type::kTimestamp, true}},
      [](const ProcedureCall& c) { return table::RollbackToTimestamp(*c.table, *c.args.TimestampMillis("timestamp")); }));
  out->push_back(SnapshotChange(
      "set_current_snapshot", "Makes any snapshot (or the snapshot of a ref) the current one.",
      {{"table", Type::kString, true}, {"snapshot_id", Type::kLong, false}, {"ref", Type::kString, false}},
      [](const ProcedureCall& c) {
        return table::SetCurrentSnapshot(*c.table, c.args.Long("snapshot_id"), c.args.String("ref"));
      }));

  auto cherrypick = LongPair("source_snapshot_id", "current_snapshot_id");
  out->push_back(Procedure{
      "cherrypick_snapshot", "Applies the changes of a snapshot to the current state as a new snapshot.",
      {{"table", Type::kString, true}, {"snapshot_id", Type::kLong, true}}, cherrypick,
      [cherrypick](const ProcedureCall& c) -> Result<std::shared_ptr<arrow::Table>> {
        ARROW_ASSIGN_OR_RAISE(auto r, table::CherrypickSnapshot(*c.table, *c.args.Long("snapshot_id")));
        return LongPairRow(cherrypick, r.source_snapshot_id, r.current_snapshot_id);
      }});

  auto fast_forward = arrow::schema({arrow::field("branch_updated", arrow::utf8()),
                                     arrow::field("previous_ref", arrow::int64()),
                                     arrow::field("updated_ref", arrow::int64())});
  out->push_back(Procedure{
      "fast_forward", "Moves a branch forward to the head of another branch that descends from it.",
      {{"table", Type::kString, true}, {"branch", Type::kString, true}, {"to", Type::kString, true}}, fast_forward,
      [fast_forward](const ProcedureCall& c) -> Result<std::shared_ptr<arrow::Table>> {
        ARROW_ASSIGN_OR_RAISE(auto r, table::FastForward(*c.table, *c.args.String("branch"), *c.args.String("to")));
        arrow::StringBuilder branch;
        arrow::Int64Builder previous, updated;
        ARROW_RETURN_NOT_OK(branch.Append(r.branch_updated));
        ARROW_RETURN_NOT_OK(r.previous_ref ? previous.Append(*r.previous_ref) : previous.AppendNull());
        ARROW_RETURN_NOT_OK(updated.Append(r.updated_ref));
        ARROW_ASSIGN_OR_RAISE(auto b, branch.Finish());
        ARROW_ASSIGN_OR_RAISE(auto p, previous.Finish());
        ARROW_ASSIGN_OR_RAISE(auto u, updated.Finish());
        return arrow::Table::Make(fast_forward, {b, p, u});
      }});

  auto ancestors = arrow::schema({arrow::field("snapshot_id", arrow::int64()), arrow::field("timestamp", arrow::int64())});
  out->push_back(Procedure{
      "ancestors_of", "Lists a snapshot (by default the current one) and its ancestors, newest first.",
      {{"table", Type::kString, true}, {"snapshot_id", Type::kLong, false}}, ancestors,
      [ancestors](const ProcedureCall& c) -> Result<std::shared_ptr<arrow::Table>> {
        std::optional<int64_t> id = c.args.Long("snapshot_id");
        auto md = c.table->metadata();
        if (id && !md->SnapshotById(*id)) return NotFound("Cannot find snapshot: ", *id);
        arrow::Int64Builder ids, times;
        for (const auto& row : table::AncestorsOfRows(*md, id)) {
          ARROW_RETURN_NOT_OK(ids.Append(row.snapshot_id));
          ARROW_RETURN_NOT_OK(times.Append(row.timestamp_ms));
        }
        ARROW_ASSIGN_OR_RAISE(auto i, ids.Finish());
        ARROW_ASSIGN_OR_RAISE(auto t, times.Finish());
        return arrow::Table::Make(ancestors, {i, t});
      }});

  auto restore = arrow::schema({arrow::field("previous_snapshot_id", arrow::int64()),
                                arrow::field("current_snapshot_id", arrow::int64()),
                                arrow::field("restored_metadata_file", arrow::utf8())});
  out->push_back(Procedure{
      "restore_table",
      "Makes the table what it was at a point (a metadata file, a snapshot, a time or an audit-log "
      "entry): its current snapshot, refs, schema, partition spec, sort order and properties, as one "
      "new commit that keeps every snapshot.",
      {{"table", Type::kString, true},
       {"metadata_file", Type::kString, false},
       {"snapshot_id", Type::kLong, false},
       {"timestamp", Type::kTimestamp, false},
       {"audit_seq", Type::kLong, false}},
      restore,
      [restore](const ProcedureCall& c) -> Result<std::shared_ptr<arrow::Table>> {
        table::RestorePoint point;
        point.metadata_file = c.args.String("metadata_file");
        point.snapshot_id = c.args.Long("snapshot_id");
        point.timestamp_ms = c.args.TimestampMillis("timestamp");
        point.audit_seq = c.args.Long("audit_seq");
        ARROW_ASSIGN_OR_RAISE(auto r, table::RestoreTable(*c.table, point));
        arrow::Int64Builder previous, current;
        arrow::StringBuilder file;
        ARROW_RETURN_NOT_OK(r.previous_snapshot_id ? previous.Append(*r.previous_snapshot_id) : previous.AppendNull());
        ARROW_RETURN_NOT_OK(r.current_snapshot_id ? current.Append(*r.current_snapshot_id) : current.AppendNull());
        ARROW_RETURN_NOT_OK(file.Append(r.restored_metadata_file));
        ARROW_ASSIGN_OR_RAISE(auto p, previous.Finish());
        ARROW_ASSIGN_OR_RAISE(auto n, current.Finish());
        ARROW_ASSIGN_OR_RAISE(auto f, file.Finish());
        return arrow::Table::Make(restore, {p, n, f});
      }});
}

}  // namespace floe::sql
