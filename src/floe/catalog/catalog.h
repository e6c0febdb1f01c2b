#pragma once

// A catalog maps table identifiers to the location of each table's current metadata file
// and keeps namespaces with their properties. It never reads metadata files: committing a
// table is writing a new metadata file, then SwapMetadataLocation.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/catalog/audit_log.h"
#include "floe/catalog/table_identifier.h"
#include "floe/spec/table_metadata.h"
#include "floe/util/status.h"

namespace floe {

using NamespaceProperties = std::map<std::string, std::string>;

// What a drop leaves behind in the catalog besides removing the entry. Iceberg's catalogs
// keep nothing; floe's SQL catalog keeps a record of each drop so the table can be undropped.
enum class DropRecord {
  kNone,    // nothing, as Iceberg
  kKeep,    // the table's last metadata location, for UndropTableEntry
  kPurged,  // that the table was purged: its files are being deleted, it cannot come back
};

// A table as the catalog hands it out: where its current metadata is and, from a catalog that
// serves metadata itself (an Iceberg REST catalog), the metadata and settings for its files.
struct CatalogTable {
  std::string metadata_location;
  spec::TableMetadataPtr metadata;  // null: read it from metadata_location
  // FileIO settings for this table's files (vended credentials: s3.access-key-id, ...).
  std::map<std::string, std::string> config;
};

// A catalog tag: an Iceberg tag of one name on every table of the catalog (or of a namespace
// and the namespaces below it), each at the snapshot it was at, made in one catalog
// transaction that also records which tables it covers.
struct CatalogTagTable {
  TableIdentifier ident;
  std::string table_uuid;
  std::optional<int64_t> snapshot_id;  // none: the table had no snapshot and got no tag
};
struct CatalogTag {
  std::string name;
  std::optional<Namespace> ns;  // none: the whole catalog
  int64_t created_at_ms = 0;    // UTC
  std::optional<int64_t> max_ref_age_ms;  // RETAIN: each table's tag ref is kept this long
  std::string transaction_id;   // of the audit rows that made it
  std::vector<CatalogTagTable> tables;  // sorted by name
};
// What a SwapMetadataLocations also does to the catalog's record of catalog tags, in the
// same transaction: record `tag` (AlreadyExists "Catalog tag run_42 already exists in catalog
// lakehouse" when one of that name is recorded), or delete the record of `tag.name` (NotFound
// "Catalog tag run_42 does not exist in catalog lakehouse").
struct CatalogTagChange {
  enum class Kind { kCreate, kDrop };
  Kind kind = Kind::kCreate;
  CatalogTag tag;
};

// A drop the catalog recorded.
struct DroppedTable {
  TableIdentifier ident;
  std::string metadata_location;
  int64_t dropped_at_ms = 0;  // UTC
  int64_t drop_id = 0;        // grows with each recorded drop in the catalog
  bool purged = false;
};

class Catalog {
 public:
  virtual ~Catalog() = default;

  virtual const std::string& name() const = 0;
  // The warehouse root, without a trailing slash; may be empty. floe writes and deletes
  // table files only under it and under allowed_roots().
  virtual const std::string& warehouse() const = 0;
  // Further absolute roots (paths or file: URIs) where tables may live; none by default.
  virtual const std::vector<std::string>& allowed_roots() const;

  // Namespaces. As in Iceberg, a namespace also exists when it holds a table or when any
  // namespace below it exists.

  // AlreadyExists "Namespace already exists: a.b".
  virtual Status CreateNamespace(const Namespace& ns, const NamespaceProperties& properties) = 0;
  virtual Result<bool> NamespaceExists(const Namespace& ns) = 0;
  // Immediate children of `parent` (top-level namespaces for the empty namespace), sorted.
  virtual Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) = 0;
  virtual Result<NamespaceProperties> LoadNamespaceProperties(const Namespace& ns) = 0;
  virtual Status UpdateNamespaceProperties(const Namespace& ns, const NamespaceProperties& set,
                                           const std::vector<std::string>& remove) = 0;
  // NotFound if missing; "Namespace not empty: a.b" while it holds tables.
  virtual Status DropNamespace(const Namespace& ns) = 0;

