#pragma once

// SHOW FUNCTIONS and DESCRIBE FUNCTION over the function registry.

#include <string>

#include "floe/sql/parse/ast.h"
#include "floe/sql/session.h"

namespace floe::sql {

// One column `function`: every registered name matching Spark's `*`/`|` pattern, sorted.
Result<StatementResult> RunShowFunctions(const ShowFunctions& show);

// One column `function_desc`: the name, Spark's class, the usage and, with EXTENDED, the
// examples; Spark's [UNRESOLVED_ROUTINE] error for an unknown name.
Result<StatementResult> RunDescribeFunction(const DescribeFunction& describe, const std::string& sql);

}  // namespace floe::sql
