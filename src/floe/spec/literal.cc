#include "floe/spec/literal.h"

#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>

#include "floe/util/floor_div.h"
#include "floe/util/time_units.h"

namespace floe::spec {

namespace {

std::string Pad(int64_t v, int width) {
  std::string s = std::to_string(v);
  if (static_cast<int>(s.size()) < width) s.insert(0, width - s.size(), '0');
  return s;
}

// Java's ISO_LOCAL_DATE year: at least 4 digits, '+' above 9999, '-' below zero.
std::string FormatYear(int year) {
  if (year > 9999) return "+" + std::to_string(year);
  if (year < 0) return "-" + Pad(-static_cast<int64_t>(year), 4);
  return Pad(year, 4);
}

std::string FormatCivilDate(int64_t days) {
  using namespace std::chrono;
  year_month_day ymd{sys_days{std::chrono::days{days}}};
  return FormatYear(static_cast<int>(ymd.year())) + "-" +
         Pad(static_cast<unsigned>(ymd.month()), 2) + "-" +
         Pad(static_cast<unsigned>(ymd.day()), 2);
}

// HH:mm:ss plus the fraction with trailing zeros dropped (ISO_LOCAL_TIME when formatting).
std::string FormatIsoTimeOfDay(int64_t micros_of_day) {
  int64_t secs = micros_of_day / kMicrosPerSecond;
  int64_t frac = micros_of_day % kMicrosPerSecond;
  std::string out = Pad(secs / 3600, 2) + ":" + Pad((secs / 60) % 60, 2) + ":" + Pad(secs % 60, 2);
  if (frac != 0) {
    std::string digits = Pad(frac, 6);
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out;
}

template <typename F>
std::string JavaFloatingString(F v) {
  // Java's Float/Double.toString: shortest digits, plain between 1e-3 and 1e7, else "d.dddE±n".
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);
  bool negative = sci.front() == '-';
  if (negative) sci.remove_prefix(1);
  size_t e_pos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_pos)) {
    if (c != '.') digits.push_back(c);
  }
  int exponent = 0;
  std::string_view exp_text = sci.substr(e_pos + 1);
  if (!exp_text.empty() && exp_text.front() == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
  std::string out = negative ? "-" : "";
  F magnitude = std::fabs(v);
  if (magnitude >= static_cast<F>(1e-3) && magnitude < static_cast<F>(1e7)) {
    if (exponent >= 0) {
      size_t int_len = static_cast<size_t>(exponent) + 1;
      if (digits.size() < int_len) digits.append(int_len - digits.size(), '0');
      std::string frac = digits.substr(int_len);
      out += digits.substr(0, int_len) + "." + (frac.empty() ? "0" : frac);
    } else {
      out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    }
  } else {
    std::string frac = digits.substr(1);
    out += digits.substr(0, 1) + "." + (frac.empty() ? "0" : frac) + "E" + std::to_string(exponent);
  }
  return out;
}

std::string Base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t n = (static_cast<uint8_t>(bytes[i]) << 16) |
                 (static_cast<uint8_t>(bytes[i + 1]) << 8) | static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  if (i < bytes.size()) {
    uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

template <typename T>
int Cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Java's Float.compare / Double.compare: -0.0 < 0.0 and NaN above everything, equal to itself.
template <typename F>
int CompareFloating(F a, F b) {
  if (a < b) return -1;
  if (a > b) return 1;
  bool a_nan = std::isnan(a);
  bool b_nan = std::isnan(b);
  if (a_nan || b_nan) return a_nan == b_nan ? 0 : (a_nan ? 1 : -1);
  return Cmp(std::signbit(b), std::signbit(a));
}

int CompareBytes(const std::string& a, const std::string& b) {
  size_t n = std::min(a.size(), b.size());
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c < 0 ? -1 : 1;
  return Cmp(a.size(), b.size());
}

template <typename T>
void AppendLittleEndian(std::string* out, T v) {
  using U = std::make_unsigned_t<T>;
  U u = static_cast<U>(v);
  for (size_t i = 0; i < sizeof(T); ++i) {
    out->push_back(static_cast<char>(u & 0xFF));
    u = static_cast<U>(u >> 8);
  }
}

template <typename T>
T ReadLittleEndian(std::string_view bytes) {
  using U = std::make_unsigned_t<T>;
  U u = 0;
  for (size_t i = sizeof(T); i-- > 0;) {
    u = static_cast<U>((u << 8) | static_cast<uint8_t>(bytes[i]));
  }
  return static_cast<T>(u);
}

// Minimal big-endian two's complement bytes of an unscaled decimal (BigInteger.toByteArray).
std::string DecimalMinBytes(const arrow::Decimal128& d) {
  uint8_t be[16];
  uint64_t hi = static_cast<uint64_t>(d.high_bits());
  uint64_t lo = d.low_bits();
  for (int i = 0; i < 8; ++i) {
    be[i] = static_cast<uint8_t>(hi >> (56 - 8 * i));
    be[8 + i] = static_cast<uint8_t>(lo >> (56 - 8 * i));
  }
  int start = 0;
  while (start < 15) {
    bool redundant = (be[start] == 0x00 && (be[start + 1] & 0x80) == 0) ||
                     (be[start] == 0xFF && (be[start + 1] & 0x80) != 0);
    if (!redundant) break;
    ++start;
  }
  return std::string(reinterpret_cast<const char*>(be + start), 16 - start);
}

arrow::Decimal128 DecimalFromBigEndian(std::string_view bytes) {
  uint8_t be[16];
  uint8_t fill = (static_cast<uint8_t>(bytes[0]) & 0x80) ? 0xFF : 0x00;
  size_t pad = 16 - bytes.size();
  std::memset(be, fill, pad);
  std::memcpy(be + pad, bytes.data(), bytes.size());
  uint64_t hi = 0;
  uint64_t lo = 0;
  for (int i = 0; i < 8; ++i) {
    hi = (hi << 8) | be[i];
    lo = (lo << 8) | be[8 + i];
  }
  return arrow::Decimal128(static_cast<int64_t>(hi), lo);
}

bool TypesEqual(const TypePtr& a, const TypePtr& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return a->Equals(*b);
}

Status LengthError(const Type& type, size_t got, const char* expected) {
  return ValidationError("Cannot decode ", type.ToString(), " from ", got, " bytes: expected ",
                         expected);
}

}  // namespace

std::string DateToString(int32_t days) { return FormatCivilDate(days); }

std::string TimeToString(int64_t micros) {
  // LocalTime.toString(): seconds only when non-zero, fraction in groups of 3 digits.
  int64_t secs = micros / kMicrosPerSecond;
  int64_t frac = micros % kMicrosPerSecond;
  std::string out = Pad(secs / 3600, 2) + ":" + Pad((secs / 60) % 60, 2);
  if (secs % 60 != 0 || frac != 0) {
    out += ":" + Pad(secs % 60, 2);
    if (frac != 0) {
      out += frac % 1000 == 0 ? "." + Pad(frac / 1000, 3) : "." + Pad(frac, 6);
    }
  }
  return out;
}

std::string TimestampToString(int64_t micros, bool with_zone) {
  int64_t days = FloorDiv(micros, kMicrosPerDay);
  int64_t micros_of_day = micros - days * kMicrosPerDay;
  std::string out = FormatCivilDate(days) + "T" + FormatIsoTimeOfDay(micros_of_day);
  if (with_zone) out += "+00:00";
  return out;
}

std::string UuidToString(std::string_view bytes16) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (size_t i = 0; i < bytes16.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    uint8_t b = static_cast<uint8_t>(bytes16[i]);
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

Result<std::string> UuidFromString(std::string_view text) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  int high = -1;
  bool ok = text.size() == 36;
  for (size_t i = 0; ok && i < text.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      ok = text[i] == '-';
      continue;
    }
    int v = hex(text[i]);
    if (v < 0) {
      ok = false;
    } else if (high < 0) {
      high = v;
    } else {
      out.push_back(static_cast<char>((high << 4) | v));
      high = -1;
    }
  }
  if (ok && out.size() == 16) return out;
  return ValidationError("Invalid UUID string: ", text);
}

