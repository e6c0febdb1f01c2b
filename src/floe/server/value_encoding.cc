#include "floe/server/value_encoding.h"

#include <arrow/array.h>
#include <arrow/extension_type.h>
#include <arrow/scalar.h>
#include <arrow/type.h>
#include <arrow/util/decimal.h>

#include <strings.h>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "floe/server/pg_message.h"
#include "floe/util/floor_div.h"
#include "floe/util/json_writer.h"
#include "floe/util/time_units.h"

namespace floe::server {

namespace {

constexpr int64_t kPgEpochDays = 10957;  // 2000-01-01 - 1970-01-01
constexpr int64_t kPgEpochMicros = kPgEpochDays * kMicrosPerDay;

// Days since 1970-01-01 -> civil date (Howard Hinnant's days_from_civil, inverted).
void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

std::string DateText(int64_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  char buf[48];
  if (y <= 0) {
    std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02u BC", static_cast<long long>(1 - y), m, d);
  } else {
    std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02u", static_cast<long long>(y), m, d);
  }
  return buf;
}

// "HH:MM:SS[.ffffff]" with trailing zeros of the fraction dropped, as PostgreSQL prints.
std::string TimeOfDayText(int64_t micros) {
  int64_t secs = micros / 1000000;
  int64_t frac = micros % 1000000;
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%02lld:%02lld:%02lld", static_cast<long long>(secs / 3600),
                static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60));
  std::string text = buf;
  if (frac != 0) {
    std::snprintf(buf, sizeof(buf), ".%06lld", static_cast<long long>(frac));
    std::string f = buf;
    while (f.back() == '0') f.pop_back();
    text += f;
  }
  return text;
}

std::string TimestampText(int64_t micros) {
  int64_t days = FloorDiv(micros, kMicrosPerDay);
  int64_t in_day = micros - days * kMicrosPerDay;
  std::string date = DateText(days);
  std::string bc;
  if (date.size() > 3 && date.compare(date.size() - 3, 3, " BC") == 0) {
    bc = " BC";
    date.resize(date.size() - 3);
  }
  return date + " " + TimeOfDayText(in_day) + bc;
}

std::string OffsetText(int64_t offset_seconds) {
  char sign = offset_seconds < 0 ? '-' : '+';
  int64_t a = offset_seconds < 0 ? -offset_seconds : offset_seconds;
  char buf[64];
  if (a % 60 != 0) {
    std::snprintf(buf, sizeof(buf), "%c%02lld:%02lld:%02lld", sign,
                  static_cast<long long>(a / 3600), static_cast<long long>(a / 60 % 60),
                  static_cast<long long>(a % 60));
  } else if (a % 3600 != 0) {
    std::snprintf(buf, sizeof(buf), "%c%02lld:%02lld", sign, static_cast<long long>(a / 3600),
                  static_cast<long long>(a / 60 % 60));
  } else {
    std::snprintf(buf, sizeof(buf), "%c%02lld", sign, static_cast<long long>(a / 3600));
  }
  return buf;
}

// PostgreSQL's shortest-exact float output: plain digits for decimal exponents in
// [-4, max_fixed), else d.ddde+XX.
template <typename T>
std::string FloatText(T v, int max_fixed) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  size_t e = sci.find('e');
  int exponent = std::atoi(sci.c_str() + e + 1);
  bool negative = sci[0] == '-';
  std::string digits;
  for (size_t i = negative ? 1 : 0; i < e; ++i) {
    if (sci[i] != '.') digits.push_back(sci[i]);
  }
  std::string out = negative ? "-" : "";
  if (exponent < -4 || exponent >= max_fixed) {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char exp[16];
    std::snprintf(exp, sizeof(exp), "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return out + exp;
  }
  if (exponent < 0)
    return out + "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  auto int_digits = static_cast<size_t>(exponent + 1);
  if (digits.size() <= int_digits)
    return out + digits + std::string(int_digits - digits.size(), '0');
  return out + digits.substr(0, int_digits) + "." + digits.substr(int_digits);
}

