#pragma once

// A statement as the text outputs of floe history and floe audit show it.

#include <cstddef>
#include <string>

namespace floe::cli {

// Statements longer than this are cut in the text outputs (JSON keeps them whole).
inline constexpr size_t kStatementWidth = 60;

// One line of at most kStatementWidth characters: white space runs become one space, and a
// longer statement ends in "..." (never inside a UTF-8 character).
std::string ShortStatement(const std::string& statement);

}  // namespace floe::cli
