#pragma once

// How PostgreSQL names a result column written without an alias, for sessions of PostgreSQL
// clients, by PostgreSQL's rules (FigureColname): a column keeps its name, a function call is
// named after the function, a subscript after what it subscripts, ARRAY(query) "array",
// EXISTS "exists", a scalar subquery after its column, a cast after what it casts or else
// its type, CASE after its ELSE or else "case", anything else "?column?". Spark's generated
// names ("current_database()", "CAST(a AS STRING)") stay for every other session.

#include <string>

#include <arrow/type_fwd.h>

#include "floe/sql/parse/ast.h"

namespace floe::sql {

// `spark_name` is the name Spark gives the expression; `type` its result type.
std::string PgOutputName(const Expr& expr, const std::string& spark_name,
                         const arrow::DataType& type);

}  // namespace floe::sql
