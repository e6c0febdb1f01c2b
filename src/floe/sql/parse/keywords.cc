#include "floe/sql/parse/keywords.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace floe::sql {

namespace {
// Upper case.
constexpr std::array<std::string_view, 52> kReserved = {
    "ALL",       "AND",     "ANTI",   "AS",        "BETWEEN", "BY",      "CASE",
    "CAST",      "CROSS",   "DISTINCT", "DIV",     "ELSE",    "END",     "EXCEPT",
    "EXISTS",    "FALSE",   "FROM",   "FULL",      "GROUP",   "HAVING",  "ILIKE",
    "IN",        "INNER",   "INTERSECT", "IS",     "JOIN",    "LEFT",    "LIKE",
    "LIMIT",     "MINUS",   "NATURAL", "NOT",      "NULL",    "OFFSET",  "ON",
    "OR",        "ORDER",   "OUTER",  "REGEXP",    "RIGHT",   "RLIKE",   "SELECT",
    "SEMI",      "THEN",    "TRUE",   "UNION",     "USING",   "VALUES",  "WHEN",
    "WHERE",     "WITH",    "TRY_CAST",
};
}  // namespace

bool IsReservedWord(std::string_view word) {
  if (word.size() > 16) return false;
  std::string upper(word);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return std::find(kReserved.begin(), kReserved.end(), upper) != kReserved.end();
}

}  // namespace floe::sql
