#include "floe/sql/types/value_text.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>

#include <arrow/array.h>
#include <arrow/extension_type.h>
#include <arrow/scalar.h>
#include <arrow/type.h>
#include <arrow/util/checked_cast.h>
#include <arrow/util/decimal.h>

#include "floe/util/floor_div.h"

namespace floe::sql {

using arrow::internal::checked_cast;

namespace {

void AppendPadded(int64_t value, int width, std::string* out) {
  char buf[32];
  int n = std::snprintf(buf, sizeof(buf), "%0*lld", width, static_cast<long long>(value));
  out->append(buf, static_cast<size_t>(n));
}

// Proleptic Gregorian year, month and day of a day count from 1970-01-01, in 64 bits: any
// date32 value, beyond the 16-bit years of the date library.
void CivilFromDays(int64_t days, int64_t* year, unsigned* month, unsigned* day) {
  days += 719468;
  int64_t era = FloorDiv(days, 146097);
  int64_t doe = days - era * 146097;                                   // [0, 146096]
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  int64_t mp = (5 * doy + 2) / 153;                                     // [0, 11]
  *day = static_cast<unsigned>(doy - (153 * mp + 2) / 5 + 1);
  *month = static_cast<unsigned>(mp < 10 ? mp + 3 : mp - 9);
  *year = yoe + era * 400 + (*month <= 2 ? 1 : 0);
}

void AppendDate(int64_t days, std::string* out) {
  int64_t year = 0;
  unsigned month = 0, day = 0;
  CivilFromDays(days, &year, &month, &day);
  if (year < 0) {
    out->push_back('-');
    AppendPadded(-year, 4, out);
  } else {
    if (year > 9999) out->push_back('+');
    AppendPadded(year, 4, out);
  }
  out->push_back('-');
  AppendPadded(month, 2, out);
  out->push_back('-');
  AppendPadded(day, 2, out);
}

// HH:mm:ss plus ".fffffffff" with trailing zeros dropped, when nanos is not zero.
void AppendTimeOfDay(int64_t seconds_of_day, int64_t nanos, std::string* out) {
  AppendPadded(seconds_of_day / 3600, 2, out);
  out->push_back(':');
  AppendPadded(seconds_of_day / 60 % 60, 2, out);
  out->push_back(':');
  AppendPadded(seconds_of_day % 60, 2, out);
  if (nanos != 0) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "%09lld", static_cast<long long>(nanos));
    std::string_view frac(buf, 9);
    while (frac.back() == '0') frac.remove_suffix(1);
    out->push_back('.');
    out->append(frac);
  }
}

int64_t UnitsPerSecond(arrow::TimeUnit::type unit) {
  switch (unit) {
    case arrow::TimeUnit::SECOND:
      return 1;
    case arrow::TimeUnit::MILLI:
      return 1000;
    case arrow::TimeUnit::MICRO:
      return 1000000;
    case arrow::TimeUnit::NANO:
      return 1000000000;
  }
  return 1;
}

// Splits a value in `unit` into whole seconds (floored) and nanoseconds within the second.
void SplitSeconds(int64_t value, arrow::TimeUnit::type unit, int64_t* seconds, int64_t* nanos) {
  int64_t per_second = UnitsPerSecond(unit);
  *seconds = FloorDiv(value, per_second);
  *nanos = (value - *seconds * per_second) * (1000000000 / per_second);
}

void AppendHexBytes(std::string_view bytes, std::string* out) {
  static const char kHex[] = "0123456789ABCDEF";
  out->push_back('[');
  for (size_t k = 0; k < bytes.size(); ++k) {
    if (k > 0) out->push_back(' ');
    auto b = static_cast<unsigned char>(bytes[k]);
    out->push_back(kHex[b >> 4]);
    out->push_back(kHex[b & 0xF]);
  }
  out->push_back(']');
}