  // Tables, as pointers to their current metadata file.

  // AlreadyExists "Table already exists: a.t"; NotFound "Namespace does not exist: a".
  virtual Status CreateTableEntry(const TableIdentifier& ident,
                                  const std::string& metadata_location) = 0;
  // NotFound "Table does not exist: a.t".
  virtual Result<std::string> LoadMetadataLocation(const TableIdentifier& ident) = 0;
  virtual Result<bool> TableExists(const TableIdentifier& ident) = 0;
  // Sorted by name; NotFound if the namespace does not exist.
  virtual Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) = 0;

  // The commit point: points the table at `new_location` only if it still points at
  // `expected_location`. CommitConflict when another writer got there first (reload and
  // retry); CommitStateUnknown when the catalog cannot say whether the swap happened, in
  // which case the new metadata file must not be deleted.
  virtual Status SwapMetadataLocation(const TableIdentifier& ident,
                                      const std::string& expected_location,
                                      const std::string& new_location) = 0;

  // One table's part of a commit of several tables (SwapMetadataLocations): an empty
  // expected_location creates the table's entry.
  struct TableSwap {
    TableIdentifier ident;
    std::string expected_location;
    std::string new_location;
    AuditRecord record;
  };
  // Every swap or none, in one transaction of the catalog database. CommitConflict naming the
  // first table that moved (or, for a create, exists); CommitStateUnknown when the catalog
  // cannot say whether the transaction committed. The default refuses: a catalog without
  // transactions cannot commit several tables as one. `catalog_tag`, when given, is made to
  // the record of catalog tags in the same transaction (only where KeepsCatalogTags()).
  virtual Status SwapMetadataLocations(const std::vector<TableSwap>& swaps,
                                       const CatalogTagChange* catalog_tag = nullptr);

  // Catalog tags (CatalogTag). A catalog that keeps no record of them (the default) has none.
  virtual bool KeepsCatalogTags() const { return false; }
  // nullopt when no tag of that name is recorded.
  virtual Result<std::optional<CatalogTag>> LoadCatalogTag(const std::string& name);
  // Every recorded tag, oldest first.
  virtual Result<std::vector<CatalogTag>> ListCatalogTags();

  virtual Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) = 0;
  // Removes the entry and returns the metadata location it pointed at, so that a purge can
  // find the table's files.
  virtual Result<std::string> DropTableEntry(const TableIdentifier& ident) = 0;

  // Dropped tables. A catalog that keeps no records (the default) drops as DropTableEntry
  // does, lists none and finds none.

  // DropTableEntry, recording the drop as `record` says in the same transaction.
  virtual Result<std::string> DropTableEntry(const TableIdentifier& ident, DropRecord record);
  // The drop UNDROP would restore: the newest one of `ident` that was not purged, else the
  // newest purged one; nullopt when the name was never dropped (or its drops were restored).
  virtual Result<std::optional<DroppedTable>> FindDroppedTable(const TableIdentifier& ident);
  // Drops that can be restored, newest first; of every namespace when `ns` is nullopt. The
  // namespace need not exist.
  virtual Result<std::vector<DroppedTable>> ListDroppedTables(const std::optional<Namespace>& ns);
  // Re-creates the entry of `dropped` (as FindDroppedTable returned it) pointing at its
  // metadata location, and deletes the record, in one transaction. NotFound when the
  // namespace no longer exists; AlreadyExists when a table or view has the name;
  // CommitConflict when the record changed meanwhile (another session dropped or undropped
  // the name).
  virtual Status UndropTableEntry(const DroppedTable& dropped);

  // The audit log (audit_log.h). Each change above has a form that also records `record`
  // in the same transaction; the plain forms record what the catalog knows alone (the
  // change, unclassified). A catalog without a log (the default) makes the change and
  // records nothing.
  virtual Status SwapMetadataLocation(const TableIdentifier& ident,
                                      const std::string& expected_location,
                                      const std::string& new_location, const AuditRecord& record);
  virtual Status CreateTableEntry(const TableIdentifier& ident,
                                  const std::string& metadata_location, const AuditRecord& record);
  virtual Status RenameTable(const TableIdentifier& from, const TableIdentifier& to,
                             const AuditRecord& record);
  virtual Result<std::string> DropTableEntry(const TableIdentifier& ident, DropRecord drop,
                                             const AuditRecord& record);
  virtual Status UndropTableEntry(const DroppedTable& dropped, const AuditRecord& record);

  // A row for a change that did not happen (a refused one): the table stays at
  // `metadata_location`. No-op where the catalog keeps no log.
  virtual Status RecordAuditEntry(const TableIdentifier& ident, const std::string& metadata_location,
                                  const AuditRecord& record);
  // A change made under an Idempotency-Key (AuditRecord::idempotency_key).
  struct KeyedChange {
    TableIdentifier ident;
    std::string kind;                              // as the audit log names it
    std::optional<std::string> metadata_location;  // none: the table was dropped
  };
  // The changes made under `key` at or after `since_ms`, in the order they were made; empty
  // when none (or the catalog keeps no keys, the default).
  virtual Result<std::vector<KeyedChange>> FindIdempotencyKey(const std::string& key,
                                                              int64_t since_ms);

  // Whether the catalog keeps an audit log at all, and if not, why, for an error text:
  // "catalog lakehouse keeps no audit log".
  virtual bool HasAuditLog() const { return false; }
  virtual std::string NoAuditLog() const { return "catalog " + name() + " keeps no audit log"; }
  // Rows newest first; empty without a log.
  virtual Result<std::vector<AuditEntry>> ReadAuditLog(const AuditQuery& query);
  // Names what an unclassified row was (kind, operation, snapshots, refs; client, user and
  // detail only where the row has none). A row already classified stays as it is.
  virtual Status ClassifyAuditEntry(int64_t seq, const AuditRecord& record);
  // The trigger that records other engines' changes.
  virtual Result<AuditTriggerState> AuditTrigger();
  // Why this catalog's first open could not create the log or the trigger; empty when it
  // could or did not try. Asks the database nothing.
  virtual std::string AuditTriggerRefusal() const { return ""; }
  virtual Status InstallAuditTrigger();
  virtual Status RemoveAuditTrigger();

  // Catalogs that hold table metadata themselves (an Iceberg REST catalog) commit by request:
  // the catalog writes the metadata file. The others (the default) point at files floe wrote.
  virtual bool CommitsMetadata() const { return false; }
  // The table's current metadata location and, where the catalog serves it, its metadata.
  // NotFound "Table does not exist: a.t".
  virtual Result<CatalogTable> LoadTable(const TableIdentifier& ident);
  // Only where CommitsMetadata(): makes `updated` the table's metadata, if the table still
  // is at `base` (null: creates the table). CommitConflict when another writer moved it (or,
  // for a create, the table exists); CommitStateUnknown when the answer was lost after the
  // request was sent. Returns the table as committed.
  virtual Result<CatalogTable> CommitTable(const TableIdentifier& ident,
                                           const spec::TableMetadata* base,
                                           const spec::TableMetadata& updated);
  // One table's part of CommitTables: `updated` to replace `base` (null: create the table).
  struct TableCommit {
    TableIdentifier ident;
    spec::TableMetadataPtr base;
    spec::TableMetadataPtr updated;
  };
  // Only where CommitsMetadata(): every table's change or none, as one request. CommitConflict
  // when any table moved; CommitStateUnknown as CommitTable. The default refuses.
  virtual Status CommitTables(const std::vector<TableCommit>& commits);
  // Where a new table goes when the user gives no location: DefaultTableLocation, refused
  // when the catalog has no warehouse; a REST catalog asks the server.
  virtual Result<std::string> NewTableLocation(const TableIdentifier& ident);
  // Whether table files may live anywhere the catalog places them (a REST catalog decides
  // locations; floe then writes and purges only under each table's own location).
  virtual bool PlacesTables() const { return false; }

  // Where a new table's files go when the user gives no location: <warehouse>/a/b/t, as
  // Iceberg's JdbcCatalog lays tables out, each name as its LocationSegment.
  virtual std::string DefaultTableLocation(const TableIdentifier& ident) const;
};

}  // namespace floe
