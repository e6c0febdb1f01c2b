#include "floe/sql/expression_planner.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include <arrow/compute/api.h>
#include <arrow/scalar.h>
#include <arrow/array/concatenate.h>
#include <arrow/builder.h>
#include <arrow/table.h>
#include <arrow/util/decimal.h>

#include "floe/sql/function_registry.h"
#include "floe/sql/decimal_kernels.h"
#include "floe/sql/decimal_rules.h"
#include "floe/sql/parse_error.h"
#include "floe/util/number_parse.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

namespace cp = arrow::compute;
using ArrowType = arrow::DataType;

namespace {

bool IsInteger(const ArrowType& t) { return arrow::is_integer(t.id()); }
bool IsFloating(const ArrowType& t) { return arrow::is_floating(t.id()); }
bool IsDecimal(const ArrowType& t) { return t.id() == arrow::Type::DECIMAL128; }
bool IsNumeric(const ArrowType& t) { return IsInteger(t) || IsFloating(t) || IsDecimal(t); }
bool IsString(const ArrowType& t) {
  return t.id() == arrow::Type::STRING || t.id() == arrow::Type::LARGE_STRING;
}
bool IsTimestamp(const ArrowType& t) { return t.id() == arrow::Type::TIMESTAMP; }
bool IsDate(const ArrowType& t) { return t.id() == arrow::Type::DATE32; }
bool IsNullType(const ArrowType& t) { return t.id() == arrow::Type::NA; }

int IntRank(const ArrowType& t) {
  switch (t.id()) {
    case arrow::Type::INT8: return 1;
    case arrow::Type::INT16: return 2;
    case arrow::Type::INT32: return 3;
    case arrow::Type::INT64: return 4;
    default: return 5;
  }
}

// Digits before the point a type needs as a decimal (Spark: int -> decimal(10,0), ...).
std::shared_ptr<ArrowType> AsDecimal(const std::shared_ptr<ArrowType>& t) {
  switch (t->id()) {
    case arrow::Type::INT8: return arrow::decimal128(3, 0);
    case arrow::Type::INT16: return arrow::decimal128(5, 0);
    case arrow::Type::INT32: return arrow::decimal128(10, 0);
    case arrow::Type::INT64: return arrow::decimal128(20, 0);
    default: return t;
  }
}

// The common type of two operands, as Spark widens them.
std::shared_ptr<ArrowType> CommonType(const std::shared_ptr<ArrowType>& a,
                                     const std::shared_ptr<ArrowType>& b) {
  if (a->Equals(*b)) return a;
  if (IsNullType(*a)) return b;
  if (IsNullType(*b)) return a;
  if (IsNumeric(*a) && IsNumeric(*b)) {
    if (IsFloating(*a) || IsFloating(*b)) return arrow::float64();
    if (IsDecimal(*a) || IsDecimal(*b)) {
      auto da = std::static_pointer_cast<arrow::Decimal128Type>(AsDecimal(a));
      auto db = std::static_pointer_cast<arrow::Decimal128Type>(AsDecimal(b));
      int32_t scale = std::max(da->scale(), db->scale());
      int32_t whole = std::max(da->precision() - da->scale(), db->precision() - db->scale());
      return arrow::decimal128(std::min(38, whole + scale), scale);
    }
    return IntRank(*a) >= IntRank(*b) ? a : b;
  }
  if (IsString(*a) && IsString(*b)) return arrow::utf8();
  if (IsTimestamp(*a) && IsTimestamp(*b)) return a;
  if ((IsTimestamp(*a) && IsDate(*b)) || (IsDate(*a) && IsTimestamp(*b))) {
    return IsTimestamp(*a) ? a : b;
  }
  return nullptr;
}

cp::Expression CastTo(cp::Expression e, const std::shared_ptr<ArrowType>& from,
                      const std::shared_ptr<ArrowType>& to) {
  if (from->Equals(*to)) return e;
  return cp::call("cast", {std::move(e)}, cp::CastOptions::Unsafe(to));
}

// The type's name in Spark's messages ("BIGINT", "DECIMAL(10,2)").
std::string SqlTypeName(const ArrowType& type) {
  switch (type.id()) {
    case arrow::Type::INT8: return "TINYINT";
    case arrow::Type::INT16: return "SMALLINT";
    case arrow::Type::INT32: return "INT";
    case arrow::Type::INT64: return "BIGINT";
    case arrow::Type::FLOAT: return "FLOAT";
    case arrow::Type::DOUBLE: return "DOUBLE";
    case arrow::Type::BOOL: return "BOOLEAN";
    case arrow::Type::DATE32: return "DATE";
    case arrow::Type::TIMESTAMP: return "TIMESTAMP";
    case arrow::Type::DECIMAL128: {
      const auto& d = static_cast<const arrow::Decimal128Type&>(type);
      return StrCat("DECIMAL(", d.precision(), ",", d.scale(), ")");
    }
    default: {
      std::string name = type.ToString();
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
      return name;
    }
  }
}

const Literal* AsStringLiteral(const Expr& e) {
  const Literal* lit = e.As<Literal>();
  return lit && lit->kind == LiteralKind::kString ? lit : nullptr;
}

std::string JoinStrings(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string QuoteName(const std::string& s) { return "`" + s + "`"; }

}  // namespace

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

bool IsAggregateFunction(const std::string& n) { return FindAggregateFunction(n) != nullptr; }

Result<std::shared_ptr<arrow::DataType>> ToArrowType(const DataType& t) {
  switch (t.kind) {
    case TypeKind::kBoolean: return arrow::boolean();
    case TypeKind::kTinyInt: return arrow::int8();
    case TypeKind::kSmallInt: return arrow::int16();
    case TypeKind::kInt: return arrow::int32();
    case TypeKind::kBigInt: return arrow::int64();
    case TypeKind::kFloat: return arrow::float32();
    case TypeKind::kDouble: return arrow::float64();
    case TypeKind::kDecimal: {
      int32_t p = t.precision < 0 ? 10 : t.precision;
      int32_t s = t.scale < 0 ? 0 : t.scale;
      if (p < 1 || p > 38 || s > p) {
        return ValidationError("Invalid decimal(", p, ", ", s, "): precision must be 1..38 and scale <= precision");
      }
      return arrow::decimal128(p, s);
    }
    case TypeKind::kString:
    case TypeKind::kVarchar:
    case TypeKind::kChar: return arrow::utf8();
    case TypeKind::kBinary: return arrow::binary();
    case TypeKind::kDate: return arrow::date32();
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampLtz: return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
    case TypeKind::kTimestampNtz: return arrow::timestamp(arrow::TimeUnit::MICRO);
    case TypeKind::kArray: {
      ARROW_ASSIGN_OR_RAISE(auto e, ToArrowType(t.children.at(0)));
      return arrow::list(arrow::field("element", e));
    }
    case TypeKind::kMap: {
      ARROW_ASSIGN_OR_RAISE(auto k, ToArrowType(t.children.at(0)));
      ARROW_ASSIGN_OR_RAISE(auto v, ToArrowType(t.children.at(1)));
      return arrow::map(k, v);
    }
    case TypeKind::kStruct: {
      arrow::FieldVector fields;
      for (const auto& f : t.fields) {
        ARROW_ASSIGN_OR_RAISE(auto ft, ToArrowType(f.type));
        fields.push_back(arrow::field(f.name.name, ft, !f.not_null));
      }
      return arrow::struct_(fields);
    }
  }
  return Status::NotImplemented("type");
}

Result<int> ResolveColumn(const std::vector<Identifier>& parts, const std::vector<Column>& columns,
                          const std::string& sql, const SourcePos& pos, size_t* consumed) {
  // Try the longest qualifier first: ns.t.c, t.c, then c (the rest is field access).
  for (size_t qlen = std::min<size_t>(parts.size() - 1, 3) + 1; qlen-- > 0;) {
    if (qlen >= parts.size()) continue;
    std::vector<std::string> qualifier;
    for (size_t i = 0; i < qlen; ++i) qualifier.push_back(Lower(parts[i].name));
    std::string name = Lower(parts[qlen].name);
    std::vector<int> matches;
    for (size_t i = 0; i < columns.size(); ++i) {
      if (Lower(columns[i].name) != name) continue;
      if (qlen == 0) {
        matches.push_back(static_cast<int>(i));
        continue;
      }
      for (const auto& q : columns[i].qualifiers) {
        if (q.size() >= qualifier.size() &&
            std::equal(qualifier.begin(), qualifier.end(), q.end() - qualifier.size())) {
          matches.push_back(static_cast<int>(i));
          break;
        }
      }
    }
    if (matches.size() == 1) {
      if (consumed) *consumed = qlen + 1;
      return matches[0];
    }
    if (matches.size() > 1) {
      std::vector<std::string> options;
      for (int m : matches) {
        const auto& c = columns[m];
        std::string q = c.qualifiers.empty() ? "" : QuoteName(c.qualifiers[0].back()) + ".";
        options.push_back(q + QuoteName(c.name));
      }
      std::vector<std::string> written;
      for (const auto& p : parts) written.push_back(p.name);
      return ErrorAt(sql, pos, StrCat("[AMBIGUOUS_REFERENCE] Reference ", QuoteName(JoinStrings(written, ".")),
                                      " is ambiguous, could be: [", JoinStrings(options, ", "), "]."));
    }
  }
  std::vector<std::string> written;
  for (const auto& p : parts) written.push_back(p.name);
  // Suggest the closest visible columns.
  std::vector<std::pair<size_t, std::string>> ranked;
  for (const auto& c : columns) {
    if (c.hidden) continue;
    std::string shown = (c.qualifiers.empty() ? "" : QuoteName(c.qualifiers[0].back()) + ".") + QuoteName(c.name);
    ranked.push_back({EditDistance(Lower(parts.back().name), Lower(c.name)), shown});
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> suggestions;
  for (size_t i = 0; i < ranked.size() && i < 5; ++i) suggestions.push_back(ranked[i].second);
  std::string message = StrCat("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name ",
                               QuoteName(JoinStrings(written, "`.`")), " cannot be resolved.");
  if (!suggestions.empty()) message += " Did you mean one of the following? [" + JoinStrings(suggestions, ", ") + "].";
  return ErrorAt(sql, pos, message);
}

std::string GeneratedName(const Expr& expr) {
  if (auto* c = expr.As<ColumnRef>()) return c->parts.back().name;
  if (auto* l = expr.As<Literal>()) {
    if (l->kind == LiteralKind::kNull) return "NULL";
    if (l->kind == LiteralKind::kString) return l->value;
    if (l->kind == LiteralKind::kDate) return "DATE '" + l->value + "'";
    if (l->kind == LiteralKind::kTimestamp) return "TIMESTAMP '" + l->value + "'";
    if (l->kind == LiteralKind::kBigInt) return l->value;
    return l->value;
  }
  if (auto* f = expr.As<FunctionCall>()) {
    std::string name = Lower(f->name.parts.back().name);
    if (f->star || (name == "count" && f->args.empty())) return name + "(1)";
    std::vector<std::string> args;
    for (const auto& a : f->args) args.push_back(GeneratedName(a));
    return name + "(" + (f->distinct ? "DISTINCT " : "") + JoinStrings(args, ", ") + ")";
  }
  if (auto* b = expr.As<Binary>()) {
    return "(" + GeneratedName(*b->left) + " " + BinaryOpName(b->op) + " " + GeneratedName(*b->right) + ")";
  }
  if (auto* c = expr.As<Cast>()) {
    return "CAST(" + GeneratedName(*c->operand) + " AS " + ToSql(c->type) + ")";
  }
  if (auto* s = expr.As<Subscript>()) return GeneratedName(*s->base) + "[" + GeneratedName(*s->index) + "]";
  if (auto* fa = expr.As<FieldAccess>()) return fa->field.name;
  return ToSql(expr);
}

namespace {

class Planner {
 public:
  explicit Planner(const ExprContext& ctx) : ctx_(ctx) {}

  Result<BoundExpr> Plan(const Expr& e) {
    if (ctx_.computed) {
      auto it = ctx_.computed->find(ToSql(e));
      if (it != ctx_.computed->end()) {
        const Column& c = (*ctx_.columns)[it->second];
        return BoundExpr{cp::field_ref(it->second), c.type, GeneratedName(e)};
      }
    }
    return std::visit([&](const auto& node) { return PlanNode(node, e); }, e.node);
  }

 private:
  Status Error(const SourcePos& pos, const std::string& message) {
    return ErrorAt(ctx_.sql, pos, message);
  }

  Result<BoundExpr> PlanNode(const Literal& l, const Expr& e) {
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

  // The precision Spark gives a decimal literal: its digits without leading zeros, at least its
  // scale; a negative scale (1.8e308) counts as digits.
  static int64_t DecimalPrecision(std::string_view text) {
    int64_t digits = 0, fraction = 0;
    bool dot = false, leading = true;
    size_t i = 0;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
      if (text[i] == '.') {
        dot = true;
        continue;
      }
      if (dot) ++fraction;
      if (leading && text[i] == '0') continue;
      leading = false;
      ++digits;
    }
    int64_t exponent = 0;
    if (i < text.size()) exponent = ParseInt64(text.substr(i + 1)).value_or(0);
    int64_t scale = fraction - exponent;
    digits = std::max<int64_t>(digits, 1);
    return scale < 0 ? digits - scale : std::max(digits, scale);
  }

  Result<BoundExpr> DecimalLiteral(const std::string& text, const std::string& name) {
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

  // A day-time interval (Spark's DayTimeIntervalType) is a duration in microseconds.
  Result<BoundExpr> PlanNode(const IntervalLiteral& interval, const Expr& e) {
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

  static int64_t MicrosPerUnit(const std::string& unit) {
    if (unit == "WEEK") return 7 * 86400000000LL;
    if (unit == "DAY") return 86400000000LL;
    if (unit == "HOUR") return 3600000000LL;
    if (unit == "MINUTE") return 60000000LL;
    if (unit == "SECOND") return 1000000LL;
    if (unit == "MILLISECOND") return 1000LL;
    if (unit == "MICROSECOND") return 1LL;
    return 0;  // YEAR, MONTH
  }

  // `[+|-]digits[.digits]` in `unit`s as microseconds; a fraction below a microsecond is cut.
  static Result<int64_t> ScaledNumber(std::string_view text, int64_t per_unit, const std::string& what) {
    bool negative = false;
    if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
      negative = text[0] == '-';
      text.remove_prefix(1);
    }
    size_t dot = text.find('.');
    std::string_view whole = text.substr(0, dot);
    std::string_view fraction = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
    auto digits = [](std::string_view t) {
      return std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if ((whole.empty() && fraction.empty()) || !digits(whole) || !digits(fraction)) {
      return Status::Invalid("[INVALID_INTERVAL_FORMAT] Cannot read ", what, " of an interval");
    }
    std::optional<int64_t> units = whole.empty() ? std::optional<int64_t>(0) : ParseInt64(whole);
    int64_t micros = 0;
    if (!units || __builtin_mul_overflow(*units, per_unit, &micros)) {
      return Status::Invalid("[INTERVAL_ARITHMETIC_OVERFLOW] The interval's ", what, " is out of range");
    }
    // The fraction, digit by digit, as far as it reaches a whole microsecond.
    int64_t step = per_unit;
    for (char c : fraction) {
      if (step % 10 != 0) break;
      step /= 10;
      micros += (c - '0') * step;
    }
    return negative ? -micros : micros;
  }

  static Result<int64_t> IntervalFieldMicros(const IntervalField& field) {
    if (field.unit.empty()) {
      return Status::NotImplemented("Interval strings without units ('", field.value,
                                    "') are not supported yet; write INTERVAL '", field.value, "' DAY TO SECOND");
    }
    const std::string& last = field.to_unit.empty() ? field.unit : field.to_unit;
    if (MicrosPerUnit(field.unit) == 0 || MicrosPerUnit(last) == 0) {
      return Status::NotImplemented("Year-month intervals (", field.unit, ") are not supported yet");
    }
    if (field.to_unit.empty()) return ScaledNumber(field.value, MicrosPerUnit(field.unit), field.unit);
    // DAY TO SECOND and its parts: 'd h:m:s.f', with a space after the days and colons after.
    static const std::vector<std::string> kOrder = {"DAY", "HOUR", "MINUTE", "SECOND"};
    auto from = std::find(kOrder.begin(), kOrder.end(), field.unit);
    auto to = std::find(kOrder.begin(), kOrder.end(), field.to_unit);
    std::string format = StrCat(field.unit, " TO ", field.to_unit);
    if (from == kOrder.end() || to == kOrder.end() || to <= from) {
      return Status::Invalid("[INVALID_INTERVAL_FORMAT] Interval ", format, " is not a day-time range");
    }
    std::string_view text = field.value;
    bool negative = false;
    if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
      negative = text[0] == '-';
      text.remove_prefix(1);
    }
    std::vector<std::string_view> parts;
    if (*from == "DAY") {
      size_t space = text.find(' ');
      parts.push_back(text.substr(0, space));
      text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
    }
    while (!text.empty() || parts.size() < static_cast<size_t>(to - from + 1)) {
      size_t colon = text.find(':');
      parts.push_back(text.substr(0, colon));
      if (colon == std::string_view::npos) break;
      text = text.substr(colon + 1);
    }
    if (parts.size() != static_cast<size_t>(to - from + 1)) {
      return Status::Invalid("[INVALID_INTERVAL_FORMAT] Interval string '", field.value,
                             "' does not match the day-time format of ", format);
    }
    int64_t micros = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::string& unit = *(from + i);
      // Only seconds take a fraction; fields after the first stay within their range.
      if (unit != "SECOND" && parts[i].find('.') != std::string_view::npos) {
        return Status::Invalid("[INVALID_INTERVAL_FORMAT] Interval string '", field.value, "' has a fraction of ", unit);
      }
      ARROW_ASSIGN_OR_RAISE(int64_t part, ScaledNumber(parts[i], MicrosPerUnit(unit), unit));
      int64_t limit = unit == "HOUR" ? 24 : 60;
      if (i > 0 && part >= limit * MicrosPerUnit(unit)) {
        return Status::Invalid("[INVALID_INTERVAL_FORMAT] Interval string '", field.value, "': ", unit,
                               " must be below ", limit);
      }
      if (__builtin_add_overflow(micros, part, &micros)) {
        return Status::Invalid("[INTERVAL_ARITHMETIC_OVERFLOW] The interval '", field.value, "' is out of range");
      }
    }
    return negative ? -micros : micros;
  }

  Result<BoundExpr> PlanNode(const ColumnRef& c, const Expr& e) {
    size_t consumed = 0;
    ARROW_ASSIGN_OR_RAISE(int index, ResolveColumn(c.parts, *ctx_.columns, ctx_.sql, e.pos, &consumed));
    const Column& col = (*ctx_.columns)[index];
    BoundExpr out{cp::field_ref(index), col.type, col.name};
    // Remaining parts are struct field accesses.
    for (size_t i = consumed; i < c.parts.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(out, StructField(out, c.parts[i], e.pos));
    }
    return out;
  }

  Result<BoundExpr> StructField(const BoundExpr& base, const Identifier& field, const SourcePos& pos) {
    if (base.type->id() != arrow::Type::STRUCT) {
      return Error(pos, StrCat("Cannot access field ", QuoteName(field.name), " of a value of type ",
                               base.type->ToString()));
    }
    const auto& st = static_cast<const arrow::StructType&>(*base.type);
    for (int i = 0; i < st.num_fields(); ++i) {
      if (Lower(st.field(i)->name()) == Lower(field.name)) {
        return BoundExpr{cp::call("struct_field", {base.expr}, cp::StructFieldOptions({i})),
                         st.field(i)->type(), st.field(i)->name()};
      }
    }
    return Error(pos, StrCat("No such struct field ", QuoteName(field.name), " in ", base.type->ToString()));
  }

  Result<BoundExpr> PlanNode(const Star&, const Expr& e) {
    return Error(e.pos, "Invalid usage of '*' in expression");
  }

  Result<BoundExpr> PlanNode(const Unary& u, const Expr& e) {
    ARROW_ASSIGN_OR_RAISE(auto v, Plan(*u.operand));
    switch (u.op) {
      case UnaryOp::kNot: {
        ARROW_ASSIGN_OR_RAISE(v, Coerce(v, arrow::boolean(), e.pos));
        return BoundExpr{cp::call("invert", {v.expr}), arrow::boolean(), "(NOT " + v.name + ")"};
      }
      case UnaryOp::kMinus:
        return BoundExpr{cp::call("negate", {v.expr}), v.type, "(- " + v.name + ")"};
      case UnaryOp::kPlus:
        return v;
      case UnaryOp::kBitNot:
        return BoundExpr{cp::call("bit_wise_not", {v.expr}), v.type, "~" + v.name};
    }
    return Error(e.pos, "unknown unary operator");
  }

  Result<BoundExpr> Coerce(BoundExpr v, const std::shared_ptr<ArrowType>& to, const SourcePos& pos) {
    if (v.type->Equals(*to)) return v;
    if (IsNullType(*v.type)) return BoundExpr{cp::literal(arrow::MakeNullScalar(to)), to, v.name};
    if (to->id() == arrow::Type::BOOL && !IsString(*v.type)) {
      return Error(pos, StrCat("[DATATYPE_MISMATCH] ", v.name, " is of type ", v.type->ToString(),
                               ", but a BOOLEAN is required"));
    }
    v.expr = CastTo(v.expr, v.type, to);
    v.type = to;
    return v;
  }

  // Brings two operands to a common type; a string literal facing a date or timestamp is
  // read as one (timestamps in the session time zone).
  Status Unify(BoundExpr* a, BoundExpr* b, const Expr& ea, const Expr& eb, const SourcePos& pos) {
    for (int side = 0; side < 2; ++side) {
      BoundExpr* lit = side ? b : a;
      BoundExpr* other = side ? a : b;
      const Expr& lit_expr = side ? eb : ea;
      if (!AsStringLiteral(lit_expr)) continue;
      const std::string& text = AsStringLiteral(lit_expr)->value;
      if (IsTimestamp(*other->type)) {
        const auto& tt = static_cast<const arrow::TimestampType&>(*other->type);
        ARROW_ASSIGN_OR_RAISE(int64_t micros,
                              ParseTimestampMicros(text, tt.timezone().empty() ? "UTC" : ctx_.time_zone));
        *lit = BoundExpr{cp::literal(arrow::TimestampScalar(micros, other->type)), other->type, lit->name};
      } else if (IsDate(*other->type)) {
        ARROW_ASSIGN_OR_RAISE(int32_t days, ParseDateDays(text.substr(0, 10)));
        *lit = BoundExpr{cp::literal(arrow::Date32Scalar(days)), arrow::date32(), lit->name};
      } else if (IsNumeric(*other->type)) {
        // Spark casts the string to the numeric side (double when the other is integral).
        auto to = IsInteger(*other->type) ? arrow::float64() : other->type;
        lit->expr = CastTo(lit->expr, lit->type, to);
        lit->type = to;
      }
    }
    auto common = CommonType(a->type, b->type);
    if (!common) {
      return Error(pos, StrCat("[DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES] Cannot resolve \"", a->name, " and ", b->name,
                               "\" due to data type mismatch: the left and right operands have different types (\"",
                               a->type->ToString(), "\" and \"", b->type->ToString(), "\")."));
    }
    a->expr = CastTo(a->expr, a->type, common);
    a->type = common;
    b->expr = CastTo(b->expr, b->type, common);
    b->type = common;
    return Status::OK();
  }

  Result<BoundExpr> PlanNode(const Binary& bin, const Expr& e) {
    ARROW_ASSIGN_OR_RAISE(auto l, Plan(*bin.left));
    ARROW_ASSIGN_OR_RAISE(auto r, Plan(*bin.right));
    std::string name = "(" + l.name + " " + BinaryOpName(bin.op) + " " + r.name + ")";
    auto boolean = arrow::boolean();
    switch (bin.op) {
      case BinaryOp::kAnd:
      case BinaryOp::kOr: {
        ARROW_ASSIGN_OR_RAISE(l, Coerce(l, boolean, bin.left->pos));
        ARROW_ASSIGN_OR_RAISE(r, Coerce(r, boolean, bin.right->pos));
        return BoundExpr{cp::call(bin.op == BinaryOp::kAnd ? "and_kleene" : "or_kleene", {l.expr, r.expr}),
                         boolean, name};
      }
      case BinaryOp::kEq:
      case BinaryOp::kNe:
      case BinaryOp::kLt:
      case BinaryOp::kLe:
      case BinaryOp::kGt:
      case BinaryOp::kGe:
      case BinaryOp::kNullSafeEq:
      case BinaryOp::kIsDistinctFrom: {
        ARROW_RETURN_NOT_OK(Unify(&l, &r, *bin.left, *bin.right, e.pos));
        if (IsNullType(*l.type)) {
          // NULL compared with NULL: give the kernels a type to work on.
          l.expr = CastTo(l.expr, l.type, arrow::int32());
          r.expr = CastTo(r.expr, r.type, arrow::int32());
          l.type = r.type = arrow::int32();
        }
        bool floating = IsFloating(*l.type);
        if (bin.op == BinaryOp::kNullSafeEq || bin.op == BinaryOp::kIsDistinctFrom) {
          auto both_null = cp::and_(cp::call("is_null", {l.expr}), cp::call("is_null", {r.expr}));
          auto any_null = cp::or_(cp::is_null(l.expr), cp::is_null(r.expr));
          auto eq = cp::call("if_else", {any_null, both_null, Compare(BinaryOp::kEq, l.expr, r.expr, floating)});
          if (bin.op == BinaryOp::kIsDistinctFrom) eq = cp::call("invert", {eq});
          return BoundExpr{eq, boolean, name};
        }
        return BoundExpr{Compare(bin.op, l.expr, r.expr, floating), boolean, name};
      }
      case BinaryOp::kConcat: {
        ARROW_ASSIGN_OR_RAISE(l, ToStringExpr(l));
        ARROW_ASSIGN_OR_RAISE(r, ToStringExpr(r));
        return BoundExpr{cp::call("binary_join_element_wise", {l.expr, r.expr, cp::literal(arrow::StringScalar(""))}),
                         arrow::utf8(), name};
      }
      case BinaryOp::kAdd:
      case BinaryOp::kSubtract:
      case BinaryOp::kMultiply:
      case BinaryOp::kDivide:
      case BinaryOp::kModulo:
      case BinaryOp::kIntDivide:
        return Arithmetic(bin.op, l, r, *bin.left, *bin.right, e, name);
      case BinaryOp::kBitAnd:
      case BinaryOp::kBitOr:
      case BinaryOp::kBitXor: {
        ARROW_RETURN_NOT_OK(Unify(&l, &r, *bin.left, *bin.right, e.pos));
        const char* fn = bin.op == BinaryOp::kBitAnd ? "bit_wise_and" : bin.op == BinaryOp::kBitOr ? "bit_wise_or" : "bit_wise_xor";
        return BoundExpr{cp::call(fn, {l.expr, r.expr}), l.type, name};
      }
    }
    return Error(e.pos, "unsupported operator");
  }

  // A comparison of two values of one type. Spark orders NaN above every other floating value
  // and equal to itself (IEEE comparisons, Arrow's, are false for it).
  static cp::Expression Compare(BinaryOp op, const cp::Expression& a, const cp::Expression& b, bool floating) {
    static const std::map<BinaryOp, const char*> kFn = {
        {BinaryOp::kEq, "equal"}, {BinaryOp::kNe, "not_equal"}, {BinaryOp::kLt, "less"},
        {BinaryOp::kLe, "less_equal"}, {BinaryOp::kGt, "greater"}, {BinaryOp::kGe, "greater_equal"}};
    cp::Expression plain = cp::call(kFn.at(op), {a, b});
    if (!floating) return plain;
    auto a_nan = cp::call("is_nan", {a});
    auto b_nan = cp::call("is_nan", {b});
    // Once either side is NaN, only the NaN flags decide.
    cp::Expression with_nan;
    switch (op) {
      case BinaryOp::kEq: with_nan = cp::and_(a_nan, b_nan); break;
      case BinaryOp::kNe: with_nan = cp::call("not_equal", {a_nan, b_nan}); break;
      case BinaryOp::kLt: with_nan = cp::and_(cp::call("invert", {a_nan}), b_nan); break;
      case BinaryOp::kLe: with_nan = b_nan; break;
      case BinaryOp::kGt: with_nan = cp::and_(a_nan, cp::call("invert", {b_nan})); break;
      default: with_nan = a_nan; break;  // kGe
    }
    return cp::call("if_else", {cp::or_(a_nan, b_nan), with_nan, plain});
  }

  Result<BoundExpr> ToStringExpr(BoundExpr v) {
    if (IsString(*v.type)) return v;
    v.expr = CastTo(v.expr, v.type, arrow::utf8());
    v.type = arrow::utf8();
    return v;
  }

  // Whether an interval expression holds whole days only (Spark's INTERVAL DAY type), which
  // moves a date by days and keeps it a date.
  static bool IsDayInterval(const Expr& e) {
    if (const auto* in = e.As<IntervalLiteral>()) {
      return std::all_of(in->fields.begin(), in->fields.end(), [](const IntervalField& f) {
        return (f.unit == "DAY" || f.unit == "WEEK") && f.to_unit.empty();
      });
    }
    if (const auto* u = e.As<Unary>()) return u->op != UnaryOp::kBitNot && IsDayInterval(*u->operand);
    if (const auto* b = e.As<Binary>()) {
      return (b->op == BinaryOp::kAdd || b->op == BinaryOp::kSubtract) && IsDayInterval(*b->left) &&
             IsDayInterval(*b->right);
    }
    return false;
  }

  // A date as the timestamp of its midnight in the session time zone, as Spark casts it.
  cp::Expression DateAsTimestamp(const cp::Expression& date) {
    auto utc = arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
    auto naive = cp::call("cast", {date}, cp::CastOptions::Unsafe(arrow::timestamp(arrow::TimeUnit::MICRO)));
    if (ctx_.time_zone == "UTC") return cp::call("cast", {naive}, cp::CastOptions::Unsafe(utc));
    auto zoned = cp::call("assume_timezone", {naive}, cp::AssumeTimezoneOptions(ctx_.time_zone));
    return cp::call("cast", {zoned}, cp::CastOptions::Unsafe(utc));
  }

  // + and - with a day-time interval: timestamps stay timestamps, a date moved by whole days
  // stays a date and by anything finer becomes a timestamp, two intervals add up.
  Result<BoundExpr> IntervalArithmetic(BinaryOp op, BoundExpr l, BoundExpr r, const Expr& el, const Expr& er,
                                       const Expr& e, const std::string& name) {
    auto mismatch = [&]() {
      return Error(e.pos, StrCat("[DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES] Cannot resolve \"", name,
                                 "\" due to data type mismatch: the left and right operands have different types (\"",
                                 SqlTypeName(*l.type), "\" and \"", SqlTypeName(*r.type), "\")."));
    };
    bool add = op == BinaryOp::kAdd;
    if (!add && op != BinaryOp::kSubtract) return mismatch();
    auto duration = arrow::duration(arrow::TimeUnit::MICRO);
    for (BoundExpr* side : {&l, &r}) {
      if (IsNullType(*side->type)) *side = BoundExpr{cp::literal(arrow::MakeNullScalar(duration)), duration, side->name};
    }
    bool l_interval = l.type->id() == arrow::Type::DURATION;
    bool r_interval = r.type->id() == arrow::Type::DURATION;
    if (l_interval && r_interval) {
      return BoundExpr{cp::call(add ? "add" : "subtract", {l.expr, r.expr}), duration, name};
    }
    // interval + x is x + interval; interval - x has no meaning.
    if (l_interval) {
      if (!add) return mismatch();
      std::swap(l, r);
    }
    const Expr& interval_expr = l_interval ? el : er;
    const Expr& other_expr = l_interval ? er : el;
    if (IsString(*l.type)) {
      // Text is read as a timestamp in the session time zone, as Spark casts it.
      auto type = arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
      if (const Literal* text = AsStringLiteral(other_expr)) {
        Result<int64_t> micros = ParseTimestampMicros(text->value, ctx_.time_zone);
        if (!micros.ok()) return Error(other_expr.pos, micros.status().message());
        l = BoundExpr{cp::literal(arrow::TimestampScalar(*micros, type)), type, l.name};
      } else {
        l = BoundExpr{cp::call("cast", {l.expr}, cp::CastOptions::Safe(type)), type, l.name};
      }
    }
    if (IsDate(*l.type) && IsDayInterval(interval_expr)) {
      auto days = cp::call("divide", {cp::call("cast", {r.expr}, cp::CastOptions::Unsafe(arrow::int64())),
                                      cp::literal(int64_t{86400000000LL})});
      auto as_int = cp::call("cast", {l.expr}, cp::CastOptions::Unsafe(arrow::int32()));
      auto moved = cp::call(add ? "add" : "subtract", {as_int, cp::call("cast", {days}, cp::CastOptions::Unsafe(arrow::int32()))});
      return BoundExpr{cp::call("cast", {moved}, cp::CastOptions::Unsafe(arrow::date32())), arrow::date32(), name};
    }
    if (IsDate(*l.type)) {
      l.expr = DateAsTimestamp(l.expr);
      l.type = arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
    }
    if (!IsTimestamp(*l.type)) return mismatch();
    return BoundExpr{cp::call(add ? "add" : "subtract", {l.expr, r.expr}), l.type, name};
  }

  Result<BoundExpr> Arithmetic(BinaryOp op, BoundExpr l, BoundExpr r, const Expr& el, const Expr& er,
                               const Expr& e, const std::string& name) {
    if (l.type->id() == arrow::Type::DURATION || r.type->id() == arrow::Type::DURATION) {
      return IntervalArithmetic(op, std::move(l), std::move(r), el, er, e, name);
    }
    // Dates and timestamps plus/minus integers (days) as Spark's date_add.
    if (IsDate(*l.type) && IsInteger(*r.type) && (op == BinaryOp::kAdd || op == BinaryOp::kSubtract)) {
      auto days = CastTo(r.expr, r.type, arrow::int32());
      auto as_int = cp::call("cast", {l.expr}, cp::CastOptions::Unsafe(arrow::int32()));
      auto sum = cp::call(op == BinaryOp::kAdd ? "add" : "subtract", {as_int, days});
      return BoundExpr{cp::call("cast", {sum}, cp::CastOptions::Unsafe(arrow::date32())), arrow::date32(), name};
    }
    for (BoundExpr* side : {&l, &r}) {
      if (IsString(*side->type)) {
        side->expr = CastTo(side->expr, side->type, arrow::float64());
        side->type = arrow::float64();
      }
    }
    if (!(IsNumeric(*l.type) || IsNullType(*l.type)) || !(IsNumeric(*r.type) || IsNullType(*r.type))) {
      return Error(e.pos, StrCat("[DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE] Cannot resolve \"", name,
                                 "\" due to data type mismatch: the operands must be numeric (\"",
                                 l.type->ToString(), "\" and \"", r.type->ToString(), "\")."));
    }
    if ((IsDecimal(*l.type) || IsDecimal(*r.type)) && !IsFloating(*l.type) && !IsFloating(*r.type) &&
        op != BinaryOp::kIntDivide) {
      return DecimalArithmetic(op, l, r, el, er, name);
    }
    if (op == BinaryOp::kDivide) {
      // Spark: `/` on integers and floats is double division (decimals are planned above).
      l.expr = CastTo(l.expr, l.type, arrow::float64());
      r.expr = CastTo(r.expr, r.type, arrow::float64());
      auto div = cp::call("divide", {l.expr, r.expr});
      // Division by zero is NULL, not an error or infinity.
      auto zero = cp::equal(r.expr, cp::literal(0.0));
      return BoundExpr{cp::call("if_else", {zero, cp::literal(arrow::MakeNullScalar(arrow::float64())), div}),
                       arrow::float64(), name};
    }
    if (op == BinaryOp::kIntDivide) {
      auto li = CastTo(l.expr, l.type, arrow::int64());
      auto ri = CastTo(r.expr, r.type, arrow::int64());
      auto zero = cp::equal(ri, cp::literal(int64_t{0}));
      // x div -1 is -x, wrapping at the minimum as Java's long division does.
      auto minus_one = cp::equal(ri, cp::literal(int64_t{-1}));
      auto safe_r = cp::call("if_else", {cp::or_(zero, minus_one), cp::literal(int64_t{1}), ri});
      auto div = cp::call("if_else", {minus_one, cp::call("negate", {li}), cp::call("divide", {li, safe_r})});
      return BoundExpr{cp::call("if_else", {zero, cp::literal(arrow::MakeNullScalar(arrow::int64())), div}),
                       arrow::int64(), name};
    }
    if (op == BinaryOp::kModulo) {
      auto common = CommonType(l.type, r.type);
      if (!common || IsNullType(*common)) common = arrow::int32();
      auto a = CastTo(l.expr, l.type, common);
      auto b = CastTo(r.expr, r.type, common);
      auto zero = cp::equal(b, CastTo(cp::literal(0), arrow::int32(), common));
      auto null_value = cp::literal(arrow::MakeNullScalar(common));
      if (IsFloating(*common)) {
        // x % 0 is NULL for every numeric type (Spark without ANSI mode).
        auto q = cp::call("trunc", {cp::call("divide", {a, b})});
        auto rem = cp::call("subtract", {a, cp::call("multiply", {q, b})});
        return BoundExpr{cp::call("if_else", {zero, null_value, rem}), common, name};
      }
      // x % -1 is 0 like x % 1, and dividing by 1 cannot overflow at the minimum value.
      auto one_or_zero = cp::or_(zero, cp::equal(b, CastTo(cp::literal(-1), arrow::int32(), common)));
      auto safe_b = cp::call("if_else", {one_or_zero, CastTo(cp::literal(1), arrow::int32(), common), b});
      auto q = cp::call("divide", {a, safe_b});
      auto rem = cp::call("subtract", {a, cp::call("multiply", {q, safe_b})});
      return BoundExpr{cp::call("if_else", {zero, cp::literal(arrow::MakeNullScalar(common)), rem}), common, name};
    }
    const char* fn = op == BinaryOp::kAdd ? "add" : op == BinaryOp::kSubtract ? "subtract" : "multiply";
    auto common = CommonType(l.type, r.type);
    if (!common || IsNullType(*common)) common = IsNullType(*l.type) ? r.type : l.type;
    if (IsNullType(*common)) common = arrow::int32();
    auto a = CastTo(l.expr, l.type, common);
    auto b = CastTo(r.expr, r.type, common);
    return BoundExpr{cp::call(fn, {a, b}), common, name};
  }

  // The decimal an operand counts as next to a decimal (Spark's DecimalPrecision): its own
  // type, its integral type's width, or only the digits of an integer literal.
  static DecimalSpec OperandDecimal(const BoundExpr& v, const Expr& written) {
    if (IsDecimal(*v.type)) {
      const auto& d = static_cast<const arrow::Decimal128Type&>(*v.type);
      return {d.precision(), d.scale()};
    }
    if (const Literal* lit = written.As<Literal>()) {
      std::optional<int64_t> value = IsInteger(*v.type) ? ParseInt64(lit->value) : std::nullopt;
      if (value) return ForIntegerLiteral(*value);
    }
    return ForIntegralType(*v.type).value_or(DecimalSpec{10, 0});
  }

  // +, -, *, / and % with a decimal operand and no floating one, at Spark's result type.
  Result<BoundExpr> DecimalArithmetic(BinaryOp op, BoundExpr l, BoundExpr r, const Expr& el, const Expr& er,
                                      const std::string& name) {
    // NULL next to a decimal takes its type.
    if (IsNullType(*l.type)) l = BoundExpr{cp::literal(arrow::MakeNullScalar(r.type)), r.type, l.name};
    if (IsNullType(*r.type)) r = BoundExpr{cp::literal(arrow::MakeNullScalar(l.type)), l.type, r.name};
    DecimalSpec dl = OperandDecimal(l, el);
    DecimalSpec dr = OperandDecimal(r, er);
    DecimalSpec out;
    DecimalOp kernel;
    switch (op) {
      case BinaryOp::kAdd: out = AddResult(dl, dr), kernel = DecimalOp::kAdd; break;
      case BinaryOp::kSubtract: out = AddResult(dl, dr), kernel = DecimalOp::kSubtract; break;
      case BinaryOp::kMultiply: out = MultiplyResult(dl, dr), kernel = DecimalOp::kMultiply; break;
      case BinaryOp::kDivide: out = DivideResult(dl, dr), kernel = DecimalOp::kDivide; break;
      default: out = RemainderResult(dl, dr), kernel = DecimalOp::kRemainder; break;
    }
    // The kernels read any decimal128: integers go to their own width (Arrow's cast checks the
    // type's range, not the value's), the literal rule above only shapes the result type.
    auto as_decimal = [](const BoundExpr& v) {
      if (IsDecimal(*v.type)) return v.expr;
      DecimalSpec d = ForIntegralType(*v.type).value_or(DecimalSpec{20, 0});
      return CastTo(v.expr, v.type, arrow::decimal128(d.precision, d.scale));
    };
    auto a = as_decimal(l);
    auto b = as_decimal(r);
    return BoundExpr{DecimalCall(kernel, {a, b}, out), arrow::decimal128(out.precision, out.scale), name};
  }

  Result<BoundExpr> PlanNode(const IsNull& n, const Expr& /*e*/) {
    ARROW_ASSIGN_OR_RAISE(auto v, Plan(*n.operand));
    return BoundExpr{n.negated ? cp::call("is_valid", {v.expr}) : cp::call("is_null", {v.expr}), arrow::boolean(),
                     "(" + v.name + (n.negated ? " IS NOT NULL)" : " IS NULL)")};
  }

  Result<BoundExpr> PlanNode(const IsBool& n, const Expr& e) {
    ARROW_ASSIGN_OR_RAISE(auto v, Plan(*n.operand));
    ARROW_ASSIGN_OR_RAISE(v, Coerce(v, arrow::boolean(), e.pos));
    cp::Expression test;
    if (!n.value) {
      test = cp::call("is_null", {v.expr});
    } else {
      auto eq = cp::equal(v.expr, cp::literal(*n.value));
      test = cp::call("if_else", {cp::call("is_null", {v.expr}), cp::literal(false), eq});
    }
    if (n.negated) test = cp::call("invert", {test});
    return BoundExpr{test, arrow::boolean(), ToSql(e)};
  }

  Result<BoundExpr> PlanNode(const Between& b, const Expr& e) {
    ARROW_ASSIGN_OR_RAISE(auto v, Plan(*b.operand));
    ARROW_ASSIGN_OR_RAISE(auto lo, Plan(*b.low));
    ARROW_ASSIGN_OR_RAISE(auto hi, Plan(*b.high));
    BoundExpr v2 = v;
    ARROW_RETURN_NOT_OK(Unify(&v, &lo, *b.operand, *b.low, e.pos));
    ARROW_RETURN_NOT_OK(Unify(&v2, &hi, *b.operand, *b.high, e.pos));
    auto test = cp::call("and_kleene", {Compare(BinaryOp::kGe, v.expr, lo.expr, IsFloating(*v.type)),
                                        Compare(BinaryOp::kLe, v2.expr, hi.expr, IsFloating(*v2.type))});
    if (b.negated) test = cp::call("invert", {test});
    return BoundExpr{test, arrow::boolean(), ToSql(e)};
  }

  Result<BoundExpr> PlanNode(const InList& in, const Expr& e) {
    ARROW_ASSIGN_OR_RAISE(auto v, Plan(*in.operand));
    std::vector<BoundExpr> lefts;
    std::vector<BoundExpr> items;
    lefts.reserve(in.list.size());
    items.reserve(in.list.size());
    for (const auto& item : in.list) {
      ARROW_ASSIGN_OR_RAISE(auto x, Plan(item));
      BoundExpr left = v;
      ARROW_RETURN_NOT_OK(Unify(&left, &x, *in.operand, item, e.pos));
      if (IsNullType(*left.type)) {
        // NULL against NULL: give the kernels a type, as comparisons do.
        left.expr = CastTo(left.expr, left.type, arrow::int32());
        x.expr = CastTo(x.expr, x.type, arrow::int32());
        left.type = x.type = arrow::int32();
      }
      lefts.push_back(std::move(left));
      items.push_back(std::move(x));
    }
    // Constant items probed with one value: a single hash lookup, however long the list.
    ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Array> values, ConstantSet(lefts, items));
    cp::Expression result;
    if (values) {
      result = SetMembership(lefts[0].expr, values);
    } else {
      // Otherwise one comparison per item, OR-ed by one variadic call rather than a chain of
      // or_kleene, whose depth Arrow's evaluator (and its canonical left-deep form) recurses.
      std::vector<cp::Expression> tests;
      tests.reserve(items.size());
      for (size_t i = 0; i < items.size(); ++i) {
        tests.push_back(Compare(BinaryOp::kEq, lefts[i].expr, items[i].expr, IsFloating(*lefts[i].type)));
      }
      result = AnyOf(tests);
    }
    if (in.negated) result = cp::call("invert", {result});
    return BoundExpr{result, arrow::boolean(), ToSql(e)};
  }

  // SQL's OR over many booleans: true if any is true, else NULL if any is NULL, else false.
  static cp::Expression AnyOf(const std::vector<cp::Expression>& tests) {
    if (tests.size() == 1) return tests[0];
    std::vector<cp::Expression> bits;
    bits.reserve(tests.size());
    for (const auto& t : tests) bits.push_back(cp::call("cast", {t}, cp::CastOptions::Unsafe(arrow::int8())));
    auto any_true = cp::call("max_element_wise", bits, cp::ElementWiseAggregateOptions(/*skip_nulls=*/true));
    auto all_known = cp::call("max_element_wise", bits, cp::ElementWiseAggregateOptions(/*skip_nulls=*/false));
    auto is_true = cp::call("coalesce", {cp::equal(any_true, cp::literal(int8_t{1})), cp::literal(false)});
    return cp::call("if_else", {is_true, cp::literal(true), cp::call("cast", {all_known}, cp::CastOptions::Unsafe(arrow::boolean()))});
  }

  // Spark's three-valued IN over a set of values: NULL when the probe is NULL, true on a
  // match, else NULL when the set holds a NULL, else false.
  static cp::Expression SetMembership(const cp::Expression& lhs, const std::shared_ptr<arrow::Array>& values) {
    if (values->length() == 0) return cp::literal(false);
    auto set = cp::call("is_in", {lhs}, cp::SetLookupOptions(values, cp::SetLookupOptions::SKIP));
    cp::Expression null_bool = cp::literal(arrow::MakeNullScalar(arrow::boolean()));
    if (values->null_count() > 0) return cp::call("if_else", {set, cp::literal(true), null_bool});
    return cp::call("if_else", {cp::call("is_null", {lhs}), null_bool, set});
  }

  // A literal under zero or more casts, as Unify leaves constants.
  struct CastLiteral {
    std::shared_ptr<arrow::Scalar> value;
    std::vector<const cp::CastOptions*> casts;  // innermost first
  };

  static std::optional<CastLiteral> AsCastLiteral(const cp::Expression& expr) {
    if (const arrow::Datum* d = expr.literal()) {
      if (!d->is_scalar()) return std::nullopt;
      return CastLiteral{d->scalar(), {}};
    }
    const cp::Expression::Call* call = expr.call();
    if (!call || call->function_name != "cast" || call->arguments.size() != 1) return std::nullopt;
    const auto* options = dynamic_cast<const cp::CastOptions*>(call->options.get());
    if (!options) return std::nullopt;
    std::optional<CastLiteral> inner = AsCastLiteral(call->arguments[0]);
    if (!inner) return std::nullopt;
    inner->casts.push_back(options);
    return inner;
  }

  // The items' values as one array when every item is a constant and every comparison
  // probes the same expression at the same type; null otherwise.
  static Result<std::shared_ptr<arrow::Array>> ConstantSet(const std::vector<BoundExpr>& lefts,
                                                           const std::vector<BoundExpr>& items) {
    const auto& type = lefts[0].type;
    // Items sharing a literal type and cast chain are converted together.
    std::map<std::string, std::pair<std::vector<std::shared_ptr<arrow::Scalar>>, std::vector<const cp::CastOptions*>>> groups;
    for (size_t i = 0; i < items.size(); ++i) {
      if (!lefts[i].type->Equals(*type) || !(lefts[i].expr == lefts[0].expr)) return nullptr;
      std::optional<CastLiteral> lit = AsCastLiteral(items[i].expr);
      if (!lit) return nullptr;
      std::string key = lit->value->type->ToString();
      for (const cp::CastOptions* c : lit->casts) key += " -> " + c->to_type.ToString() + (c->allow_int_overflow ? "!" : "");
      auto& group = groups[key];
      group.first.push_back(std::move(lit->value));
      group.second = std::move(lit->casts);
    }
    arrow::ArrayVector parts;
    for (auto& [key, group] : groups) {
      std::shared_ptr<arrow::Array> array;
      if (IsNullType(*group.first[0]->type)) {
        array = std::make_shared<arrow::NullArray>(static_cast<int64_t>(group.first.size()));
      } else {
        std::unique_ptr<arrow::ArrayBuilder> builder;
        ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), group.first[0]->type, &builder));
        ARROW_RETURN_NOT_OK(builder->AppendScalars(group.first));
        ARROW_ASSIGN_OR_RAISE(array, builder->Finish());
      }
      arrow::Datum datum(array);
      for (const cp::CastOptions* c : group.second) {
        ARROW_ASSIGN_OR_RAISE(datum, cp::Cast(datum, *c));
      }
      parts.push_back(datum.make_array());
    }
    return arrow::Concatenate(parts);
  }

  Result<BoundExpr> PlanNode(const InSubquery& in, const Expr& e) {
    ARROW_ASSIGN_OR_RAISE(auto v, Plan(*in.operand));
    if (!ctx_.run_subquery) return Error(e.pos, "Subqueries are not supported here");
    ARROW_ASSIGN_OR_RAISE(auto rows, ctx_.run_subquery(*in.query));
    if (rows->num_columns() != 1) {
      return Error(e.pos, "[INVALID_SUBQUERY_EXPRESSION] The IN subquery must return exactly one column");
    }
    ARROW_ASSIGN_OR_RAISE(auto values, arrow::Concatenate(rows->column(0)->chunks()));
    auto common = CommonType(v.type, values->type());
    if (!common) return Error(e.pos, "IN subquery type mismatch");
    ARROW_ASSIGN_OR_RAISE(auto cast_values, cp::Cast(values, common));
    auto lhs = CastTo(v.expr, v.type, common);
    cp::Expression result = SetMembership(lhs, cast_values.make_array());
    if (in.negated) result = cp::call("invert", {result});
    return BoundExpr{result, arrow::boolean(), ToSql(e)};
  }

  Result<BoundExpr> PlanNode(const Like& like, const Expr& e) {
    ARROW_ASSIGN_OR_RAISE(auto v, Plan(*like.operand));
    const Literal* pattern = like.pattern->As<Literal>();
    if (!pattern || pattern->kind != LiteralKind::kString) {
      return Error(like.pattern->pos, "LIKE patterns must be string literals");
    }
    ARROW_ASSIGN_OR_RAISE(v, ToStringExpr(v));
    cp::Expression test;
    if (like.kind == LikeKind::kRLike) {
      test = cp::call("match_substring_regex", {v.expr}, cp::MatchSubstringOptions(pattern->value));
    } else {
      test = cp::call("match_like", {v.expr}, cp::MatchSubstringOptions(pattern->value, like.kind == LikeKind::kILike));
    }
    if (like.negated) test = cp::call("invert", {test});
    return BoundExpr{test, arrow::boolean(), ToSql(e)};
  }

  Result<BoundExpr> PlanNode(const Exists& ex, const Expr& e) {
    if (!ctx_.run_subquery) return Error(e.pos, "Subqueries are not supported here");
    ARROW_ASSIGN_OR_RAISE(auto rows, ctx_.run_subquery(*ex.query));
    return BoundExpr{cp::literal(rows->num_rows() > 0), arrow::boolean(), ToSql(e)};
  }

  Result<BoundExpr> PlanNode(const ScalarSubquery& sq, const Expr& e) {
    if (!ctx_.run_subquery) return Error(e.pos, "Subqueries are not supported here");
    ARROW_ASSIGN_OR_RAISE(auto rows, ctx_.run_subquery(*sq.query));
    if (rows->num_columns() != 1) {
      return Error(e.pos, "[INVALID_SUBQUERY_EXPRESSION.SCALAR_SUBQUERY_RETURN_MORE_THAN_ONE_OUTPUT_COLUMN] "
                          "A scalar subquery must return one column");
    }
    if (rows->num_rows() > 1) {
      return Error(e.pos, "[SCALAR_SUBQUERY_TOO_MANY_ROWS] More than one row returned by a subquery used as an expression.");
    }
    auto type = rows->schema()->field(0)->type();
    std::shared_ptr<arrow::Scalar> value = arrow::MakeNullScalar(type);
    if (rows->num_rows() == 1) {
      ARROW_ASSIGN_OR_RAISE(value, rows->column(0)->GetScalar(0));
    }
    return BoundExpr{cp::literal(value), type, "scalarsubquery()"};
  }

  Result<BoundExpr> PlanNode(const Case& c, const Expr& e) {
    std::optional<BoundExpr> operand;
    if (c.operand) {
      ARROW_ASSIGN_OR_RAISE(operand, Plan(*c.operand));
    }
    std::vector<cp::Expression> conditions;
    std::vector<BoundExpr> results;
    for (const auto& w : c.whens) {
      ARROW_ASSIGN_OR_RAISE(auto cond, Plan(w.condition));
      if (operand) {
        BoundExpr left = *operand;
        ARROW_RETURN_NOT_OK(Unify(&left, &cond, *c.operand, w.condition, e.pos));
        cond = BoundExpr{cp::equal(left.expr, cond.expr), arrow::boolean(), ""};
      } else {
        ARROW_ASSIGN_OR_RAISE(cond, Coerce(cond, arrow::boolean(), w.condition.pos));
      }
      // case_when treats a null condition as false, as SQL does.
      conditions.push_back(cond.expr);
      ARROW_ASSIGN_OR_RAISE(auto r, Plan(w.result));
      results.push_back(std::move(r));
    }
    if (c.else_result) {
      ARROW_ASSIGN_OR_RAISE(auto r, Plan(*c.else_result));
      results.push_back(std::move(r));
    }
    std::shared_ptr<ArrowType> type = arrow::null();
    for (const auto& r : results) {
      auto t = CommonType(type, r.type);
      if (!t) return Error(e.pos, "[DATATYPE_MISMATCH] CASE branches have incompatible types");
      type = t;
    }
    if (IsNullType(*type)) type = arrow::utf8();
    std::vector<std::string> names;
    for (size_t i = 0; i < conditions.size(); ++i) names.push_back("c" + std::to_string(i));
    std::vector<cp::Expression> args{cp::call("make_struct", conditions, cp::MakeStructOptions(names))};
    for (auto& r : results) {
      ARROW_ASSIGN_OR_RAISE(r, Coerce(r, type, e.pos));
      args.push_back(r.expr);
    }
    return BoundExpr{cp::call("case_when", args), type, ToSql(e)};
  }

  Result<BoundExpr> PlanNode(const Cast& c, const Expr& /*e*/) {
    ARROW_ASSIGN_OR_RAISE(auto v, Plan(*c.operand));
    ARROW_ASSIGN_OR_RAISE(auto to, ToArrowType(c.type));
    std::string name = "CAST(" + v.name + " AS " + ToSql(c.type) + ")";
    if (const Literal* s = AsStringLiteral(*c.operand)) {
      if (to->id() == arrow::Type::TIMESTAMP) {
        const auto& tt = static_cast<const arrow::TimestampType&>(*to);
        auto micros = ParseTimestampMicros(s->value, tt.timezone().empty() ? "UTC" : ctx_.time_zone);
        if (!micros.ok()) return BoundExpr{cp::literal(arrow::MakeNullScalar(to)), to, name};
        return BoundExpr{cp::literal(arrow::TimestampScalar(*micros, to)), to, name};
      }
      if (to->id() == arrow::Type::DATE32) {
        auto days = ParseDateDays(s->value.substr(0, std::min<size_t>(10, s->value.size())));
        if (!days.ok()) return BoundExpr{cp::literal(arrow::MakeNullScalar(to)), to, name};
        return BoundExpr{cp::literal(arrow::Date32Scalar(*days)), to, name};
      }
    }
    if (IsTimestamp(*v.type) && to->id() == arrow::Type::DATE32) {
      return BoundExpr{cp::call("cast", {Local(v)}, cp::CastOptions::Unsafe(to)), to, name};
    }
    if (IsTimestamp(*v.type) && IsString(*to)) {
      // Spark prints the fraction of a second only when it is not zero, without trailing zeros.
      auto text = cp::call("strftime", {Local(v)}, cp::StrftimeOptions("%Y-%m-%d %H:%M:%S"));
      text = cp::call("replace_substring_regex", {text}, cp::ReplaceSubstringOptions("\\.0+$", ""));
      text = cp::call("replace_substring_regex", {text}, cp::ReplaceSubstringOptions("(\\.[0-9]*[1-9])0+$", "\\1"));
      return BoundExpr{text, to, name};
    }
    if (IsInteger(*v.type) && IsInteger(*to)) {
      // Spark without ANSI mode keeps the low bits, as Java's narrowing does.
      return BoundExpr{cp::call("cast", {v.expr}, cp::CastOptions::Unsafe(to)), to, name};
    }
    if (IsFloating(*v.type) && IsInteger(*to)) return BoundExpr{FloatingToInteger(v, to), to, name};
    if (IsString(*v.type) && IsInteger(*to)) return BoundExpr{StringToIntegerOrNull(v, to), to, name};
    if (IsInteger(*v.type) && IsDecimal(*to)) {
      // At the integer's own width first: Arrow's cast checks the type's range, not the value.
      DecimalSpec d = ForIntegralType(*v.type).value_or(DecimalSpec{20, 0});
      v.type = arrow::decimal128(d.precision, d.scale);
      v.expr = cp::call("cast", {v.expr}, cp::CastOptions::Unsafe(v.type));
    }
    if ((IsDecimal(*v.type) || IsFloating(*v.type)) && IsDecimal(*to)) {
      return BoundExpr{ToDecimalOrNull(v, to), to, name};
    }
    return BoundExpr{cp::call("cast", {v.expr}, c.is_try ? cp::CastOptions::Unsafe(to) : cp::CastOptions::Safe(to)),
                     to, name};
  }

  // Java's floating-to-integral conversion: NaN is 0, values beyond the range saturate (to
  // INT for the narrower types, whose bits are then kept as for integers).
  static cp::Expression FloatingToInteger(const BoundExpr& v, const std::shared_ptr<ArrowType>& to) {
    auto x = CastTo(v.expr, v.type, arrow::float64());
    x = cp::call("if_else", {cp::call("is_nan", {x}), cp::literal(0.0), x});
    if (to->id() == arrow::Type::INT64) {
      constexpr double kTwo63 = 9223372036854775808.0;
      // The largest double below 2^63 converts exactly; 2^63 and above saturate.
      auto below = cp::call("min_element_wise", {x, cp::literal(9223372036854774784.0)});
      below = cp::call("max_element_wise", {below, cp::literal(-kTwo63)});
      auto cast = cp::call("cast", {below}, cp::CastOptions::Unsafe(arrow::int64()));
      return cp::call("if_else", {cp::call("greater_equal", {x, cp::literal(kTwo63)}),
                                  cp::literal(std::numeric_limits<int64_t>::max()), cast});
    }
    auto clamped = cp::call("min_element_wise", {x, cp::literal(2147483647.0)});
    clamped = cp::call("max_element_wise", {clamped, cp::literal(-2147483648.0)});
    auto as_int = cp::call("cast", {clamped}, cp::CastOptions::Unsafe(arrow::int32()));
    return CastTo(as_int, arrow::int32(), to);
  }

  // Spark's string-to-integral cast without ANSI mode: surrounding blanks and a fraction are
  // dropped; text that is not a number, or one out of the type's range, is NULL.
  static cp::Expression StringToIntegerOrNull(const BoundExpr& v, const std::shared_ptr<ArrowType>& to) {
    auto text = cp::call("utf8_trim_whitespace", {v.expr});
    auto valid = cp::call("match_substring_regex", {text},
                          cp::MatchSubstringOptions("^[+-]?([0-9]{1,38}(\\.[0-9]*)?|\\.[0-9]+)$"));
    auto whole = cp::call("replace_substring_regex", {text}, cp::ReplaceSubstringOptions("(^\\+)|(\\.[0-9]*$)", ""));
    // ".5" keeps no digits: it is 0.
    whole = cp::call("replace_substring_regex", {whole}, cp::ReplaceSubstringOptions("^-?$", "0"));
    auto safe = cp::call("if_else", {valid, whole, cp::literal(arrow::StringScalar("0"))});
    auto wide = arrow::decimal128(38, 0);
    auto number = cp::call("cast", {safe}, cp::CastOptions::Safe(wide));
    int64_t lo = to->id() == arrow::Type::INT8    ? INT8_MIN
                 : to->id() == arrow::Type::INT16 ? INT16_MIN
                 : to->id() == arrow::Type::INT32 ? INT32_MIN
                                                  : INT64_MIN;
    int64_t hi = to->id() == arrow::Type::INT8    ? INT8_MAX
                 : to->id() == arrow::Type::INT16 ? INT16_MAX
                 : to->id() == arrow::Type::INT32 ? INT32_MAX
                                                  : INT64_MAX;
    auto fits = cp::call("and_kleene", {cp::call("greater_equal", {number, cp::literal(arrow::Decimal128Scalar(arrow::Decimal128(lo), wide))}),
                                        cp::call("less_equal", {number, cp::literal(arrow::Decimal128Scalar(arrow::Decimal128(hi), wide))})});
    fits = cp::call("and_kleene", {valid, fits});
    auto in_range = cp::call("if_else", {fits, number, cp::literal(arrow::Decimal128Scalar(arrow::Decimal128(0), wide))});
    auto value = cp::call("cast", {in_range}, cp::CastOptions::Unsafe(to));
    return cp::call("if_else", {fits, value, cp::literal(arrow::MakeNullScalar(to))});
  }

  // A decimal or floating value at a decimal type, rounded half up (away from zero, Arrow's
  // HALF_TOWARDS_INFINITY); NULL when it does not fit, as Spark gives without ANSI mode.
  static cp::Expression ToDecimalOrNull(const BoundExpr& v, const std::shared_ptr<ArrowType>& to_type) {
    const auto& to = static_cast<const arrow::Decimal128Type&>(*to_type);
    if (IsDecimal(*v.type)) return DecimalCall(DecimalOp::kRescale, {v.expr}, DecimalSpec{to.precision(), to.scale()});
    cp::Expression x = CastTo(v.expr, v.type, arrow::float64());
    x = cp::call("round", {x}, cp::RoundOptions(to.scale(), cp::RoundMode::HALF_TOWARDS_INFINITY));
    double bound = std::pow(10.0, to.precision() - to.scale());
    // NaN and infinities do not fit either.
    auto too_big = cp::call("or_kleene", {cp::call("is_nan", {x}),
                                          cp::call("greater_equal", {cp::call("abs", {x}), cp::literal(bound)})});
    auto safe = cp::call("if_else", {too_big, cp::literal(0.0), x});
    auto cast = cp::call("cast", {safe}, cp::CastOptions::Unsafe(to_type));
    return cp::call("if_else", {too_big, cp::literal(arrow::MakeNullScalar(to_type)), cast});
  }

  // A timestamp as wall-clock time in the session zone (naive), for date parts and
  // formatting; timestamps without zone are already wall-clock.
  cp::Expression Local(const BoundExpr& v) {
    const auto& tt = static_cast<const arrow::TimestampType&>(*v.type);
    if (tt.timezone().empty()) return v.expr;
    auto in_zone = cp::call("cast", {v.expr}, cp::CastOptions::Unsafe(arrow::timestamp(tt.unit(), ctx_.time_zone)));
    return cp::call("local_timestamp", {in_zone});
  }

  Result<BoundExpr> PlanNode(const FunctionCall& f, const Expr& e) {
    std::string fn = Lower(f.name.parts.back().name);
    if (IsAggregateFunction(fn)) {
      return Error(e.pos, StrCat("[MISSING_GROUP_BY] The aggregate function ", fn,
                                 " is not allowed here (use it in the SELECT list or HAVING of an aggregate query)"));
    }
    std::vector<BoundExpr> args;
    for (const auto& a : f.args) {
      ARROW_ASSIGN_OR_RAISE(auto b, Plan(a));
      args.push_back(std::move(b));
    }
    const ScalarFunction* entry = FindScalarFunction(fn);
    if (!entry) return Error(f.name.pos, UnresolvedRoutineMessage(f.name.parts.back().name));
    Binder binder(*this, f, e, fn, GeneratedName(e), std::move(args));
    return BindScalarFunction(*entry, binder);
  }

  // The planner's helpers, as function entries see them.
  class Binder : public CallBinder {
   public:
    Binder(Planner& planner, const FunctionCall& f, const Expr& e, std::string name, std::string column_name,
           std::vector<BoundExpr> args)
        : CallBinder(f, e, std::move(name), std::move(column_name), std::move(args), planner.ctx_),
          planner_(planner) {}

    Status Error(const SourcePos& pos, const std::string& message) const override {
      return ErrorAt(ctx.sql, pos, message);
    }
    TypePtr CommonType(const TypePtr& a, const TypePtr& b) const override { return sql::CommonType(a, b); }
    cp::Expression CastTo(cp::Expression e, const TypePtr& from, const TypePtr& to) const override {
      return sql::CastTo(std::move(e), from, to);
    }
    Status Unify(BoundExpr* a, BoundExpr* b, size_t i, size_t j) override {
      return planner_.Unify(a, b, call.args[i], call.args[j], expr.pos);
    }
    Result<BoundExpr> Coerce(BoundExpr v, const TypePtr& to) override {
      return planner_.Coerce(std::move(v), to, expr.pos);
    }
    BoundExpr ToStringExpr(BoundExpr v) const override {
      if (IsString(*v.type)) return v;
      v.expr = sql::CastTo(v.expr, v.type, arrow::utf8());
      v.type = arrow::utf8();
      return v;
    }
    cp::Expression Local(const BoundExpr& v) const override { return planner_.Local(v); }
    std::string SqlTypeName(const arrow::DataType& type) const override { return sql::SqlTypeName(type); }

   private:
    Planner& planner_;
  };

  Result<BoundExpr> PlanNode(const Subscript& s, const Expr& e) {
    ARROW_ASSIGN_OR_RAISE(auto base, Plan(*s.base));
    ARROW_ASSIGN_OR_RAISE(auto index, Plan(*s.index));
    if (base.type->id() == arrow::Type::MAP) {
      const auto& mt = static_cast<const arrow::MapType&>(*base.type);
      const Literal* key = s.index->As<Literal>();
      if (!key) return Error(s.index->pos, "map keys must be literals");
      std::shared_ptr<arrow::Scalar> key_scalar;
      if (key->kind == LiteralKind::kString) {
        key_scalar = std::make_shared<arrow::StringScalar>(key->value);
      } else if (key->kind == LiteralKind::kInteger || key->kind == LiteralKind::kBigInt) {
        auto parsed = arrow::Scalar::Parse(mt.key_type(), key->value);
        if (parsed.ok()) key_scalar = *parsed;
      }
      if (!key_scalar || !key_scalar->type->Equals(*mt.key_type())) {
        return Error(s.index->pos, StrCat("[DATATYPE_MISMATCH] The map key must be a ", mt.key_type()->ToString(),
                                          " literal"));
      }
      return BoundExpr{cp::call("map_lookup", {base.expr}, cp::MapLookupOptions(key_scalar, cp::MapLookupOptions::FIRST)),
                       mt.item_type(), GeneratedName(e)};
    }
    if (base.type->id() == arrow::Type::LIST) {
      const auto& lt = static_cast<const arrow::ListType&>(*base.type);
      const Literal* idx = s.index->As<Literal>();
      if (!idx || idx->kind != LiteralKind::kInteger) return Error(s.index->pos, "array indexes must be integer literals");
      std::optional<int32_t> position = ParseInt32(idx->value);
      if (!position) return Error(s.index->pos, StrCat("array index ", idx->value, " is out of range for INT"));
      return BoundExpr{cp::call("list_element", {base.expr, cp::literal(*position)}),
                       lt.value_type(), GeneratedName(e)};
    }
    (void)index;
    return Error(e.pos, StrCat("[DATATYPE_MISMATCH] Cannot subscript a value of type ", base.type->ToString()));
  }

  Result<BoundExpr> PlanNode(const FieldAccess& fa, const Expr& e) {
    ARROW_ASSIGN_OR_RAISE(auto base, Plan(*fa.base));
    return StructField(base, fa.field, e.pos);
  }

  const ExprContext& ctx_;
};

}  // namespace

Result<BoundExpr> PlanExpr(const Expr& expr, const ExprContext& ctx) {
  Planner planner(ctx);
  return planner.Plan(expr);
}

}  // namespace floe::sql
