#include "floe/catalog/catalog.h"

namespace floe {

Result<CatalogTable> Catalog::LoadTable(const TableIdentifier& ident) {
  CatalogTable table;
  ARROW_ASSIGN_OR_RAISE(table.metadata_location, LoadMetadataLocation(ident));
  return table;
}

Result<CatalogTable> Catalog::CommitTable(const TableIdentifier& ident, const spec::TableMetadata*,
                                          const spec::TableMetadata&) {
  return Status::NotImplemented("Catalog ", name(), " commits ", ident.ToString(),
                                " by its metadata location, not by request");
}

Status Catalog::CommitTables(const std::vector<TableCommit>&) {
  return Status::NotImplemented("Catalog ", name(), " cannot commit several tables as one request");
}

Result<std::string> Catalog::NewTableLocation(const TableIdentifier& ident) {
  if (warehouse().empty()) {
    return ValidationError("Cannot create table ", ident.ToString(), ": catalog ", name(),
                           " has no warehouse; give the table a LOCATION");
  }
  return DefaultTableLocation(ident);
}

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

Status Catalog::SwapMetadataLocation(const TableIdentifier& ident,
                                     const std::string& expected_location,
                                     const std::string& new_location, const AuditRecord&) {
  return SwapMetadataLocation(ident, expected_location, new_location);
}

Status Catalog::CreateTableEntry(const TableIdentifier& ident,
                                 const std::string& metadata_location, const AuditRecord&) {
  return CreateTableEntry(ident, metadata_location);
}

Status Catalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to,
                            const AuditRecord&) {
  return RenameTable(from, to);
}

Result<std::string> Catalog::DropTableEntry(const TableIdentifier& ident, DropRecord drop,
                                            const AuditRecord&) {
  return DropTableEntry(ident, drop);
}

Status Catalog::UndropTableEntry(const DroppedTable& dropped, const AuditRecord&) {
  return UndropTableEntry(dropped);
}

Status Catalog::RecordAuditEntry(const TableIdentifier&, const std::string&, const AuditRecord&) {
  return Status::OK();
}

Result<std::vector<AuditEntry>> Catalog::ReadAuditLog(const AuditQuery&) {
  return std::vector<AuditEntry>{};
}

Status Catalog::ClassifyAuditEntry(int64_t, const AuditRecord&) { return Status::OK(); }

Result<AuditTriggerState> Catalog::AuditTrigger() {
  return AuditTriggerState{false, false, StrCat("catalog ", name(), " keeps no audit log")};
}

Status Catalog::InstallAuditTrigger() {
  return Status::NotImplemented("Catalog ", name(), " keeps no audit log");
}

Status Catalog::RemoveAuditTrigger() {
  return Status::NotImplemented("Catalog ", name(), " keeps no audit log");
}

Status Catalog::SwapMetadataLocations(const std::vector<TableSwap>& swaps,
                                      const CatalogTagChange* catalog_tag) {
  if (catalog_tag) {
    return Status::NotImplemented("Catalog ", name(), " keeps no record of catalog tags");
  }
  if (swaps.size() == 1 && !swaps[0].expected_location.empty()) {
    return SwapMetadataLocation(swaps[0].ident, swaps[0].expected_location, swaps[0].new_location,
                                swaps[0].record);
  }
  return Status::NotImplemented("Catalog ", name(), " cannot commit several tables at once");
}

Result<std::optional<CatalogTag>> Catalog::LoadCatalogTag(const std::string&) {
  return std::optional<CatalogTag>();
}

Result<std::vector<CatalogTag>> Catalog::ListCatalogTags() { return std::vector<CatalogTag>{}; }

Result<std::vector<Catalog::KeyedChange>> Catalog::FindIdempotencyKey(const std::string&,
                                                                      int64_t) {
  return std::vector<KeyedChange>{};
}

}  // namespace floe
