#pragma once

#include <string_view>

namespace floe::sql {

// Words that cannot be bare identifiers (column, table or alias names) because they would
// make a statement ambiguous; `quote` them to use them as names. Everything else, including
// most keywords (VERSION, TIMESTAMP, DATE, TABLE, ...), is also an identifier, as in Spark.
// Case-insensitive.
bool IsReservedWord(std::string_view word);

}  // namespace floe::sql
