#include "floe/server/parameter_decoding.h"

#include <arrow/builder.h>
#include <arrow/scalar.h>
#include <arrow/type.h>
#include <arrow/util/decimal.h>

#include <algorithm>
#include <cstring>

#include "floe/server/pg_message.h"
#include "floe/server/pg_type_map.h"
#include "floe/sql/postgres/pg_array_text.h"
#include "floe/util/number_parse.h"
#include "floe/util/time_zone.h"

namespace floe::server {

namespace {

// The value of one hexadecimal digit, or -1.
int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr int64_t kPgEpochDays = 10957;
constexpr int64_t kPgEpochMicros = kPgEpochDays * 86400LL * 1000000;

Status BadValue(int32_t oid, std::string_view why) {
  return Status::Invalid("invalid binary value for a parameter of type oid ", oid, ": ", why);
}

Result<int64_t> ReadBigEndian(std::string_view bytes, size_t width, int32_t oid) {
  if (bytes.size() != width) return BadValue(oid, "wrong length");
  uint64_t v = 0;
  for (unsigned char c : bytes) v = (v << 8) | c;
  if (width < 8 && (v >> (width * 8 - 1)) != 0) v |= ~uint64_t{0} << (width * 8);  // sign
  return static_cast<int64_t>(v);
}

// A typed decimal from its digits, with the precision and scale they have.
Result<Parameter> DecimalParameter(const std::string& text) {
  arrow::Decimal128 value;
  int32_t precision = 0;
  int32_t scale = 0;
  if (!arrow::Decimal128::FromString(text, &value, &precision, &scale).ok() || scale < 0) {
    return Status::Invalid("invalid input syntax for type numeric: \"", text, "\"");
  }
  precision = std::max(precision, scale);
  if (precision < 1) precision = 1;
  if (precision > 38) return Status::Invalid("numeric value out of range: \"", text, "\"");
  return Parameter{
      std::make_shared<arrow::Decimal128Scalar>(value, arrow::decimal128(precision, scale))};
}

Parameter Untyped(std::string_view text) {
  return Parameter{std::make_shared<arrow::StringScalar>(std::string(text)), true};
}

// Binary numeric (NBASE 10000 digits) -> decimal text.
Result<std::string> NumericText(std::string_view bytes, int32_t oid) {
  BodyReader r(bytes);
  ARROW_ASSIGN_OR_RAISE(int16_t ndigits, r.Int16());
  ARROW_ASSIGN_OR_RAISE(int16_t weight, r.Int16());
  ARROW_ASSIGN_OR_RAISE(int16_t sign, r.Int16());
  ARROW_ASSIGN_OR_RAISE(int16_t dscale, r.Int16());
  if (ndigits < 0 || dscale < 0) return BadValue(oid, "bad numeric header");
  if (static_cast<uint16_t>(sign) == 0xC000) return std::string("NaN");
  std::vector<int16_t> digits;
  for (int i = 0; i < ndigits; ++i) {
    ARROW_ASSIGN_OR_RAISE(int16_t d, r.Int16());
    if (d < 0 || d > 9999) return BadValue(oid, "numeric digit out of range");
    digits.push_back(d);
  }
  std::string int_part;
  for (int g = 0; g <= weight; ++g) {
    int16_t d = g < ndigits ? digits[g] : 0;
    char buf[8];
    std::snprintf(buf, sizeof(buf), g == 0 ? "%d" : "%04d", d);
    int_part += buf;
  }
  if (int_part.empty()) int_part = "0";
  std::string frac;
  for (int g = weight + 1; static_cast<int>(frac.size()) < dscale; ++g) {
    int16_t d = (g >= 0 && g < ndigits) ? digits[g] : 0;
    char buf[8];
    std::snprintf(buf, sizeof(buf), "%04d", d);
    frac += buf;
  }
  frac.resize(static_cast<size_t>(dscale));
  std::string text = (sign == 0x4000 ? "-" : "") + int_part;
  if (dscale > 0) text += "." + frac;
  return text;
}

// The element type of the array types floe takes as parameters; null for others.
std::shared_ptr<arrow::DataType> ArrayElementType(int32_t oid) {
  switch (oid) {
    case pg_oid::kTextArray:
    case pg_oid::kVarcharArray:
    case pg_oid::kCharArray:
    case pg_oid::kNameArray:
      return arrow::utf8();
    case pg_oid::kInt2Array:
      return arrow::int16();
    case pg_oid::kInt4Array:
      return arrow::int32();
    case pg_oid::kInt8Array:
    case pg_oid::kOidArray:
      return arrow::int64();
    default:
      return nullptr;
  }
}

// A one-dimensional array in PostgreSQL's text form ({r,"a b",NULL}), as the JDBC driver
// sends a text[] or int4[] parameter, as a list value.
Result<Parameter> TextArrayParameter(int32_t oid, std::string_view v,
                                     const std::shared_ptr<arrow::DataType>& element) {
  auto bad = [&](std::string_view why) {
    return Status::Invalid("invalid array value for a parameter of type oid ", oid, ": ", why);
  };
  ARROW_ASSIGN_OR_RAISE(auto items, sql::ParsePgArrayText(v));
  std::unique_ptr<arrow::ArrayBuilder> builder;
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), element, &builder));
  for (const auto& item : items) {
    if (!item) {
      ARROW_RETURN_NOT_OK(builder->AppendNull());
    } else if (element->id() == arrow::Type::STRING) {
      ARROW_RETURN_NOT_OK(static_cast<arrow::StringBuilder&>(*builder).Append(*item));
    } else {
      std::optional<int64_t> n = ParseInt64(*item);
      if (!n) return bad("an element is not an integer");
      int bits = element->bit_width();
      if (bits < 64 && (*n < -(int64_t{1} << (bits - 1)) || *n >= (int64_t{1} << (bits - 1)))) {
        return bad("an element is out of range");
      }
      ARROW_ASSIGN_OR_RAISE(auto scalar, arrow::MakeScalar(element, *n));
      ARROW_RETURN_NOT_OK(builder->AppendScalar(*scalar));
    }
  }
  std::shared_ptr<arrow::Array> values;
  ARROW_RETURN_NOT_OK(builder->Finish(&values));
  return Parameter{std::make_shared<arrow::ListScalar>(values)};
}

}  // namespace