void AppendUuid(std::string_view bytes, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  for (size_t k = 0; k < bytes.size(); ++k) {
    if (k == 4 || k == 6 || k == 8 || k == 10) out->push_back('-');
    auto b = static_cast<unsigned char>(bytes[k]);
    out->push_back(kHex[b >> 4]);
    out->push_back(kHex[b & 0xF]);
  }
}

// Java's algorithm on the shortest round-trip digits that std::to_chars finds.
template <typename T>
std::string JavaFloatingString(T value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value < 0 ? "-Infinity" : "Infinity";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));
  std::string out;
  if (sci.front() == '-') {
    out.push_back('-');
    sci.remove_prefix(1);
  }
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exponent = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+' ? 1 : 0), sci.data() + sci.size(),
                  exponent);
  if (digits.size() == 1) {
    // Java prints at least two digits, and then takes the two-digit decimal closest to the
    // exact value when it reads back the same: Double.MIN_VALUE is 4.9E-324, not 5.0E-324.
    char two[64];
    auto r2 =
        std::to_chars(two, two + sizeof(two), std::fabs(value), std::chars_format::scientific, 1);
    T back = 0;
    std::from_chars(two, r2.ptr, back);
    if (back == std::fabs(value) && two[2] != '0') {
      digits = {two[0], two[2]};
      std::from_chars(two + 4 + (two[4] == '+' ? 1 : 0), r2.ptr, exponent);
    }
  }
  if (exponent >= -3 && exponent < 7) {
    if (exponent >= 0) {
      size_t int_digits = static_cast<size_t>(exponent) + 1;
      if (digits.size() <= int_digits) {
        out += digits;
        out.append(int_digits - digits.size(), '0');
        out += ".0";
      } else {
        out += digits.substr(0, int_digits);
        out.push_back('.');
        out += digits.substr(int_digits);
      }
    } else {
      out += "0.";
      out.append(static_cast<size_t>(-exponent - 1), '0');
      out += digits;
    }
  } else {
    out.push_back(digits[0]);
    out.push_back('.');
    out += digits.size() > 1 ? digits.substr(1) : "0";
    out.push_back('E');
    out += std::to_string(exponent);
  }
  return out;
}

bool IsUuidExtension(const arrow::DataType& type) {
  return type.id() == arrow::Type::EXTENSION &&
         checked_cast<const arrow::ExtensionType&>(type).extension_name() == "arrow.uuid";
}

}  // namespace

Result<ValueText> ValueText::Make(std::string_view time_zone) {
  if (time_zone.empty()) return ValueText();
  ARROW_ASSIGN_OR_RAISE(TimeZone zone, TimeZone::Make(time_zone));
  return ValueText(std::move(zone));
}

std::string ValueText::Format(const arrow::Array& array, int64_t i) const {
  std::string out;
  Append(array, i, &out);
  return out;
}

void ValueText::AppendTimestamp(int64_t value, arrow::TimeUnit::type unit, bool in_session_zone,
                                std::string* out) const {
  int64_t seconds = 0, nanos = 0;
  SplitSeconds(value, unit, &seconds, &nanos);
  if (in_session_zone) {
    // Clamped so that the micros never overflow; the offset is constant that far out.
    constexpr int64_t kFarSeconds = int64_t{1} << 42;  // about 139,000 years
    seconds += zone_.OffsetSecondsAt(std::clamp(seconds, -kFarSeconds, kFarSeconds) * 1000000);
  }
  int64_t days = FloorDiv(seconds, 86400);
  AppendDate(days, out);
  out->push_back(' ');
  AppendTimeOfDay(seconds - days * 86400, nanos, out);
}

