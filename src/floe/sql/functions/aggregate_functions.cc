// Aggregate functions, each computed by one Arrow scalar or hash aggregate.

#include <algorithm>

#include "floe/sql/types/decimal_rules.h"
#include "floe/sql/functions/function_helpers.h"

namespace floe::sql::functions {

namespace {

const std::string kAggregates = "org.apache.spark.sql.catalyst.expressions.aggregate.";

std::shared_ptr<cp::FunctionOptions> SkipNullsAtLeastOne() {
  return std::make_shared<cp::ScalarAggregateOptions>(/*skip_nulls=*/true, /*min_count=*/1);
}

// An aggregate over its argument with Arrow's `function`, NULL when no row is valid.
std::function<Result<AggregateKernel>(const AggregateCall&)> Simple(const char* function) {
  return [function](const AggregateCall&) -> Result<AggregateKernel> {
    return AggregateKernel{function, SkipNullsAtLeastOne(), true};
  };
}

TypePtr ArgumentType(const TypePtr& t) { return t; }
TypePtr Boolean(const TypePtr&) { return arrow::boolean(); }
TypePtr Double(const TypePtr&) { return arrow::float64(); }
TypePtr BigInt(const TypePtr&) { return arrow::int64(); }

Result<AggregateKernel> Count(const AggregateCall& call) {
  auto only_valid = std::make_shared<cp::CountOptions>(cp::CountOptions::ONLY_VALID);
  if (call.star || !call.has_argument) return AggregateKernel{"count_all", nullptr, false};
  if (call.distinct) return AggregateKernel{"count_distinct", only_valid, true};
  return AggregateKernel{"count", only_valid, true};
}

Result<AggregateKernel> ApproxCountDistinct(const AggregateCall& call) {
  if (call.star || !call.has_argument) return AggregateKernel{"count_all", nullptr, false};
  return AggregateKernel{"count_distinct", std::make_shared<cp::CountOptions>(cp::CountOptions::ONLY_VALID), true};
}

Result<AggregateKernel> Sum(const AggregateCall& call) {
  if (call.distinct) return Status::NotImplemented("sum(DISTINCT ...) is not supported yet");
  return AggregateKernel{"sum", SkipNullsAtLeastOne(), true};
}

// Standard deviation and variance: `population` divides by n, otherwise by n - 1.
std::function<Result<AggregateKernel>(const AggregateCall&)> Spread(const char* function, bool population) {
  return [function, population](const AggregateCall&) -> Result<AggregateKernel> {
    return AggregateKernel{function, std::make_shared<cp::VarianceOptions>(population ? 0 : 1), true};
  };
}

// count_if counts the rows where its condition is true.
BoundExpr TrueAsOne(BoundExpr condition) {
  condition.expr = cp::call("if_else", {condition.expr, cp::literal(1), Null(arrow::int32())});
  condition.type = arrow::int32();
  return condition;
}

AggregateFunction Entry(std::vector<std::string> names, std::function<Result<AggregateKernel>(const AggregateCall&)> kernel,
                        std::function<TypePtr(const TypePtr&)> result_type, const std::string& class_name,
                        std::string usage, std::vector<FunctionExample> examples, std::string since) {
  return {std::move(names), std::move(kernel), std::move(result_type), nullptr, nullptr,
          Doc(kAggregates + class_name, std::move(usage), std::move(examples), std::move(since))};
}

}  // namespace

void AddAggregateFunctions(std::vector<AggregateFunction>* out) {
  out->push_back(Entry({"count"}, Count, BigInt, "Count",
                       "_FUNC_(*) - Returns the total number of retrieved rows, including rows containing null.\n\n"
                       "    _FUNC_(expr[, expr...]) - Returns the number of rows for which the supplied expression(s) are all non-null.\n\n"
                       "    _FUNC_(DISTINCT expr[, expr...]) - Returns the number of rows for which the supplied expression(s) are unique and non-null.",
                       {{"SELECT _FUNC_(*) FROM VALUES (NULL), (5), (5), (20) AS tab(col);", "4"}}, "1.0.0"));
  AggregateFunction count_if =
      Entry({"count_if"}, Count, BigInt, "CountIf", "_FUNC_(expr) - Returns the number of `TRUE` values for the expression.",
            {{"SELECT _FUNC_(col % 2 = 0) FROM VALUES (NULL), (0), (1), (2), (3) AS tab(col);", "2"}}, "3.0.0");
  count_if.prepare = TrueAsOne;
  out->push_back(std::move(count_if));
  out->push_back(Entry({"approx_count_distinct"}, ApproxCountDistinct, BigInt, "HyperLogLogPlusPlus",
                       "_FUNC_(expr[, relativeSD]) - Returns the estimated cardinality by HyperLogLog++. floe counts exactly.",
                       {{"SELECT _FUNC_(col1) FROM VALUES (1), (1), (2), (2), (3) tab(col1);", "3"}}, "1.6.0"));
  out->push_back(Entry({"sum"}, Sum, [](const TypePtr& t) { return SumResultType(t); }, "Sum", "_FUNC_(expr) - Returns the sum calculated from values of a group.",
                       {{"SELECT _FUNC_(col) FROM VALUES (5), (10), (15) AS tab(col);", "30"}}, "1.0.0"));
  AggregateFunction avg = Entry({"avg", "mean"}, Simple("mean"), [](const TypePtr& t) { return AvgResultType(t); }, "Average",
                       "_FUNC_(expr) - Returns the mean calculated from values of a group.",
                       {{"SELECT _FUNC_(col) FROM VALUES (1), (2), (3) AS tab(col);", "2.0"}}, "1.0.0");
  avg.adjust_argument = [](const TypePtr& t, arrow::compute::Expression* argument) { AvgResultType(t, argument); };
  out->push_back(std::move(avg));
  out->push_back(Entry({"min"}, Simple("min"), ArgumentType, "Min", "_FUNC_(expr) - Returns the minimum value of `expr`.",
                       {{"SELECT _FUNC_(col) FROM VALUES (10), (-1), (20) AS tab(col);", "-1"}}, "1.0.0"));
  out->push_back(Entry({"max"}, Simple("max"), ArgumentType, "Max", "_FUNC_(expr) - Returns the maximum value of `expr`.",
                       {{"SELECT _FUNC_(col) FROM VALUES (10), (50), (20) AS tab(col);", "50"}}, "1.0.0"));
  out->push_back(Entry({"bool_or", "any", "some"}, Simple("any"), Boolean, "BoolOr",
                       "_FUNC_(expr) - Returns true if at least one value of `expr` is true.",
                       {{"SELECT _FUNC_(col) FROM VALUES (true), (false), (false) AS tab(col);", "true"}}, "3.0.0"));
  out->push_back(Entry({"bool_and", "every"}, Simple("all"), Boolean, "BoolAnd",
                       "_FUNC_(expr) - Returns true if all values of `expr` are true.",
                       {{"SELECT _FUNC_(col) FROM VALUES (true), (true), (true) AS tab(col);", "true"}}, "3.0.0"));
  out->push_back(Entry({"first"}, Simple("first"), ArgumentType, "First",
                       "_FUNC_(expr) - Returns the first value of `expr` for a group of rows, skipping null values.",
                       {{"SELECT _FUNC_(col) FROM VALUES (10), (5), (20) AS tab(col);", "10"}}, "2.0.0"));
  out->push_back(Entry({"last"}, Simple("last"), ArgumentType, "Last",
                       "_FUNC_(expr) - Returns the last value of `expr` for a group of rows, skipping null values.",
                       {{"SELECT _FUNC_(col) FROM VALUES (10), (5), (20) AS tab(col);", "20"}}, "2.0.0"));
  out->push_back(Entry({"stddev", "stddev_samp"}, Spread("stddev", false), Double, "StddevSamp",
                       "_FUNC_(expr) - Returns the sample standard deviation calculated from values of a group.",
                       {{"SELECT _FUNC_(col) FROM VALUES (1), (2), (3) AS tab(col);", "1.0"}}, "1.6.0"));
  out->push_back(Entry({"stddev_pop"}, Spread("stddev", true), Double, "StddevPop",
                       "_FUNC_(expr) - Returns the population standard deviation calculated from values of a group.",
                       {{"SELECT _FUNC_(col) FROM VALUES (1), (2), (3) AS tab(col);", "0.816496580927726"}}, "1.6.0"));
  out->push_back(Entry({"variance", "var_samp"}, Spread("variance", false), Double, "VarianceSamp",
                       "_FUNC_(expr) - Returns the sample variance calculated from values of a group.",
                       {{"SELECT _FUNC_(col) FROM VALUES (1), (2), (3) AS tab(col);", "1.0"}}, "1.6.0"));
  out->push_back(Entry({"var_pop"}, Spread("variance", true), Double, "VariancePop",
                       "_FUNC_(expr) - Returns the population variance calculated from values of a group.",
                       {{"SELECT _FUNC_(col) FROM VALUES (1), (2), (3) AS tab(col);", "0.6666666666666666"}}, "1.6.0"));
}

}  // namespace floe::sql::functions
