#pragma once

// How PostgreSQL names a result column written without an alias, for sessions of PostgreSQL
// clients: a column keeps its name, a function call is named after the function, a cast
// after its type, CASE "case", anything else "?column?". Spark's generated names
// ("current_database()", "CAST(a AS STRING)") stay for every other session.

#include <string>

#include <arrow/type_fwd.h>

#include "floe/sql/parse/ast.h"

namespace floe::sql {

// `spark_name` is the name Spark gives the expression; `type` its result type.
std::string PgOutputName(const Expr& expr, const std::string& spark_name,
                         const arrow::DataType& type);

}  // namespace floe::sql
