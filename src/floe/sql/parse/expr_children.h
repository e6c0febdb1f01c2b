#pragma once

// Walking an expression tree one level at a time.

#include <functional>

#include "floe/sql/parse/ast.h"

namespace floe::sql {

// Calls `fn` on each expression directly inside `e`: operands, arguments, CASE branches and
// a window's PARTITION BY and ORDER BY keys; not inside its subqueries.
void ForEachChild(const Expr& e, const std::function<void(const Expr&)>& fn);

}  // namespace floe::sql
