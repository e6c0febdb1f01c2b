// BEGIN, COMMIT, ROLLBACK and savepoints: the session's TransactionBlock, with PostgreSQL's
// answers (a warning, not an error, for a BEGIN inside a block or a COMMIT outside one).

#include "floe/sql/execute/executors.h"
#include "floe/sql/execute/result_tables.h"
#include "floe/sql/parse/parse_error.h"

namespace floe::sql {

namespace {

StatementResult Warning(const std::string& text) { return Message("Warning: " + text); }

StatementResult Tagged(StatementResult result, std::string command) {
  result.command = std::move(command);
  return result;
}

}  // namespace

Result<StatementResult> ExecuteTransactionControl(ExecContext& ctx, const TransactionControl& t) {
  TransactionBlock& block = ctx.state.transaction;
  switch (t.kind) {
    case TransactionControlKind::kBegin:
      if (!block.Begin().ok()) return Tagged(Warning(kTransactionInProgressMessage), "BEGIN");
      return Tagged(Message(""), "BEGIN");
    case TransactionControlKind::kCommit: {
      if (!block.active()) return Tagged(Warning(kNoTransactionMessage), "COMMIT");
      bool rolled_back = false;
      if (t.tag && block.state() == TransactionBlock::State::kOpen) {
        auto tag = BindCatalogTag(ctx, *t.tag);
        if (!tag.ok()) {
          block.Rollback();  // a COMMIT that fails ends the block, as in PostgreSQL
          return tag.status();
        }
        Status committed = block.Commit(&rolled_back, &*tag);
        if (!committed.ok()) return ErrorAt(ctx.sql, t.tag->name.pos, committed);
      } else {
        ARROW_RETURN_NOT_OK(block.Commit(&rolled_back));
      }
      return Tagged(Message(""), rolled_back ? "ROLLBACK" : "COMMIT");
    }
    case TransactionControlKind::kRollback:
      if (!block.active()) return Tagged(Warning(kNoTransactionMessage), "ROLLBACK");
      block.Rollback();
      return Tagged(Message(""), "ROLLBACK");
    case TransactionControlKind::kSavepoint:
      ARROW_RETURN_NOT_OK(block.Savepoint(t.savepoint));
      return Tagged(Message(""), "SAVEPOINT");
    case TransactionControlKind::kRelease:
      ARROW_RETURN_NOT_OK(block.Release(t.savepoint));
      return Tagged(Message(""), "RELEASE");
    case TransactionControlKind::kRollbackToSavepoint:
      ARROW_RETURN_NOT_OK(block.RollbackTo(t.savepoint));
      return Tagged(Message(""), "ROLLBACK");
    case TransactionControlKind::kSetTransaction:
      return Tagged(Message(""), "SET");
  }
  return Message("");
}

}  // namespace floe::sql
