#include "floe/sql/postgres/pg_order_by_names.h"

#include "floe/sql/plan/relation.h"

namespace floe::sql {

namespace {

bool IsNameString(const Expr& e) {
  const Literal* lit = e.As<Literal>();
  return lit && lit->kind == LiteralKind::kString && !lit->value.empty();
}

// The alias of the one SELECT item whose expression is `e`, when `e` is not already the name
// of an output column.
std::optional<Identifier> AliasOf(const Query& query, const Expr& e) {
  const Select* select = query.As<Select>();
  if (!select) return std::nullopt;
  const ColumnRef* ref = e.As<ColumnRef>();
  if (ref && ref->parts.size() == 1) {
    for (const auto& item : select->items) {
      if (item.alias && Lower(item.alias->name) == Lower(ref->parts[0].name)) return std::nullopt;
    }
  }
  std::optional<Identifier> found;
  for (const auto& item : select->items) {
    if (!item.alias || !(item.expr == e)) continue;
    if (found) return std::nullopt;  // two names for it: left to the planner
    found = *item.alias;
  }
  return found;
}

}  // namespace

std::optional<Query> OrderByNamesAsWritten(const Query& query) {
  bool any = false;
  for (const auto& item : query.order_by) {
    any = any || IsNameString(item.expr) || AliasOf(query, item.expr).has_value();
  }
  if (!any) return std::nullopt;
  Query out = query;
  for (auto& item : out.order_by) {
    if (std::optional<Identifier> alias = AliasOf(query, item.expr)) {
      ColumnRef ref;
      ref.parts.push_back(Identifier{alias->name, true, item.expr.pos});
      item.expr = Expr{std::move(ref), item.expr.pos};
      continue;
    }
    if (!IsNameString(item.expr)) continue;
    const Literal* lit = item.expr.As<Literal>();
    ColumnRef ref;
    ref.parts.push_back(Identifier{lit->value, true, item.expr.pos});
    item.expr = Expr{std::move(ref), item.expr.pos};
  }
  return out;
}

}  // namespace floe::sql
