#pragma once

// Checked, locale-independent number parsing. Unlike std::stoll/std::stod these never throw:
// a text that is not a number, or one out of the type's range, comes back as an empty optional
// or a status the caller turns into its own message.

#include <cstdint>
#include <optional>
#include <string_view>

namespace floe {

// Whole text a base-10 integer ("-12", "+7"), within the type's range; else nullopt.
std::optional<int64_t> ParseInt64(std::string_view text);
std::optional<int32_t> ParseInt32(std::string_view text);
// Whole text hexadecimal digits (no sign, no 0x) that fit in 64 bits.
std::optional<uint64_t> ParseHex(std::string_view text);

enum class FloatParse {
  kOk,
  // The magnitude is above the type's largest finite value as Java prints it (Spark compares
  // the exact text with 1.7976931348623157E308, so 1.7976931348623158E308 is out of range).
  kOverflow,
  // Not a decimal number ("1e", "abc", "").
  kInvalid,
};

// Decimal text with an optional exponent ("1.5", "-2e10", ".5"). A nonzero value below the
// smallest subnormal rounds to a signed zero, as Java's Double.parseDouble does.
FloatParse ParseDouble(std::string_view text, double* out);
FloatParse ParseFloat(std::string_view text, float* out);

}  // namespace floe
