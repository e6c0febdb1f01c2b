// Queries over PostgreSQL catalog relations floe has no rows for.
//
// Clients ask the catalog for policies, statistics objects, publications, inheritance and
// column defaults with queries that use more of PostgreSQL than floe plans (correlated
// subqueries, arrays of oids, regnamespace). Over a relation without rows such a query has
// no rows either, whatever its expressions would compute, so it is answered without them.

#include <arrow/api.h>

#include "floe/sql/parse/expr_children.h"
#include "floe/sql/plan/query_planner.h"

namespace floe::sql {

namespace {

// Whether a FROM item surely yields no rows because it takes every row from an empty catalog
// relation (inner and cross joins, the preserved side of outer joins).
bool SurelyEmpty(const Relation& relation, const std::function<bool(const TableRef&)>& empty) {
  if (auto* t = relation.As<TableRef>()) return empty(*t);
  if (auto* j = relation.As<Join>()) {
    switch (j->kind) {
      case JoinKind::kInner:
      case JoinKind::kCross:
      case JoinKind::kLeftSemi:
        return SurelyEmpty(*j->left, empty) || SurelyEmpty(*j->right, empty);
      case JoinKind::kLeft:
      case JoinKind::kLeftAnti:
        return SurelyEmpty(*j->left, empty);
      case JoinKind::kRight:
        return SurelyEmpty(*j->right, empty);
      case JoinKind::kFull:
        return SurelyEmpty(*j->left, empty) && SurelyEmpty(*j->right, empty);
    }
  }
  return false;
}

bool HasAggregate(const Expr& e) {
  if (auto* f = e.As<FunctionCall>()) {
    if (!f->over && IsAggregateFunction(Lower(f->name.parts.back().name))) return true;
  }
  bool found = false;
  ForEachChild(e, [&](const Expr& child) { found = found || HasAggregate(child); });
  return found;
}

}  // namespace

Result<Rel> QueryPlanner::PlanOverEmptyCatalogRelation(const Query& query, Status failure) {
  const Select* select = query.As<Select>();
  // An aggregate without GROUP BY makes a row of nothing; SELECT * needs the columns bound.
  if (!select || !select->group_by.empty() || select->having) return failure;
  bool empty = false;
  for (const auto& item : select->from)
    empty = empty || SurelyEmpty(item, env_.empty_catalog_relation);
  if (!empty) return failure;
  arrow::FieldVector fields;
  for (const auto& item : select->items) {
    if (item.expr.Is<Star>() || HasAggregate(item.expr)) return failure;
    fields.push_back(
        arrow::field(item.alias ? item.alias->name : GeneratedName(item.expr), arrow::utf8()));
  }
  auto schema = arrow::schema(fields);
  ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::MakeEmpty(schema));
  return RelFromTable(table);
}

}  // namespace floe::sql
