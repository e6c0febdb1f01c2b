#pragma once

// The SQL functions floe knows, each declared once: scalar functions, aggregates and table
// functions, with the text DESCRIBE FUNCTION shows. Binding, IsAggregateFunction, SHOW
// FUNCTIONS and the unknown-function suggestion all read these lists. The entries live in
// src/floe/sql/functions/, one file per area.

#include <cstddef>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/compute/api_aggregate.h>
#include <arrow/compute/expression.h>

#include "floe/sql/parse/ast.h"
#include "floe/sql/bind/expression_binder.h"

namespace floe::sql {

using TypePtr = std::shared_ptr<arrow::DataType>;

// One line of the examples DESCRIBE FUNCTION EXTENDED prints.
struct FunctionExample {
  std::string sql;     // "SELECT _FUNC_(-1);"
  std::string result;  // "1"; lines separated by '\n'
};

// What DESCRIBE FUNCTION shows; `_FUNC_` stands for the name the function was called by.
struct FunctionDoc {
  std::string class_name;  // Spark's expression class
  std::string usage;       // "_FUNC_(expr) - Returns ..."
  std::string arguments;   // Spark's "Arguments:" block, or empty
  std::vector<FunctionExample> examples;
  std::string since;       // the Spark version that added it

  std::string Usage(const std::string& name) const;
  // Spark's extended description: arguments, examples and the version, each block
  // introduced by a newline and indented by four spaces.
  std::string Extended(const std::string& name) const;
};

// How many arguments a function takes.
struct Arity {
  static constexpr size_t kAny = std::numeric_limits<size_t>::max();
  size_t min = 0;
  size_t max = kAny;
};

// A scalar call while it is bound: the call as written, its bound arguments, and the
// planner's typing helpers (Spark's widening, casts, the session's wall clock).
class CallBinder {
 public:
  CallBinder(const FunctionCall& call, const Expr& expr, std::string name, std::string column_name,
             std::vector<BoundExpr> args, const ExprContext& ctx)
      : call(call), expr(expr), name(std::move(name)), column_name(std::move(column_name)),
        args(std::move(args)), ctx(ctx) {}
  virtual ~CallBinder() = default;

  const FunctionCall& call;
  const Expr& expr;               // the whole call, for positions
  const std::string name;         // lower case, as called (an alias stays an alias)
  const std::string column_name;  // Spark's generated name for the result
  std::vector<BoundExpr> args;
  const ExprContext& ctx;
  TypePtr result_type;  // set by the entry's return-type rule before its implementation runs

  virtual Status Error(const SourcePos& pos, const std::string& message) const = 0;
  virtual TypePtr CommonType(const TypePtr& a, const TypePtr& b) const = 0;
  virtual arrow::compute::Expression CastTo(arrow::compute::Expression e, const TypePtr& from,
                                            const TypePtr& to) const = 0;
  // Brings arguments i and j to a common type, reading a string literal facing a date or
  // timestamp as one.
  virtual Status Unify(BoundExpr* a, BoundExpr* b, size_t i, size_t j) = 0;
  virtual Result<BoundExpr> Coerce(BoundExpr v, const TypePtr& to) = 0;
  virtual BoundExpr ToStringExpr(BoundExpr v) const = 0;
  // A timestamp as wall-clock time in the session zone.
  virtual arrow::compute::Expression Local(const BoundExpr& v) const = 0;
  virtual std::string SqlTypeName(const arrow::DataType& type) const = 0;

