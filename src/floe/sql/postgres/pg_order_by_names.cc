#include "floe/sql/postgres/pg_order_by_names.h"

namespace floe::sql {

std::optional<Query> OrderByNamesAsWritten(const Query& query) {
  bool any = false;
  for (const auto& item : query.order_by) {
    const Literal* lit = item.expr.As<Literal>();
    any = any || (lit && lit->kind == LiteralKind::kString && !lit->value.empty());
  }
  if (!any) return std::nullopt;
  Query out = query;
  for (auto& item : out.order_by) {
    const Literal* lit = item.expr.As<Literal>();
    if (!lit || lit->kind != LiteralKind::kString || lit->value.empty()) continue;
    ColumnRef ref;
    ref.parts.push_back(Identifier{lit->value, true, item.expr.pos});
    item.expr = Expr{std::move(ref), item.expr.pos};
  }
  return out;
}

}  // namespace floe::sql
