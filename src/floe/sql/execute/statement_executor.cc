#include "floe/sql/execute/statement_executor.h"

#include <arrow/table.h>

#include "floe/sql/bind/binder.h"
#include "floe/sql/execute/command_tags.h"
#include "floe/sql/execute/executors.h"
#include "floe/sql/parse/parse_error.h"
#include "floe/sql/execute/result_tables.h"
#include "floe/sql/execute/show_functions.h"
#include "floe/sql/execute/statement_stream.h"

namespace floe::sql {

Result<StatementResult> Session::Impl::Execute(const Statement& statement, const std::string& sql) {
  ARROW_RETURN_NOT_OK(cancel().Check());
  auto result = Dispatch(statement, sql);
  if (!result.ok()) return WhenCancelled(*cancel().flag(), result.status());
  if (result->command.empty()) result->command = CommandOf(statement);
  if (result->rows && !statement.As<SetConfig>()) {  // PostgreSQL's SET counts nothing
    result->rows_affected = result->rows->num_rows();
  } else if (!CountsWrittenRows(statement)) {
    result->rows_affected = -1;
  }
  return result;
}

namespace {

// Statements a transaction block cannot hold (they commit on their own), by the name its
// error gives them; null for the others.
const char* OutsideBlockOnly(const Statement& s) {
  if (s.As<CreateNamespace>()) return "CREATE NAMESPACE";
  if (s.As<DropNamespace>()) return "DROP NAMESPACE";
  if (s.As<sql::CreateTable>()) return "CREATE TABLE";
  if (s.As<DropTable>()) return "DROP TABLE";
  if (s.As<UndropTable>()) return "UNDROP TABLE";
  if (s.As<sql::AlterTable>()) return "ALTER TABLE";
  if (s.As<sql::Call>()) return "CALL";
  return nullptr;
}

}  // namespace

Status Session::Impl::CheckTransactionState(const Statement& statement) const {
  const TransactionBlock& block = state_.transaction;
  if (auto* t = statement.As<TransactionControl>()) {
    const bool ends_block = t->kind == TransactionControlKind::kCommit ||
                            t->kind == TransactionControlKind::kRollback ||
                            t->kind == TransactionControlKind::kRollbackToSavepoint;
    if (block.state() == TransactionBlock::State::kFailed && !ends_block) {
      return Status::Invalid(kAbortedTransactionMessage);
    }
    return Status::OK();
  }
  if (block.state() == TransactionBlock::State::kFailed) {
    return Status::Invalid(kAbortedTransactionMessage);
  }
  if (const char* what = OutsideBlockOnly(statement)) return block.CheckOutside(what);
  return Status::OK();
}

Result<StatementResult> Session::Impl::Dispatch(const Statement& statement, const std::string& sql) {
  ARROW_RETURN_NOT_OK(CheckTransactionState(statement));
  state_.provenance->statement = sql;
  Binder binder(state_, sql);
  ExecContext ctx{state_, binder, statement, sql};
  if (auto* q = statement.As<Query>()) {
    QueryPlanner planner = binder.Planner();
    ARROW_ASSIGN_OR_RAISE(auto rows, planner.Run(*q));
    return Rows(std::move(rows));
  }
  if (auto* s = statement.As<sql::Explain>()) return ExecuteExplain(ctx, *s);
  if (auto* s = statement.As<CreateNamespace>()) return ExecuteCreateNamespace(ctx, *s);
  if (auto* s = statement.As<DropNamespace>()) return ExecuteDropNamespace(ctx, *s);
  if (auto* s = statement.As<ShowNamespaces>()) return ExecuteShowNamespaces(ctx, *s);
  if (auto* s = statement.As<ShowTables>()) return ExecuteShowTables(ctx, *s);
  if (auto* s = statement.As<ShowProcedures>()) return ExecuteShowProcedures(ctx, *s);
  if (auto* s = statement.As<ShowDroppedTables>()) return ExecuteShowDroppedTables(ctx, *s);
  if (auto* s = statement.As<Use>()) return ExecuteUse(ctx, *s);
  if (auto* s = statement.As<CreateCatalogTag>()) return ExecuteCreateCatalogTag(ctx, *s);
  if (auto* s = statement.As<DropCatalogTag>()) return ExecuteDropCatalogTag(ctx, *s);
  if (statement.As<ShowCatalogTags>()) return ExecuteShowCatalogTags(ctx);
  if (auto* s = statement.As<sql::CreateTable>()) return ExecuteCreateTable(ctx, *s);
  if (auto* s = statement.As<DropTable>()) return ExecuteDropTable(ctx, *s);
  if (auto* s = statement.As<UndropTable>()) return ExecuteUndropTable(ctx, *s);
  if (auto* s = statement.As<sql::AlterTable>()) return ExecuteAlterTable(ctx, *s);
  if (auto* s = statement.As<sql::Describe>()) return ExecuteDescribe(ctx, *s);
  if (auto* s = statement.As<DescribeFunction>()) return RunDescribeFunction(*s, sql);
  if (auto* s = statement.As<ShowFunctions>()) return RunShowFunctions(*s);
  if (auto* s = statement.As<sql::ShowCreateTable>()) return ExecuteShowCreateTable(ctx, *s);
  if (auto* s = statement.As<ShowTblProperties>()) return ExecuteShowTblProperties(ctx, *s);
  if (auto* s = statement.As<sql::Insert>()) return ExecuteInsert(ctx, *s);
  if (auto* s = statement.As<sql::Delete>()) return ExecuteDelete(ctx, *s);
  if (auto* s = statement.As<sql::Update>()) return ExecuteUpdate(ctx, *s);
  if (auto* s = statement.As<sql::Merge>()) return ExecuteMerge(ctx, *s);
  if (auto* s = statement.As<sql::Call>()) return ExecuteCall(ctx, *s);
  if (auto* s = statement.As<SetConfig>()) return ExecuteSetConfig(ctx, *s);
  if (auto* s = statement.As<SetTimeZone>()) return ExecuteSetTimeZone(ctx, *s);
  if (auto* s = statement.As<Reset>()) return ExecuteReset(ctx, *s);
  if (auto* s = statement.As<TransactionControl>()) return ExecuteTransactionControl(ctx, *s);
  return ErrorAt(sql, statement.pos, "This statement is not supported yet");
}

Result<std::unique_ptr<StatementStream>> Session::Impl::Stream(std::shared_ptr<const Statement> statement,
                                                              const std::string& sql) {
  ARROW_RETURN_NOT_OK(cancel().Check());
  if (statement->As<Query>()) {
    ARROW_RETURN_NOT_OK(CheckTransactionState(*statement));
    auto stream = StreamQueryStatement(state_, statement, sql);
    if (!stream.ok()) return WhenCancelled(*cancel().flag(), stream.status());
    return stream;
  }
  ARROW_ASSIGN_OR_RAISE(StatementResult result, Execute(*statement, sql));
  result.statement = sql;
  return StreamResult(std::move(result), state_.cancel);
}

}  // namespace floe::sql
