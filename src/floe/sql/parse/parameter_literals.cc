#include "floe/sql/parse/parameter_literals.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include <arrow/api.h>

#include "floe/util/str_cat.h"
#include "floe/util/time_units.h"

namespace floe::sql {

namespace {

Expr Make(Expr::Node node) {
  Expr e;
  e.node = std::move(node);
  return e;
}

Expr MakeLiteral(LiteralKind kind, std::string value) {
  return Make(Literal{kind, std::move(value)});
}

Expr MakeCast(Expr operand, DataType type) {
  Cast cast;
  cast.operand = std::move(operand);
  cast.type = std::move(type);
  return Make(std::move(cast));
}

// The SQL type a CAST of a value of `type` names; nullopt for types parameters do not take.
std::optional<DataType> SqlType(const arrow::DataType& type) {
  DataType t;
  switch (type.id()) {
    case arrow::Type::BOOL:
      t.kind = TypeKind::kBoolean;
      break;
    case arrow::Type::INT8:
      t.kind = TypeKind::kTinyInt;
      break;
    case arrow::Type::INT16:
    case arrow::Type::UINT8:
      t.kind = TypeKind::kSmallInt;
      break;
    case arrow::Type::INT32:
    case arrow::Type::UINT16:
      t.kind = TypeKind::kInt;
      break;
    case arrow::Type::INT64:
    case arrow::Type::UINT32:
      t.kind = TypeKind::kBigInt;
      break;
    case arrow::Type::FLOAT:
      t.kind = TypeKind::kFloat;
      break;
    case arrow::Type::DOUBLE:
      t.kind = TypeKind::kDouble;
      break;
    case arrow::Type::DECIMAL128: {
      const auto& d = static_cast<const arrow::Decimal128Type&>(type);
      t.kind = TypeKind::kDecimal;
      t.precision = d.precision();
      t.scale = d.scale();
      break;
    }
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
      t.kind = TypeKind::kString;
      break;
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
      t.kind = TypeKind::kBinary;
      break;
    case arrow::Type::DATE32:
    case arrow::Type::DATE64:
      t.kind = TypeKind::kDate;
      break;
    case arrow::Type::TIMESTAMP:
      t.kind = static_cast<const arrow::TimestampType&>(type).timezone().empty()
                   ? TypeKind::kTimestampNtz
                   : TypeKind::kTimestamp;
      break;
    default:
      return std::nullopt;
  }
  return t;
}

std::string DateText(int64_t days) {
  std::chrono::year_month_day ymd{std::chrono::sys_days{std::chrono::days{days}}};
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  return buf;
}

std::string TimestampText(int64_t micros) {
  constexpr int64_t kPerDay = int64_t{86400} * 1000000;
  int64_t days = micros / kPerDay;
  int64_t rest = micros % kPerDay;
  if (rest < 0) {
    rest += kPerDay;
    --days;
  }
  int64_t secs = rest / 1000000;
  char buf[48];
  std::snprintf(buf, sizeof(buf), " %02d:%02d:%02d.%06d", static_cast<int>(secs / 3600),
                static_cast<int>(secs / 60 % 60), static_cast<int>(secs % 60),
                static_cast<int>(rest % 1000000));
  return DateText(days) + buf;
}

std::string FloatingText(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
  return buf;
}

}  // namespace

Result<Expr> ParameterLiteral(const Parameter& parameter, int index) {
  const auto& scalar = parameter.value;
  if (!scalar) return Status::Invalid("Parameter $", index, " has no value");
  if (parameter.untyped) {
    if (!scalar->is_valid) return MakeLiteral(LiteralKind::kNull, "");
    if (scalar->type->id() != arrow::Type::STRING) {
      return Status::Invalid("Parameter $", index,
                             " is untyped, so its value must be a string, not ",
                             scalar->type->ToString());
    }
    return MakeLiteral(LiteralKind::kString,
                       static_cast<const arrow::StringScalar&>(*scalar).value->ToString());
  }
  if (scalar->type->id() == arrow::Type::NA) return MakeLiteral(LiteralKind::kNull, "");
  if (scalar->type->id() == arrow::Type::LIST) {
    // An array a driver sent (a Python or Java list): ARRAY[item, ...].
    if (!scalar->is_valid) return MakeLiteral(LiteralKind::kNull, "");
    const auto& values = *static_cast<const arrow::ListScalar&>(*scalar).value;
    FunctionCall call;
    call.name.parts.push_back(Identifier{"array", false, {}});
    for (int64_t i = 0; i < values.length(); ++i) {
      ARROW_ASSIGN_OR_RAISE(auto item, values.GetScalar(i));
      ARROW_ASSIGN_OR_RAISE(Expr literal, ParameterLiteral(Parameter{item, false}, index));
      call.args.push_back(std::move(literal));
    }
    return Make(std::move(call));
  }
  std::optional<DataType> sql_type = SqlType(*scalar->type);
  if (!sql_type) {
    return Status::NotImplemented("Parameter $", index, " has type ", scalar->type->ToString(),
                                  ", which a parameter cannot take");
  }
  if (!scalar->is_valid) return MakeCast(MakeLiteral(LiteralKind::kNull, ""), *sql_type);
  const arrow::Scalar& s = *scalar;
  switch (s.type->id()) {
    case arrow::Type::BOOL:
      return MakeLiteral(LiteralKind::kBoolean,
                         static_cast<const arrow::BooleanScalar&>(s).value ? "true" : "false");
    case arrow::Type::INT8:
      return MakeLiteral(LiteralKind::kTinyInt,
                         std::to_string(static_cast<const arrow::Int8Scalar&>(s).value));
    case arrow::Type::INT16:
      return MakeLiteral(LiteralKind::kSmallInt,
                         std::to_string(static_cast<const arrow::Int16Scalar&>(s).value));
    case arrow::Type::UINT8:
      return MakeLiteral(LiteralKind::kSmallInt,
                         std::to_string(static_cast<const arrow::UInt8Scalar&>(s).value));
    case arrow::Type::INT32:
      return MakeLiteral(LiteralKind::kInteger,
                         std::to_string(static_cast<const arrow::Int32Scalar&>(s).value));
    case arrow::Type::UINT16:
      return MakeLiteral(LiteralKind::kInteger,
                         std::to_string(static_cast<const arrow::UInt16Scalar&>(s).value));
    case arrow::Type::INT64:
      return MakeLiteral(LiteralKind::kBigInt,
                         std::to_string(static_cast<const arrow::Int64Scalar&>(s).value));
    case arrow::Type::UINT32:
      return MakeLiteral(LiteralKind::kBigInt,
                         std::to_string(static_cast<const arrow::UInt32Scalar&>(s).value));
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE: {
      const bool is_float = s.type->id() == arrow::Type::FLOAT;
      double v = is_float ? static_cast<const arrow::FloatScalar&>(s).value
                          : static_cast<const arrow::DoubleScalar&>(s).value;
      // NaN and infinities have no literal; Spark casts their names.
      if (!std::isfinite(v)) {
        std::string name = std::isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
        return MakeCast(MakeLiteral(LiteralKind::kString, name), *sql_type);
      }
      // Enough digits to read back the same value.
      return MakeLiteral(is_float ? LiteralKind::kFloat : LiteralKind::kDouble,
                         FloatingText(v, is_float ? 9 : 17));
    }
    case arrow::Type::DECIMAL128:
      // The literal's own type follows its digits; the cast keeps the value's precision and scale.
      return MakeCast(MakeLiteral(LiteralKind::kDecimal, s.ToString()), *sql_type);
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
      return MakeLiteral(LiteralKind::kString,
                         static_cast<const arrow::BaseBinaryScalar&>(s).value->ToString());
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY: {
      const auto& data = *static_cast<const arrow::BaseBinaryScalar&>(s).value;
      static const char* kHex = "0123456789ABCDEF";
      std::string hex;
      for (int64_t i = 0; i < data.size(); ++i) {
        hex += kHex[data.data()[i] >> 4];
        hex += kHex[data.data()[i] & 15];
      }
      return MakeLiteral(LiteralKind::kBinary, hex);
    }
    case arrow::Type::DATE32:
      return MakeLiteral(LiteralKind::kDate,
                         DateText(static_cast<const arrow::Date32Scalar&>(s).value));
    case arrow::Type::DATE64:
      return MakeLiteral(LiteralKind::kDate,
                         DateText(static_cast<const arrow::Date64Scalar&>(s).value / 86400000));
    case arrow::Type::TIMESTAMP: {
      const auto& ts = static_cast<const arrow::TimestampScalar&>(s);
      const auto& type = static_cast<const arrow::TimestampType&>(*s.type);
      std::string text = TimestampText(MicrosFromUnit(ts.value, type.unit()));
      // An instant is written in UTC with its zone, so the session's time zone does not move it.
      if (!type.timezone().empty()) return MakeLiteral(LiteralKind::kTimestamp, text + "Z");
      return MakeLiteral(LiteralKind::kTimestampNtz, text);
    }
    default:
      break;
  }
  return Status::NotImplemented("Parameter $", index, " has type ", s.type->ToString(),
                                ", which a parameter cannot take");
}

Result<ParameterValues> ParameterLiterals(const std::vector<Parameter>& params,
                                          bool allow_missing) {
  ParameterValues values;
  values.allow_missing = allow_missing;
  for (size_t i = 0; i < params.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(Expr e, ParameterLiteral(params[i], static_cast<int>(i + 1)));
    values.values.push_back(std::move(e));
  }
  return values;
}

}  // namespace floe::sql
