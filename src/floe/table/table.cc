#include "floe/table/table.h"

#include <arrow/compute/initialize.h>

#include "floe/table/metadata_files.h"

namespace floe::table {

namespace {
// Arrow's compute kernels (take, is_nan, sort, ...) live in a library that must register
// them once before use; every floe program that opens a table goes through this file.
const bool kComputeRegistered = arrow::compute::Initialize().ok();
}  // namespace

Table::Table(TableIdentifier ident, std::shared_ptr<Catalog> catalog,
             std::shared_ptr<FileIO> io, spec::TableMetadataPtr metadata,
             std::string metadata_location)
    : ident_(std::move(ident)),
      catalog_(std::move(catalog)),
      io_(std::move(io)),
      metadata_(std::move(metadata)),
      metadata_location_(std::move(metadata_location)) {}

Result<std::shared_ptr<Table>> Table::Load(std::shared_ptr<Catalog> catalog,
                                           std::shared_ptr<FileIO> io,
                                           const TableIdentifier& ident) {
  ARROW_ASSIGN_OR_RAISE(CatalogTable loaded, catalog->LoadTable(ident));
  // A catalog may vend the credentials for this table's files.
  ARROW_ASSIGN_OR_RAISE(io, io->ForTable(loaded.config));
  if (!loaded.metadata) {
    ARROW_ASSIGN_OR_RAISE(loaded.metadata, ReadCurrentMetadataFile(*io, loaded.metadata_location));
  }
  return std::make_shared<Table>(ident, std::move(catalog), std::move(io),
                                 std::move(loaded.metadata), std::move(loaded.metadata_location));
}

const CommitProvenance& Table::provenance() const {
  static const CommitProvenance kEmbedded;
  return provenance_ ? *provenance_ : kEmbedded;
}

std::string Table::name() const { return catalog_->name() + "." + ident_.ToString(); }

spec::TableMetadataPtr Table::metadata() const {
  std::lock_guard<std::mutex> lock(mu_);
  return metadata_;
}

std::string Table::metadata_location() const {
  std::lock_guard<std::mutex> lock(mu_);
  return metadata_location_;
}

Status Table::Refresh() {
  if (transaction_) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(CatalogTable loaded, catalog_->LoadTable(ident_));
  if (loaded.metadata_location == metadata_location()) return Status::OK();
  if (!loaded.metadata) {
    ARROW_ASSIGN_OR_RAISE(loaded.metadata, ReadCurrentMetadataFile(*io_, loaded.metadata_location));
  }
  SetCurrent(std::move(loaded.metadata), std::move(loaded.metadata_location));
  return Status::OK();
}

void Table::SetCurrent(spec::TableMetadataPtr metadata, std::string metadata_location) {
  std::lock_guard<std::mutex> lock(mu_);
  metadata_ = std::move(metadata);
  metadata_location_ = std::move(metadata_location);
}

}  // namespace floe::table
