#pragma once

// Pieces of the JSON the floe subcommands print with --json: strings escaped as JSON asks,
// times as ISO-8601 in UTC with a Z, optional numbers as null.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace floe::cli {

// A quoted JSON string; control characters escaped, UTF-8 kept as is.
std::string JsonString(std::string_view text);

// "2024-01-15T10:30:00.123Z" (the fraction only when not zero).
std::string JsonTime(int64_t epoch_ms);

// The number, or null.
std::string JsonNumber(const std::optional<int64_t>& value);

// A quoted string, or null.
std::string JsonOptionalString(const std::optional<std::string>& value);

}  // namespace floe::cli
