// Procedures over catalog tags (table/catalog_tags.h): the rollback of every table a catalog
// tag covers, in one catalog transaction.

#include <arrow/api.h>

#include "floe/sql/execute/executors.h"
#include "floe/sql/procedures/procedure_registry.h"
#include "floe/table/catalog_tags.h"

namespace floe::sql {

void AddCatalogTagProcedures(std::vector<Procedure>* out) {
  auto schema = arrow::schema({arrow::field("table", arrow::utf8()),
                               arrow::field("previous_snapshot_id", arrow::int64()),
                               arrow::field("current_snapshot_id", arrow::int64()),
                               arrow::field("action", arrow::utf8())});
  out->push_back(Procedure{
      "rollback_to_catalog_tag",
      "Rolls every table a catalog tag covers back to its tagged snapshot, in one catalog "
      "transaction.",
      {{"tag", ProcedureArgType::kString, true},
       {"namespace", ProcedureArgType::kString, false},
       {"include_new_tables", ProcedureArgType::kBoolean, false},
       {"dry_run", ProcedureArgType::kBoolean, false}},
      schema,
      [schema](const ProcedureCall& c) -> Result<std::shared_ptr<arrow::Table>> {
        table::RollbackToCatalogTagOptions options;
        if (auto ns = c.args.String("namespace")) {
          ARROW_ASSIGN_OR_RAISE(Namespace parsed, Namespace::Parse(*ns));
          options.ns = std::move(parsed);
        }
        options.include_new_tables = c.args.Bool("include_new_tables").value_or(false);
        options.dry_run = c.args.Bool("dry_run").value_or(false);
        ARROW_ASSIGN_OR_RAISE(auto moves, table::RollbackToCatalogTag(
                                              c.ctx->state.tables, *c.args.String("tag"), options));
        arrow::StringBuilder names, actions;
        arrow::Int64Builder previous, current;
        for (const auto& m : moves) {
          ARROW_RETURN_NOT_OK(names.Append(m.ident.ToString()));
          ARROW_RETURN_NOT_OK(m.previous_snapshot_id ? previous.Append(*m.previous_snapshot_id)
                                                     : previous.AppendNull());
          ARROW_RETURN_NOT_OK(m.current_snapshot_id ? current.Append(*m.current_snapshot_id)
                                                    : current.AppendNull());
          ARROW_RETURN_NOT_OK(actions.Append(m.action));
        }
        std::vector<std::shared_ptr<arrow::Array>> columns(4);
        ARROW_RETURN_NOT_OK(names.Finish(&columns[0]));
        ARROW_RETURN_NOT_OK(previous.Finish(&columns[1]));
        ARROW_RETURN_NOT_OK(current.Finish(&columns[2]));
        ARROW_RETURN_NOT_OK(actions.Finish(&columns[3]));
        return arrow::Table::Make(schema, columns);
      }});
}

}  // namespace floe::sql
