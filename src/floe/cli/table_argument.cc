#include "floe/cli/table_argument.h"

#include "floe/sql/parse/ast.h"

namespace floe::cli {

Result<TableIdentifier> ParseTableArgument(const sql::Session& session, const std::string& text) {
  ARROW_ASSIGN_OR_RAISE(TableIdentifier ident, TableIdentifier::Parse(text));
  if (ident.ns.levels.size() >= 2 && ident.ns.levels.front() == session.catalog()->name()) {
    ident.ns.levels.erase(ident.ns.levels.begin());
  }
  return ident;
}

Result<std::shared_ptr<table::Table>> LoadTableArgument(const sql::Session& session,
                                                        const std::string& text) {
  ARROW_ASSIGN_OR_RAISE(TableIdentifier ident, ParseTableArgument(session, text));
  auto loaded = table::Table::Load(session.catalog(), session.io(), ident);
  if (!loaded.ok() && IsNotFound(loaded.status())) {
    return NotFound("Table ", session.catalog()->name(), ".", ident.ToString(), " not found");
  }
  return loaded;
}

std::string SqlTableName(const sql::Session& session, const TableIdentifier& ident) {
  std::string out = sql::QuoteIdentifier(session.catalog()->name());
  for (const auto& level : ident.ns.levels) out += "." + sql::QuoteIdentifier(level);
  return out + "." + sql::QuoteIdentifier(ident.name);
}

std::string SystemProcedure(const table::Table& table, const std::string& name) {
  return StrCat("CALL ", table.catalog()->name(), ".system.", name);
}

}  // namespace floe::cli