void ValueText::Append(const arrow::Array& array, int64_t i, std::string* out) const {
  if (array.IsNull(i)) {
    out->append("NULL");
    return;
  }
  const arrow::DataType& type = *array.type();
  switch (type.id()) {
    case arrow::Type::NA:
      out->append("NULL");
      return;
    case arrow::Type::BOOL:
      out->append(checked_cast<const arrow::BooleanArray&>(array).Value(i) ? "true" : "false");
      return;
    case arrow::Type::INT8:
      out->append(std::to_string(checked_cast<const arrow::Int8Array&>(array).Value(i)));
      return;
    case arrow::Type::INT16:
      out->append(std::to_string(checked_cast<const arrow::Int16Array&>(array).Value(i)));
      return;
    case arrow::Type::INT32:
      out->append(std::to_string(checked_cast<const arrow::Int32Array&>(array).Value(i)));
      return;
    case arrow::Type::INT64:
      out->append(std::to_string(checked_cast<const arrow::Int64Array&>(array).Value(i)));
      return;
    case arrow::Type::UINT8:
      out->append(std::to_string(checked_cast<const arrow::UInt8Array&>(array).Value(i)));
      return;
    case arrow::Type::UINT16:
      out->append(std::to_string(checked_cast<const arrow::UInt16Array&>(array).Value(i)));
      return;
    case arrow::Type::UINT32:
      out->append(std::to_string(checked_cast<const arrow::UInt32Array&>(array).Value(i)));
      return;
    case arrow::Type::UINT64:
      out->append(std::to_string(checked_cast<const arrow::UInt64Array&>(array).Value(i)));
      return;
    case arrow::Type::FLOAT:
      out->append(JavaFloatString(checked_cast<const arrow::FloatArray&>(array).Value(i)));
      return;
    case arrow::Type::DOUBLE:
      out->append(JavaDoubleString(checked_cast<const arrow::DoubleArray&>(array).Value(i)));
      return;
    case arrow::Type::DECIMAL128: {
      const auto& a = checked_cast<const arrow::Decimal128Array&>(array);
      arrow::Decimal128 v(a.GetValue(i));
      int32_t scale = checked_cast<const arrow::Decimal128Type&>(type).scale();
      out->append(PlainDecimalString(v.ToIntegerString(), scale));
      return;
    }
    case arrow::Type::DECIMAL256: {
      const auto& a = checked_cast<const arrow::Decimal256Array&>(array);
      arrow::Decimal256 v(a.GetValue(i));
      int32_t scale = checked_cast<const arrow::Decimal256Type&>(type).scale();
      out->append(PlainDecimalString(v.ToIntegerString(), scale));
      return;
    }
    case arrow::Type::DATE32:
      AppendDate(checked_cast<const arrow::Date32Array&>(array).Value(i), out);
      return;
    case arrow::Type::DATE64:
      AppendDate(FloorDiv(checked_cast<const arrow::Date64Array&>(array).Value(i), 86400000), out);
      return;
    case arrow::Type::TIME32:
    case arrow::Type::TIME64: {
      arrow::TimeUnit::type unit = checked_cast<const arrow::TimeType&>(type).unit();
      int64_t value = type.id() == arrow::Type::TIME32
                          ? checked_cast<const arrow::Time32Array&>(array).Value(i)
                          : checked_cast<const arrow::Time64Array&>(array).Value(i);
      int64_t seconds = 0, nanos = 0;
      SplitSeconds(value, unit, &seconds, &nanos);
      seconds -= FloorDiv(seconds, 86400) * 86400;
      AppendTimeOfDay(seconds, nanos, out);
      return;
    }
    case arrow::Type::DURATION: {
      // Spark's day-time interval text in its widest form, DAY TO SECOND: a duration keeps
      // no narrower field range (INTERVAL 3 DAYS shows as INTERVAL '3 00:00:00' DAY TO SECOND).
      int64_t value = checked_cast<const arrow::DurationArray&>(array).Value(i);
      auto per_second = static_cast<uint64_t>(UnitsPerSecond(checked_cast<const arrow::DurationType&>(type).unit()));
      uint64_t magnitude = value < 0 ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
      uint64_t seconds = magnitude / per_second;
      auto nanos = static_cast<int64_t>((magnitude % per_second) * (1000000000 / per_second));
      out->append(value < 0 ? "INTERVAL '-" : "INTERVAL '");
      out->append(std::to_string(seconds / 86400));
      out->push_back(' ');
      AppendTimeOfDay(static_cast<int64_t>(seconds % 86400), nanos, out);
      out->append("' DAY TO SECOND");
      return;
    }
    case arrow::Type::TIMESTAMP: {
      const auto& ts = checked_cast<const arrow::TimestampType&>(type);
      AppendTimestamp(checked_cast<const arrow::TimestampArray&>(array).Value(i), ts.unit(),
                      !ts.timezone().empty(), out);
      return;
    }
    case arrow::Type::STRING:
    case arrow::Type::BINARY: {
      std::string_view v = checked_cast<const arrow::BinaryArray&>(array).GetView(i);
      if (type.id() == arrow::Type::STRING) {
        out->append(v);
      } else {
        AppendHexBytes(v, out);
      }
      return;
    }
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY: {
      std::string_view v = checked_cast<const arrow::LargeBinaryArray&>(array).GetView(i);
      if (type.id() == arrow::Type::LARGE_STRING) {
        out->append(v);
      } else {
        AppendHexBytes(v, out);
      }
      return;
    }
    case arrow::Type::STRING_VIEW:
    case arrow::Type::BINARY_VIEW: {
      std::string_view v = checked_cast<const arrow::BinaryViewArray&>(array).GetView(i);
      if (type.id() == arrow::Type::STRING_VIEW) {
        out->append(v);
      } else {
        AppendHexBytes(v, out);
      }
      return;
    }
    case arrow::Type::FIXED_SIZE_BINARY:
      AppendHexBytes(checked_cast<const arrow::FixedSizeBinaryArray&>(array).GetView(i), out);
      return;
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST:
    case arrow::Type::FIXED_SIZE_LIST: {
      ListSlice slice = ListElements(array, i);
      out->push_back('[');
      for (int64_t k = 0; k < slice.length; ++k) {
        if (k > 0) out->append(", ");
        Append(*slice.values, slice.begin + k, out);
      }
      out->push_back(']');
      return;
    }
    case arrow::Type::MAP: {
      const auto& map = checked_cast<const arrow::MapArray&>(array);
      int64_t begin = map.value_offset(i);
      int64_t length = map.value_length(i);
      out->push_back('{');
      for (int64_t k = 0; k < length; ++k) {
        if (k > 0) out->append(", ");
        Append(*map.keys(), begin + k, out);
        out->append(" -> ");
        Append(*map.items(), begin + k, out);
      }
      out->push_back('}');
      return;
    }
    case arrow::Type::STRUCT: {
      const auto& st = checked_cast<const arrow::StructArray&>(array);
      out->push_back('{');
      for (int k = 0; k < st.num_fields(); ++k) {
        if (k > 0) out->append(", ");
        Append(*st.field(k), i, out);
      }
      out->push_back('}');
      return;
    }
    case arrow::Type::DICTIONARY: {
      const auto& dict = checked_cast<const arrow::DictionaryArray&>(array);
      Append(*dict.dictionary(), dict.GetValueIndex(i), out);
      return;
    }
    case arrow::Type::EXTENSION: {
      const auto& ext = checked_cast<const arrow::ExtensionArray&>(array);
      if (IsUuidExtension(type)) {
        AppendUuid(checked_cast<const arrow::FixedSizeBinaryArray&>(*ext.storage()).GetView(i),
                   out);
      } else {
        Append(*ext.storage(), i, out);
      }
      return;
    }
    default:
      break;
  }
  // Types floe does not produce (intervals, unions, ...): Arrow's own rendering.
  auto scalar = array.GetScalar(i);
  out->append(scalar.ok() ? (*scalar)->ToString() : "?");
}

