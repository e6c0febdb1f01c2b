#pragma once

// What a window function call means beyond its text: which functions exist only over a
// window, and the frame Spark gives a call that names none.

#include <string>

#include "floe/sql/parse/ast.h"

namespace floe::sql {

// Functions that exist only with OVER (row_number, rank, lag, first_value, ...); aggregates
// such as sum also take OVER.
bool IsWindowOnlyFunction(const std::string& lower_name);

// Ranking and offset functions: they need ORDER BY and ignore frames.
bool IsRankingFunction(const std::string& lower_name);

// The call's frame: as written, else Spark's default (RANGE BETWEEN UNBOUNDED PRECEDING AND
// CURRENT ROW with ORDER BY, ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
// without; ROWS up to CURRENT ROW for ranking functions).
WindowFrame EffectiveFrame(const FunctionCall& call);

// The window as Spark names the column of a call: keys with their directions and null
// orders spelled out, and the effective frame.
std::string WindowText(const FunctionCall& call);

}  // namespace floe::sql
