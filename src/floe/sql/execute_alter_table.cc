#include "floe/sql/executors.h"

#include <arrow/api.h>
#include "floe/sql/parse_error.h"
#include "floe/sql/result_tables.h"
#include "floe/sql/table_definition.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/commit.h"
#include "floe/table/snapshot_management.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

Result<StatementResult> ExecuteAlterTable(ExecContext& ctx, const sql::AlterTable& alter) {
  const std::string& sql = ctx.sql;
  ARROW_ASSIGN_OR_RAISE(auto table, ctx.binder.LoadTable(alter.name));
  auto commit = [&](std::function<Status(spec::TableMetadata*)> edit) {
    return table::Commit(*table, [&](const spec::TableMetadataPtr& base, std::vector<std::string>*)
                                     -> Result<std::shared_ptr<spec::TableMetadata>> {
      auto md = std::make_shared<spec::TableMetadata>(*base);
      ARROW_RETURN_NOT_OK(edit(md.get()));
      return md;
    });
  };
  // A new current schema from edited fields.
  auto evolve = [&](std::function<Status(std::vector<spec::NestedField>*, int32_t* last_id)> edit) {
    return commit([&](spec::TableMetadata* md) -> Status {
      std::vector<spec::NestedField> fields = md->current_schema()->fields();
      int32_t last = md->last_column_id;
      ARROW_RETURN_NOT_OK(edit(&fields, &last));
      int32_t schema_id = 0;
      for (const auto& s : md->schemas) schema_id = std::max(schema_id, s->schema_id() + 1);
      auto schema = std::make_shared<const spec::Schema>(schema_id, fields, md->current_schema()->identifier_field_ids());
      for (const auto& s : md->schemas) {
        if (s->SameStructure(*schema)) {
          md->current_schema_id = s->schema_id();
          return Status::OK();
        }
      }
      md->schemas.push_back(schema);
      md->current_schema_id = schema_id;
      md->last_column_id = std::max(last, schema->HighestFieldId());
      return Status::OK();
    });
  };
  auto find_top = [&](std::vector<spec::NestedField>* fields, const std::vector<Identifier>& name) -> Result<size_t> {
    if (name.size() != 1) return ErrorAt(sql, name[0].pos, "Nested columns cannot be altered yet");
    for (size_t i = 0; i < fields->size(); ++i) {
      if (Lower((*fields)[i].name) == Lower(name[0].name)) return i;
    }
    return ErrorAt(sql, name[0].pos, StrCat("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `",
                                            name[0].name, "` cannot be resolved."));
  };
  if (auto* s = alter.As<SetProperties>()) {
    // format-version is the table's own, not a stored property; floe keeps tables at v2.
    for (const auto& p : s->properties) {
      if (p.key != "format-version") continue;
      Status st = CheckFormatVersion(p.value, table->metadata()->format_version, table->name());
      if (!st.ok()) return ErrorAt(sql, alter.name.pos, st.message());
    }
    ARROW_RETURN_NOT_OK(commit([&](spec::TableMetadata* md) {
      for (const auto& p : s->properties) {
        if (p.key != "format-version") md->properties[p.key] = p.value;
      }
      return Status::OK();
    }));
    return Message("");
  }
  if (auto* u = alter.As<UnsetProperties>()) {
    ARROW_RETURN_NOT_OK(commit([&](spec::TableMetadata* md) -> Status {
      for (const auto& k : u->keys) {
        if (!md->properties.count(k) && !u->if_exists) {
          return ErrorAt(sql, alter.name.pos, StrCat("[UNSET_NONEXISTENT_PROPERTIES] Attempted to unset non-existent properties [`",
                                                     k, "`] in table ", table->name(), "."));
        }
        md->properties.erase(k);
      }
      return Status::OK();
    }));
    return Message("");
  }
  if (auto* a = alter.As<AddColumns>()) {
    ARROW_RETURN_NOT_OK(evolve([&](std::vector<spec::NestedField>* fields, int32_t* last) -> Status {
      for (const auto& c : a->columns) {
        if (c.name.size() != 1) return ErrorAt(sql, c.name[0].pos, "Adding nested columns is not supported yet");
        for (const auto& f : *fields) {
          if (Lower(f.name) == Lower(c.name[0].name)) {
            return ErrorAt(sql, c.name[0].pos, StrCat("[FIELDS_ALREADY_EXISTS] Cannot add column, because `", c.name[0].name,
                                                      "` already exists in ", table->name(), "."));
          }
        }
        if (c.not_null) return ErrorAt(sql, c.name[0].pos, "Incompatible change: cannot add required column: " + c.name[0].name);
        int32_t id = ++*last;
        ARROW_ASSIGN_OR_RAISE(auto type, IcebergType(c.type, last));
        spec::NestedField f = spec::Optional(id, c.name[0].name, type);
        if (c.comment) f.doc = *c.comment;
        size_t pos = fields->size();
        if (c.position) {
          if (c.position->first) {
            pos = 0;
          } else {
            ARROW_ASSIGN_OR_RAISE(size_t after, find_top(fields, c.position->after));
            pos = after + 1;
          }
        }
        fields->insert(fields->begin() + static_cast<long>(pos), f);
      }
      return Status::OK();
    }));
    return Message("");
  }
  if (auto* r = alter.As<RenameColumn>()) {
    ARROW_RETURN_NOT_OK(evolve([&](std::vector<spec::NestedField>* fields, int32_t*) -> Status {
      ARROW_ASSIGN_OR_RAISE(size_t i, find_top(fields, r->column));
      for (const auto& f : *fields) {
        if (Lower(f.name) == Lower(r->new_name.name)) {
          return ErrorAt(sql, r->new_name.pos, StrCat("[FIELDS_ALREADY_EXISTS] Cannot rename column, because `",
                                                      r->new_name.name, "` already exists in ", table->name(), "."));
        }
      }
      (*fields)[i].name = r->new_name.name;
      return Status::OK();
    }));
    return Message("");
  }
  if (auto* d = alter.As<DropColumns>()) {
    ARROW_RETURN_NOT_OK(evolve([&](std::vector<spec::NestedField>* fields, int32_t*) -> Status {
      for (const auto& col : d->columns) {
        auto i = find_top(fields, col);
        if (!i.ok()) {
          if (d->if_exists) continue;
          return i.status();
        }
        for (const auto& pf : table->metadata()->default_spec()->fields()) {
          if (pf.source_id == (*fields)[*i].id) {
            return ErrorAt(sql, col[0].pos, StrCat("Cannot delete field ", (*fields)[*i].id, ": ", (*fields)[*i].name,
                                                   " as it is used by the partition spec"));
          }
        }
        fields->erase(fields->begin() + static_cast<long>(*i));
      }
      if (fields->empty()) return ErrorAt(sql, alter.name.pos, "Cannot drop all columns of a table");
      return Status::OK();
    }));
    return Message("");
  }
  if (auto* ac = alter.As<AlterColumn>()) {
    ARROW_RETURN_NOT_OK(evolve([&](std::vector<spec::NestedField>* fields, int32_t* last) -> Status {
      ARROW_ASSIGN_OR_RAISE(size_t i, find_top(fields, ac->column));
      auto& f = (*fields)[i];
      switch (ac->action) {
        case AlterColumnAction::kType: {
          ARROW_ASSIGN_OR_RAISE(auto to, IcebergType(ac->type, last));
          auto from = f.type;
          bool ok = from->Equals(*to) || (from->id() == spec::TypeId::kInt && to->id() == spec::TypeId::kLong) ||
                    (from->id() == spec::TypeId::kFloat && to->id() == spec::TypeId::kDouble) ||
                    (from->id() == spec::TypeId::kDecimal && to->id() == spec::TypeId::kDecimal &&
                     from->scale() == to->scale() && to->precision() >= from->precision());
          if (!ok) {
            return ErrorAt(sql, ac->column[0].pos, StrCat("Cannot change column type: ", f.name, ": ", from->ToString(),
                                                          " -> ", to->ToString()));
          }
          f.type = to;
          return Status::OK();
        }
        case AlterColumnAction::kDropNotNull:
          f.required = false;
          return Status::OK();
        case AlterColumnAction::kSetNotNull:
          if (!f.required) return ErrorAt(sql, ac->column[0].pos, "Cannot change column nullability: " + f.name + ": optional -> required");
          return Status::OK();
        case AlterColumnAction::kComment:
          f.doc = ac->comment;
          return Status::OK();
        case AlterColumnAction::kPosition: {
          spec::NestedField moved = f;
          fields->erase(fields->begin() + static_cast<long>(i));
          size_t pos = 0;
          if (!ac->position.first) {
            ARROW_ASSIGN_OR_RAISE(size_t after, find_top(fields, ac->position.after));
            pos = after + 1;
          }
          fields->insert(fields->begin() + static_cast<long>(pos), moved);
          return Status::OK();
        }
      }
      return Status::OK();
    }));
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
