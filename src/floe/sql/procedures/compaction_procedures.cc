// Procedures that rewrite data files and manifests into fewer, larger ones; no row changes.

#include <arrow/api.h>

#include "floe/scan/rewrite_data_files.h"
#include "floe/sql/execute/executors.h"
#include "floe/sql/parse/parser.h"
#include "floe/sql/procedures/procedure_registry.h"
#include "floe/sql/execute/row_level.h"
#include "floe/table/rewrite_data_files.h"
#include "floe/util/ascii.h"

namespace floe::sql {

namespace {

using Type = ProcedureArgType;

// The table's name as a reference the binder resolves: its catalog, namespace and name.
ObjectName TableName(const ExecContext& ctx, const table::Table& table) {
  ObjectName name;
  name.parts.push_back(Identifier{ctx.state.catalog->name(), true, {}});
  for (const auto& level : table.ident().ns.levels)
    name.parts.push_back(Identifier{level, true, {}});
  name.parts.push_back(Identifier{table.ident().name, true, {}});
  return name;
}

// The `where` argument as scan predicates. It is bound against the table first, so that an
// unknown column or a wrong type fails as it would in a query; conjuncts that are no simple
// `column op constant` select no file away (each file that may hold a matching row is
// rewritten, and such a conjunct cannot rule one out).
Result<std::vector<scan::ColumnPredicate>> WherePredicates(ExecContext& ctx,
                                                           const table::Table& table,
                                                           const std::string& where) {
  ARROW_ASSIGN_OR_RAISE(Expr condition, ParseExpression(where));
  ARROW_ASSIGN_OR_RAISE(auto statement, ParseStatement("SELECT _file FROM t"));
  Query query = *statement.As<Query>();
  auto* select = std::get_if<Select>(&query.body);
  TableRef ref;
  ref.name = TableName(ctx, table);
  select->from.clear();
  select->from.push_back(Relation{ref, {}});
  select->where = ExprBox(condition);
  QueryPlanner planner = ctx.binder.Planner();
  ARROW_RETURN_NOT_OK(StreamQuery(planner, query).status());
  std::vector<const Expr*> conjuncts;
  SplitConjuncts(condition, &conjuncts);
  return ctx.binder.PushablePredicates(conjuncts, *table.metadata()->current_schema());
}

}  // namespace

void AddCompactionProcedures(std::vector<Procedure>* out) {
  auto dry_run_schema = RemovedFilesSchema();
  auto data_files =
      arrow::schema({arrow::field("rewritten_data_files_count", arrow::int32(), false),
                     arrow::field("added_data_files_count", arrow::int32(), false),
                     arrow::field("rewritten_bytes_count", arrow::int64(), false),
                     arrow::field("failed_data_files_count", arrow::int32(), false),
                     arrow::field("removed_delete_files_count", arrow::int32(), false)});
  out->push_back(Procedure{
      "rewrite_data_files",
      "Rewrites small (or oversized) data files into files of the target size, applying their "
      "delete files; "
      "rows do not change. With dry_run => true it changes nothing and lists the files a run "
      "would replace.",
      {{"table", Type::kString, true},
       {"strategy", Type::kString, false},
       {"sort_order", Type::kString, false},
       {"options", Type::kStringMap, false},
       {"where", Type::kString, false},
       {"dry_run", Type::kBoolean, false}},
      data_files,
      [data_files, dry_run_schema](const ProcedureCall& c) -> Result<std::shared_ptr<arrow::Table>> {
        scan::RewriteDataFilesOptions options;
        std::optional<std::string> strategy = c.args.String("strategy");
        if (c.args.String("sort_order")) {
          if (strategy && AsciiLower(*strategy) == "binpack") {
            return Status::Invalid("Cannot set rewrite mode, it has already been set to BIN-PACK");
          }
          if (!strategy || AsciiLower(*strategy) == "sort") {
            return Status::NotImplemented(
                "Cannot rewrite ", c.table->name(),
                " with a sort order: the sort strategy is not supported yet; "
                "only binpack is supported");
          }
        }
        if (strategy) options.strategy = *strategy;
        options.options = c.args.StringMap("options").value_or(
            std::vector<std::pair<std::string, std::string>>{});
        // Iceberg checks the strategy and options before it binds the filter.
        ARROW_RETURN_NOT_OK(
            table::CheckRewriteDataFilesOptions(*c.table, options.strategy, options.options));
        if (auto where = c.args.String("where")) {
          ARROW_ASSIGN_OR_RAISE(options.filter, WherePredicates(*c.ctx, *c.table, *where));
        }
        options.dry_run = c.args.Bool("dry_run").value_or(false);
        ARROW_ASSIGN_OR_RAISE(auto r, scan::RewriteDataFiles(c.table, options));
        if (options.dry_run) return RemovedFilesTable(dry_run_schema, r.files);
        arrow::Int32Builder rewritten, added, failed, removed;
        arrow::Int64Builder bytes;
        ARROW_RETURN_NOT_OK(rewritten.Append(r.rewritten_data_files_count));
        ARROW_RETURN_NOT_OK(added.Append(r.added_data_files_count));
        ARROW_RETURN_NOT_OK(bytes.Append(r.rewritten_bytes_count));
        ARROW_RETURN_NOT_OK(failed.Append(r.failed_data_files_count));
        ARROW_RETURN_NOT_OK(removed.Append(r.removed_delete_files_count));
        std::vector<std::shared_ptr<arrow::Array>> columns(5);
        ARROW_RETURN_NOT_OK(rewritten.Finish(&columns[0]));
        ARROW_RETURN_NOT_OK(added.Finish(&columns[1]));
        ARROW_RETURN_NOT_OK(bytes.Finish(&columns[2]));
        ARROW_RETURN_NOT_OK(failed.Finish(&columns[3]));
        ARROW_RETURN_NOT_OK(removed.Finish(&columns[4]));
        return arrow::Table::Make(data_files, columns);
      },
      dry_run_schema});

  auto manifests = arrow::schema({arrow::field("rewritten_manifests_count", arrow::int32(), false),
                                  arrow::field("added_manifests_count", arrow::int32(), false)});
  out->push_back(
      Procedure{"rewrite_manifests",
                "Rewrites the manifests of the current snapshot into fewer manifests of the target "
                "size, clustered by "
                "partition.",
                {{"table", Type::kString, true},
                 {"use_caching", Type::kBoolean, false},
                 {"spec_id", Type::kInteger, false}},
                manifests,
                [manifests](const ProcedureCall& c) -> Result<std::shared_ptr<arrow::Table>> {
                  std::optional<int32_t> spec_id;
                  if (auto id = c.args.Long("spec_id")) spec_id = static_cast<int32_t>(*id);
                  // use_caching only tunes Spark's execution; there is nothing to cache here.
                  ARROW_ASSIGN_OR_RAISE(auto r, table::RewriteManifests(*c.table, spec_id));
                  arrow::Int32Builder rewritten, added;
                  ARROW_RETURN_NOT_OK(rewritten.Append(r.rewritten_manifests_count));
                  ARROW_RETURN_NOT_OK(added.Append(r.added_manifests_count));
                  std::vector<std::shared_ptr<arrow::Array>> columns(2);
                  ARROW_RETURN_NOT_OK(rewritten.Finish(&columns[0]));
                  ARROW_RETURN_NOT_OK(added.Finish(&columns[1]));
                  return arrow::Table::Make(manifests, columns);
                }});
}

}  // namespace floe::sql
