#pragma once

// Catalog tags: one Iceberg tag of one name on every table of a catalog (or of a namespace and
// the namespaces below it), each at its current snapshot, and the rollback of all those tables
// to it. A tag is made, dropped or rolled back to as one multi-table commit
// (CommitTableChanges): a new metadata file per changed table, then every pointer swapped in
// one catalog transaction that also writes the catalog's record of the tag
// (Catalog::KeepsCatalogTags; a REST catalog has nowhere to keep it and is refused). Every
// table's audit row of one such statement carries the same transaction id.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/table/table_catalog.h"
#include "floe/table/transaction_commit.h"
#include "floe/util/status.h"

namespace floe::table {

// NotFound "Catalog tag run_9 does not exist in catalog lakehouse".
Status CatalogTagNotFound(const Catalog& catalog, const std::string& name);

// One table's line in what CreateCatalogTag and DropCatalogTag did.
struct CatalogTagTableAction {
  TableIdentifier ident;
  std::optional<int64_t> snapshot_id;  // the table's tag's snapshot
  std::string action;  // "tagged", "skipped: no snapshot", "untagged", ...
};

struct CreateCatalogTagOptions {
  std::optional<Namespace> ns;            // none: every table of the catalog
  std::optional<int64_t> max_ref_age_ms;  // RETAIN: each tag ref's max-ref-age-ms
};

// A catalog tag to make, as a transaction's COMMIT TAG names it.
struct NewCatalogTag {
  std::string name;
  CreateCatalogTagOptions options;
};

// Errors of a tag that cannot be made, before anything is read: an empty name, a catalog that
// keeps no record of catalog tags, a retention that is not positive, a tag of that name.
Status CheckNewCatalogTag(Catalog& catalog, const std::string& name,
                          const CreateCatalogTagOptions& options);

// The tag ref a catalog tag puts on one table.
spec::SnapshotRef CatalogTagRef(int64_t snapshot_id, const CreateCatalogTagOptions& options);
// The detail of the audit rows of the tables a catalog tag changes: "catalog tag run_42".
std::string CatalogTagAuditDetail(const std::string& name);

// Metadata about to be committed, by table name ("db.t"): a transaction's tables.
using PendingTables = std::map<std::string, spec::TableMetadataPtr>;

// A catalog tag ready to commit: the record, the tag ref on each table in scope (tables in
// `pending` excepted: their committer adds the ref to the metadata it commits), and what it
// does to each table.
struct CatalogTagPlan {
  CatalogTagChange change;
  std::vector<TableChange> changes;
  std::vector<CatalogTagTableAction> rows;
};
// Reads every table in scope (a table in `pending` as it will be) and plans the tag at its
// current snapshot. Validation when a table already has a ref of that name; NotFound for a
// namespace that does not exist.
Result<CatalogTagPlan> PlanCatalogTag(TableCatalog& tables, const std::string& name,
                                      const CreateCatalogTagOptions& options,
                                      const std::string& transaction_id, int64_t created_at_ms,
                                      const PendingTables& pending);

// Tags every table in scope at its current snapshot and records the set. Tables without a
// snapshot get no tag and are listed ("skipped: no snapshot"). Errors, with nothing changed:
// AlreadyExists "Catalog tag run_42 already exists in catalog lakehouse"; Validation "Cannot
// create catalog tag run_42: table lakehouse.db.t already has a tag named run_42" (or branch);
// NotImplemented for a catalog that keeps no record of catalog tags; NotFound for a namespace
// that does not exist. A table that moves meanwhile makes the whole tag be taken again.
Result<std::vector<CatalogTagTableAction>> CreateCatalogTag(TableCatalog& tables,
                                                            const std::string& name,
                                                            const CreateCatalogTagOptions& options);

// Removes the tag ref from every recorded table that still holds it at the recorded snapshot
// ("untagged"), and the record; tables dropped since ("dropped since the tag") and refs moved
// or removed since ("left: ...") are listed and left alone. A locked tag refuses the whole drop.
Result<std::vector<CatalogTagTableAction>> DropCatalogTag(TableCatalog& tables,
                                                          const std::string& name);

struct RollbackToCatalogTagOptions {
  std::optional<Namespace> ns;  // only the tag's tables in this namespace (and below)
  // Tables in scope the tag does not cover (created after it, or without a snapshot then):
  // left alone by default; with this, emptied (main removed, as the table read at the tag;
  // their snapshots stay, so rollback_to_snapshot or floe undo brings them back).
  bool include_new_tables = false;
  bool dry_run = false;  // compute the moves, change nothing
};

struct CatalogTagMove {
  TableIdentifier ident;
  std::optional<int64_t> previous_snapshot_id;
  std::optional<int64_t> current_snapshot_id;  // after the rollback (the plan, for a dry run)
  // "rolled back", "unchanged", "dropped since the tag", "created after the tag (left alone)",
  // "emptied (created after the tag)", "no snapshot at the tag (left alone)",
  // "emptied (no snapshot at the tag)".
  std::string action;
};

// Moves main of every table the tag recorded back to its tagged snapshot (a metadata-only
// rollback; protection rules apply, and a table that refuses fails the whole rollback), in
// one catalog transaction. Rows sorted by table. Errors: CatalogTagNotFound; Validation
// "Cannot roll back lakehouse.db.t to catalog tag run_41: snapshot <id> no longer exists"; a
// namespace outside the tag's.
Result<std::vector<CatalogTagMove>> RollbackToCatalogTag(TableCatalog& tables,
                                                         const std::string& name,
                                                         const RollbackToCatalogTagOptions& options);

}  // namespace floe::table
