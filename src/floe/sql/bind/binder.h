#pragma once

// The binder resolves what a statement names against the catalog: namespaces, tables, the
// branch/tag/snapshot selectors and metadata tables after a table's name, and time travel
// (`VERSION AS OF`, `TIMESTAMP AS OF`, spark.wap.branch). Name errors, with `Did you mean`,
// come from here. Column, function and type binding happen in the expression binder
// (expression_binder.h), which reads the function registry.

#include <memory>
#include <string>
#include <vector>

#include "floe/scan/scan_filter.h"
#include "floe/sql/parse/ast.h"
#include "floe/sql/postgres/pg_catalog_tables.h"
#include "floe/sql/plan/query_planner.h"
#include "floe/sql/bind/read_point_in_time.h"
#include "floe/sql/session/session_state.h"
#include "floe/table/table.h"

namespace floe::sql {

// Session setting: "false" makes every aggregate read the data files, even where the
// table's metadata would answer it.
inline constexpr char kMetadataAnswersKey[] = "floe.metadata-answers.enabled";

// A table name resolved against the catalog: the table and what follows it (a metadata
// table, or Spark's branch_/tag_/snapshot_id_/at_timestamp_ suffix).
struct ResolvedName {
  TableIdentifier ident;
  std::string suffix;  // lower-cased; empty for the table itself
  std::vector<std::string> qualifier;  // lower-cased name parts the columns answer to
};

class Binder {
 public:
  // `sql` is the statement's text, for error positions.
  Binder(SessionState& state, std::string sql) : state_(state), sql_(std::move(sql)) {}

  // A planner whose table references are bound here.
  QueryPlanner Planner();
  // Describing a statement: planners made from now on bind a $n without a value as NULL and
  // note the types comparisons give it (ExprContext::parameter_types).
  void DescribeParameters(std::vector<std::shared_ptr<arrow::DataType>>* types) { parameter_types_ = types; }

  Result<Namespace> BindNamespace(const ObjectName& name);
  // A namespace that must exist: `SCHEMA_NOT_FOUND` otherwise.
  Result<Namespace> BindExistingNamespace(const ObjectName& name);
  // A table name as written -> identifier (+ suffix when `allow_suffix`).
  Result<ResolvedName> BindName(const ObjectName& name, bool allow_suffix);
  // The table a name denotes; `TABLE_OR_VIEW_NOT_FOUND` when it does not exist.
  Result<std::shared_ptr<table::Table>> LoadTable(const ObjectName& name);
  // A table reference in FROM (with its time-travel clause) -> a relation whose columns carry
  // the table's qualifiers: a scan of the chosen snapshot, or a metadata table.
  Result<Rel> BindTableRef(const TableRef& ref, const ScanHints& hints);
  // From now on, `table` (as loaded) answers every reference to its identifier, so that all
  // reads of a statement that writes it see the same snapshot and schema.
  void PinTable(std::shared_ptr<table::Table> table);

  // Which snapshot each table read resolved to (EXPLAIN prints these).
  const std::vector<std::string>& resolution_notes() const { return resolution_notes_; }
  // What planning each table scan read and skipped (EXPLAIN prints these).
  const std::vector<std::string>& scan_notes() const { return scan_notes_; }
  const std::string& sql() const { return sql_; }

  // WHERE conjuncts of the form `column op constant` as scan predicates, each stated exactly
  // in its column's type; other conjuncts give none.
  std::vector<scan::ColumnPredicate> PushablePredicates(const std::vector<const Expr*>& conjuncts,
                                                        const spec::Schema& schema);

 private:
  Rel WithQualifiers(Rel rel, const ResolvedName& resolved) const;
  // [catalog.]system.audit_log, the catalog's audit log; nullopt for any other name.
  Result<std::optional<Rel>> BindSystemRelation(const TableRef& ref);

  Result<std::shared_ptr<table::Table>> LoadIdent(const TableIdentifier& ident);
  // floe.read.as-of / floe.read.run-manifest for a plain read of `table` (read_point_in_time.h).
  Result<std::optional<SessionReadPoint>> SessionReadPointFor(const table::Table& table,
                                                              bool identifier_travel,
                                                              const std::string& suffix) const;

  SessionState& state_;
  std::string sql_;
  std::vector<std::shared_ptr<table::Table>> pinned_;
  std::vector<std::string> resolution_notes_;
  std::vector<std::string> scan_notes_;
  std::vector<std::shared_ptr<arrow::DataType>>* parameter_types_ = nullptr;
  PgRelationCache pg_relations_;  // catalog relations read by this statement
};

}  // namespace floe::sql
