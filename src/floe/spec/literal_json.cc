#include "floe/spec/literal_json.h"

#include <cmath>
#include <string>

#include <arrow/util/decimal.h>

#include "floe/spec/json_document.h"
#include "floe/util/floor_div.h"
#include "floe/util/number_parse.h"
#include "floe/util/time_zone.h"

namespace floe::spec {

namespace {

Status Bad(std::string_view json, const Type& type, std::string_view why) {
  return Status::Invalid("Cannot read default value ", json, " as ", type.ToString(), ": ", why);
}

// "hh:mm:ss[.ffffff]" -> microseconds of the day.
std::optional<int64_t> ParseTimeOfDay(std::string_view text) {
  if (text.size() < 8 || text[2] != ':' || text[5] != ':') return std::nullopt;
  auto h = ParseInt32(text.substr(0, 2)), m = ParseInt32(text.substr(3, 2)), s = ParseInt32(text.substr(6, 2));
  if (!h || !m || !s || *h > 23 || *m > 59 || *s > 59) return std::nullopt;
  int64_t micros = ((int64_t{*h} * 60 + *m) * 60 + *s) * 1000000;
  if (text.size() == 8) return micros;
  if (text[8] != '.' || text.size() == 9 || text.size() > 15) return std::nullopt;
  int64_t fraction = 0;
  for (size_t i = 9; i < 15; ++i) {
    int digit = 0;
    if (i < text.size()) {
      if (text[i] < '0' || text[i] > '9') return std::nullopt;
      digit = text[i] - '0';
    }
    fraction = fraction * 10 + digit;
  }
  return micros + fraction;
}

std::optional<std::string> FromHex(std::string_view text) {
  if (text.size() % 2) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < text.size(); i += 2) {
    auto byte = ParseHex(text.substr(i, 2));
    if (!byte) return std::nullopt;
    out.push_back(static_cast<char>(*byte));
  }
  return out;
}

}  // namespace

Result<Literal> LiteralFromJson(std::string_view json, const TypePtr& type) {
  std::string buffer;
  rapidjson::Document doc;
  ARROW_RETURN_NOT_OK(ParseJsonDocument(json, &buffer, &doc));
  if (doc.IsNull()) return Literal::Null(type);
  const Type& t = *type;
  auto text = [&]() -> Result<std::string_view> {
    if (!doc.IsString()) return Bad(json, t, "expected a string");
    return std::string_view(doc.GetString(), doc.GetStringLength());
  };
  switch (t.id()) {
    case TypeId::kBoolean:
      if (!doc.IsBool()) return Bad(json, t, "expected true or false");
      return Literal(type, doc.GetBool());
    case TypeId::kInt:
      if (!doc.IsInt()) return Bad(json, t, "expected a 32-bit integer");
      return Literal(type, static_cast<int32_t>(doc.GetInt()));
    case TypeId::kLong:
      if (!doc.IsInt64()) return Bad(json, t, "expected a 64-bit integer");
      return Literal(type, static_cast<int64_t>(doc.GetInt64()));
    case TypeId::kFloat:
      if (!doc.IsNumber()) return Bad(json, t, "expected a number");
      return Literal(type, static_cast<float>(doc.GetDouble()));
    case TypeId::kDouble:
      if (!doc.IsNumber()) return Bad(json, t, "expected a number");
      return Literal(type, doc.GetDouble());
    case TypeId::kDecimal: {
      ARROW_ASSIGN_OR_RAISE(std::string_view s, text());
      arrow::Decimal128 value;
      int32_t precision = 0, scale = 0;
      if (!arrow::Decimal128::FromString(s, &value, &precision, &scale).ok() || scale != t.scale() ||
          !value.FitsInPrecision(t.precision())) {
        return Bad(json, t, "expected a decimal of that precision and scale");
      }
      return Literal(type, value);
    }
    case TypeId::kDate: {
      ARROW_ASSIGN_OR_RAISE(std::string_view s, text());
      if (s.size() != 10) return Bad(json, t, "expected yyyy-mm-dd");
      auto micros = ParseTimestampMicros(s, TimeZone::Utc());
      if (!micros.ok()) return Bad(json, t, "expected yyyy-mm-dd");
      return Literal(type, static_cast<int32_t>(FloorDiv(*micros, int64_t{86400} * 1000000)));
    }
    case TypeId::kTime: {
      ARROW_ASSIGN_OR_RAISE(std::string_view s, text());
      auto micros = ParseTimeOfDay(s);
      if (!micros) return Bad(json, t, "expected hh:mm:ss[.ffffff]");
      return Literal(type, *micros);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      ARROW_ASSIGN_OR_RAISE(std::string_view s, text());
      // Without a zone the text is the local time itself; with one it names its instant.
      const bool zoned = s.size() > 19 && (s.back() == 'Z' || s[s.size() - 6] == '+' || s[s.size() - 6] == '-');
      if (zoned != (t.id() == TypeId::kTimestampTz)) {
        return Bad(json, t, zoned ? "a timestamp without zone has no offset" : "expected an offset such as +00:00");
      }
      auto micros = ParseTimestampMicros(s, TimeZone::Utc());
      if (!micros.ok()) return Bad(json, t, micros.status().message());
      return Literal(type, *micros);
    }
    case TypeId::kString: {
      ARROW_ASSIGN_OR_RAISE(std::string_view s, text());
      return Literal(type, std::string(s));
    }
    case TypeId::kUuid: {
      ARROW_ASSIGN_OR_RAISE(std::string_view s, text());
      auto bytes = UuidFromString(s);
      if (!bytes.ok()) return Bad(json, t, "expected a uuid");
      return Literal(type, *bytes);
    }
    case TypeId::kFixed:
    case TypeId::kBinary: {
      ARROW_ASSIGN_OR_RAISE(std::string_view s, text());
      auto bytes = FromHex(s);
      if (!bytes) return Bad(json, t, "expected hexadecimal bytes");
      if (t.id() == TypeId::kFixed && static_cast<int32_t>(bytes->size()) != t.length()) {
        return Bad(json, t, "wrong length");
      }
      return Literal(type, *bytes);
    }
    default:
      return Status::NotImplemented("Cannot read default value ", json, " of type ", t.ToString(),
                                    ": floe reads defaults of primitive columns only");
  }
}

}  // namespace floe::spec