std::string HexBytes(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::string UuidText(std::string_view bytes) {
  std::string hex = HexBytes(bytes);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

std::string BigEndian(int64_t v, int bytes) {
  std::string out;
  for (int i = bytes - 1; i >= 0; --i)
    out.push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff));
  return out;
}

// An array element needs quotes when empty, "NULL", or holding a delimiter, quote,
// backslash or blank.
std::string ArrayElement(const std::string& text) {
  bool quote = text.empty() || (text.size() == 4 && strcasecmp(text.c_str(), "null") == 0);
  for (char c : text) {
    if (c == '{' || c == '}' || c == ',' || c == '"' || c == '\\' || c == ' ' || c == '\t' ||
        c == '\n' || c == '\r') {
      quote = true;
    }
  }
  if (!quote) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

bool IsQuotedInJson(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::BOOL:
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::UINT8:
    case arrow::Type::UINT16:
    case arrow::Type::UINT32:
    case arrow::Type::UINT64:
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE:
    case arrow::Type::DECIMAL128:
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST:
    case arrow::Type::MAP:
    case arrow::Type::STRUCT:
      return false;
    default:
      return true;
  }
}

Status WriteJson(const arrow::Array& array, int64_t row, const TimeZone& zone, JsonWriter* json);

Status WriteJsonList(const arrow::Array& values, int64_t start, int64_t end, const TimeZone& zone,
                     JsonWriter* json) {
  json->StartArray();
  for (int64_t i = start; i < end; ++i) ARROW_RETURN_NOT_OK(WriteJson(values, i, zone, json));
  json->EndArray();
  return Status::OK();
}

Status WriteJsonMap(const arrow::MapArray& map, int64_t row, const TimeZone& zone,
                    JsonWriter* json) {
  json->StartObject();
  for (int64_t i = map.value_offset(row); i < map.value_offset(row) + map.value_length(row); ++i) {
    ARROW_ASSIGN_OR_RAISE(std::string key, TextValue(*map.keys(), i, zone));
    json->Key(key);
    ARROW_RETURN_NOT_OK(WriteJson(*map.items(), i, zone, json));
  }
  json->EndObject();
  return Status::OK();
}

Status WriteJsonStruct(const arrow::StructArray& s, int64_t row, const TimeZone& zone,
                       JsonWriter* json) {
  json->StartObject();
  const auto& type = static_cast<const arrow::StructType&>(*s.type());
  for (int f = 0; f < type.num_fields(); ++f) {
    json->Key(type.field(f)->name());
    ARROW_RETURN_NOT_OK(WriteJson(*s.field(f), row, zone, json));
  }
  json->EndObject();
  return Status::OK();
}

Status WriteJson(const arrow::Array& array, int64_t row, const TimeZone& zone, JsonWriter* json) {
  if (array.IsNull(row)) {
    json->Null();
    return Status::OK();
  }
  switch (array.type_id()) {
    case arrow::Type::LIST: {
      const auto& list = static_cast<const arrow::ListArray&>(array);
      return WriteJsonList(*list.values(), list.value_offset(row),
                           list.value_offset(row) + list.value_length(row), zone, json);
    }
    case arrow::Type::LARGE_LIST: {
      const auto& list = static_cast<const arrow::LargeListArray&>(array);
      return WriteJsonList(*list.values(), list.value_offset(row),
                           list.value_offset(row) + list.value_length(row), zone, json);
    }
    case arrow::Type::MAP:
      return WriteJsonMap(static_cast<const arrow::MapArray&>(array), row, zone, json);
    case arrow::Type::STRUCT:
      return WriteJsonStruct(static_cast<const arrow::StructArray&>(array), row, zone, json);
    default:
      break;
  }
  ARROW_ASSIGN_OR_RAISE(std::string text, TextValue(array, row, zone));
  if (array.type_id() == arrow::Type::BOOL) {
    json->Bool(text == "t");
  } else if (IsQuotedInJson(*array.type()) || text == "NaN" || text == "Infinity" ||
             text == "-Infinity") {
    json->String(text);
  } else {
    json->Raw(text);  // a number in PostgreSQL's text, kept as is
  }
  return Status::OK();
}

