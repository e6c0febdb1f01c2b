#include "floe/sql/execute/row_assignments.h"

#include <set>

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "floe/sql/execute/insert_conform.h"
#include "floe/sql/parse/parse_error.h"
#include "floe/sql/plan/relation.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

Result<std::vector<Assigned>> ResolveAssignments(const std::string& sql, const spec::Schema& schema,
                                                 const arrow::Schema& arrow_schema,
                                                 const std::vector<Assignment>& assignments,
                                                 const ObjectName& table,
                                                 const std::optional<Identifier>& alias) {
  std::vector<Assigned> assigned;
  std::set<int32_t> seen;
  for (const auto& a : assignments) {
    const Identifier& column = a.target.back();
    const spec::NestedField* field = schema.FindFieldByNameCaseInsensitive(column.name);
    bool top_level = false;
    int index = 0;
    for (size_t i = 0; i < schema.fields().size(); ++i) {
      if (field && schema.fields()[i].id == field->id) {
        top_level = true;
        index = static_cast<int>(i);
      }
    }
    // `t.c` names column c of the target; `s.f` a field of struct column s, not updated yet.
    if (a.target.size() > 1) {
      const std::string qualifier = Lower(a.target[a.target.size() - 2].name);
      const bool qualified =
          a.target.size() == 2 &&
          (alias ? qualifier == Lower(alias->name) : qualifier == Lower(table.parts.back().name));
      if (!qualified) {
        return ErrorAt(sql, a.target.front().pos,
                       "Updating fields of struct columns is not supported yet");
      }
    }
    if (!field || !top_level) {
      return ErrorAt(
          sql, column.pos,
          StrCat("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `",
                 column.name, "` cannot be resolved."));
    }
    if (!seen.insert(field->id).second) {
      return ErrorAt(sql, column.pos, StrCat("Multiple assignments for '", field->name, "'"));
    }
    assigned.push_back({index, 0, arrow_schema.field(index)});
  }
  return assigned;
}

Result<std::shared_ptr<arrow::RecordBatch>> ApplyAssignments(
    const arrow::RecordBatch& batch, const std::shared_ptr<arrow::Schema>& table_schema,
    const std::vector<Assigned>& assigned, const std::shared_ptr<arrow::Array>& matched,
    const std::string& table_sql, const std::string& sql, SourcePos pos) {
  arrow::ArrayVector columns;
  for (int i = 0; i < table_schema->num_fields(); ++i) columns.push_back(batch.column(i));
  for (const auto& a : assigned) {
    auto value = std::make_shared<arrow::ChunkedArray>(batch.column(a.value));
    auto conformed = ConformForInsert(value, *a.field, table_sql);
    if (!conformed.ok()) return ErrorAt(sql, pos, conformed.status().message());
    ARROW_ASSIGN_OR_RAISE(auto updated,
                          arrow::compute::CallFunction(
                              "if_else", {matched, arrow::Datum(*conformed), columns[a.column]}));
    if (updated.is_chunked_array()) {
      ARROW_ASSIGN_OR_RAISE(auto flat, arrow::Concatenate(updated.chunked_array()->chunks()));
      columns[a.column] = std::move(flat);
    } else {
      columns[a.column] = updated.make_array();
    }
  }
  return arrow::RecordBatch::Make(table_schema, batch.num_rows(), std::move(columns));
}

Result<std::shared_ptr<arrow::RecordBatch>> WithRowLineage(
    const arrow::RecordBatch& rows, const std::shared_ptr<arrow::Array>& row_id,
    const std::shared_ptr<arrow::Array>& sequence, const std::shared_ptr<arrow::Array>& changed) {
  std::shared_ptr<arrow::Array> kept = sequence;
  if (changed) {
    ARROW_ASSIGN_OR_RAISE(
        auto cleared, arrow::compute::CallFunction(
                          "if_else", {changed, arrow::MakeNullScalar(arrow::int64()), sequence}));
    kept = cleared.make_array();
  }
  arrow::FieldVector fields = rows.schema()->fields();
  arrow::ArrayVector columns = rows.columns();
  fields.push_back(arrow::field(spec::kRowIdName, arrow::int64()));
  fields.push_back(arrow::field(spec::kLastUpdatedSequenceNumberName, arrow::int64()));
  columns.push_back(row_id);
  columns.push_back(std::move(kept));
  return arrow::RecordBatch::Make(arrow::schema(std::move(fields)), rows.num_rows(),
                                  std::move(columns));
}

}  // namespace floe::sql