Result<Parameter> DecodeParameter(int32_t oid, bool binary, std::optional<std::string_view> value) {
  if (!value) {
    std::shared_ptr<arrow::DataType> type = arrow::null();
    switch (oid) {
      case pg_oid::kBool:
        type = arrow::boolean();
        break;
      case pg_oid::kInt2:
        type = arrow::int16();
        break;
      case pg_oid::kInt4:
        type = arrow::int32();
        break;
      case pg_oid::kInt8:
        type = arrow::int64();
        break;
      case pg_oid::kFloat4:
        type = arrow::float32();
        break;
      case pg_oid::kFloat8:
        type = arrow::float64();
        break;
      case pg_oid::kText:
      case pg_oid::kVarchar:
        type = arrow::utf8();
        break;
      case pg_oid::kBytea:
        type = arrow::binary();
        break;
      case pg_oid::kDate:
        type = arrow::date32();
        break;
      default:
        break;
    }
    return Parameter{arrow::MakeNullScalar(type), false};
  }
  std::string_view v = *value;
  if (!binary) {
    switch (oid) {
      case pg_oid::kInt2:
      case pg_oid::kInt4:
      case pg_oid::kInt8: {
        char* end = nullptr;
        std::string text(v);
        errno = 0;
        long long n = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || errno != 0) {
          return Status::Invalid("invalid input syntax for type integer: \"", text, "\"");
        }
        if (oid == pg_oid::kInt2)
          return Parameter{std::make_shared<arrow::Int16Scalar>(static_cast<int16_t>(n))};
        if (oid == pg_oid::kInt4)
          return Parameter{std::make_shared<arrow::Int32Scalar>(static_cast<int32_t>(n))};
        return Parameter{std::make_shared<arrow::Int64Scalar>(n)};
      }
      case pg_oid::kFloat4:
      case pg_oid::kFloat8: {
        std::string text(v);
        char* end = nullptr;
        double d = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0') {
          return Status::Invalid("invalid input syntax for type double precision: \"", text, "\"");
        }
        if (oid == pg_oid::kFloat4)
          return Parameter{std::make_shared<arrow::FloatScalar>(static_cast<float>(d))};
        return Parameter{std::make_shared<arrow::DoubleScalar>(d)};
      }
      case pg_oid::kBool: {
        std::string t(v);
        for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (t == "t" || t == "true" || t == "yes" || t == "on" || t == "1") {
          return Parameter{std::make_shared<arrow::BooleanScalar>(true)};
        }
        if (t == "f" || t == "false" || t == "no" || t == "off" || t == "0") {
          return Parameter{std::make_shared<arrow::BooleanScalar>(false)};
        }
        return Status::Invalid("invalid input syntax for type boolean: \"", t, "\"");
      }
      case pg_oid::kText:
      case pg_oid::kVarchar:
        return Parameter{std::make_shared<arrow::StringScalar>(std::string(v))};
      case pg_oid::kBytea: {
        if (v.substr(0, 2) != "\\x" || v.size() % 2 != 0) return Untyped(v);
        std::string bytes;
        for (size_t i = 2; i < v.size(); i += 2) {
          int high = HexDigit(v[i]), low = HexDigit(v[i + 1]);
          if (high < 0 || low < 0) {
            return Status::Invalid("invalid hexadecimal digit: \"",
                                   v.substr(high < 0 ? i : i + 1, 1), "\"");
          }
          bytes.push_back(static_cast<char>(high * 16 + low));
        }
        return Parameter{std::make_shared<arrow::BinaryScalar>(bytes)};
      }
      case pg_oid::kNumeric:
        return DecimalParameter(std::string(v));
      case pg_oid::kDate: {
        ARROW_ASSIGN_OR_RAISE(int64_t micros, ParseTimestampMicros(v, TimeZone::Utc()));
        int64_t days = micros / (86400LL * 1000000) - (micros % (86400LL * 1000000) < 0 ? 1 : 0);
        return Parameter{std::make_shared<arrow::Date32Scalar>(static_cast<int32_t>(days))};
      }
      case pg_oid::kTimestamp:
      case pg_oid::kTimestamptz: {
        ARROW_ASSIGN_OR_RAISE(int64_t micros, ParseTimestampMicros(v, TimeZone::Utc()));
        auto type = oid == pg_oid::kTimestamp ? arrow::timestamp(arrow::TimeUnit::MICRO)
                                              : arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
        return Parameter{std::make_shared<arrow::TimestampScalar>(micros, type)};
      }
      default:
        if (auto element = ArrayElementType(oid)) return TextArrayParameter(oid, v, element);
        return Untyped(v);
    }
  }
  switch (oid) {
    case pg_oid::kBool:
      if (v.size() != 1) return BadValue(oid, "wrong length");
      return Parameter{std::make_shared<arrow::BooleanScalar>(v[0] != 0)};
    case pg_oid::kInt2: {
      ARROW_ASSIGN_OR_RAISE(int64_t n, ReadBigEndian(v, 2, oid));
      return Parameter{std::make_shared<arrow::Int16Scalar>(static_cast<int16_t>(n))};
    }
    case pg_oid::kInt4: {
      ARROW_ASSIGN_OR_RAISE(int64_t n, ReadBigEndian(v, 4, oid));
      return Parameter{std::make_shared<arrow::Int32Scalar>(static_cast<int32_t>(n))};
    }
    case pg_oid::kInt8: {
      ARROW_ASSIGN_OR_RAISE(int64_t n, ReadBigEndian(v, 8, oid));
      return Parameter{std::make_shared<arrow::Int64Scalar>(n)};
    }
    case pg_oid::kFloat4: {
      ARROW_ASSIGN_OR_RAISE(int64_t n, ReadBigEndian(v, 4, oid));
      auto bits = static_cast<uint32_t>(n);
      float f;
      std::memcpy(&f, &bits, 4);
      return Parameter{std::make_shared<arrow::FloatScalar>(f)};
    }
    case pg_oid::kFloat8: {
      ARROW_ASSIGN_OR_RAISE(int64_t n, ReadBigEndian(v, 8, oid));
      double d;
      std::memcpy(&d, &n, 8);
      return Parameter{std::make_shared<arrow::DoubleScalar>(d)};
    }
    case pg_oid::kText:
    case pg_oid::kVarchar:
      return Parameter{std::make_shared<arrow::StringScalar>(std::string(v))};
    case pg_oid::kUnknown:
    case 0:
      return Untyped(v);
    case pg_oid::kBytea:
      return Parameter{std::make_shared<arrow::BinaryScalar>(std::string(v))};
    case pg_oid::kDate: {
      ARROW_ASSIGN_OR_RAISE(int64_t days, ReadBigEndian(v, 4, oid));
      return Parameter{
          std::make_shared<arrow::Date32Scalar>(static_cast<int32_t>(days + kPgEpochDays))};
    }
    case pg_oid::kTime: {
      ARROW_ASSIGN_OR_RAISE(int64_t micros, ReadBigEndian(v, 8, oid));
      return Parameter{
          std::make_shared<arrow::Time64Scalar>(micros, arrow::time64(arrow::TimeUnit::MICRO))};
    }
    case pg_oid::kTimestamp:
    case pg_oid::kTimestamptz: {
      ARROW_ASSIGN_OR_RAISE(int64_t micros, ReadBigEndian(v, 8, oid));
      auto type = oid == pg_oid::kTimestamp ? arrow::timestamp(arrow::TimeUnit::MICRO)
                                            : arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
      // PostgreSQL's infinities (INT64_MAX, INT64_MIN) and their neighbours have no Unix time.
      int64_t unix_micros = 0;
      if (__builtin_add_overflow(micros, kPgEpochMicros, &unix_micros)) {
        return BadValue(oid, "timestamp out of range");
      }
      return Parameter{std::make_shared<arrow::TimestampScalar>(unix_micros, type)};
    }
    case pg_oid::kNumeric: {
      ARROW_ASSIGN_OR_RAISE(std::string text, NumericText(v, oid));
      return DecimalParameter(text);
    }
    case pg_oid::kUuid: {
      if (v.size() != 16) return BadValue(oid, "wrong length");
      static constexpr char kHex[] = "0123456789abcdef";
      std::string text;
      for (size_t i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) text.push_back('-');
        text.push_back(kHex[static_cast<unsigned char>(v[i]) >> 4]);
        text.push_back(kHex[static_cast<unsigned char>(v[i]) & 15]);
      }
      return Untyped(text);
    }
    default:
      return Status::NotImplemented("binary parameters of type oid ", oid,
                                    " are not supported; send them as text");
  }
}

}  // namespace floe::server