Result<std::string> ListText(const arrow::Array& values, int64_t start, int64_t end,
                             const TimeZone& zone) {
  std::string out = "{";
  for (int64_t i = start; i < end; ++i) {
    if (i > start) out.push_back(',');
    if (values.IsNull(i)) {
      out += "NULL";
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(std::string element, TextValue(values, i, zone));
    // A nested list is itself an array literal and goes unquoted, as PostgreSQL nests them.
    bool nested =
        values.type_id() == arrow::Type::LIST || values.type_id() == arrow::Type::LARGE_LIST;
    out += nested ? element : ArrayElement(element);
  }
  out.push_back('}');
  return out;
}

// Iceberg's uuid arrives as Arrow's uuid extension over 16 bytes; a plain fixed(16) is bytea.
bool IsUuid(const arrow::DataType& type) {
  return type.id() == arrow::Type::EXTENSION &&
         static_cast<const arrow::ExtensionType&>(type).extension_name() == "arrow.uuid";
}

const arrow::Array& Storage(const arrow::Array& array, std::shared_ptr<arrow::Array>* holder) {
  if (array.type_id() != arrow::Type::EXTENSION) return array;
  *holder = static_cast<const arrow::ExtensionArray&>(array).storage();
  return **holder;
}

}  // namespace

std::string NumericBinary(const std::string& decimal_text, int32_t scale) {
  bool negative = !decimal_text.empty() && decimal_text[0] == '-';
  std::string abs = negative ? decimal_text.substr(1) : decimal_text;
  size_t dot = abs.find('.');
  std::string int_part = dot == std::string::npos ? abs : abs.substr(0, dot);
  std::string frac_part = dot == std::string::npos ? "" : abs.substr(dot + 1);
  // Pad to whole groups of four digits: the integer part on the left, the fraction on the right.
  int_part.insert(0, (4 - int_part.size() % 4) % 4, '0');
  frac_part.append((4 - frac_part.size() % 4) % 4, '0');
  std::vector<int16_t> groups;
  for (size_t i = 0; i < int_part.size(); i += 4)
    groups.push_back(static_cast<int16_t>(std::stoi(int_part.substr(i, 4))));
  auto weight = static_cast<int16_t>(groups.size()) - 1;
  for (size_t i = 0; i < frac_part.size(); i += 4)
    groups.push_back(static_cast<int16_t>(std::stoi(frac_part.substr(i, 4))));
  size_t first = 0;
  while (first < groups.size() && groups[first] == 0) {
    ++first;
    --weight;
  }
  size_t last = groups.size();
  while (last > first && groups[last - 1] == 0) --last;
  std::string out;
  if (first == last) {
    weight = 0;
    negative = false;
  }
  AppendInt16(&out, static_cast<int16_t>(last - first));
  AppendInt16(&out, static_cast<int16_t>(weight));
  AppendInt16(&out, static_cast<int16_t>(negative ? 0x4000 : 0));
  AppendInt16(&out, static_cast<int16_t>(scale));
  for (size_t i = first; i < last; ++i) AppendInt16(&out, groups[i]);
  return out;
}

