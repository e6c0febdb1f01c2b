#include "floe/sql/execute/executors.h"

#include <optional>
#include <set>
#include <arrow/api.h>
#include "floe/sql/parse/parse_error.h"
#include "floe/sql/execute/result_tables.h"
#include "floe/sql/execute/table_definition.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/replace_table.h"
#include "floe/table/rolling_writer.h"
#include "floe/table/snapshot_producer.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

namespace {

// Streams the rows of a CTAS query into `table`. A replaced table gets its (possibly
// empty) snapshot; a new one only when there are rows.
Status WriteQueryRows(table::Table& table, QueryStream& data, const std::shared_ptr<arrow::Schema>& schema,
                      bool replaced) {
  ARROW_ASSIGN_OR_RAISE(auto writer, table::RollingDataWriter::Make(table));
  int64_t rows = 0;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(data.reader->ReadNext(&batch));
    if (!batch) break;
    rows += batch->num_rows();
    // Acero names columns by position; the table's columns are matched by name.
    auto named = arrow::RecordBatch::Make(schema, batch->num_rows(), batch->columns());
    ARROW_RETURN_NOT_OK(writer->Write(*named));
  }
  ARROW_ASSIGN_OR_RAISE(auto files, writer->Finish());
  if (rows == 0 && !replaced) return Status::OK();
  return table::AppendFiles(table, std::move(files)).status();
}

}  // namespace

Result<StatementResult> ExecuteCreateTable(ExecContext& ctx, const sql::CreateTable& create) {
  const std::string& sql = ctx.sql;
  ARROW_ASSIGN_OR_RAISE(ResolvedName name, ctx.binder.BindName(create.name, false));
  if (create.provider && Lower(*create.provider) != "iceberg") {
    return ErrorAt(sql, create.name.pos, "floe creates Iceberg tables only (USING iceberg)");
  }
  ARROW_ASSIGN_OR_RAISE(bool exists, ctx.state.catalog->TableExists(name.ident));
  if (exists && create.mode == CreateMode::kCreate) {
    if (create.if_not_exists) return Message("");
    return ErrorAt(sql, create.name.pos,
                   StrCat("[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create table or view `", name.ident.ns.ToString(), "`.`",
                          name.ident.name, "` because it already exists."));
  }
  if (!exists && create.mode == CreateMode::kReplace) {
    return ErrorAt(sql, create.name.pos, StrCat("[TABLE_OR_VIEW_NOT_FOUND] Cannot replace table `", name.ident.ToString(),
                                                "` because it does not exist."));
  }
  ARROW_ASSIGN_OR_RAISE(bool ns_exists, ctx.state.catalog->NamespaceExists(name.ident.ns));
  if (!ns_exists) {
    return ErrorAt(sql, create.name.pos, StrCat("[SCHEMA_NOT_FOUND] The schema `", name.ident.ns.ToString(), "` cannot be found."));
  }
  // Schema: from the column list, or from the query's result.
  // The query's rows stream into the new table's files once it exists.
  std::optional<QueryStream> data;
  std::shared_ptr<arrow::Schema> data_schema;
  spec::SchemaPtr schema;
  if (create.as_query) {
    QueryPlanner planner = ctx.binder.Planner();
    ARROW_ASSIGN_OR_RAISE(data, StreamQuery(planner, *create.as_query));
    // CTAS columns are nullable, as Spark makes them.
    arrow::FieldVector fields;
    for (int i = 0; i < data->reader->schema()->num_fields(); ++i) {
      fields.push_back(arrow::field(data->names[i], data->reader->schema()->field(i)->type(), true));
    }
    data_schema = arrow::schema(fields);
    ARROW_ASSIGN_OR_RAISE(schema, table::SchemaFromArrow(*data_schema));
  } else {
    if (create.columns.empty()) return ErrorAt(sql, create.name.pos, "CREATE TABLE needs a column list or AS SELECT");
    int32_t next = 0;
    std::vector<spec::NestedField> fields;
    std::set<std::string> seen;
    for (const auto& c : create.columns) {
      if (!seen.insert(Lower(c.name.name)).second) {
        return ErrorAt(sql, c.name.pos, StrCat("[COLUMN_ALREADY_EXISTS] The column `", c.name.name, "` already exists."));
      }
      int32_t id = ++next;
      ARROW_ASSIGN_OR_RAISE(auto type, IcebergType(c.type, &next));
      spec::NestedField f = c.not_null ? spec::Required(id, c.name.name, type) : spec::Optional(id, c.name.name, type);
      if (c.comment) f.doc = *c.comment;
      fields.push_back(f);
    }
    schema = std::make_shared<const spec::Schema>(0, fields);
  }
  table::CreateTableOptions options;
  for (const auto& p : create.partitioned_by) {
    options.partition_by.push_back({JoinNames(p.column), ToTransform(p), ""});
  }
  for (const auto& p : create.properties) options.properties[p.key] = p.value;
  if (create.comment) options.properties["comment"] = *create.comment;
  if (create.location) options.location = *create.location;
  auto fv = options.properties.find("format-version");
  if (fv != options.properties.end()) {
    auto version = CheckFormatVersion(fv->second, std::nullopt, ToSql(create.name));
    if (!version.ok()) return ErrorAt(sql, create.name.pos, version.status().message());
    options.format_version = *version;
    options.properties.erase(fv);
  }
  std::shared_ptr<table::Table> table;
  if (exists) {
    // CREATE OR REPLACE / REPLACE: a new schema, spec and properties on the same table; the
    // history stays and stays readable, and the next snapshot has no parent.
    ARROW_ASSIGN_OR_RAISE(table, ctx.state.tables.LoadTable(name.ident));
    ARROW_RETURN_NOT_OK(table::ReplaceTable(*table, *schema, options));
  } else {
    ARROW_ASSIGN_OR_RAISE(table, ctx.state.tables.CreateTable(name.ident, *schema, options));
  }
  if (!data) return Message("");
  Status written = WriteQueryRows(*table, *data, data_schema, exists);
  if (!written.ok() && !exists) {
    // A failed CTAS leaves no table behind, as when its query fails before the create.
    (void)ctx.state.tables.DropTable(name.ident, /*purge=*/true);
  }
  ARROW_RETURN_NOT_OK(written);
  return Message("");
}

Result<StatementResult> ExecuteDropTable(ExecContext& ctx, const DropTable& d) {
  const std::string& sql = ctx.sql;
  ARROW_ASSIGN_OR_RAISE(ResolvedName name, ctx.binder.BindName(d.name, false));
  ARROW_ASSIGN_OR_RAISE(bool exists, ctx.state.catalog->TableExists(name.ident));
  if (!exists) {
    if (d.if_exists) return Message("");
    return ErrorAt(sql, d.name.pos, StrCat("[TABLE_OR_VIEW_NOT_FOUND] The table or view `", ctx.state.catalog->name(), "`.`",
                                            name.ident.ns.ToString(), "`.`", name.ident.name, "` cannot be found."));
  }
  ARROW_ASSIGN_OR_RAISE(auto dropped, ctx.state.tables.DropTable(name.ident, d.purge));
  return Message(dropped.Warning());
}

Result<StatementResult> ExecuteUndropTable(ExecContext& ctx, const UndropTable& u) {
  ARROW_ASSIGN_OR_RAISE(ResolvedName name, ctx.binder.BindName(u.name, false));
  auto restored = ctx.state.tables.UndropTable(name.ident);
  if (!restored.ok()) return ErrorAt(ctx.sql, u.name.pos, restored.status());
  return Message("");
}

}  // namespace floe::sql
