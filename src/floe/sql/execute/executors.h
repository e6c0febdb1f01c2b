#pragma once

// Statement execution, one function per kind of statement, each in the file named after its
// area: execute_namespace.cc, execute_create_table.cc, execute_alter_table.cc,
// execute_insert.cc, execute_call.cc, execute_show.cc, execute_set.cc, execute_explain.cc.
// statement_executor.cc dispatches to them.

#include <memory>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/sql/parse/ast.h"
#include "floe/sql/bind/binder.h"
#include "floe/sql/session.h"
#include "floe/sql/session/session_state.h"
#include "floe/table/catalog_tags.h"

namespace floe::sql {

// What every executor gets: the session's state, the statement's binder and its text.
struct ExecContext {
  SessionState& state;
  Binder& binder;
  const Statement& statement;
  const std::string& sql;
};

// execute_namespace.cc
Result<StatementResult> ExecuteCreateNamespace(ExecContext& ctx, const CreateNamespace& c);
Result<StatementResult> ExecuteDropNamespace(ExecContext& ctx, const DropNamespace& d);
Result<StatementResult> ExecuteUse(ExecContext& ctx, const Use& u);
// execute_create_table.cc
Result<StatementResult> ExecuteCreateTable(ExecContext& ctx, const sql::CreateTable& create);
Result<StatementResult> ExecuteDropTable(ExecContext& ctx, const DropTable& d);
Result<StatementResult> ExecuteUndropTable(ExecContext& ctx, const UndropTable& u);
// execute_catalog_tag.cc
Result<StatementResult> ExecuteCreateCatalogTag(ExecContext& ctx, const CreateCatalogTag& c);
// The tag a CREATE CATALOG TAG or a COMMIT TAG names: its namespace bound (it must exist), its
// RETAIN as each tag ref's max age.
Result<table::NewCatalogTag> BindCatalogTag(ExecContext& ctx, const CreateCatalogTag& c);
Result<StatementResult> ExecuteDropCatalogTag(ExecContext& ctx, const DropCatalogTag& d);
Result<StatementResult> ExecuteShowCatalogTags(ExecContext& ctx);
// The rows CREATE and DROP CATALOG TAG return: table, snapshot_id, action.
std::shared_ptr<arrow::Schema> CatalogTagActionSchema();
// execute_alter_table.cc
Result<StatementResult> ExecuteAlterTable(ExecContext& ctx, const sql::AlterTable& alter);
// execute_insert.cc
Result<StatementResult> ExecuteInsert(ExecContext& ctx, const sql::Insert& insert);
// execute_delete.cc
Result<StatementResult> ExecuteDelete(ExecContext& ctx, const sql::Delete& del);
// execute_update.cc
Result<StatementResult> ExecuteUpdate(ExecContext& ctx, const sql::Update& update);
// execute_merge.cc
Result<StatementResult> ExecuteMerge(ExecContext& ctx, const sql::Merge& merge);
// A query's rows as a stream of batches, for writes that must not hold them all; `names`
// are the SQL names of its columns. Planning errors are those QueryPlanner::Run reports.
struct QueryStream {
  std::shared_ptr<arrow::RecordBatchReader> reader;
  std::vector<std::string> names;
};
Result<QueryStream> StreamQuery(QueryPlanner& planner, const Query& query);
// execute_call.cc
Result<StatementResult> ExecuteCall(ExecContext& ctx, const sql::Call& call);
// execute_show.cc
Result<StatementResult> ExecuteShowNamespaces(ExecContext& ctx, const ShowNamespaces& s);
Result<StatementResult> ExecuteShowTables(ExecContext& ctx, const ShowTables& s);
Result<StatementResult> ExecuteShowProcedures(ExecContext& ctx, const ShowProcedures& s);
Result<StatementResult> ExecuteShowDroppedTables(ExecContext& ctx, const ShowDroppedTables& s);
Result<StatementResult> ExecuteShowTblProperties(ExecContext& ctx, const ShowTblProperties& s);
Result<StatementResult> ExecuteDescribe(ExecContext& ctx, const sql::Describe& describe);
Result<StatementResult> ExecuteShowCreateTable(ExecContext& ctx, const sql::ShowCreateTable& show);
// execute_set.cc
Result<StatementResult> ExecuteSetConfig(ExecContext& ctx, const SetConfig& s);
Result<StatementResult> ExecuteSetTimeZone(ExecContext& ctx, const SetTimeZone& tz);
Result<StatementResult> ExecuteReset(ExecContext& ctx, const Reset& r);
Result<StatementResult> ExecuteTransactionControl(ExecContext& ctx, const TransactionControl& t);
// execute_explain.cc
Result<StatementResult> ExecuteExplain(ExecContext& ctx, const sql::Explain& explain);

}  // namespace floe::sql
