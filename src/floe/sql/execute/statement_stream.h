#pragma once

// The StatementStreams a session hands out: a query's rows read from its running plan, and
// the rows (or nothing) of any other statement, already run, batch by batch.

#include <memory>
#include <string>

#include <arrow/type_fwd.h>

#include "floe/sql/parse/ast.h"
#include "floe/sql/bind/binder.h"
#include "floe/sql/session.h"
#include "floe/sql/session/session_state.h"

namespace floe::sql {

// Plans `statement` (a Query) and returns the stream that runs it as batches are read. The
// stream ends the statement (StatementCancel::End) when destroyed.
Result<std::unique_ptr<StatementStream>> StreamQueryStatement(
    SessionState& state, std::shared_ptr<const Statement> statement, const std::string& sql);

// A finished statement's result as a stream; ends the statement when destroyed.
std::unique_ptr<StatementStream> StreamResult(StatementResult result,
                                              std::shared_ptr<StatementCancel> cancel);

}  // namespace floe::sql
