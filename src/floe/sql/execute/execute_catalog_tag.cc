// CREATE CATALOG TAG, DROP CATALOG TAG and SHOW CATALOG TAGS, over table/catalog_tags.h.

#include <arrow/api.h>

#include "floe/sql/execute/executors.h"
#include "floe/sql/execute/result_tables.h"
#include "floe/sql/execute/table_definition.h"
#include "floe/sql/parse/parse_error.h"
#include "floe/table/catalog_tags.h"

namespace floe::sql {

namespace {

std::shared_ptr<arrow::DataType> CatalogTagTime() {
  return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
}

Result<std::shared_ptr<arrow::Table>> CatalogTagActionRows(
    const std::vector<table::CatalogTagTableAction>& actions) {
  arrow::StringBuilder names, what;
  arrow::Int64Builder snapshots;
  for (const auto& a : actions) {
    ARROW_RETURN_NOT_OK(names.Append(a.ident.ToString()));
    ARROW_RETURN_NOT_OK(a.snapshot_id ? snapshots.Append(*a.snapshot_id) : snapshots.AppendNull());
    ARROW_RETURN_NOT_OK(what.Append(a.action));
  }
  std::vector<std::shared_ptr<arrow::Array>> columns(3);
  ARROW_RETURN_NOT_OK(names.Finish(&columns[0]));
  ARROW_RETURN_NOT_OK(snapshots.Finish(&columns[1]));
  ARROW_RETURN_NOT_OK(what.Finish(&columns[2]));
  return arrow::Table::Make(CatalogTagActionSchema(), columns);
}

}  // namespace

std::shared_ptr<arrow::Schema> CatalogTagActionSchema() {
  return arrow::schema({arrow::field("table", arrow::utf8()),
                        arrow::field("snapshot_id", arrow::int64()),
                        arrow::field("action", arrow::utf8())});
}

Result<table::NewCatalogTag> BindCatalogTag(ExecContext& ctx, const CreateCatalogTag& c) {
  table::NewCatalogTag tag;
  tag.name = c.name.name;
  if (c.in) {
    ARROW_ASSIGN_OR_RAISE(Namespace ns, ctx.binder.BindExistingNamespace(*c.in));
    tag.options.ns = std::move(ns);
  }
  if (c.retain) tag.options.max_ref_age_ms = DurationMs(*c.retain);
  return tag;
}

Result<StatementResult> ExecuteCreateCatalogTag(ExecContext& ctx, const CreateCatalogTag& c) {
  ARROW_ASSIGN_OR_RAISE(table::NewCatalogTag tag, BindCatalogTag(ctx, c));
  auto made = table::CreateCatalogTag(ctx.state.tables, tag.name, tag.options);
  if (!made.ok()) return ErrorAt(ctx.sql, c.name.pos, made.status());
  ARROW_ASSIGN_OR_RAISE(auto rows, CatalogTagActionRows(*made));
  return Rows(std::move(rows));
}

Result<StatementResult> ExecuteDropCatalogTag(ExecContext& ctx, const DropCatalogTag& d) {
  auto dropped = table::DropCatalogTag(ctx.state.tables, d.name.name);
  if (!dropped.ok()) return ErrorAt(ctx.sql, d.name.pos, dropped.status());
  ARROW_ASSIGN_OR_RAISE(auto rows, CatalogTagActionRows(*dropped));
  return Rows(std::move(rows));
}

// One row a tag, oldest first: its namespace (NULL: the whole catalog), when it was made, when
// its tag refs expire (NULL: kept until dropped), the tables it tagged and those it skipped.
Result<StatementResult> ExecuteShowCatalogTags(ExecContext& ctx) {
  ARROW_ASSIGN_OR_RAISE(auto tags, ctx.state.catalog->ListCatalogTags());
  arrow::StringBuilder names, namespaces;
  arrow::TimestampBuilder created(CatalogTagTime(), arrow::default_memory_pool());
  arrow::TimestampBuilder expires(CatalogTagTime(), arrow::default_memory_pool());
  arrow::Int64Builder tagged, skipped;
  for (const auto& tag : tags) {
    ARROW_RETURN_NOT_OK(names.Append(tag.name));
    ARROW_RETURN_NOT_OK(tag.ns ? namespaces.Append(tag.ns->ToString()) : namespaces.AppendNull());
    ARROW_RETURN_NOT_OK(created.Append(tag.created_at_ms * 1000));
    ARROW_RETURN_NOT_OK(tag.max_ref_age_ms
                            ? expires.Append((tag.created_at_ms + *tag.max_ref_age_ms) * 1000)
                            : expires.AppendNull());
    int64_t with = 0;
    for (const auto& t : tag.tables) with += t.snapshot_id ? 1 : 0;
    ARROW_RETURN_NOT_OK(tagged.Append(with));
    ARROW_RETURN_NOT_OK(skipped.Append(static_cast<int64_t>(tag.tables.size()) - with));
  }
  std::vector<std::shared_ptr<arrow::Array>> columns(6);
  ARROW_RETURN_NOT_OK(names.Finish(&columns[0]));
  ARROW_RETURN_NOT_OK(namespaces.Finish(&columns[1]));
  ARROW_RETURN_NOT_OK(created.Finish(&columns[2]));
  ARROW_RETURN_NOT_OK(expires.Finish(&columns[3]));
  ARROW_RETURN_NOT_OK(tagged.Finish(&columns[4]));
  ARROW_RETURN_NOT_OK(skipped.Finish(&columns[5]));
  auto schema = arrow::schema(
      {arrow::field("name", arrow::utf8()), arrow::field("namespace", arrow::utf8()),
       arrow::field("created_at", CatalogTagTime()), arrow::field("expires_at", CatalogTagTime()),
       arrow::field("tables", arrow::int64()), arrow::field("skipped_tables", arrow::int64())});
  return Rows(arrow::Table::Make(std::move(schema), columns));
}

}  // namespace floe::sql
