#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "floe/catalog/catalog.h"
#include "floe/io/file_io.h"
#include "floe/spec/table_metadata.h"
#include "floe/table/commit_provenance.h"

namespace floe::table {

class MultiTableTransaction;

// A loaded table: its identifier, the catalog and FileIO it lives in, and the metadata it
// currently points to. Writes go through commits (commit.h) that swap the catalog pointer;
// Refresh() picks up commits made by others.
class Table {
 public:
  Table(TableIdentifier ident, std::shared_ptr<Catalog> catalog, std::shared_ptr<FileIO> io,
        spec::TableMetadataPtr metadata, std::string metadata_location);

  static Result<std::shared_ptr<Table>> Load(std::shared_ptr<Catalog> catalog,
                                             std::shared_ptr<FileIO> io,
                                             const TableIdentifier& ident);

  const TableIdentifier& ident() const { return ident_; }
  std::string name() const;  // "<catalog>.<ns>.<table>" for messages
  const std::shared_ptr<Catalog>& catalog() const { return catalog_; }
  const std::shared_ptr<FileIO>& io() const { return io_; }
  spec::TableMetadataPtr metadata() const;
  std::string metadata_location() const;

  Status Refresh();
  // Installs metadata this process just committed.
  void SetCurrent(spec::TableMetadataPtr metadata, std::string metadata_location);

  // What commits through this table record as their provenance. Shared with the session
  // that loaded the table, which updates the statement as it runs; null: the C++ API's.
  void set_provenance(std::shared_ptr<const CommitProvenance> provenance) {
    provenance_ = std::move(provenance);
  }
  const CommitProvenance& provenance() const;

  // The open transaction this table belongs to: its writes are staged there instead of
  // committed, and it no longer refreshes (it reads as of its first use, plus the
  // transaction's own writes). Null outside a transaction.
  MultiTableTransaction* transaction() const { return transaction_; }
  void set_transaction(MultiTableTransaction* transaction) { transaction_ = transaction; }

 private:
  TableIdentifier ident_;
  std::shared_ptr<Catalog> catalog_;
  std::shared_ptr<FileIO> io_;
  mutable std::mutex mu_;
  spec::TableMetadataPtr metadata_;
  std::string metadata_location_;
  std::shared_ptr<const CommitProvenance> provenance_;
  MultiTableTransaction* transaction_ = nullptr;
};

}  // namespace floe::table
