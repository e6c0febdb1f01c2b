#pragma once

// Plans queries (AST) onto Arrow Acero: FROM items become sources and hash joins, WHERE a
// filter, GROUP BY and aggregates a hash aggregation, then projection, DISTINCT, set
// operations, ORDER BY and LIMIT/OFFSET.

#include <functional>
#include <map>
#include <set>
#include <vector>
#include <memory>
#include <optional>
#include <string>

#include "floe/sql/parse/ast.h"
#include "floe/sql/bind/expression_binder.h"
#include "floe/sql/plan/relation.h"
#include "floe/sql/plan/spill/spill_operator.h"
#include "floe/table/table.h"

namespace floe::sql {

// What the query needs from a table it reads: the column names it mentions (lower case)
// and, when the table is the only FROM item, the WHERE conjuncts usable for pruning.
struct ScanHints {
  bool all_columns = true;
  std::set<std::string> columns;
  std::vector<const Expr*> conjuncts;
  // The query aggregates or sorts what it reads, so rows may arrive in any order.
  bool any_order = false;
};

struct PlannerEnv {
  // Resolves a table reference (with its time-travel clause) to a relation whose columns
  // carry the table's qualifiers.
  std::function<Result<Rel>(const TableRef&, const ScanHints&)> resolve_table;
  // Loads the table a name denotes (table functions that take a table's name as a string).
  std::function<Result<std::shared_ptr<table::Table>>(const ObjectName&)> load_table;
  std::string time_zone = "UTC";
  int64_t now_micros = 0;
  std::string sql;
  // Read only the columns a query mentions; off when replanning for a complete error message.
  bool pushdown = true;
  // Answer count(*) and min/max from manifests where they decide them exactly.
  bool metadata_answers = true;
  // See ExprContext::parameter_types.
  std::vector<std::shared_ptr<arrow::DataType>>* parameter_types = nullptr;
  // The session, for functions that read it (current_schema(), pg_get_userbyid(), ...).
  SessionState* session = nullptr;
  // True when a FROM item is a PostgreSQL catalog relation without rows: a query that
  // inner-joins one has no rows, whatever it would compute (pg_empty_catalog_queries.cc).
  std::function<bool(const TableRef&)> empty_catalog_relation;
};

// Whether a FROM item reads only catalog relations (by name: pg_catalog.X, information_schema.X,
// pg_X; the planner decides what the names are): only their queries are worth a second run
// (postgres/pg_empty_catalog_queries.cc, plan/correlated_subqueries.cc).
bool ReadsOnlyCatalog(const Relation& relation);

class QueryPlanner {
 public:
  explicit QueryPlanner(PlannerEnv env) : env_(std::move(env)) {}

  Result<Rel> PlanQuery(const Query& query);
  // Plans and runs a query, returning its rows with their SQL names.
  Result<std::shared_ptr<arrow::Table>> Run(const Query& query);

  // Evaluates an expression that needs no input rows (VALUES items, procedure arguments).
  Result<std::shared_ptr<arrow::Scalar>> EvaluateConstant(const Expr& expr);

  // How the plan answers what it can without reading rows (EXPLAIN prints these).
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  Result<Rel> PlanQueryAsWritten(const Query& query);
  // When `query` cannot be planned but reads an empty catalog relation where it takes no
  // rows from it, its empty result, typed text; else `failure`.
  Result<Rel> PlanOverEmptyCatalogRelation(const Query& query, Status failure);
  Result<Rel> PlanBody(const Query& query, const std::vector<OrderItem>* order_by, Rel* pre_order);
  Result<Rel> PlanSelect(const Select& select, const std::vector<OrderItem>* order_by);
  // For a catalog query that cannot be planned whole: runs `input` (the SELECT's FROM and
  // WHERE), then each subquery of the SELECT list once per row with that row's values for the
  // columns it takes from outside (correlated_subqueries.cc), adding a column of the results
  // named in `computed` by the subquery's SQL. False when the list has no subqueries.
  Result<bool> ApplyCorrelatedSubqueries(const Select& select, Rel* input, std::map<std::string, int>* computed);
  Result<std::shared_ptr<arrow::Scalar>> SubqueryValue(const Expr& subquery);
  Result<Rel> PlanRelation(const Relation& relation, const ScanHints& hints = ScanHints());
  Result<Rel> PlanJoin(const Join& join, const ScanHints& hints);
  Result<Rel> PlanValues(const Values& values);
  Result<Rel> PlanSetOperation(const SetOperation& op);
  Result<Rel> ApplyOrderLimit(Rel rel, const Query& query);
  // `scope` with one more column per window function call of `calls` (its canonical SQL
  // in `computed` names the column); `aggregated` when `computed` already holds the group
  // keys and aggregates the calls may use.
  Result<Rel> PlanWindows(Rel scope, const std::vector<const Expr*>& calls, bool aggregated,
                          std::map<std::string, int>* computed);
  ExprContext Context(const std::vector<Column>& columns,
                      const std::map<std::string, int>* computed = nullptr);

  // One row of aggregate values from a table's metadata (named and typed as the aggregation
  // would produce them), or nullopt for the normal plan.
  Result<std::optional<Rel>> AggregatesFromMetadata(const TableFacts& facts, const sql::Select& select,
                                                     const std::vector<const Expr*>& where,
                                                     const std::vector<Column>& input_columns,
                                                     const std::vector<const FunctionCall*>& calls,
                                                     const std::vector<std::shared_ptr<arrow::DataType>>& arg_types,
                                                     const std::vector<Column>& columns,
                                                     const std::vector<std::shared_ptr<arrow::DataType>>& result_types);

  // How this statement's operators spill: its pool, cancel flag and spill directory.
  SpillEnv Spill();

  PlannerEnv env_;
  // One spill directory for every operator of the statement, made when one first spills.
  std::shared_ptr<SpillSpace> spill_space_;
  // A WITH query planned once; a plan's sources can feed one consumer, so every reference
  // after the first plans the query again.
  struct PlannedCte {
    Rel rel;
    const Cte* definition = nullptr;
    bool used = false;
    // The WITH queries visible where this one is defined, to plan it again among them.
    std::shared_ptr<std::vector<std::map<std::string, PlannedCte>>> scope;
  };
  Result<Rel> PlanCte(const Cte& cte);

  std::vector<std::map<std::string, PlannedCte>> ctes_;
  std::vector<std::string> notes_;
  // Set while a query is planned again with its subqueries run row by row.
  bool apply_subqueries_ = false;
  // The enclosing row while a correlated subquery runs for it.
  const OuterRow* outer_ = nullptr;
};

}  // namespace floe::sql
