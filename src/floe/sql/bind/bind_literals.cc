#include "floe/sql/bind/expression_binder_internal.h"

namespace floe::sql::binding {

Result<BoundExpr> ExpressionBinder::PlanNode(const Literal& l, const Expr& e) {
  if (std::optional<Expr> column = PgQuotedColumn(e, ctx_)) return Plan(*column);
  std::string name = GeneratedName(e);
  switch (l.kind) {
    case LiteralKind::kNull:
      return BoundExpr{cp::literal(arrow::MakeNullScalar(arrow::null())), arrow::null(), name};
    case LiteralKind::kBoolean:
      return BoundExpr{cp::literal(l.value == "true"), arrow::boolean(), name};
    case LiteralKind::kInteger: {
      // Beyond BIGINT an integer literal is a decimal, as in Spark.
      std::optional<int64_t> v = ParseInt64(l.value);
      if (!v) return DecimalLiteral(l.value, name);
      if (*v >= INT32_MIN && *v <= INT32_MAX) {
        return BoundExpr{cp::literal(static_cast<int32_t>(*v)), arrow::int32(), name};
      }
      return BoundExpr{cp::literal(*v), arrow::int64(), name};
    }
    // The parser checked the ranges of suffixed and floating literals.
    case LiteralKind::kBigInt: {
      std::optional<int64_t> v = ParseInt64(l.value);
      if (!v) return Error(e.pos, StrCat("Numeric literal ", l.value, " is out of range for BIGINT"));
      return BoundExpr{cp::literal(*v), arrow::int64(), name};
    }
    case LiteralKind::kSmallInt: {
      std::optional<int64_t> v = ParseInt64(l.value);
      if (!v || *v < INT16_MIN || *v > INT16_MAX) {
        return Error(e.pos, StrCat("Numeric literal ", l.value, " is out of range for SMALLINT"));
      }
      return BoundExpr{cp::literal(arrow::Int16Scalar(static_cast<int16_t>(*v))), arrow::int16(), name};
    }
    case LiteralKind::kTinyInt: {
      std::optional<int64_t> v = ParseInt64(l.value);
      if (!v || *v < INT8_MIN || *v > INT8_MAX) {
        return Error(e.pos, StrCat("Numeric literal ", l.value, " is out of range for TINYINT"));
      }
      return BoundExpr{cp::literal(arrow::Int8Scalar(static_cast<int8_t>(*v))), arrow::int8(), name};
    }
    case LiteralKind::kDecimal:
      return DecimalLiteral(l.value, name);
    case LiteralKind::kDouble: {
      double d = 0;
      if (ParseDouble(l.value, &d) != FloatParse::kOk) {
        return Error(e.pos, StrCat("Numeric literal ", l.value, " is not a valid DOUBLE"));
      }
      return BoundExpr{cp::literal(d), arrow::float64(), name};
    }
    case LiteralKind::kFloat: {
      float f = 0;
      if (ParseFloat(l.value, &f) != FloatParse::kOk) {
        return Error(e.pos, StrCat("Numeric literal ", l.value, " is not a valid FLOAT"));
      }
      return BoundExpr{cp::literal(f), arrow::float32(), name};
    }
    case LiteralKind::kString:
      return BoundExpr{cp::literal(arrow::StringScalar(l.value)), arrow::utf8(), name};
    case LiteralKind::kBinary: {
      std::string bytes;
      // An odd count of digits reads as if led by a 0, as Spark's X'ABC' is [0A BC].
      std::string hex = l.value.size() % 2 ? "0" + l.value : l.value;
      for (size_t i = 0; i + 1 < hex.size(); i += 2) {
        std::optional<uint64_t> byte = ParseHex(std::string_view(hex).substr(i, 2));
        if (!byte) return Error(e.pos, StrCat("Invalid binary literal X'", l.value, "'"));
        bytes.push_back(static_cast<char>(*byte));
      }
      return BoundExpr{cp::literal(arrow::BinaryScalar(bytes)), arrow::binary(), name};
    }
    case LiteralKind::kDate: {
      auto days = ParseDateDays(l.value);
      if (!days.ok()) return Error(e.pos, days.status().message());
      return BoundExpr{cp::literal(arrow::Date32Scalar(*days)), arrow::date32(), name};
    }
    case LiteralKind::kTimestamp:
    case LiteralKind::kTimestampLtz:
    case LiteralKind::kTimestampNtz: {
      bool ntz = l.kind == LiteralKind::kTimestampNtz;
      auto micros = ParseTimestampMicros(l.value, ntz ? "UTC" : ctx_.time_zone);
      if (!micros.ok()) return Error(e.pos, micros.status().message());
      auto type = ntz ? arrow::timestamp(arrow::TimeUnit::MICRO)
                      : arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
      return BoundExpr{cp::literal(arrow::TimestampScalar(*micros, type)), type, name};
    }
  }
  return Error(e.pos, "Unsupported literal");
}

Result<BoundExpr> ExpressionBinder::DecimalLiteral(const std::string& text, const std::string& name) {
  int64_t wanted = DecimalPrecision(text);
  if (wanted > 38) {
    return ValidationError("[DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION] Decimal precision ", wanted,
                           " exceeds max precision 38.");
  }
  int32_t precision = 0, scale = 0;
  arrow::Decimal128 value;
  ARROW_RETURN_NOT_OK(arrow::Decimal128::FromString(text, &value, &precision, &scale));
  precision = std::max(precision, scale);
  auto type = arrow::decimal128(std::max(precision, 1), scale);
  return BoundExpr{cp::literal(arrow::Decimal128Scalar(value, type)), type, name};
}

Result<BoundExpr> ExpressionBinder::PlanNode(const IntervalLiteral& interval, const Expr& e) {
  int64_t micros = 0;
  for (const IntervalField& field : interval.fields) {
    Result<int64_t> part = IntervalFieldMicros(field);
    if (!part.ok()) return Error(e.pos, part.status().message());
    if (__builtin_add_overflow(micros, *part, &micros)) {
      return Error(e.pos, StrCat("[INTERVAL_ARITHMETIC_OVERFLOW] The interval ", ToSql(e), " is out of range"));
    }
  }
  auto type = arrow::duration(arrow::TimeUnit::MICRO);
  return BoundExpr{cp::literal(arrow::DurationScalar(micros, type)), type, ToSql(e)};
}

}  // namespace floe::sql::binding
