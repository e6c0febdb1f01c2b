#pragma once

// The PostgreSQL command kind of each statement ("SELECT", "INSERT", "CREATE TABLE", ...), as
// StatementResult::command and StatementStream::command report it, and whether the kind
// counts rows: those that return rows count them, INSERT/UPDATE/DELETE/MERGE count the rows
// they wrote, and the rest have no count (-1).

#include <string>

#include "floe/sql/parse/ast.h"

namespace floe::sql {

std::string CommandOf(const Statement& statement);

// Kinds whose count is the number of rows written (the executor reports it).
bool CountsWrittenRows(const Statement& statement);

// Kinds that return rows when they run (queries, SHOW, DESCRIBE, EXPLAIN, CALL, SET [key]).
bool ReturnsRows(const Statement& statement);

}  // namespace floe::sql
