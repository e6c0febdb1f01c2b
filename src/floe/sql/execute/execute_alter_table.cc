#include "floe/sql/execute/executors.h"

#include <cstdint>
#include <functional>

#include <arrow/api.h>
#include "floe/sql/parse/parse_error.h"
#include "floe/sql/execute/result_tables.h"
#include "floe/sql/execute/table_definition.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/protection.h"
#include "floe/table/snapshot_management.h"
#include "floe/table/update_partition_spec.h"
#include "floe/table/update_properties.h"
#include "floe/table/update_schema.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

Result<StatementResult> ExecuteAlterTable(ExecContext& ctx, const sql::AlterTable& alter) {
  const std::string& sql = ctx.sql;
  ARROW_ASSIGN_OR_RAISE(auto table, ctx.binder.LoadTable(alter.name));
  // Column changes go through table::UpdateSchema; its errors point at the name they are about.
  using Part = table::SchemaChangeError::Part;
  auto evolve = [&](table::UpdateSchema& update,
                    const std::function<SourcePos(const table::SchemaChangeError&)>& where) -> Status {
    table::SchemaChangeError error{SIZE_MAX, Part::kTable};
    Status st = update.Commit(&error);
    if (st.ok() || error.change == SIZE_MAX) return st;
    return ErrorAt(sql, error.part == Part::kTable ? alter.name.pos : where(error), st.message());
  };
  auto path = [](const std::vector<Identifier>& name) {
    std::vector<std::string> parts;
    for (const auto& part : name) parts.push_back(part.name);
    return table::ColumnPath(std::move(parts));
  };
  // AFTER names a sibling of the column moved or added.
  auto position = [](const ColumnPosition& p) {
    table::ColumnPosition out;
    out.first = p.first;
    if (!p.first) out.after = p.after.back().name;
    return out;
  };
  if (auto* s = alter.As<SetProperties>()) {
    // format-version is the table's own, not a stored property: setting it upgrades the table.
    table::PropertyUpdates updates;
    for (const auto& p : s->properties) {
      if (p.key != "format-version") {
        updates.set[p.key] = p.value;
        continue;
      }
      auto version = CheckFormatVersion(p.value, table->metadata()->format_version, table->name());
      if (!version.ok()) return ErrorAt(sql, alter.name.pos, version.status().message());
      updates.format_version = *version;
    }
    ARROW_RETURN_NOT_OK(table::UpdateProperties(*table, updates));
    return Message("");
  }
  if (auto* u = alter.As<UnsetProperties>()) {
    table::PropertyUpdates updates;
    updates.remove.insert(u->keys.begin(), u->keys.end());
    updates.ignore_missing = u->if_exists;
    bool missing = false;
    Status st = table::UpdateProperties(*table, updates, &missing);
    if (!st.ok() && missing) return ErrorAt(sql, alter.name.pos, st.message());
    ARROW_RETURN_NOT_OK(st);
    return Message("");
  }
  if (auto* a = alter.As<AddColumns>()) {
    table::UpdateSchema update(*table);
    for (const auto& c : a->columns) {
      int32_t placeholder = 0;
      ARROW_ASSIGN_OR_RAISE(auto type, IcebergType(c.type, &placeholder));
      std::optional<table::ColumnPosition> pos;
      if (c.position) pos = position(*c.position);
      update.AddColumn(path(c.name), type, c.comment, pos, c.not_null);
    }
    ARROW_RETURN_NOT_OK(evolve(update, [&](const table::SchemaChangeError& e) {
      const auto& c = a->columns[e.change];
      return e.part == Part::kAfter ? c.position->after.back().pos : c.name.back().pos;
    }));
    return Message("");
  }
  if (auto* r = alter.As<RenameColumn>()) {
    table::UpdateSchema update(*table);
    update.RenameColumn(path(r->column), r->new_name.name);
    ARROW_RETURN_NOT_OK(evolve(update, [&](const table::SchemaChangeError& e) {
      return e.part == Part::kNewName ? r->new_name.pos : r->column.back().pos;
    }));
    return Message("");
  }
  if (auto* d = alter.As<DropColumns>()) {
    table::UpdateSchema update(*table);
    std::vector<SourcePos> positions;
    for (const auto& col : d->columns) {
      update.DeleteColumn(path(col), d->if_exists);
      positions.push_back(col.back().pos);
    }
    ARROW_RETURN_NOT_OK(evolve(update, [&](const table::SchemaChangeError& e) { return positions[e.change]; }));
    return Message("");
  }
  if (auto* ac = alter.As<AlterColumn>()) {
    table::UpdateSchema update(*table);
    const table::ColumnPath name = path(ac->column);
    switch (ac->action) {
      case AlterColumnAction::kType: {
        int32_t placeholder = 0;
        ARROW_ASSIGN_OR_RAISE(auto to, IcebergType(ac->type, &placeholder));
        update.UpdateColumnType(name, to);
        break;
      }
      case AlterColumnAction::kDropNotNull:
        update.MakeColumnOptional(name);
        break;
      case AlterColumnAction::kSetNotNull:
        update.RequireColumn(name);
        break;
      case AlterColumnAction::kComment:
        update.UpdateColumnDoc(name, ac->comment);
        break;
      case AlterColumnAction::kPosition:
        update.MoveColumn(name, position(ac->position));
        break;
    }
    ARROW_RETURN_NOT_OK(evolve(update, [&](const table::SchemaChangeError& e) {
      return e.part == Part::kAfter ? ac->position.after.back().pos : ac->column.back().pos;
    }));
    return Message("");
  }
  // Partition fields go through table::UpdatePartitionSpec; a failure points at the field of
  // the change that failed.
  auto term = [](const PartitionField& f) {
    return table::PartitionTerm{JoinNames(f.column), ToTransform(f)};
  };
  // As Iceberg's Spark extensions decide: a bare name that is no column names a partition field.
  auto remove = [&](table::UpdatePartitionSpec& update, const PartitionField& f) {
    auto schema = table->metadata()->current_schema();
    if (f.transform == TransformKind::kIdentity && f.column.size() == 1 && schema &&
        !schema->FindFieldByName(f.column[0].name)) {
      update.RemoveField(f.column[0].name);
    } else {
      update.RemoveField(term(f));
    }
  };
  auto evolve_spec = [&](table::UpdatePartitionSpec& update, const std::vector<SourcePos>& positions) -> Status {
    size_t failed = SIZE_MAX;
    Status st = update.Commit(&failed);
    if (st.ok() || failed >= positions.size()) return st;
    return ErrorAt(sql, positions[failed], st.message());
  };
  if (auto* a = alter.As<AddPartitionField>()) {
    table::UpdatePartitionSpec update(*table);
    std::optional<std::string> name;
    if (a->as) name = a->as->name;
    update.AddField(name, term(a->field));
    ARROW_RETURN_NOT_OK(evolve_spec(update, {a->field.pos}));
    return Message("");
  }
  if (auto* d = alter.As<DropPartitionField>()) {
    table::UpdatePartitionSpec update(*table);
    remove(update, d->field);
    ARROW_RETURN_NOT_OK(evolve_spec(update, {d->field.pos}));
    return Message("");
  }
  if (auto* r = alter.As<ReplacePartitionField>()) {
    table::UpdatePartitionSpec update(*table);
    remove(update, r->from);
    std::optional<std::string> name;
    if (r->as) name = r->as->name;
    update.AddField(name, term(r->to));
    ARROW_RETURN_NOT_OK(evolve_spec(update, {r->from.pos, r->to.pos}));
    return Message("");
  }
  if (auto* r = alter.As<RenameTable>()) {
    ARROW_ASSIGN_OR_RAISE(ResolvedName to, ctx.binder.BindName(r->new_name, false));
    ARROW_RETURN_NOT_OK(ctx.state.tables.RenameTable(table->ident(), to.ident));
    return Message("");
  }
  if (auto* c = alter.As<CreateRef>()) {
    table::RefOptions options;
    options.mode = !c->replace ? table::RefWriteMode::kCreate
                               : (c->create ? table::RefWriteMode::kCreateOrReplace : table::RefWriteMode::kReplace);
    options.if_not_exists = c->if_not_exists;
    options.snapshot_id = c->as_of_version;
    if (c->retain) options.max_ref_age_ms = DurationMs(*c->retain);
    if (c->min_snapshots_to_keep) options.min_snapshots_to_keep = static_cast<int32_t>(*c->min_snapshots_to_keep);
    if (c->max_snapshot_age) options.max_snapshot_age_ms = DurationMs(*c->max_snapshot_age);
    Status st = c->kind == RefKind::kTag ? table::CreateOrReplaceTag(*table, c->name.name, options)
                                         : table::CreateOrReplaceBranch(*table, c->name.name, options);
    if (!st.ok()) return ErrorAt(sql, c->name.pos, st.message());
    return Message("");
  }
  if (auto* d = alter.As<DropRef>()) {
    Status st = d->kind == RefKind::kTag ? table::DropTag(*table, d->name.name, d->if_exists)
                                         : table::DropBranch(*table, d->name.name, d->if_exists);
    if (!st.ok()) return ErrorAt(sql, d->name.pos, st.message());
    return Message("");
  }
  if (auto* p = alter.As<SetProtection>()) {
    const bool branch = p->kind == RefKind::kBranch;
    Status st;
    if (p->unset) {
      st = table::RemoveProtection(*table, branch, p->name.name, p->if_exists);
    } else {
      table::ProtectionRule rule;
      rule.branch = branch;
      rule.ref = p->name.name;
      rule.allow_fast_forward = p->allow_fast_forward;
      rule.allow_cherry_pick = p->allow_cherry_pick;
      rule.allow_rollback = p->allow_rollback;
      st = table::SetProtection(*table, rule);
    }
    if (!st.ok()) return ErrorAt(sql, p->name.pos, st);
    return Message("");
  }
  if (auto* e = alter.As<ExecuteProcedure>()) {
    // Trino: ALTER TABLE t EXECUTE proc(args) is CALL system.proc(t, args).
    sql::Call call;
    call.procedure.parts = {Identifier{"system", false, {}}, e->procedure};
    call.procedure.pos = alter.name.pos;
    CallArgument table_arg;
    Literal lit;
    lit.kind = LiteralKind::kString;
    lit.value = table->ident().ToString();
    table_arg.value.node = lit;
    call.args.push_back(table_arg);
    for (const auto& a : e->args) call.args.push_back(a);
    return ExecuteCall(ctx, call);
  }
  return ErrorAt(sql, alter.name.pos, "This ALTER TABLE form is not supported yet");
}

}  // namespace floe::sql
