#include "floe/sql/execute/command_tags.h"

namespace floe::sql {

std::string CommandOf(const Statement& s) {
  if (s.As<Query>()) return "SELECT";
  if (s.As<Explain>()) return "EXPLAIN";
  if (s.As<CreateNamespace>()) return "CREATE SCHEMA";
  if (s.As<DropNamespace>()) return "DROP SCHEMA";
  if (s.As<ShowNamespaces>() || s.As<ShowTables>() || s.As<ShowProcedures>() ||
      s.As<ShowDroppedTables>() || s.As<ShowCreateTable>() || s.As<ShowTblProperties>() ||
      s.As<ShowFunctions>() || s.As<ShowCatalogTags>()) {
    return "SHOW";
  }
  if (s.As<Use>()) return "USE";
  if (s.As<CreateTable>()) return "CREATE TABLE";
  if (s.As<DropTable>()) return "DROP TABLE";
  if (s.As<UndropTable>()) return "UNDROP TABLE";
  if (s.As<CreateCatalogTag>()) return "CREATE CATALOG TAG";
  if (s.As<DropCatalogTag>()) return "DROP CATALOG TAG";
  if (s.As<AlterTable>()) return "ALTER TABLE";
  if (s.As<Describe>() || s.As<DescribeFunction>()) return "DESCRIBE";
  if (s.As<Insert>()) return "INSERT";
  if (s.As<Delete>()) return "DELETE";
  if (s.As<Update>()) return "UPDATE";
  if (s.As<Merge>()) return "MERGE";
  if (s.As<Call>()) return "CALL";
  if (s.As<SetConfig>() || s.As<SetTimeZone>()) return "SET";
  if (s.As<Reset>()) return "RESET";
  return "UNKNOWN";
}

bool CountsWrittenRows(const Statement& s) {
  return s.As<Insert>() || s.As<Delete>() || s.As<Update>() || s.As<Merge>();
}

bool ReturnsRows(const Statement& s) {
  if (s.As<Query>() || s.As<Explain>() || s.As<Describe>() || s.As<DescribeFunction>() ||
      s.As<Call>())
    return true;
  if (s.As<SetConfig>() || s.As<CreateCatalogTag>() || s.As<DropCatalogTag>()) return true;
  return CommandOf(s) == "SHOW";
}

}  // namespace floe::sql