Result<std::string> TextValue(const arrow::Array& array_in, int64_t row, const TimeZone& zone) {
  std::shared_ptr<arrow::Array> holder;
  const arrow::Array& array = Storage(array_in, &holder);
  if (IsUuid(*array_in.type())) {
    return UuidText(static_cast<const arrow::FixedSizeBinaryArray&>(array).GetView(row));
  }
  switch (array.type_id()) {
    case arrow::Type::BOOL:
      return std::string(static_cast<const arrow::BooleanArray&>(array).Value(row) ? "t" : "f");
    case arrow::Type::INT8:
      return std::to_string(static_cast<const arrow::Int8Array&>(array).Value(row));
    case arrow::Type::INT16:
      return std::to_string(static_cast<const arrow::Int16Array&>(array).Value(row));
    case arrow::Type::INT32:
      return std::to_string(static_cast<const arrow::Int32Array&>(array).Value(row));
    case arrow::Type::INT64:
      return std::to_string(static_cast<const arrow::Int64Array&>(array).Value(row));
    case arrow::Type::UINT8:
    case arrow::Type::UINT16:
    case arrow::Type::UINT32:
    case arrow::Type::UINT64: {
      ARROW_ASSIGN_OR_RAISE(auto scalar, array.GetScalar(row));
      return scalar->ToString();
    }
    case arrow::Type::FLOAT:
      return FloatText(static_cast<const arrow::FloatArray&>(array).Value(row), 6);
    case arrow::Type::DOUBLE:
      return FloatText(static_cast<const arrow::DoubleArray&>(array).Value(row), 15);
    case arrow::Type::DECIMAL128: {
      const auto& d = static_cast<const arrow::Decimal128Array&>(array);
      int32_t scale = static_cast<const arrow::Decimal128Type&>(*d.type()).scale();
      return arrow::Decimal128(d.GetValue(row)).ToString(scale);
    }
    case arrow::Type::STRING:
      return std::string(static_cast<const arrow::StringArray&>(array).GetView(row));
    case arrow::Type::LARGE_STRING:
      return std::string(static_cast<const arrow::LargeStringArray&>(array).GetView(row));
    case arrow::Type::BINARY:
      return "\\x" + HexBytes(static_cast<const arrow::BinaryArray&>(array).GetView(row));
    case arrow::Type::LARGE_BINARY:
      return "\\x" + HexBytes(static_cast<const arrow::LargeBinaryArray&>(array).GetView(row));
    case arrow::Type::FIXED_SIZE_BINARY: {
      return "\\x" + HexBytes(static_cast<const arrow::FixedSizeBinaryArray&>(array).GetView(row));
    }
    case arrow::Type::DATE32:
      return DateText(static_cast<const arrow::Date32Array&>(array).Value(row));
    case arrow::Type::TIME32: {
      const auto& t = static_cast<const arrow::Time32Array&>(array);
      auto unit = static_cast<const arrow::Time32Type&>(*t.type()).unit();
      return TimeOfDayText(MicrosFromUnit(t.Value(row), unit));
    }
    case arrow::Type::TIME64: {
      const auto& t = static_cast<const arrow::Time64Array&>(array);
      auto unit = static_cast<const arrow::Time64Type&>(*t.type()).unit();
      return TimeOfDayText(MicrosFromUnit(t.Value(row), unit));
    }
    case arrow::Type::TIMESTAMP: {
      const auto& t = static_cast<const arrow::TimestampArray&>(array);
      const auto& type = static_cast<const arrow::TimestampType&>(*t.type());
      int64_t micros = MicrosFromUnit(t.Value(row), type.unit());
      if (type.timezone().empty()) return TimestampText(micros);
      int64_t offset = zone.OffsetSecondsAt(micros);
      return TimestampText(micros + offset * 1000000) + OffsetText(offset);
    }
    case arrow::Type::LIST: {
      const auto& list = static_cast<const arrow::ListArray&>(array);
      return ListText(*list.values(), list.value_offset(row),
                      list.value_offset(row) + list.value_length(row), zone);
    }
    case arrow::Type::LARGE_LIST: {
      const auto& list = static_cast<const arrow::LargeListArray&>(array);
      return ListText(*list.values(), list.value_offset(row),
                      list.value_offset(row) + list.value_length(row), zone);
    }
    case arrow::Type::MAP:
    case arrow::Type::STRUCT: {
      JsonWriter json(JsonWriter::Style::kSpaced);
      ARROW_RETURN_NOT_OK(WriteJson(array, row, zone, &json));
      return json.Take();
    }
    default: {
      ARROW_ASSIGN_OR_RAISE(auto scalar, array.GetScalar(row));
      return scalar->ToString();
    }
  }
}