Literal Literal::Boolean(bool v) { return Literal(Type::Boolean(), v); }
Literal Literal::Int(int32_t v) { return Literal(Type::Int(), v); }
Literal Literal::Long(int64_t v) { return Literal(Type::Long(), v); }
Literal Literal::Float(float v) { return Literal(Type::Float(), v); }
Literal Literal::Double(double v) { return Literal(Type::Double(), v); }
Literal Literal::Decimal(arrow::Decimal128 unscaled, int32_t precision, int32_t scale) {
  return Literal(Type::Decimal(precision, scale), unscaled);
}
Literal Literal::Date(int32_t days) { return Literal(Type::Date(), days); }
Literal Literal::Time(int64_t micros) { return Literal(Type::Time(), micros); }
Literal Literal::Timestamp(int64_t micros) { return Literal(Type::Timestamp(), micros); }
Literal Literal::TimestampTz(int64_t micros) { return Literal(Type::TimestampTz(), micros); }
Literal Literal::String(std::string v) { return Literal(Type::String(), std::move(v)); }
Literal Literal::Uuid(std::string bytes16) { return Literal(Type::Uuid(), std::move(bytes16)); }
Literal Literal::Fixed(std::string bytes) {
  auto length = static_cast<int32_t>(bytes.size());
  return Literal(Type::Fixed(length), std::move(bytes));
}
Literal Literal::Binary(std::string bytes) { return Literal(Type::Binary(), std::move(bytes)); }

