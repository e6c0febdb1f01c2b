#include "floe/sql/execute/executors.h"

#include <algorithm>
#include <arrow/api.h>
#include <arrow/compute/api.h>
#include "floe/sql/parse/parse_error.h"
#include "floe/sql/procedures/procedure_registry.h"
#include "floe/sql/execute/result_tables.h"
#include "floe/sql/types/spark_names.h"
#include "floe/sql/execute/table_definition.h"
#include "floe/util/ascii.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

Result<StatementResult> ExecuteShowNamespaces(ExecContext& ctx, const ShowNamespaces& s) {
  Namespace parent;
  // `IN lakehouse` names the catalog: its top-level namespaces.
  const bool in_catalog = s.in && s.in->parts.size() == 1 &&
                          Lower(s.in->parts[0].name) == Lower(ctx.state.catalog->name());
  if (s.in && !in_catalog) {
    ARROW_ASSIGN_OR_RAISE(parent, ctx.binder.BindExistingNamespace(*s.in));
  }
  ARROW_ASSIGN_OR_RAISE(auto list, ctx.state.catalog->ListNamespaces(parent));
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (const auto& ns : list) {
    std::string text = QuotedName(ns.levels);
    if (s.pattern) {
      ARROW_ASSIGN_OR_RAISE(bool match, MatchesShowPattern(ns.ToString(), *s.pattern));
      if (!match) continue;
    }
    rows.push_back({text});
  }
  std::sort(rows.begin(), rows.end());
  return Rows(StringTable({"namespace"}, rows));
}

Result<StatementResult> ExecuteShowTables(ExecContext& ctx, const ShowTables& s) {
  Namespace ns = ctx.state.current_namespace;
  if (s.in) {
    ARROW_ASSIGN_OR_RAISE(ns, ctx.binder.BindExistingNamespace(*s.in));
  }
  ARROW_ASSIGN_OR_RAISE(auto list, ctx.state.catalog->ListTables(ns));
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (const auto& t : list) {
    if (s.pattern) {
      ARROW_ASSIGN_OR_RAISE(bool match, MatchesShowPattern(t.name, *s.pattern));
      if (!match) continue;
    }
    rows.push_back({QuotedName(t.ns.levels), t.name, std::string("false")});
  }
  std::sort(rows.begin(), rows.end());
  auto table = StringTable({"namespace", "tableName", "isTemporary"}, rows);
  ARROW_ASSIGN_OR_RAISE(auto is_temp, arrow::compute::Cast(table->column(2), arrow::boolean()));
  ARROW_ASSIGN_OR_RAISE(table, table->SetColumn(2, arrow::field("isTemporary", arrow::boolean()), is_temp.chunked_array()));
  return Rows(table);
}

// floe's: the drops UNDROP can restore, newest first, of one namespace or (without IN) of
// every namespace, since a dropped table's namespace may be gone too. The namespace need not
// exist.
Result<StatementResult> ExecuteShowDroppedTables(ExecContext& ctx, const ShowDroppedTables& s) {
  std::optional<Namespace> ns;
  if (s.in) {
    ARROW_ASSIGN_OR_RAISE(ns, ctx.binder.BindNamespace(*s.in));
  }
  ARROW_ASSIGN_OR_RAISE(auto dropped, ctx.state.catalog->ListDroppedTables(ns));
  arrow::StringBuilder namespaces, names, locations;
  arrow::TimestampBuilder dropped_at(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                                     arrow::default_memory_pool());
  for (const auto& d : dropped) {
    if (s.pattern) {
      ARROW_ASSIGN_OR_RAISE(bool match, MatchesShowPattern(d.ident.name, *s.pattern));
      if (!match) continue;
    }
    ARROW_RETURN_NOT_OK(namespaces.Append(QuotedName(d.ident.ns.levels)));
    ARROW_RETURN_NOT_OK(names.Append(d.ident.name));
    ARROW_RETURN_NOT_OK(dropped_at.Append(d.dropped_at_ms * 1000));
    ARROW_RETURN_NOT_OK(locations.Append(d.metadata_location));
  }
  std::vector<std::shared_ptr<arrow::Array>> columns(4);
  ARROW_RETURN_NOT_OK(namespaces.Finish(&columns[0]));
  ARROW_RETURN_NOT_OK(names.Finish(&columns[1]));
  ARROW_RETURN_NOT_OK(dropped_at.Finish(&columns[2]));
  ARROW_RETURN_NOT_OK(locations.Finish(&columns[3]));
  auto schema = arrow::schema({arrow::field("namespace", arrow::utf8()),
                               arrow::field("tableName", arrow::utf8()),
                               arrow::field("droppedAt", columns[2]->type()),
                               arrow::field("metadataLocation", arrow::utf8())});
  return Rows(arrow::Table::Make(std::move(schema), columns));
}

