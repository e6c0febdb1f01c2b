#pragma once

// Plans queries (AST) onto Arrow Acero: FROM items become sources and hash joins, WHERE a
// filter, GROUP BY and aggregates a hash aggregation, then projection, DISTINCT, set
// operations, ORDER BY and LIMIT/OFFSET.

#include <functional>
#include <map>
#include <set>
#include <vector>
#include <memory>
#include <string>

#include "floe/sql/ast.h"
#include "floe/sql/expression_binder.h"
#include "floe/sql/relation.h"

namespace floe::sql {

// What the query needs from a table it reads: the column names it mentions (lower case)
// and, when the table is the only FROM item, the WHERE conjuncts usable for pruning.
struct ScanHints {
  bool all_columns = true;
  std::set<std::string> columns;
  std::vector<const Expr*> conjuncts;
};

struct PlannerEnv {
  // Resolves a table reference (with its time-travel clause) to a relation whose columns
  // carry the table's qualifiers.
  std::function<Result<Rel>(const TableRef&, const ScanHints&)> resolve_table;
  std::string time_zone = "UTC";
  int64_t now_micros = 0;
  std::string sql;
  // Read only the columns a query mentions; off when replanning for a complete error message.
  bool pushdown = true;
};

class QueryPlanner {
 public:
  explicit QueryPlanner(PlannerEnv env) : env_(std::move(env)) {}

  Result<Rel> PlanQuery(const Query& query);
  // Plans and runs a query, returning its rows with their SQL names.
  Result<std::shared_ptr<arrow::Table>> Run(const Query& query);

  // Evaluates an expression that needs no input rows (VALUES items, procedure arguments).
  Result<std::shared_ptr<arrow::Scalar>> EvaluateConstant(const Expr& expr);

 private:
  Result<Rel> PlanBody(const Query& query, const std::vector<OrderItem>* order_by, Rel* pre_order);
  Result<Rel> PlanSelect(const Select& select, const std::vector<OrderItem>* order_by);
  Result<Rel> PlanRelation(const Relation& relation, const ScanHints& hints = ScanHints());
  Result<Rel> PlanJoin(const Join& join, const ScanHints& hints);
  Result<Rel> PlanValues(const Values& values);
  Result<Rel> PlanSetOperation(const SetOperation& op);
  Result<Rel> ApplyOrderLimit(Rel rel, const Query& query);
  ExprContext Context(const std::vector<Column>& columns,
                      const std::map<std::string, int>* computed = nullptr);

  PlannerEnv env_;
  std::vector<std::map<std::string, Rel>> ctes_;
};

}  // namespace floe::sql