Result<std::string> BinaryValue(const arrow::Array& array_in, int64_t row, const TimeZone& zone) {
  std::shared_ptr<arrow::Array> holder;
  const arrow::Array& array = Storage(array_in, &holder);
  switch (array.type_id()) {
    case arrow::Type::BOOL:
      return std::string(1, static_cast<const arrow::BooleanArray&>(array).Value(row) ? 1 : 0);
    case arrow::Type::INT8:
      return BigEndian(static_cast<const arrow::Int8Array&>(array).Value(row), 2);
    case arrow::Type::INT16:
      return BigEndian(static_cast<const arrow::Int16Array&>(array).Value(row), 2);
    case arrow::Type::INT32:
      return BigEndian(static_cast<const arrow::Int32Array&>(array).Value(row), 4);
    case arrow::Type::INT64:
      return BigEndian(static_cast<const arrow::Int64Array&>(array).Value(row), 8);
    case arrow::Type::FLOAT: {
      float v = static_cast<const arrow::FloatArray&>(array).Value(row);
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      return BigEndian(bits, 4);
    }
    case arrow::Type::DOUBLE: {
      double v = static_cast<const arrow::DoubleArray&>(array).Value(row);
      int64_t bits;
      std::memcpy(&bits, &v, 8);
      return BigEndian(bits, 8);
    }
    case arrow::Type::DECIMAL128: {
      const auto& d = static_cast<const arrow::Decimal128Array&>(array);
      int32_t scale = static_cast<const arrow::Decimal128Type&>(*d.type()).scale();
      return NumericBinary(arrow::Decimal128(d.GetValue(row)).ToString(scale), scale);
    }
    case arrow::Type::BINARY:
      return std::string(static_cast<const arrow::BinaryArray&>(array).GetView(row));
    case arrow::Type::LARGE_BINARY:
      return std::string(static_cast<const arrow::LargeBinaryArray&>(array).GetView(row));
    case arrow::Type::FIXED_SIZE_BINARY:
      return std::string(static_cast<const arrow::FixedSizeBinaryArray&>(array).GetView(row));
    case arrow::Type::DATE32:
      return BigEndian(static_cast<const arrow::Date32Array&>(array).Value(row) - kPgEpochDays, 4);
    case arrow::Type::TIME32: {
      const auto& t = static_cast<const arrow::Time32Array&>(array);
      return BigEndian(
          MicrosFromUnit(t.Value(row), static_cast<const arrow::Time32Type&>(*t.type()).unit()), 8);
    }
    case arrow::Type::TIME64: {
      const auto& t = static_cast<const arrow::Time64Array&>(array);
      return BigEndian(
          MicrosFromUnit(t.Value(row), static_cast<const arrow::Time64Type&>(*t.type()).unit()), 8);
    }
    case arrow::Type::TIMESTAMP: {
      const auto& t = static_cast<const arrow::TimestampArray&>(array);
      const auto& type = static_cast<const arrow::TimestampType&>(*t.type());
      return BigEndian(MicrosFromUnit(t.Value(row), type.unit()) - kPgEpochMicros, 8);
    }
    default:
      // Text-typed columns (text, lists, maps, structs): the binary form is the text.
      return TextValue(array_in, row, zone);
  }
}

Status AppendField(const arrow::Array& array, int64_t row, bool binary, const TimeZone& zone,
                   std::string* out) {
  if (array.IsNull(row)) {
    AppendInt32(out, -1);
    return Status::OK();
  }
  ARROW_ASSIGN_OR_RAISE(std::string value,
                        binary ? BinaryValue(array, row, zone) : TextValue(array, row, zone));
  AppendInt32(out, static_cast<int32_t>(value.size()));
  out->append(value);
  return Status::OK();
}

}  // namespace floe::server
