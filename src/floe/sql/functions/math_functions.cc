// Math functions: signs, roots, logarithms, rounding, greatest/least, isnan.

#include <algorithm>

#include "floe/sql/functions/function_helpers.h"
#include "floe/util/number_parse.h"
#include "floe/util/str_cat.h"

namespace floe::sql::functions {

namespace {

// A function of doubles: the arguments are read as DOUBLE.
cp::Expression AsDouble(CallBinder& b, size_t i) { return b.CastTo(b.args[i].expr, b.args[i].type, arrow::float64()); }

Result<BoundExpr> Log(CallBinder& b) {
  if (b.args.size() == 2) {  // log(base, x)
    return b.Make(cp::call("divide", {cp::call("ln", {AsDouble(b, 1)}), cp::call("ln", {AsDouble(b, 0)})}));
  }
  return b.Make(cp::call("ln", {AsDouble(b, 0)}));
}

// floor and ceil: integers stay (as BIGINT), decimals keep their whole digits plus one.
Result<TypePtr> FloorCeilType(CallBinder& b) {
  const auto& t = *b.args[0].type;
  if (IsDecimal(t)) {
    const auto& d = static_cast<const arrow::Decimal128Type&>(t);
    return arrow::decimal128(std::min(38, d.precision() - d.scale() + 1), 0);
  }
  return arrow::int64();
}

ScalarImpl FloorCeil(const char* arrow_function) {
  return [arrow_function](CallBinder& b) -> Result<BoundExpr> {
    const BoundExpr& x = b.args[0];
    if (IsInteger(*x.type)) return b.Make(b.CastTo(x.expr, x.type, arrow::int64()));
    return b.Make(cp::call("cast", {cp::call(arrow_function, {x.expr})}, cp::CastOptions::Unsafe(b.result_type)));
  };
}

// round's scale: an INT literal, 0 when absent.
Result<int64_t> RoundDigits(CallBinder& b) {
  if (b.args.size() < 2) return 0;
  const Literal* lit = b.call.args[1].As<Literal>();
  if (!lit || lit->kind != LiteralKind::kInteger) return b.Error(b.call.args[1].pos, "round's scale must be an integer literal");
  std::optional<int64_t> parsed = ParseInt64(lit->value);
  if (!parsed || *parsed < INT32_MIN || *parsed > INT32_MAX) {
    return b.Error(b.call.args[1].pos, StrCat("round's scale ", lit->value, " is out of range for INT"));
  }
  return *parsed;
}

Result<TypePtr> RoundType(CallBinder& b) {
  ARROW_ASSIGN_OR_RAISE(int64_t digits, RoundDigits(b));
  const TypePtr& t = b.args[0].type;
  if (IsDecimal(*t)) {
    const auto& d = static_cast<const arrow::Decimal128Type&>(*t);
    int32_t s = static_cast<int32_t>(std::max<int64_t>(0, std::min<int64_t>(digits, d.scale())));
    return arrow::decimal128(std::min(38, d.precision() - d.scale() + s + 1), s);
  }
  return t;
}

ScalarImpl Round(cp::RoundMode mode) {
  return [mode](CallBinder& b) -> Result<BoundExpr> {
    ARROW_ASSIGN_OR_RAISE(int64_t digits, RoundDigits(b));
    const BoundExpr& x = b.args[0];
    if (IsDecimal(*x.type)) {
      int32_t s = static_cast<const arrow::Decimal128Type&>(*b.result_type).scale();
      return b.Make(cp::call("cast", {cp::call("round", {x.expr}, cp::RoundOptions(s, mode))},
                               cp::CastOptions::Unsafe(b.result_type)));
    }
    if (IsInteger(*x.type)) return b.Make(x.expr);
    return b.Make(cp::call("round", {x.expr}, cp::RoundOptions(digits, mode)));
  };
}

Result<TypePtr> CommonOfArguments(CallBinder& b) {
  TypePtr type = b.args[0].type;
  for (const auto& a : b.args) {
    type = b.CommonType(type, a.type);
    if (!type) return b.Error(b.expr.pos, "[DATATYPE_MISMATCH] arguments have incompatible types");
  }
  return type;
}

ScalarImpl Extreme(const char* arrow_function) {
  return [arrow_function](CallBinder& b) -> Result<BoundExpr> {
    std::vector<cp::Expression> xs;
    for (const auto& a : b.args) xs.push_back(b.CastTo(a.expr, a.type, b.result_type));
    return b.Make(cp::call(arrow_function, xs, cp::ElementWiseAggregateOptions(/*skip_nulls=*/true)));
  };
}

// Spark's isnan is never NULL: NULL is not NaN.
Result<BoundExpr> IsNan(CallBinder& b) {
  return b.Make(cp::call("coalesce", {cp::call("is_nan", {AsDouble(b, 0)}), cp::literal(false)}));
}

}  // namespace

void AddMathFunctions(std::vector<ScalarFunction>* out) {
  out->push_back({{"abs"}, {1, 1}, SameAsArgument(0), ArrowUnary("abs"),
                  Doc("Abs", "_FUNC_(expr) - Returns the absolute value of the numeric value.",
                      {{"SELECT _FUNC_(-1);", "1"}}, "1.2.0")});
  out->push_back({{"negative"}, {1, 1}, SameAsArgument(0), ArrowUnary("negate"),
                  Doc("UnaryMinus", "_FUNC_(expr) - Returns the negated value of `expr`.", {{"SELECT _FUNC_(1);", "-1"}},
                      "1.0.0")});
  out->push_back({{"sqrt"}, {1, 1}, Fixed(arrow::float64()), ArrowUnary("sqrt"),
                  Doc("Sqrt", "_FUNC_(expr) - Returns the square root of `expr`.", {{"SELECT _FUNC_(4);", "2.0"}},
                      "1.1.1")});
  out->push_back({{"exp"}, {1, 1}, Fixed(arrow::float64()), ArrowUnary("exp"),
                  Doc("Exp", "_FUNC_(expr) - Returns e to the power of `expr`.", {{"SELECT _FUNC_(0);", "1.0"}},
                      "1.4.0")});
  out->push_back({{"ln"}, {1, 2}, Fixed(arrow::float64()), Log,
                  Doc("Log", "_FUNC_(expr) - Returns the natural logarithm (base e) of `expr`.",
                      {{"SELECT _FUNC_(1);", "0.0"}}, "1.4.0")});
  out->push_back({{"log"}, {1, 2}, Fixed(arrow::float64()), Log,
                  Doc("Logarithm", "_FUNC_(base, expr) - Returns the logarithm of `expr` with base `base`.",
                      {{"SELECT _FUNC_(10, 100);", "2.0"}}, "1.5.0")});
  out->push_back({{"power", "pow"}, {2, 2}, Fixed(arrow::float64()),
                  [](CallBinder& b) -> Result<BoundExpr> {
                    return b.Make(cp::call("power", {AsDouble(b, 0), AsDouble(b, 1)}));
                  },
                  Doc("Pow", "_FUNC_(expr1, expr2) - Raises `expr1` to the power of `expr2`.",
                      {{"SELECT _FUNC_(2, 3);", "8.0"}}, "1.4.0")});
  out->push_back({{"floor"}, {1, 1}, FloorCeilType, FloorCeil("floor"),
                  Doc("FloorExpressionBuilder", "_FUNC_(expr) - Returns the largest integer not greater than `expr`.",
                      {{"SELECT _FUNC_(-0.1);", "-1"}, {"SELECT _FUNC_(5);", "5"}}, "3.3.0")});
  out->push_back({{"ceil", "ceiling"}, {1, 1}, FloorCeilType, FloorCeil("ceil"),
                  Doc("CeilExpressionBuilder", "_FUNC_(expr) - Returns the smallest integer not smaller than `expr`.",
                      {{"SELECT _FUNC_(-0.1);", "0"}, {"SELECT _FUNC_(5);", "5"}}, "3.3.0")});
  out->push_back({{"round"}, {1, 2}, RoundType, Round(cp::RoundMode::HALF_UP),
                  Doc("Round", "_FUNC_(expr, d) - Returns `expr` rounded to `d` decimal places using HALF_UP rounding mode.",
                      {{"SELECT _FUNC_(2.5, 0);", "3"}}, "1.5.0")});
  out->push_back({{"bround"}, {1, 2}, RoundType, Round(cp::RoundMode::HALF_TO_EVEN),
                  Doc("BRound",
                      "_FUNC_(expr, d) - Returns `expr` rounded to `d` decimal places using HALF_EVEN rounding mode.",
                      {{"SELECT _FUNC_(2.5, 0);", "2"}}, "2.0.0")});
  out->push_back({{"greatest"}, {2, Arity::kAny}, CommonOfArguments, Extreme("max_element_wise"),
                  Doc("Greatest", "_FUNC_(expr, ...) - Returns the greatest value of all parameters, skipping null values.",
                      {{"SELECT _FUNC_(10, 9, 2, 4, 3);", "10"}}, "1.5.0")});
  out->push_back({{"least"}, {2, Arity::kAny}, CommonOfArguments, Extreme("min_element_wise"),
                  Doc("Least", "_FUNC_(expr, ...) - Returns the least value of all parameters, skipping null values.",
                      {{"SELECT _FUNC_(10, 9, 2, 4, 3);", "2"}}, "1.5.0")});
  out->push_back({{"isnan"}, {1, 1}, Fixed(arrow::boolean()), IsNan,
                  Doc("IsNaN", "_FUNC_(expr) - Returns true if `expr` is NaN, or false otherwise.",
                      {{"SELECT _FUNC_(cast('NaN' as double));", "true"}}, "1.5.0")});
}

}  // namespace floe::sql::functions