// Not in Spark 3.5 (whose Iceberg procedures are listed nowhere): one row a procedure, with
// the catalog and namespace CALL reaches it through, and its parameters in order.
Result<StatementResult> ExecuteShowProcedures(ExecContext& ctx, const ShowProcedures& s) {
  if (s.in) {
    std::vector<std::string> parts;
    for (const auto& p : s.in->parts) parts.push_back(Lower(p.name));
    const std::string catalog = Lower(ctx.state.catalog->name());
    const bool ok = parts == std::vector<std::string>{catalog} || parts == std::vector<std::string>{"system"} ||
                    parts == std::vector<std::string>{catalog, "system"};
    if (!ok) {
      return ErrorAt(ctx.sql, s.in->pos, StrCat("[SCHEMA_NOT_FOUND] The schema `", ToSql(*s.in),
                                                "` cannot be found. Procedures live in `", ctx.state.catalog->name(),
                                                "`.`system`."));
    }
  }
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (const auto& p : AllProcedures()) {
    if (s.pattern) {
      ARROW_ASSIGN_OR_RAISE(bool match, MatchesShowPattern(p.name, *s.pattern));
      if (!match) continue;
    }
    std::string params;
    for (const auto& param : p.parameters) {
      params += StrCat(params.empty() ? "" : ", ", param.name, " ", ProcedureArgTypeName(param.type),
                       param.required ? "" : " (optional)");
    }
    rows.push_back({ctx.state.catalog->name(), "system", p.name, params, p.description});
  }
  return Rows(StringTable({"catalog", "namespace", "procedure_name", "parameters", "description"}, rows));
}

Result<StatementResult> ExecuteShowTblProperties(ExecContext& ctx, const ShowTblProperties& s) {
  ARROW_ASSIGN_OR_RAISE(auto table, ctx.binder.LoadTable(s.name));
  auto md = table->metadata();
  std::map<std::string, std::string> props = ShownProperties(*md);
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (const auto& [k, v] : props) {
    if (s.key && *s.key != k) continue;
    rows.push_back({k, v});
  }
  if (s.key && rows.empty()) {
    rows.push_back({*s.key, StrCat("Table ", table->name(), " does not have property: ", *s.key)});
  }
  return Rows(StringTable({"key", "value"}, rows));
}

namespace {

// The default spec's fields as Spark sees them: void ones (fields a v1 table dropped) are left out.
std::vector<spec::PartitionField> ShownPartitionFields(const spec::TableMetadata& md) {
  std::vector<spec::PartitionField> out;
  if (const spec::PartitionSpec* spec = md.default_spec()) {
    for (const auto& f : spec->fields()) {
      if (f.transform.kind() != spec::TransformKind::kVoid) out.push_back(f);
    }
  }
  return out;
}

}  // namespace

