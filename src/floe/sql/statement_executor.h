#pragma once

// Session::Impl: the session's state and the execution of each kind of statement.

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "floe/scan/scan_filter.h"
#include "floe/sql/ast.h"
#include "floe/sql/query_planner.h"
#include "floe/sql/session.h"
#include "floe/table/table.h"
#include "floe/table/table_catalog.h"

namespace floe::sql {

// A table name resolved against the catalog: the table and what follows it (a metadata
// table, or Spark's branch_/tag_/snapshot_id_/at_timestamp_ suffix).
struct ResolvedName {
  TableIdentifier ident;
  std::string suffix;  // lower-cased; empty for the table itself
  std::vector<std::string> qualifier;  // lower-cased name parts the columns answer to
};

class Session::Impl {
 public:
  Impl(std::shared_ptr<Catalog> catalog, std::shared_ptr<FileIO> io);

  Result<StatementResult> Execute(const Statement& statement, const std::string& sql);

  std::string Setting(const std::string& key, const std::string& fallback) const;
  Status SetSetting(const std::string& key, const std::string& value);
  const std::shared_ptr<Catalog>& catalog() const { return catalog_; }
  const std::shared_ptr<FileIO>& io() const { return io_; }

 private:
  QueryPlanner Planner(const std::string& sql);
  Result<Rel> ResolveTableRef(const TableRef& ref, const ScanHints& hints, const std::string& sql);
  Rel WithQualifiers(Rel rel, const ResolvedName& resolved) const;
  // WHERE conjuncts of the form `column op constant` as scan predicates (pruning only).
  std::vector<scan::ColumnPredicate> PushablePredicates(const std::vector<const Expr*>& conjuncts,
                                                        const spec::Schema& schema, const std::string& sql);
  // A table name as written -> identifier (+ suffix when `allow_suffix`).
  Result<ResolvedName> ResolveName(const ObjectName& name, bool allow_suffix);
  Result<Namespace> ResolveNamespace(const ObjectName& name);
  Result<std::shared_ptr<table::Table>> LoadTable(const ObjectName& name, const std::string& sql);
  std::string TimeZone() const;

  Result<StatementResult> RunQuery(const Query& query, const std::string& sql);
  Result<StatementResult> CreateTable(const sql::CreateTable& create, const std::string& sql);
  Result<StatementResult> Insert(const sql::Insert& insert, const std::string& sql);
  Result<StatementResult> AlterTable(const sql::AlterTable& alter, const std::string& sql);
  Result<StatementResult> Describe(const sql::Describe& describe, const std::string& sql);
  Result<StatementResult> ShowCreateTable(const sql::ShowCreateTable& show, const std::string& sql);
  Result<StatementResult> Call(const sql::Call& call, const std::string& sql);
  Result<StatementResult> Explain(const sql::Explain& explain, const std::string& sql);

  std::shared_ptr<Catalog> catalog_;
  std::shared_ptr<FileIO> io_;
  table::TableCatalog tables_;
  Namespace current_namespace_;
  std::map<std::string, std::string> settings_;
  // Notes the planner leaves for EXPLAIN (which snapshot each table read resolved to).
  std::vector<std::string> resolution_notes_;
};

}  // namespace floe::sql