std::string Literal::ToString() const {
  if (is_null()) return "null";
  TypeId id = type_ ? type_->id() : TypeId::kStruct;
  switch (id) {
    case TypeId::kDate:
      if (auto* v = std::get_if<int32_t>(&value_)) return DateToString(*v);
      break;
    case TypeId::kTime:
      if (auto* v = std::get_if<int64_t>(&value_)) return TimeToString(*v);
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      if (auto* v = std::get_if<int64_t>(&value_)) {
        return TimestampToString(*v, id == TypeId::kTimestampTz);
      }
      break;
    case TypeId::kUuid:
      if (auto* v = std::get_if<std::string>(&value_); v && v->size() == 16) {
        return UuidToString(*v);
      }
      break;
    case TypeId::kFixed:
    case TypeId::kBinary:
      // Java's toHumanString writes bytes as base64.
      if (auto* v = std::get_if<std::string>(&value_)) return Base64(*v);
      break;
    case TypeId::kDecimal:
      if (auto* v = std::get_if<arrow::Decimal128>(&value_)) return v->ToString(type_->scale());
      break;
    default:
      break;
  }
  struct Visitor {
    std::string operator()(std::monostate) const { return "null"; }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(int32_t v) const { return std::to_string(v); }
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(float v) const { return JavaFloatingString(v); }
    std::string operator()(double v) const { return JavaFloatingString(v); }
    std::string operator()(const arrow::Decimal128& v) const { return v.ToIntegerString(); }
    std::string operator()(const std::string& v) const { return v; }
  };
  return std::visit(Visitor{}, value_);
}

int Literal::Compare(const Literal& other) const {
  // Nulls sort first; values of different physical kinds order by kind so the result is total.
  if (is_null() || other.is_null()) return Cmp(!is_null(), !other.is_null());
  if (value_.index() != other.value_.index()) return Cmp(value_.index(), other.value_.index());
  switch (value_.index()) {
    case 1:
      return Cmp(std::get<bool>(value_), std::get<bool>(other.value_));
    case 2:
      return Cmp(std::get<int32_t>(value_), std::get<int32_t>(other.value_));
    case 3:
      return Cmp(std::get<int64_t>(value_), std::get<int64_t>(other.value_));
    case 4:
      return CompareFloating(std::get<float>(value_), std::get<float>(other.value_));
    case 5:
      return CompareFloating(std::get<double>(value_), std::get<double>(other.value_));
    case 6: {
      arrow::Decimal128 a = std::get<arrow::Decimal128>(value_);
      arrow::Decimal128 b = std::get<arrow::Decimal128>(other.value_);
      int32_t sa = type_ && type_->id() == TypeId::kDecimal ? type_->scale() : 0;
      int32_t sb = other.type_ && other.type_->id() == TypeId::kDecimal ? other.type_->scale() : 0;
      // Bring both to the larger scale; on overflow fall back to the unscaled values.
      if (sa < sb) {
        auto r = a.Rescale(sa, sb);
        if (r.ok()) a = *r;
      } else if (sb < sa) {
        auto r = b.Rescale(sb, sa);
        if (r.ok()) b = *r;
      }
      return Cmp(a, b);
    }
    case 7:
      return CompareBytes(std::get<std::string>(value_), std::get<std::string>(other.value_));
    default:
      return 0;
  }
}

