#pragma once

// The table a subcommand names on its command line: "db.t", or "<catalog>.db.t" as SQL
// names it.

#include <memory>
#include <string>

#include "floe/catalog/catalog.h"
#include "floe/sql/session.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::cli {

// "lakehouse.db.t" -> db.t when the session's catalog is lakehouse.
Result<TableIdentifier> ParseTableArgument(const sql::Session& session, const std::string& text);

// Loads the table; an unknown one fails with `Table <catalog>.<ns>.<name> not found`.
Result<std::shared_ptr<table::Table>> LoadTableArgument(const sql::Session& session,
                                                        const std::string& text);

// The table's name for SQL text, each part quoted only when it must be:
// lakehouse.db.t, lakehouse.`my db`.t.
std::string SqlTableName(const sql::Session& session, const TableIdentifier& ident);

// "CALL <catalog>.system.<name>", the start of a procedure call on `table`.
std::string SystemProcedure(const table::Table& table, const std::string& name);

}  // namespace floe::cli
