#include "floe/util/number_parse.h"

#include <charconv>
#include <limits>
#include <string>
#include <system_error>

namespace floe {

namespace {

template <typename T>
std::optional<T> ParseInteger(std::string_view text, int base) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  T value{};
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// Decimal exponent of the leading nonzero digit of a decimal text, saturated; 0 for a zero.
// from_chars reports both overflow and underflow as out of range: this tells them apart.
int64_t LeadingExponent(std::string_view text) {
  size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  size_t int_begin = i;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  std::string_view int_part = text.substr(int_begin, i - int_begin);
  std::string_view frac_part;
  if (i < text.size() && text[i] == '.') {
    size_t frac_begin = ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    frac_part = text.substr(frac_begin, i - frac_begin);
  }
  int64_t position = 0;
  size_t first = int_part.find_first_not_of('0');
  if (first != std::string_view::npos) {
    position = static_cast<int64_t>(int_part.size() - first) - 1;
  } else {
    size_t frac_first = frac_part.find_first_not_of('0');
    if (frac_first == std::string_view::npos) return 0;
    position = -static_cast<int64_t>(frac_first) - 1;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    auto exponent = ParseInteger<int64_t>(text.substr(i + 1), 10);
    // More exponent digits than 64 bits hold: the sign decides.
    if (!exponent) return i + 1 < text.size() && text[i + 1] == '-' ? -1 : 1;
    position += *exponent;
  }
  return position;
}

// The significant digits of a decimal text, without leading or trailing zeros.
std::string SignificantDigits(std::string_view text) {
  std::string digits;
  for (char c : text) {
    if (c == 'e' || c == 'E') break;
    if (c >= '0' && c <= '9' && !(digits.empty() && c == '0')) digits.push_back(c);
  }
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  return digits;
}

// Spark checks a literal's exact value against the largest value as Java prints it
// (1.7976931348623157E308; for FLOAT, Float.MAX_VALUE widened to double, 3.4028234663852886E38),
// so text that rounds to the largest value but is written above that is out of range.
template <typename T>
bool AboveLargestAsPrinted(std::string_view body) {
  constexpr bool kDouble = sizeof(T) == sizeof(double);
  const std::string_view bound = kDouble ? "17976931348623157" : "34028234663852886";
  const int64_t bound_exponent = kDouble ? 308 : 38;
  int64_t exponent = LeadingExponent(body);
  if (exponent != bound_exponent) return exponent > bound_exponent;
  // compare(), not >: clang 14 cannot order a string and a string_view through libstdc++ 12's <=>.
  return SignificantDigits(body).compare(bound) > 0;
}

template <typename T>
FloatParse ParseFloating(std::string_view text, T* out) {
  std::string_view body = text;
  if (!body.empty() && body[0] == '+') body.remove_prefix(1);
  if (body.empty()) return FloatParse::kInvalid;
  // from_chars also takes "inf" and "nan"; a literal is digits only.
  for (char c : body) {
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')) {
      return FloatParse::kInvalid;
    }
  }
  T value{};
  auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), value,
                                   std::chars_format::general);
  if (ptr != body.data() + body.size() && ec != std::errc::result_out_of_range) {
    return FloatParse::kInvalid;
  }
  if (ec == std::errc::invalid_argument) return FloatParse::kInvalid;
  if (ec == std::errc::result_out_of_range) {
    if (LeadingExponent(body) > 0) return FloatParse::kOverflow;
    *out = body[0] == '-' ? -T(0) : T(0);
    return FloatParse::kOk;
  }
  if ((value == std::numeric_limits<T>::max() || value == -std::numeric_limits<T>::max()) &&
      AboveLargestAsPrinted<T>(body)) {
    return FloatParse::kOverflow;
  }
  *out = value;
  return FloatParse::kOk;
}

}  // namespace

std::optional<int64_t> ParseInt64(std::string_view text) { return ParseInteger<int64_t>(text, 10); }
std::optional<int32_t> ParseInt32(std::string_view text) { return ParseInteger<int32_t>(text, 10); }

std::optional<uint64_t> ParseHex(std::string_view text) {
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) return std::nullopt;
  return ParseInteger<uint64_t>(text, 16);
}

FloatParse ParseDouble(std::string_view text, double* out) { return ParseFloating(text, out); }
FloatParse ParseFloat(std::string_view text, float* out) { return ParseFloating(text, out); }

}  // namespace floe