bool Literal::operator==(const Literal& other) const {
  if (!TypesEqual(type_, other.type_)) return false;
  if (value_.index() != other.value_.index()) return false;
  if (is_null()) return true;
  return Compare(other) == 0;
}

std::string ToSingleValueBinary(const Literal& literal) {
  std::string out;
  struct Visitor {
    std::string* out;
    void operator()(std::monostate) const {}
    void operator()(bool v) const { out->push_back(v ? '\x01' : '\x00'); }
    void operator()(int32_t v) const { AppendLittleEndian(out, v); }
    void operator()(int64_t v) const { AppendLittleEndian(out, v); }
    void operator()(float v) const { AppendLittleEndian(out, std::bit_cast<uint32_t>(v)); }
    void operator()(double v) const { AppendLittleEndian(out, std::bit_cast<uint64_t>(v)); }
    void operator()(const arrow::Decimal128& v) const { *out = DecimalMinBytes(v); }
    void operator()(const std::string& v) const { *out = v; }
  };
  std::visit(Visitor{&out}, literal.value());
  return out;
}

Result<Literal> FromSingleValueBinary(const TypePtr& type, std::string_view bytes) {
  if (!type) return ValidationError("Cannot decode a single value without a type");
  const size_t n = bytes.size();
  switch (type->id()) {
    case TypeId::kBoolean:
      if (n != 1) return LengthError(*type, n, "1");
      return Literal(type, bytes[0] != 0);
    case TypeId::kInt:
    case TypeId::kDate:
      if (n != 4) return LengthError(*type, n, "4");
      return Literal(type, ReadLittleEndian<int32_t>(bytes));
    case TypeId::kLong:
      // Bounds written before an int -> long promotion stay 4 bytes (Java reads them too).
      if (n == 4) return Literal(type, static_cast<int64_t>(ReadLittleEndian<int32_t>(bytes)));
      if (n != 8) return LengthError(*type, n, "8 (or 4)");
      return Literal(type, ReadLittleEndian<int64_t>(bytes));
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      if (n != 8) return LengthError(*type, n, "8");
      return Literal(type, ReadLittleEndian<int64_t>(bytes));
    case TypeId::kFloat:
      if (n != 4) return LengthError(*type, n, "4");
      return Literal(type, std::bit_cast<float>(ReadLittleEndian<uint32_t>(bytes)));
    case TypeId::kDouble:
      // Likewise float -> double promotion.
      if (n == 4) {
        return Literal(
            type, static_cast<double>(std::bit_cast<float>(ReadLittleEndian<uint32_t>(bytes))));
      }
      if (n != 8) return LengthError(*type, n, "8 (or 4)");
      return Literal(type, std::bit_cast<double>(ReadLittleEndian<uint64_t>(bytes)));
    case TypeId::kDecimal:
      if (n < 1 || n > 16) return LengthError(*type, n, "1 to 16");
      return Literal(type, DecimalFromBigEndian(bytes));
    case TypeId::kUuid:
      if (n != 16) return LengthError(*type, n, "16");
      return Literal(type, std::string(bytes));
    case TypeId::kFixed:
      if (n != static_cast<size_t>(type->length())) {
        return LengthError(*type, n, std::to_string(type->length()).c_str());
      }
      return Literal(type, std::string(bytes));
    case TypeId::kString:
    case TypeId::kBinary:
      return Literal(type, std::string(bytes));
    case TypeId::kUnsupported:
      return Status::NotImplemented("Cannot decode a single value of type ", type->ToString());
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap:
      break;
  }
  return ValidationError("Cannot decode a single value of nested type ", type->ToString());
}

}  // namespace floe::spec
