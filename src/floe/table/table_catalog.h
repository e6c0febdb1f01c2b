#pragma once

// Creating, loading, renaming and dropping tables: the catalog's pointers plus the metadata
// files they point to.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/io/file_io.h"
#include "floe/spec/partition_spec.h"
#include "floe/spec/schema.h"
#include "floe/spec/sort_order.h"
#include "floe/table/multi_table_transaction.h"
#include "floe/table/table.h"

namespace floe::table {

// A partition field named by its source column, before ids are assigned.
struct UnboundPartitionField {
  std::string source_column;
  spec::Transform transform;
  std::string name;  // empty: Iceberg's default ("ts_day", "id_bucket", ...)
};

struct UnboundSortField {
  std::string source_column;
  spec::Transform transform = spec::Transform::Identity();
  spec::SortDirection direction = spec::SortDirection::kAsc;
  spec::NullOrder null_order = spec::NullOrder::kNullsFirst;
};

struct CreateTableOptions {
  std::vector<UnboundPartitionField> partition_by;
  std::vector<UnboundSortField> sort_by;
  std::map<std::string, std::string> properties;
  std::string location;  // empty: <warehouse>/<namespace levels>/<table>
  // Keep `location` as written (trailing slashes aside), as Iceberg does, instead of its
  // canonical form ("file:/w/t" rather than "file:///w/t"): for clients that compare it.
  bool location_as_given = false;
  int32_t format_version = 2;
};

// Builds the metadata of a new table: fresh field ids in Iceberg's order, spec 0, sort
// order 1 when sorted, and the default properties Iceberg adds.
Result<std::shared_ptr<spec::TableMetadata>> NewTableMetadata(const spec::Schema& schema,
                                                              const CreateTableOptions& options,
                                                              const std::string& location);

// The default partition field name for a transform of a column.
std::string DefaultPartitionFieldName(const std::string& column, const spec::Transform& transform);

// What a drop did not do. A drop always removes the catalog entry and, where the catalog
// keeps them, records the drop (see Catalog::DropTableEntry); a purge deletes only
// files under the table's own directories (see PurgeScope) and lists the others here.
struct DropTableResult {
  TableIdentifier ident;
  std::string location;               // the table's location, when its metadata was read
  std::vector<std::string> refused;   // files the metadata names outside the table, kept
  std::string purge_skipped;          // why no file was purged (unreadable metadata)

  // A warning for the user ("" when the drop did everything it was asked to).
  std::string Warning() const;
};

class TableCatalog {
 public:
  TableCatalog(std::shared_ptr<Catalog> catalog, std::shared_ptr<FileIO> io)
      : catalog_(std::move(catalog)), io_(std::move(io)) {}

  const std::shared_ptr<Catalog>& catalog() const { return catalog_; }
  const std::shared_ptr<FileIO>& io() const { return io_; }
  // Every table this catalog creates or loads commits with this provenance.
  void set_provenance(std::shared_ptr<const CommitProvenance> provenance) {
    provenance_ = std::move(provenance);
  }

  // The provenance commits and catalog changes record (the C++ API's when none was set).
  const CommitProvenance& provenance() const;

  // While a transaction is open, LoadTable answers with the transaction's view of a table it
  // already used, and a table loaded for the first time joins it.
  void set_transaction(std::shared_ptr<MultiTableTransaction> transaction) {
    transaction_ = std::move(transaction);
  }
  const std::shared_ptr<MultiTableTransaction>& transaction() const { return transaction_; }

  std::string DefaultLocation(const TableIdentifier& ident) const;

  Result<std::shared_ptr<Table>> CreateTable(const TableIdentifier& ident, const spec::Schema& schema,
                                             const CreateTableOptions& options = {});
  // The metadata CreateTable would commit, checked but not written: a staged create.
  Result<std::shared_ptr<spec::TableMetadata>> StageCreate(const TableIdentifier& ident,
                                                           const spec::Schema& schema,
                                                           const CreateTableOptions& options = {});
  // Writes `metadata` as the first metadata file of a new table `ident` and registers it (a
  // staged create committed); its locations must satisfy the catalog's LocationPolicy.
  Result<std::shared_ptr<Table>> CreateTableFromMetadata(const TableIdentifier& ident,
                                                         std::shared_ptr<spec::TableMetadata> md);
  Result<std::shared_ptr<Table>> LoadTable(const TableIdentifier& ident);
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to);
  // Removes the table from the catalog; with `purge`, also every file its metadata reaches
  // (data files, manifests, manifest lists, metadata files) that lies under the table.
  // A table whose metadata cannot be read is still dropped, without purging.
  Result<DropTableResult> DropTable(const TableIdentifier& ident, bool purge);
  // Registers again the table most recently dropped as `ident` without purge, pointing at
  // its last metadata file, so every snapshot and ref comes back; the drop's record is used
  // up. Refused, naming the table, when a table of that name exists, when it was never
  // dropped (or only purged), when its namespace no longer exists and when its metadata file
  // is gone or unreadable. Returns the restored table.
  Result<std::shared_ptr<Table>> UndropTable(const TableIdentifier& ident);
  // Points a new entry `ident` at an existing metadata file, as Iceberg's register_table; with
  // `overwrite` an existing table's entry is swapped to it instead of refused. The file must
  // read as table metadata and its table lie where the catalog's LocationPolicy allows.
  Result<std::shared_ptr<Table>> RegisterTable(const TableIdentifier& ident,
                                               const std::string& metadata_location,
                                               bool overwrite);

 private:
  // Writes the first metadata file of checked metadata and adds the catalog entry.
  Result<std::shared_ptr<Table>> WriteNewTable(const TableIdentifier& ident,
                                               std::shared_ptr<spec::TableMetadata> md);

  std::shared_ptr<Catalog> catalog_;
  std::shared_ptr<FileIO> io_;
  std::shared_ptr<const CommitProvenance> provenance_;
  std::shared_ptr<MultiTableTransaction> transaction_;
};

}  // namespace floe::table
