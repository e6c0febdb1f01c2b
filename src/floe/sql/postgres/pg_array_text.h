#pragma once

// PostgreSQL's text form of a one-dimensional array: {r,"a b",NULL}. Drivers send lists so
// (psycopg binds a Python list as untyped text, the JDBC driver as text[]), and floe answers
// `x = ANY('{r,p}')` with it.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/util/status.h"

namespace floe::sql {

// The elements, NULL as nullopt; an error for text of another form or of more dimensions.
Result<std::vector<std::optional<std::string>>> ParsePgArrayText(std::string_view text);

}  // namespace floe::sql
