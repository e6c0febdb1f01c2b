// Queries over PostgreSQL catalog relations floe has no rows for.
//
// Clients ask the catalog for policies, statistics objects, publications, inheritance and
// column defaults with queries that use more of PostgreSQL than floe plans (correlated
// subqueries, arrays of oids, regnamespace, set-returning functions, agg(x ORDER BY y)). Over a relation without rows such a query has
// no rows either, whatever its expressions would compute, so it is answered without them.

#include <arrow/api.h>

#include "floe/sql/parse/expr_children.h"
#include "floe/sql/plan/query_planner.h"

namespace floe::sql {

namespace {

bool HasAggregate(const Expr& e) {
  if (auto* f = e.As<FunctionCall>()) {
    if (!f->over && IsAggregateFunction(Lower(f->name.parts.back().name))) return true;
  }
  bool found = false;
  ForEachChild(e, [&](const Expr& child) { found = found || HasAggregate(child); });
  return found;
}

// The type PostgreSQL gives an expression floe cannot bind, where clients read it from an
// empty answer's RowDescription: `(information_schema._pg_expandarray(a)).n`, the position of
// an element (the JDBC driver's KEY_SEQ and ORDINAL_POSITION), is int4. Null for others.
std::shared_ptr<arrow::DataType> PgTypeOfUnbound(const Expr& e) {
  const auto* field = e.As<FieldAccess>();
  if (!field || Lower(field->field.name) != "n") return nullptr;
  const auto* call = field->base->As<FunctionCall>();
  if (!call || Lower(call->name.parts.back().name) != "_pg_expandarray") return nullptr;
  return arrow::int32();
}

using EmptyTest = std::function<bool(const TableRef&)>;

bool SurelyEmpty(const Relation& relation, const EmptyTest& empty);

// Whether a SELECT surely yields no rows: one of its FROM items has none, and it is not an
// aggregate without GROUP BY (which makes a row of nothing; grouped, no rows make no groups).
bool SurelyEmpty(const Select& select, const EmptyTest& empty) {
  if (select.group_by.empty()) {
    if (select.having) return false;
    for (const auto& item : select.items) {
      if (HasAggregate(item.expr)) return false;
    }
  }
  for (const auto& item : select.from) {
    if (SurelyEmpty(item, empty)) return true;
  }
  return false;
}

// Whether a FROM item surely yields no rows because it takes every row from an empty catalog
// relation (inner and cross joins, the preserved side of outer joins, a derived table whose
// SELECT does).
bool SurelyEmpty(const Relation& relation, const EmptyTest& empty) {
  if (auto* t = relation.As<TableRef>()) return empty(*t);
  if (auto* sq = relation.As<SubqueryRef>()) {
    const Select* select = sq->query->As<Select>();
    return select && sq->query->with.empty() && SurelyEmpty(*select, empty);
  }
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

bool HasSubquery(const Expr& e) {
  if (e.Is<ScalarSubquery>() || e.Is<Exists>() || e.Is<InSubquery>()) return true;
  bool found = false;
  ForEachChild(e, [&](const Expr& child) { found = found || HasSubquery(child); });
  return found;
}

void Conjuncts(const Expr& e, std::vector<const Expr*>* out) {
  if (const auto* b = e.As<Binary>(); b && b->op == BinaryOp::kAnd) {
    Conjuncts(*b->left, out);
    Conjuncts(*b->right, out);
    return;
  }
  out->push_back(&e);
}

bool NamesCatalogRelation(const ObjectName& name) {
  const std::string first = Lower(name.parts.front().name);
  const std::string last = Lower(name.parts.back().name);
  return first == "pg_catalog" || first == "information_schema" || last.rfind("pg_", 0) == 0;
}

}  // namespace

bool ReadsOnlyCatalog(const Relation& relation) {
  if (auto* t = relation.As<TableRef>()) return NamesCatalogRelation(t->name);
  if (auto* j = relation.As<Join>()) return ReadsOnlyCatalog(*j->left) && ReadsOnlyCatalog(*j->right);
  return false;
}

Result<Rel> QueryPlanner::PlanOverEmptyCatalogRelation(const Query& query, Status failure) {
  const Select* select = query.As<Select>();
  if (!select) return failure;
  // Catalog queries floe cannot plan whole for a correlated subquery in their WHERE (the JDBC
  // driver's getTypeInfo and getUDTs, pgcli's list of types) are decided by the conjuncts of
  // the WHERE without subqueries, run over the FROM items:
  // - when those let no row through, the query has none: the other conjuncts only remove
  //   rows, and without aggregates no row is made from nothing;
  // - a conjunct `a OR <subquery>` whose `a` holds on every row those let through is true on
  //   each, and is left out (getTypeInfo's `t.typrelid = 0 OR (SELECT ... t.typrelid)`).
  bool aggregate = false;
  for (const auto& item : select->items) {
    aggregate = aggregate || (select->group_by.empty() && HasAggregate(item.expr));
  }
  aggregate = aggregate || (select->group_by.empty() && select->having);
  bool reducible = !select->from.empty() && select->where && !aggregate;
  for (const auto& item : select->from) reducible = reducible && ReadsOnlyCatalog(item);
  std::vector<const Expr*> conjuncts;
  if (reducible) Conjuncts(*select->where, &conjuncts);
  std::optional<Expr> plain;  // the conjuncts without subqueries
  auto conjoin = [](std::optional<Expr> a, const Expr& b) {
    if (!a) return b;
    return Expr{Binary{BinaryOp::kAnd, std::move(*a), b}, b.pos};
  };
  for (const Expr* c : conjuncts) {
    if (!HasSubquery(*c)) plain = conjoin(std::move(plain), *c);
  }
  // Whether no row of the FROM items passes `where`.
  auto no_row_passes = [&](const Expr& where) -> Result<bool> {
    Select reduced;
    reduced.from = select->from;
    reduced.where = where;
    reduced.items.push_back(SelectItem{Expr{Literal{LiteralKind::kBoolean, "true"}, where.pos}, {}});
    Query reduced_query;
    reduced_query.body = std::move(reduced);
    ARROW_ASSIGN_OR_RAISE(Rel planned, PlanQueryAsWritten(reduced_query));
    ARROW_ASSIGN_OR_RAISE(auto rows, Execute(planned));
    return rows->num_rows() == 0;
  };
  if (!SurelyEmpty(*select, env_.empty_catalog_relation)) {
    if (!reducible) return failure;
    bool none = false;
    if (plain) {
      Result<bool> passes_none = no_row_passes(*plain);
      if (!passes_none.ok()) return failure;
      none = *passes_none;
    }
    if (!none) {
      for (const Expr* c : conjuncts) {
        if (!HasSubquery(*c)) continue;
        const auto* either = c->As<Binary>();
        if (!either || either->op != BinaryOp::kOr || HasSubquery(*either->left)) return failure;
        // The rows where `a` is not true (false or NULL).
        Expr a_not_true{IsBool{*either->left, true, true}, c->pos};
        Result<bool> always = no_row_passes(conjoin(plain, a_not_true));
        if (!always.ok() || !*always) return failure;
      }
      Query simpler = query;
      auto& simpler_select = std::get<Select>(simpler.body);
      simpler_select.where = plain ? ExprBox(*plain) : ExprBox();
      Result<Rel> planned = PlanQueryAsWritten(simpler);
      return planned.ok() ? planned : failure;
    }
  }
  // A column has the type its expression has over the FROM items' columns where that binds
  // (a join on it needs it: SQLAlchemy joins pg_type to pg_constraint grouped by contypid),
  // else text.
  std::vector<Column> columns;
  bool typed = true;
  for (const auto& item : select->from) {
    Result<Rel> rel = PlanRelation(item);
    if (!rel.ok()) {
      typed = false;
      break;
    }
    columns.insert(columns.end(), rel->columns.begin(), rel->columns.end());
  }
  arrow::FieldVector fields;
  for (const auto& item : select->items) {
    // SELECT * needs the columns bound.
    if (item.expr.Is<Star>()) return failure;
    std::shared_ptr<arrow::DataType> type = PgTypeOfUnbound(item.expr);
    if (!type) type = arrow::utf8();
    if (typed) {
      Result<BoundExpr> bound = PlanExpr(item.expr, Context(columns));
      if (bound.ok() && bound->type->id() != arrow::Type::NA) type = bound->type;
    }
    fields.push_back(arrow::field(item.alias ? item.alias->name : GeneratedName(item.expr), type));
  }
  auto schema = arrow::schema(fields);
  ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::MakeEmpty(schema));
  return RelFromTable(table);
}

}  // namespace floe::sql
