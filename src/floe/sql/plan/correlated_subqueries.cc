// Correlated subqueries in the SELECT list of a catalog query, run once per row.
//
// PostgreSQL clients ask the catalog with subqueries that read the enclosing row (psql's \d:
// `array(select 'toast.' || x from unnest(tc.reloptions) x)`). floe plans no correlated
// subquery, but catalog relations are small: such a query is planned again (QueryPlanner::
// PlanQuery) with its FROM and WHERE run first and each subquery then run for every row, the
// row's values standing for the outer columns it names (ExprContext::outer).

#include <arrow/api.h>

#include "floe/sql/parse/expr_children.h"
#include "floe/sql/parse/parse_error.h"
#include "floe/sql/plan/query_planner.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

namespace {

const ScalarSubquery* ArrayOfQuery(const Expr& e) {
  const auto* f = e.As<FunctionCall>();
  if (!f || f->args.size() != 1 || Lower(f->name.parts.back().name) != kArrayOfQueryFunction) return nullptr;
  return f->args[0].As<ScalarSubquery>();
}

// The outermost subqueries of `e`: scalar, EXISTS and ARRAY(query).
void CollectSubqueries(const Expr& e, std::vector<const Expr*>* out) {
  if (e.Is<ScalarSubquery>() || e.Is<Exists>() || ArrayOfQuery(e)) {
    out->push_back(&e);
    return;
  }
  ForEachChild(e, [&](const Expr& child) { CollectSubqueries(child, out); });
}

bool Untyped(const arrow::DataType& type) {
  if (type.id() == arrow::Type::NA) return true;
  if (type.id() == arrow::Type::LIST) return static_cast<const arrow::ListType&>(type).value_type()->id() == arrow::Type::NA;
  return false;
}

// `value` as a value of `type`: the rows of one subquery may type their results apart (an
// empty unnest has no element type).
Result<std::shared_ptr<arrow::Scalar>> Conform(const std::shared_ptr<arrow::Scalar>& value,
                                               const std::shared_ptr<arrow::DataType>& type) {
  if (value->type->Equals(*type)) return value;
  if (!value->is_valid) return arrow::MakeNullScalar(type);
  if (type->id() == arrow::Type::LIST && value->type->id() == arrow::Type::LIST) {
    const auto& list = static_cast<const arrow::ListScalar&>(*value);
    if (list.value->length() == 0) {
      ARROW_ASSIGN_OR_RAISE(auto empty, arrow::MakeEmptyArray(static_cast<const arrow::ListType&>(*type).value_type()));
      return std::make_shared<arrow::ListScalar>(empty, type);
    }
  }
  return value->CastTo(type);
}

}  // namespace

Result<std::shared_ptr<arrow::Scalar>> QueryPlanner::SubqueryValue(const Expr& subquery) {
  if (const auto* exists = subquery.As<Exists>()) {
    ARROW_ASSIGN_OR_RAISE(auto rows, Run(*exists->query));
    return std::make_shared<arrow::BooleanScalar>(rows->num_rows() > 0);
  }
  const ScalarSubquery* array = ArrayOfQuery(subquery);
  const ScalarSubquery* scalar = array ? array : subquery.As<ScalarSubquery>();
  ARROW_ASSIGN_OR_RAISE(auto rows, Run(*scalar->query));
  if (rows->num_columns() != 1) {
    return ErrorAt(env_.sql, subquery.pos, "subquery must return only one column");
  }
  std::shared_ptr<arrow::Array> column;
  if (rows->column(0)->num_chunks() == 0) {
    ARROW_ASSIGN_OR_RAISE(column, arrow::MakeEmptyArray(rows->column(0)->type()));
  } else {
    ARROW_ASSIGN_OR_RAISE(column, arrow::Concatenate(rows->column(0)->chunks()));
  }
  if (array) return std::make_shared<arrow::ListScalar>(column, arrow::list(rows->column(0)->type()));
  if (rows->num_rows() > 1) {
    return ErrorAt(env_.sql, subquery.pos, "more than one row returned by a subquery used as an expression");
  }
  if (rows->num_rows() == 0) return arrow::MakeNullScalar(rows->column(0)->type());
  return column->GetScalar(0);
}

Result<bool> QueryPlanner::ApplyCorrelatedSubqueries(const Select& select, Rel* input,
                                                     std::map<std::string, int>* computed) {
  // Only catalog relations are small enough to run a subquery for each of their rows.
  if (select.from.empty()) return false;
  for (const auto& item : select.from) {
    if (!ReadsOnlyCatalog(item)) return false;
  }
  std::vector<const Expr*> subqueries;
  for (const auto& item : select.items) CollectSubqueries(item.expr, &subqueries);
  if (subqueries.empty()) return false;
  ARROW_ASSIGN_OR_RAISE(auto rows, Execute(*input));
  ARROW_ASSIGN_OR_RAISE(rows, rows->CombineChunks());
  const int64_t n = rows->num_rows();
  // The enclosing rows, one OuterRow each.
  std::vector<OuterRow> outer(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) {
    outer[r].columns = &input->columns;
    outer[r].enclosing = outer_;
    for (const auto& column : rows->columns()) {
      ARROW_ASSIGN_OR_RAISE(auto value, column->GetScalar(r));
      outer[r].values.push_back(std::move(value));
    }
  }
  arrow::FieldVector fields = rows->schema()->fields();
  arrow::ChunkedArrayVector arrays = rows->columns();
  std::vector<Column> columns = input->columns;
  for (const Expr* subquery : subqueries) {
    const std::string key = ToSql(*subquery);
    if (computed->count(key)) continue;
    std::vector<std::shared_ptr<arrow::Scalar>> values;
    std::shared_ptr<arrow::DataType> type;
    for (const OuterRow& row : outer) {
      const OuterRow* saved = outer_;
      outer_ = &row;
      Result<std::shared_ptr<arrow::Scalar>> value = SubqueryValue(*subquery);
      outer_ = saved;
      ARROW_RETURN_NOT_OK(value.status());
      if (!type || (Untyped(*type) && !Untyped(*(*value)->type))) type = (*value)->type;
      values.push_back(std::move(*value));
    }
    if (!type) type = subquery->Is<Exists>() ? arrow::boolean() : ArrayOfQuery(*subquery) ? arrow::list(arrow::utf8()) : arrow::utf8();
    std::unique_ptr<arrow::ArrayBuilder> builder;
    ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), type, &builder));
    for (const auto& value : values) {
      ARROW_ASSIGN_OR_RAISE(auto conformed, Conform(value, type));
      ARROW_RETURN_NOT_OK(builder->AppendScalar(*conformed));
    }
    std::shared_ptr<arrow::Array> results;
    ARROW_RETURN_NOT_OK(builder->Finish(&results));
    (*computed)[key] = static_cast<int>(columns.size());
    Column column;
    column.name = StrCat(kInternalColumnPrefix, "subquery_", columns.size());
    column.type = type;
    column.hidden = true;
    columns.push_back(column);
    fields.push_back(arrow::field(column.name, type));
    arrays.push_back(std::make_shared<arrow::ChunkedArray>(results));
  }
  Rel rel = RelFromTable(arrow::Table::Make(arrow::schema(fields), arrays, n));
  rel.columns = std::move(columns);
  *input = std::move(rel);
  return true;
}

}  // namespace floe::sql
