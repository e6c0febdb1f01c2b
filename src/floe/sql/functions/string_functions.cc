// String functions: case, trimming, length, concatenation, substrings.

#include <limits>

#include "floe/sql/functions/function_helpers.h"
#include "floe/util/number_parse.h"
#include "floe/util/str_cat.h"

namespace floe::sql::functions {

namespace {

// A text function of one argument (lower, trim, ...).
ScalarFunction TextUnary(std::vector<std::string> names, const char* arrow_function, FunctionDoc doc) {
  return {std::move(names), {1, 1}, Fixed(arrow::utf8()), ArrowUnary(arrow_function), std::move(doc)};
}

Result<BoundExpr> Length(CallBinder& b) {
  BoundExpr s = b.ToStringExpr(b.args[0]);
  return b.Make(b.CastTo(cp::call("utf8_length", {s.expr}), arrow::int32(), arrow::int32()));
}

Result<BoundExpr> Concat(CallBinder& b) {
  if (b.args.empty()) return b.Make(cp::literal(arrow::StringScalar("")));
  std::vector<cp::Expression> parts;
  for (const auto& a : b.args) parts.push_back(b.ToStringExpr(a).expr);
  parts.push_back(cp::literal(arrow::StringScalar("")));  // the separator
  return b.Make(cp::call("binary_join_element_wise", parts));
}

Result<BoundExpr> Substring(CallBinder& b) {
  auto literal_int = [&](size_t i) -> Result<int64_t> {
    const Literal* lit = b.call.args[i].As<Literal>();
    if (!lit || lit->kind != LiteralKind::kInteger) {
      return b.Error(b.call.args[i].pos, "substring positions must be integer literals");
    }
    std::optional<int64_t> parsed = ParseInt64(lit->value);
    if (!parsed || *parsed < INT32_MIN || *parsed > INT32_MAX) {
      return b.Error(b.call.args[i].pos, StrCat("substring position ", lit->value, " is out of range for INT"));
    }
    return *parsed;
  };
  ARROW_ASSIGN_OR_RAISE(int64_t pos, literal_int(1));
  int64_t len = std::numeric_limits<int32_t>::max();
  if (b.args.size() == 3) {
    ARROW_ASSIGN_OR_RAISE(len, literal_int(2));
  }
  BoundExpr s = b.ToStringExpr(b.args[0]);
  int64_t start = pos > 0 ? pos - 1 : pos;  // Spark: 1-based, 0 acts as 1, negative from the end
  if (len <= 0) return b.Make(cp::literal(arrow::StringScalar("")));
  int64_t stop = (start < 0 && start + len >= 0) ? std::numeric_limits<int32_t>::max() : start + len;
  return b.Make(cp::call("utf8_slice_codeunits", {s.expr}, cp::SliceOptions(start, stop)));
}

}  // namespace

void AddStringFunctions(std::vector<ScalarFunction>* out) {
  out->push_back(TextUnary({"lower", "lcase"}, "utf8_lower",
                           Doc("Lower", "_FUNC_(str) - Returns `str` with all characters changed to lowercase.",
                               {{"SELECT _FUNC_('SparkSql');", "sparksql"}}, "1.0.1")));
  out->push_back(TextUnary({"upper", "ucase"}, "utf8_upper",
                           Doc("Upper", "_FUNC_(str) - Returns `str` with all characters changed to uppercase.",
                               {{"SELECT _FUNC_('SparkSql');", "SPARKSQL"}}, "1.0.1")));
  out->push_back(TextUnary({"trim"}, "utf8_trim_whitespace",
                           Doc("StringTrim", "_FUNC_(str) - Removes the leading and trailing space characters from `str`.",
                               {{"SELECT _FUNC_('    SparkSQL   ');", "SparkSQL"}}, "1.5.0")));
  out->push_back(TextUnary({"ltrim"}, "utf8_ltrim_whitespace",
                           Doc("StringTrimLeft", "_FUNC_(str) - Removes the leading space characters from `str`.",
                               {{"SELECT _FUNC_('    SparkSQL   ');", "SparkSQL   "}}, "1.5.0")));
  out->push_back(TextUnary({"rtrim"}, "utf8_rtrim_whitespace",
                           Doc("StringTrimRight", "_FUNC_(str) - Removes the trailing space characters from `str`.",
                               {{"SELECT _FUNC_('    SparkSQL   ');", "    SparkSQL"}}, "1.5.0")));
  out->push_back(
      {{"btrim"},
       {1, 2},
       Fixed(arrow::utf8()),
       [](CallBinder& b) -> Result<BoundExpr> {
         BoundExpr str = b.ToStringExpr(b.args[0]);
         if (b.args.size() == 1) return b.Make(arrow::compute::call("utf8_trim_whitespace", {str.expr}));
         const Literal* chars = b.StringLiteralArg(1);
         if (!chars) return b.Error(b.expr.pos, "btrim() takes its characters as a string literal");
         return b.Make(arrow::compute::call("utf8_trim", {str.expr}, arrow::compute::TrimOptions(chars->value)));
       },
       Doc("StringTrimBoth",
           "_FUNC_(str[, trimStr]) - Removes the leading and trailing space characters, or the "
           "characters of `trimStr`, from `str`.",
           {{"SELECT _FUNC_('    SparkSQL   ');", "SparkSQL"}, {"SELECT _FUNC_('xxSparkSQLxx', 'x');", "SparkSQL"}},
           "3.2.0")});
  out->push_back(TextUnary({"reverse"}, "utf8_reverse",
                           Doc("Reverse", "_FUNC_(str) - Returns `str` with its characters in reverse order.",
                               {{"SELECT _FUNC_('Spark SQL');", "LQS krapS"}}, "1.5.0")));
  out->push_back({{"length", "char_length", "character_length"}, {1, 1}, Fixed(arrow::int32()), Length,
                  Doc("Length", "_FUNC_(expr) - Returns the number of characters of the string `expr`.",
                      {{"SELECT _FUNC_('Spark SQL ');", "10"}}, "1.5.0")});
  out->push_back({{"concat"}, {0, Arity::kAny}, Fixed(arrow::utf8()), Concat,
                  Doc("Concat", "_FUNC_(col1, col2, ..., colN) - Returns the concatenation of col1, col2, ..., colN.",
                      {{"SELECT _FUNC_('Spark', 'SQL');", "SparkSQL"}}, "1.5.0")});
  out->push_back({{"substring", "substr"}, {2, 3}, Fixed(arrow::utf8()), Substring,
                  Doc("Substring",
                      "_FUNC_(str, pos[, len]) - Returns the part of `str` that starts at `pos` and is `len` long "
                      "(to the end without `len`); a negative `pos` counts from the end.",
                      {{"SELECT _FUNC_('Spark SQL', 5);", "k SQL"}, {"SELECT _FUNC_('Spark SQL', -3);", "SQL"},
                       {"SELECT _FUNC_('Spark SQL', 5, 1);", "k"}},
                      "1.5.0")});
}

}  // namespace floe::sql::functions
