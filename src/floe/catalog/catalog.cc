#include "floe/catalog/catalog.h"

namespace floe {

Result<std::string> Catalog::DropTableEntry(const TableIdentifier& ident, DropRecord) {
  return DropTableEntry(ident);
}

Result<std::optional<DroppedTable>> Catalog::FindDroppedTable(const TableIdentifier&) {
  return std::optional<DroppedTable>();
}

Result<std::vector<DroppedTable>> Catalog::ListDroppedTables(const std::optional<Namespace>&) {
  return std::vector<DroppedTable>();
}

Status Catalog::UndropTableEntry(const DroppedTable& dropped) {
  return Status::NotImplemented("Cannot undrop table ", dropped.ident.ToString(), ": catalog ",
                                name(), " keeps no dropped tables");
}

}  // namespace floe
