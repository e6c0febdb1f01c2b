#pragma once

// The expression binder, shared by the files that hold its parts: bind_literals.cc
// (literals and intervals), bind_operators.cc (operators, comparisons, arithmetic, IN,
// LIKE) and expression_binder.cc (columns, functions through the registry, CASE, CAST,
// subqueries, subscripts).

#include <algorithm>
#include <arrow/array/concatenate.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/scalar.h>
#include <arrow/table.h>
#include <arrow/util/decimal.h>
#include <cctype>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "floe/sql/types/decimal_kernels.h"
#include "floe/sql/types/decimal_rules.h"
#include "floe/sql/bind/expression_binder.h"
#include "floe/sql/bind/suggest.h"
#include "floe/sql/functions/function_registry.h"
#include "floe/sql/parse/parse_error.h"
#include "floe/util/number_parse.h"
#include "floe/util/str_cat.h"

namespace floe::sql::binding {

namespace cp = arrow::compute;
using ArrowType = arrow::DataType;


inline bool IsInteger(const ArrowType& t) { return arrow::is_integer(t.id()); }
inline bool IsFloating(const ArrowType& t) { return arrow::is_floating(t.id()); }
inline bool IsDecimal(const ArrowType& t) { return t.id() == arrow::Type::DECIMAL128; }
inline bool IsNumeric(const ArrowType& t) { return IsInteger(t) || IsFloating(t) || IsDecimal(t); }
inline bool IsString(const ArrowType& t) {
  return t.id() == arrow::Type::STRING || t.id() == arrow::Type::LARGE_STRING;
}
inline bool IsTimestamp(const ArrowType& t) { return t.id() == arrow::Type::TIMESTAMP; }
inline bool IsDate(const ArrowType& t) { return t.id() == arrow::Type::DATE32; }
inline bool IsNullType(const ArrowType& t) { return t.id() == arrow::Type::NA; }

inline int IntRank(const ArrowType& t) {
  switch (t.id()) {
    case arrow::Type::INT8: return 1;
    case arrow::Type::INT16: return 2;
    case arrow::Type::INT32: return 3;
    case arrow::Type::INT64: return 4;
    default: return 5;
  }
}

// Digits before the point a type needs as a decimal (Spark: int -> decimal(10,0), ...).
inline std::shared_ptr<ArrowType> AsDecimal(const std::shared_ptr<ArrowType>& t) {
  switch (t->id()) {
    case arrow::Type::INT8: return arrow::decimal128(3, 0);
    case arrow::Type::INT16: return arrow::decimal128(5, 0);
    case arrow::Type::INT32: return arrow::decimal128(10, 0);
    case arrow::Type::INT64: return arrow::decimal128(20, 0);
    default: return t;
  }
}

// The common type of two operands, as Spark widens them.
inline std::shared_ptr<ArrowType> CommonType(const std::shared_ptr<ArrowType>& a,
                                     const std::shared_ptr<ArrowType>& b) {
  if (a->Equals(*b)) return a;
  if (IsNullType(*a)) return b;
  if (IsNullType(*b)) return a;
  // Nested types widen part by part; struct fields pair by position and must have the same
  // names (Spark ignores their case, but casts here go by name and would lose such fields).
  if (a->id() == arrow::Type::LIST && b->id() == arrow::Type::LIST) {
    auto element = CommonType(a->field(0)->type(), b->field(0)->type());
    return element ? arrow::list(a->field(0)->WithType(element)->WithNullable(true)) : nullptr;
  }
  if (a->id() == arrow::Type::MAP && b->id() == arrow::Type::MAP) {
    const auto& ma = static_cast<const arrow::MapType&>(*a);
    const auto& mb = static_cast<const arrow::MapType&>(*b);
    auto key = CommonType(ma.key_type(), mb.key_type());
    auto item = CommonType(ma.item_type(), mb.item_type());
    return key && item ? arrow::map(key, item) : nullptr;
  }
  if (a->id() == arrow::Type::STRUCT && b->id() == arrow::Type::STRUCT) {
    if (a->num_fields() != b->num_fields()) return nullptr;
    arrow::FieldVector fields;
    for (int i = 0; i < a->num_fields(); ++i) {
      if (a->field(i)->name() != b->field(i)->name()) return nullptr;
      auto t = CommonType(a->field(i)->type(), b->field(i)->type());
      if (!t) return nullptr;
      fields.push_back(arrow::field(a->field(i)->name(), t));
    }
    return arrow::struct_(fields);
  }
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

inline cp::Expression CastTo(cp::Expression e, const std::shared_ptr<ArrowType>& from,
                      const std::shared_ptr<ArrowType>& to) {
  if (from->Equals(*to)) return e;
  return cp::call("cast", {std::move(e)}, cp::CastOptions::Unsafe(to));
}

// The type's name in Spark's messages ("BIGINT", "DECIMAL(10,2)").
inline std::string SqlTypeName(const ArrowType& type) {
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

inline const Literal* AsStringLiteral(const Expr& e) {
  const Literal* lit = e.As<Literal>();
  return lit && lit->kind == LiteralKind::kString ? lit : nullptr;
}

inline std::string JoinStrings(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

inline std::string QuoteName(const std::string& s) { return "`" + s + "`"; }

// For PostgreSQL clients, a double-quoted string ("id", "t"."id") is a column's name, as in
// PostgreSQL; nullopt otherwise (expression_binder.cc).
std::optional<Expr> PgQuotedColumn(const Expr& e, const ExprContext& ctx);

class ExpressionBinder {
 public:
  explicit ExpressionBinder(const ExprContext& ctx) : ctx_(ctx) {}

  Result<BoundExpr> Plan(const Expr& e) {
    // The aggregates compute without an order; PostgreSQL's agg(x ORDER BY y) is parsed only
    // for catalog queries answered without computing (postgres/pg_empty_catalog_queries.cc).
    if (const auto* f = e.As<FunctionCall>(); f && !f->order_by.empty()) {
      return Error(f->order_by.front().expr.pos, "ORDER BY inside an aggregate call is not supported");
    }
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

  Result<BoundExpr> PlanNode(const Literal& l, const Expr& e);
  Result<std::optional<std::string>> ConstantPattern(const Expr& pattern);

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

  Result<BoundExpr> DecimalLiteral(const std::string& text, const std::string& name);

  // A day-time interval (Spark's DayTimeIntervalType) is a duration in microseconds.
  Result<BoundExpr> PlanNode(const IntervalLiteral& interval, const Expr& e);

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

  Result<BoundExpr> PlanNode(const ColumnRef& c, const Expr& e);

  Result<BoundExpr> StructField(const BoundExpr& base, const Identifier& field, const SourcePos& pos);

  Result<BoundExpr> PlanNode(const Star&, const Expr& e);

  Result<BoundExpr> PlanNode(const Unary& u, const Expr& e);

  Result<BoundExpr> Coerce(BoundExpr v, const std::shared_ptr<ArrowType>& to, const SourcePos& pos);

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

  Result<BoundExpr> PlanNode(const Binary& bin, const Expr& e);

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

  Result<BoundExpr> ToStringExpr(BoundExpr v);

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
                                       const Expr& e, const std::string& name);

  Result<BoundExpr> Arithmetic(BinaryOp op, BoundExpr l, BoundExpr r, const Expr& el, const Expr& er,
                               const Expr& e, const std::string& name);

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
                                      const std::string& name);

  Result<BoundExpr> PlanNode(const IsNull& n, const Expr& /*e*/);

  Result<BoundExpr> PlanNode(const IsBool& n, const Expr& e);

  Result<BoundExpr> PlanNode(const Between& b, const Expr& e);

  Result<BoundExpr> PlanNode(const InList& in, const Expr& e);

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

  Result<BoundExpr> PlanNode(const InSubquery& in, const Expr& e);

  Result<BoundExpr> PlanNode(const Like& like, const Expr& e);

  Result<BoundExpr> PlanNode(const Exists& ex, const Expr& e);

  Result<BoundExpr> PlanNode(const ScalarSubquery& sq, const Expr& e);

  Result<BoundExpr> PlanNode(const Case& c, const Expr& e);

  Result<BoundExpr> PlanNode(const Cast& c, const Expr& /*e*/);

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

  Result<BoundExpr> PlanNode(const FunctionCall& f, const Expr& e);

  // The binder's helpers, as function entries see them.
  class Binder : public CallBinder {
   public:
    Binder(ExpressionBinder& planner, const FunctionCall& f, const Expr& e, std::string name, std::string column_name,
           std::vector<BoundExpr> args)
        : CallBinder(f, e, std::move(name), std::move(column_name), std::move(args), planner.ctx_),
          planner_(planner) {}

    Status Error(const SourcePos& pos, const std::string& message) const override {
      return ErrorAt(ctx.sql, pos, message);
    }
    TypePtr CommonType(const TypePtr& a, const TypePtr& b) const override { return binding::CommonType(a, b); }
    cp::Expression CastTo(cp::Expression e, const TypePtr& from, const TypePtr& to) const override {
      return binding::CastTo(std::move(e), from, to);
    }
    Status Unify(BoundExpr* a, BoundExpr* b, size_t i, size_t j) override {
      return planner_.Unify(a, b, call.args[i], call.args[j], expr.pos);
    }
    Result<BoundExpr> Coerce(BoundExpr v, const TypePtr& to) override {
      return planner_.Coerce(std::move(v), to, expr.pos);
    }
    BoundExpr ToStringExpr(BoundExpr v) const override {
      if (IsString(*v.type)) return v;
      v.expr = binding::CastTo(v.expr, v.type, arrow::utf8());
      v.type = arrow::utf8();
      return v;
    }
    cp::Expression Local(const BoundExpr& v) const override { return planner_.Local(v); }
    std::string SqlTypeName(const arrow::DataType& type) const override { return binding::SqlTypeName(type); }

   private:
    ExpressionBinder& planner_;
  };

  Result<BoundExpr> PlanNode(const Subscript& s, const Expr& e);

  Result<BoundExpr> PlanNode(const FieldAccess& fa, const Expr& e);
  Result<BoundExpr> PlanNode(const ParameterRef& p, const Expr& e);
  // While describing: a comparison of a $n with a value of a known type gives $n that type.
  void NoteParameterType(const Binary& bin, const BoundExpr& l, const BoundExpr& r);

  const ExprContext& ctx_;
};

}  // namespace floe::sql::binding
