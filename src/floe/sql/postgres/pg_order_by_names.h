#pragma once

// PostgreSQL clients quote names with double quotes (ORDER BY "TABLE_SCHEM"), which floe,
// as Spark, reads as strings in expressions. PostgreSQL refuses to sort by a constant text,
// so for its clients a text item of ORDER BY can only be a quoted name.

#include <optional>

#include "floe/sql/parse/ast.h"

namespace floe::sql {

// `query` with each ORDER BY item written as a string (at any level of set operations and
// parentheses, not inside subqueries) turned into the column of that name; nullopt when it
// has none.
std::optional<Query> OrderByNamesAsWritten(const Query& query);

}  // namespace floe::sql