std::string JavaDoubleString(double value) { return JavaFloatingString(value); }
std::string JavaFloatString(float value) { return JavaFloatingString(value); }

std::string PlainDecimalString(std::string_view unscaled, int32_t scale) {
  std::string out;
  if (!unscaled.empty() && unscaled.front() == '-') {
    out.push_back('-');
    unscaled.remove_prefix(1);
  }
  if (scale <= 0) {
    out += unscaled;
    if (unscaled != "0") out.append(static_cast<size_t>(-scale), '0');
    return out;
  }
  auto s = static_cast<size_t>(scale);
  if (unscaled.size() <= s) {
    out += "0.";
    out.append(s - unscaled.size(), '0');
    out += unscaled;
  } else {
    out += unscaled.substr(0, unscaled.size() - s);
    out.push_back('.');
    out += unscaled.substr(unscaled.size() - s);
  }
  return out;
}

std::string DateString(int64_t days) {
  std::string out;
  AppendDate(days, &out);
  return out;
}

std::string EscapeMetaCharacters(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\v':
        out += "\\v";
        break;
      case '\a':
        out += "\\a";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

namespace {

// Decodes one UTF-8 sequence at s[*pos]; malformed bytes count as one code point each.
uint32_t NextCodePoint(std::string_view s, size_t* pos) {
  auto b0 = static_cast<unsigned char>(s[*pos]);
  size_t len = b0 < 0x80           ? 1
               : (b0 >> 5) == 0x6  ? 2
               : (b0 >> 4) == 0xE  ? 3
               : (b0 >> 3) == 0x1E ? 4
                                   : 1;
  if (*pos + len > s.size()) len = 1;
  uint32_t cp = len == 1 ? b0 : len == 2 ? (b0 & 0x1F) : len == 3 ? (b0 & 0x0F) : (b0 & 0x07);
  for (size_t k = 1; k < len; ++k) {
    auto b = static_cast<unsigned char>(s[*pos + k]);
    if ((b & 0xC0) != 0x80) {
      len = 1;
      cp = b0;
      break;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  *pos += len;
  return cp;
}

bool IsFullWidth(uint32_t cp) {
  return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
         (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
         (cp >= 0xFE10 && cp <= 0xFE19) || (cp >= 0xFE30 && cp <= 0xFE6F) ||
         (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6);
}

}  // namespace

int64_t DisplayWidth(std::string_view utf8) {
  int64_t width = 0;
  size_t pos = 0;
  while (pos < utf8.size()) {
    uint32_t cp = NextCodePoint(utf8, &pos);
    width += cp > 0xFFFF ? 2 : 1;  // a surrogate pair in Java's UTF-16 length
    if (IsFullWidth(cp)) ++width;
  }
  return width;
}

std::string TruncateForDisplay(std::string_view utf8, int64_t limit) {
  if (limit <= 0) return std::string(utf8);
  int64_t units = 0;
  size_t pos = 0;
  while (pos < utf8.size()) {
    units += NextCodePoint(utf8, &pos) > 0xFFFF ? 2 : 1;
  }
  if (units <= limit) return std::string(utf8);
  int64_t keep = limit < 4 ? limit : limit - 3;
  // Keep whole code points: a pair that would be split is dropped, not halved.
  units = 0;
  pos = 0;
  while (pos < utf8.size()) {
    size_t next = pos;
    int64_t n = NextCodePoint(utf8, &next) > 0xFFFF ? 2 : 1;
    if (units + n > keep) break;
    units += n;
    pos = next;
  }
  std::string out(utf8.substr(0, pos));
  if (limit >= 4) out += "...";
  return out;
}

ListSlice ListElements(const arrow::Array& array, int64_t i) {
  switch (array.type_id()) {
    case arrow::Type::LIST: {
      const auto& list = static_cast<const arrow::ListArray&>(array);
      return {list.values().get(), list.value_offset(i), list.value_length(i)};
    }
    case arrow::Type::LARGE_LIST: {
      const auto& large = static_cast<const arrow::LargeListArray&>(array);
      return {large.values().get(), large.value_offset(i), large.value_length(i)};
    }
    case arrow::Type::FIXED_SIZE_LIST: {
      const auto& fixed = static_cast<const arrow::FixedSizeListArray&>(array);
      return {fixed.values().get(), fixed.value_offset(i), fixed.value_length(i)};
    }
    default:
      return {};
  }
}

}  // namespace floe::sql