Result<StatementResult> ExecuteDescribe(ExecContext& ctx, const sql::Describe& describe) {
  ARROW_ASSIGN_OR_RAISE(auto table, ctx.binder.LoadTable(describe.name));
  auto md = table->metadata();
  auto schema = md->current_schema();
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (const auto& f : schema->fields()) {
    rows.push_back({f.name, SparkTypeName(*f.type), f.doc.empty() ? std::nullopt : std::optional<std::string>(f.doc)});
  }
  // Spark lists identity-only partitioning as partition columns, any other as transforms.
  const std::vector<spec::PartitionField> parts = ShownPartitionFields(*md);
  const bool columns_only = std::all_of(parts.begin(), parts.end(), [](const spec::PartitionField& f) {
    return f.transform.kind() == spec::TransformKind::kIdentity;
  });
  if (!parts.empty() && columns_only) {
    rows.push_back({"# Partition Information", "", ""});
    rows.push_back({"# col_name", "data_type", "comment"});
    for (const auto& f : parts) {
      const spec::NestedField* source = schema->FindFieldById(f.source_id);
      if (!source) continue;
      rows.push_back({schema->FindColumnName(f.source_id), SparkTypeName(*source->type),
                      source->doc.empty() ? std::nullopt : std::optional<std::string>(source->doc)});
    }
  } else if (!parts.empty()) {
    rows.push_back({"", "", ""});
    rows.push_back({"# Partitioning", "", ""});
    for (size_t i = 0; i < parts.size(); ++i) {
      rows.push_back({StrCat("Part ", i), PartitionFieldText(parts[i], *schema), ""});
    }
  }
  if (describe.extended) {
    rows.push_back({"", "", ""});
    rows.push_back({"# Metadata Columns", "", ""});
    rows.push_back({"_spec_id", "int", ""});
    rows.push_back({"_partition", "struct<>", ""});
    rows.push_back({"_file", "string", ""});
    rows.push_back({"_pos", "bigint", ""});
    rows.push_back({"", "", ""});
    rows.push_back({"# Detailed Table Information", "", ""});
    rows.push_back({"Name", table->name(), ""});
    rows.push_back({"Type", "MANAGED", ""});
    rows.push_back({"Location", md->location, ""});
    rows.push_back({"Provider", "iceberg", ""});
    std::string props = "[";
    std::map<std::string, std::string> all = ShownProperties(*md);
    bool first = true;
    for (const auto& [k, v] : all) {
      props += (first ? "" : ",") + k + "=" + v;
      first = false;
    }
    rows.push_back({"Table Properties", props + "]", ""});
  }
  return Rows(StringTable({"col_name", "data_type", "comment"}, rows));
}

Result<StatementResult> ExecuteShowCreateTable(ExecContext& ctx, const sql::ShowCreateTable& show) {
  ARROW_ASSIGN_OR_RAISE(auto table, ctx.binder.LoadTable(show.name));
  auto md = table->metadata();
  auto schema = md->current_schema();
  std::string text = "CREATE TABLE " + table->name() + " (\n";
  for (size_t i = 0; i < schema->fields().size(); ++i) {
    const auto& f = schema->fields()[i];
    text += "  " + f.name + " " + AsciiUpper(SparkTypeName(*f.type)) + (f.required ? " NOT NULL" : "");
    if (!f.doc.empty()) text += " COMMENT " + QuoteString(f.doc);
    text += i + 1 < schema->fields().size() ? ",\n" : ")\n";
  }
  text += "USING iceberg\n";
  const std::vector<spec::PartitionField> parts = ShownPartitionFields(*md);
  if (!parts.empty()) {
    text += "PARTITIONED BY (";
    for (size_t i = 0; i < parts.size(); ++i) {
      text += (i ? ", " : "") + PartitionFieldText(parts[i], *schema);
    }
    text += ")\n";
  }
  text += "LOCATION '" + md->location + "'\n";
  std::map<std::string, std::string> props = ShownProperties(*md);
  text += "TBLPROPERTIES (\n";
  size_t i = 0;
  for (const auto& [k, v] : props) {
    text += "  '" + k + "' = '" + v + "'" + (++i < props.size() ? ",\n" : ")\n");
  }
  return Rows(StringTable({"createtab_stmt"}, {{text}}));
}

}  // namespace floe::sql