  // The result, named as Spark names the call.
  BoundExpr Make(arrow::compute::Expression e) const { return BoundExpr{std::move(e), result_type, column_name}; }
  // Argument i when it is written as a string literal.
  const Literal* StringLiteralArg(size_t i) const;
  Status WrongArgCount(size_t lo, size_t hi) const;
};

using ReturnTypeRule = std::function<floe::Result<TypePtr>(CallBinder&)>;
using ScalarImpl = std::function<floe::Result<BoundExpr>(CallBinder&)>;

struct ScalarFunction {
  std::vector<std::string> names;  // the first is the name, the rest are aliases
  Arity arity;                     // checked before the rules run
  ReturnTypeRule return_type;      // Spark's result type, from the bound arguments
  ScalarImpl impl;                 // the Arrow expression, given the result type
  FunctionDoc doc;
};

// An aggregate call as the planner sees it.
struct AggregateCall {
  bool star = false;  // count(*)
  bool distinct = false;
  bool has_argument = false;
  TypePtr argument_type;
};

// The Arrow aggregate that computes it ("sum" runs as "sum" or "hash_sum" when grouped).
struct AggregateKernel {
  std::string function;
  std::shared_ptr<arrow::compute::FunctionOptions> options;
  bool takes_argument = true;
};

struct AggregateFunction {
  std::vector<std::string> names;
  std::function<floe::Result<AggregateKernel>(const AggregateCall&)> kernel;
  std::function<TypePtr(const TypePtr& argument_type)> result_type;
  // Rewrites the argument before it is aggregated (count_if counts true as 1); may be empty.
  std::function<BoundExpr(BoundExpr)> prepare;
  // Adjusts the argument once its type is known (avg carries a decimal to its result's scale,
  // so the mean rounds once); may be empty.
  std::function<void(const TypePtr& argument_type, arrow::compute::Expression* argument)> adjust_argument;
  FunctionDoc doc;
};

// A function in FROM, producing a stream of rows from constant arguments.
struct TableFunction {
  std::vector<std::string> names;
  std::function<floe::Result<std::shared_ptr<arrow::RecordBatchReader>>(const std::vector<std::shared_ptr<arrow::Scalar>>&)>
      impl;
  FunctionDoc doc;
};

// Lookup by lower-case name or alias; null when unknown.
const ScalarFunction* FindScalarFunction(const std::string& lower_name);
const AggregateFunction* FindAggregateFunction(const std::string& lower_name);
const TableFunction* FindTableFunction(const std::string& lower_name);

// Every entry, for SHOW FUNCTIONS and the registry's own checks.
const std::vector<ScalarFunction>& ScalarFunctions();
const std::vector<AggregateFunction>& AggregateFunctions();
const std::vector<TableFunction>& TableFunctions();

// Every registered name and alias, sorted.
std::vector<std::string> AllFunctionNames();

// list[index] with an index computed per row (collection_functions.cc): the element at the
// 0-based `index` (an int64), NULL where the list or index is NULL or the index is out of
// range.
floe::Result<arrow::compute::Expression> ListElementAt(arrow::compute::Expression list,
                                                       arrow::compute::Expression index);
// The doc of a name of any kind; null when unknown.
const FunctionDoc* FindFunctionDoc(const std::string& lower_name);

// Binds a call to a scalar entry: arity, return type, implementation.
floe::Result<BoundExpr> BindScalarFunction(const ScalarFunction& fn, CallBinder& binder);

// Spark's unknown-function message for `name` as written, with the closest registered name.
std::string UnresolvedRoutineMessage(const std::string& name);

// Spark's type name in catalog form ("int", "array<string>", "struct<a:int>").
std::string SparkTypeName(const arrow::DataType& type);

// The entries of each area (src/floe/sql/functions/*.cc).
namespace functions {
void AddStringFunctions(std::vector<ScalarFunction>* out);
void AddMathFunctions(std::vector<ScalarFunction>* out);
void AddDatetimeFunctions(std::vector<ScalarFunction>* out);
void AddConditionalFunctions(std::vector<ScalarFunction>* out);
void AddCollectionFunctions(std::vector<ScalarFunction>* out);
void AddPgFunctions(std::vector<ScalarFunction>* out);  // pg_functions.cc
void AddAggregateFunctions(std::vector<AggregateFunction>* out);
void AddTableFunctions(std::vector<TableFunction>* out);
}  // namespace functions

}  // namespace floe::sql
