#pragma once

// PostgreSQL clients quote names with double quotes (ORDER BY "TABLE_SCHEM"), which floe,
// as Spark, reads as strings in expressions. PostgreSQL refuses to sort by a constant text,
// so for its clients a text item of ORDER BY can only be a quoted name.
//
// PostgreSQL also sorts by an input column that a SELECT item renames (SELECT datname AS
// TABLE_CAT ... ORDER BY datname, as the JDBC driver's getCatalogs sends); for its clients
// such an item of ORDER BY becomes the renamed output column.

#include <optional>

#include "floe/sql/parse/ast.h"

namespace floe::sql {

// `query` with each ORDER BY item written as a string (at any level of set operations and
// parentheses, not inside subqueries) turned into the column of that name, and each item
// that is the expression of an aliased SELECT item (and names no output column) turned into
// that alias; nullopt when it has none.
std::optional<Query> OrderByNamesAsWritten(const Query& query);

}  // namespace floe::sql
