#pragma once

// A commit of several tables as one: each table's requirements are checked against its
// current metadata and its updates applied through TableMetadataBuilder, a new metadata file
// written for each, then every catalog pointer swapped in one catalog transaction. All the
// tables move or none does.

#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/catalog/table_identifier.h"
#include "floe/table/metadata_update.h"
#include "floe/table/table_catalog.h"
#include "floe/util/status.h"

namespace floe::table {

struct TableChange {
  TableIdentifier ident;
  std::vector<UpdateRequirement> requirements;
  std::vector<MetadataUpdate> updates;
};

// Errors: NotFound "Table does not exist: a.t" (a change of a missing table that does not
// assert-create it), Invalid for two changes of one table, CommitConflict for a requirement
// that does not hold, Validation for an update a table refuses (protection rules included),
// CommitStateUnknown when the catalog cannot say whether the transaction committed. When
// another writer moves a table between the read and the swap, the whole commit is tried again
// from fresh metadata (commit.retry.* of Iceberg's defaults), re-checking the requirements.
// A failed attempt removes the metadata files it wrote.
Status CommitTableChanges(TableCatalog& tables, const std::vector<TableChange>& changes);

// What a commit of several tables also carries.
struct TableChangesOptions {
  // Set on every table's audit record (AuditRecord::transaction_id), and `audit_detail` on
  // those that have no detail of their own.
  std::string transaction_id;
  std::string audit_detail;
  // Made to the catalog's record of catalog tags in the same catalog transaction (the
  // catalog must KeepsCatalogTags(); a catalog that commits by request refuses it), even
  // when no table changes.
  const CatalogTagChange* catalog_tag = nullptr;
};
Status CommitTableChanges(TableCatalog& tables, const std::vector<TableChange>& changes,
                          const TableChangesOptions& options);

// Part of a larger catalog transaction, in a catalog that swaps pointers: each change's next
// metadata file written, and the swaps that make them current. The caller swaps them (with
// its own) or removes `written` when it gives up. Errors as CommitTableChanges'; a failure
// removes what it wrote.
struct PreparedSwaps {
  std::vector<Catalog::TableSwap> swaps;
  std::vector<std::string> written;
};
Result<PreparedSwaps> PrepareTableSwaps(TableCatalog& tables,
                                        const std::vector<TableChange>& changes,
                                        const TableChangesOptions& options);

}  // namespace floe::table
