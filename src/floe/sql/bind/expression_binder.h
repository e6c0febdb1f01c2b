#pragma once

// Binds SQL expressions (AST) to Arrow compute expressions over a relation's columns,
// with Spark's typing rules: integer division yields double, string literals compared with
// dates or timestamps are read as such (in the session time zone), three-valued logic.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <arrow/compute/expression.h>

#include "floe/sql/parse/ast.h"
#include "floe/sql/plan/relation.h"

namespace floe::sql {

struct SessionState;

struct BoundExpr {
  arrow::compute::Expression expr;
  std::shared_ptr<arrow::DataType> type;
  std::string name;  // Spark's generated column name, e.g. "sum(amount)", "(a + b)"
};

// The row a correlated subquery runs for: the enclosing query's columns and that row's values,
// and the row of the query enclosing that one, if any.
struct OuterRow {
  const std::vector<Column>* columns = nullptr;
  std::vector<std::shared_ptr<arrow::Scalar>> values;
  const OuterRow* enclosing = nullptr;
};

struct ExprContext {
  const std::vector<Column>* columns = nullptr;
  // Expressions already computed below (GROUP BY keys and aggregates after an aggregation),
  // by their canonical SQL text, mapped to a column index.
  const std::map<std::string, int>* computed = nullptr;
  // Runs an uncorrelated subquery to completion.
  std::function<Result<std::shared_ptr<arrow::Table>>(const Query&)> run_subquery;
  std::string time_zone = "UTC";
  int64_t now_micros = 0;  // current_timestamp() of the statement
  std::string sql;         // the statement's text, for positioned errors
  // Set while describing a statement: a $n without a value binds as NULL, and a comparison
  // with one records the other side's type at [n-1]. Unset, such a $n is an error.
  std::vector<std::shared_ptr<arrow::DataType>>* parameter_types = nullptr;
  SessionState* session = nullptr;  // null where no session is at hand
  // Set while a correlated subquery runs for one row of its enclosing query: a column that
  // is not among `columns` is that row's value.
  const OuterRow* outer = nullptr;
};

Result<BoundExpr> PlanExpr(const Expr& expr, const ExprContext& ctx);

// Resolves a column reference against `columns`: -1 and a Spark-like error when unknown or
// ambiguous.
Result<int> ResolveColumn(const std::vector<Identifier>& parts, const std::vector<Column>& columns,
                          const std::string& sql, const SourcePos& pos, size_t* consumed = nullptr);

// The name Spark gives an unaliased select item.
std::string GeneratedName(const Expr& expr);

bool IsAggregateFunction(const std::string& lower_name);

// A timestamp string read in `zone` (an explicit offset or Z in the text wins), as
// microseconds since the epoch; a date string as days.
Result<int64_t> ParseTimestampMicros(const std::string& text, const std::string& zone);
Result<int32_t> ParseDateDays(const std::string& text);

// The common type of two values, as Spark widens them (nested types part by part, struct
// fields by position under the same names), or null when there is none.
std::shared_ptr<arrow::DataType> CommonType(const std::shared_ptr<arrow::DataType>& a,
                                            const std::shared_ptr<arrow::DataType>& b);

// Arrow type for a SQL data type (Spark's TIMESTAMP is timestamp[us, UTC]).
Result<std::shared_ptr<arrow::DataType>> ToArrowType(const DataType& type);


}  // namespace floe::sql
