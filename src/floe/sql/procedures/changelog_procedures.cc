// create_changelog_view: a session view of a table's changes, as Spark's procedure makes it.

#include <arrow/api.h>

#include "floe/scan/changelog_scan.h"
#include "floe/sql/execute/executors.h"
#include "floe/sql/procedures/procedure_registry.h"
#include "floe/util/ascii.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

namespace {

using Type = ProcedureArgType;

// Spark's message for a column it cannot find, with the view's columns as suggestions.
Status UnresolvedColumn(const std::string& name, const spec::Schema& schema) {
  std::string columns;
  for (const auto& f : schema.fields()) columns += StrCat("`", f.name, "`, ");
  columns += StrCat("`", scan::kChangeTypeColumn, "`, `", scan::kChangeOrdinalColumn, "`, `",
                    scan::kCommitSnapshotIdColumn, "`");
  return Status::Invalid(
      "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `", name,
      "` cannot be resolved. Did you mean one of the following? [", columns, "].");
}

// A view name as Spark's temp views take it: one part, backticks quoting it.
Result<std::string> ViewName(const std::string& given) {
  std::string name;
  bool quoted = false;
  for (char ch : given) {
    if (ch == '`') {
      quoted = !quoted;
    } else if (ch == '.' && !quoted) {
      return Status::Invalid(
          "[TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS] CREATE TEMPORARY VIEW or the corresponding Dataset "
          "APIs "
          "only accept single-part view names, but got: ",
          given, ".");
    } else {
      name += ch;
    }
  }
  if (name.empty()) return Status::Invalid("Cannot create a changelog view with an empty name");
  return name;
}

Result<std::shared_ptr<arrow::Table>> CreateChangelogView(
    const std::shared_ptr<arrow::Schema>& result, const ProcedureCall& c) {
  auto md = c.table->metadata();
  spec::SchemaPtr schema = md->current_schema();
  ChangelogView view;
  view.table = c.table->ident();
  view.read_options =
      c.args.StringMap("options").value_or(std::vector<std::pair<std::string, std::string>>{});
  auto identifiers = c.args.StringArray("identifier_columns");
  view.compute_updates = c.args.Bool("compute_updates").value_or(identifiers.has_value());
  view.net_changes = c.args.Bool("net_changes").value_or(false);
  if (identifiers) {
    view.identifier_columns = *identifiers;
  } else {
    for (int32_t id : schema->identifier_field_ids())
      view.identifier_columns.push_back(schema->FindColumnName(id));
  }
  if (view.compute_updates) {
    if (view.net_changes) return Status::Invalid("Not support net changes with update images");
    // Format v3 pairs the images of one row id without them.
    if (view.identifier_columns.empty() && md->format_version < 3) {
      return Status::Invalid(
          "Cannot compute the update images because identifier columns are not set");
    }
    for (const auto& name : view.identifier_columns) {
      bool found = false;
      for (const auto& f : schema->fields()) found |= AsciiLower(f.name) == AsciiLower(name);
      if (!found) return UnresolvedColumn(name, *schema);
    }
  }
  const std::string returned =
      c.args.String("changelog_view").value_or(StrCat("`", c.table->ident().name, "_changes`"));
  ARROW_ASSIGN_OR_RAISE(std::string name, ViewName(returned));
  c.ctx->state.changelog_views[AsciiLower(name)] = std::move(view);
  arrow::StringBuilder b;
  ARROW_RETURN_NOT_OK(b.Append(returned));
  ARROW_ASSIGN_OR_RAISE(auto column, b.Finish());
  return arrow::Table::Make(result, {column});
}

}  // namespace

void AddChangelogProcedures(std::vector<Procedure>* out) {
  auto result = arrow::schema({arrow::field("changelog_view", arrow::utf8(), false)});
  out->push_back(
      Procedure{"create_changelog_view",
                "Creates a session view of the rows a table's snapshots inserted and deleted "
                "(carry-over rows of copy-on-write removed), with update images by identifier "
                "columns (or row lineage on v3) or net changes over the range; merge-on-read "
                "deletes included.",
                {{"table", Type::kString, true},
                 {"changelog_view", Type::kString, false},
                 {"options", Type::kStringMap, false},
                 {"compute_updates", Type::kBoolean, false},
                 {"identifier_columns", Type::kStringArray, false},
                 {"net_changes", Type::kBoolean, false}},
                result,
                [result](const ProcedureCall& c) { return CreateChangelogView(result, c); }});
}

}  // namespace floe::sql
