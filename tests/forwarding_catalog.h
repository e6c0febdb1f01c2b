#pragma once

// A catalog that forwards every call to another one; tests override the calls they want to
// fail or observe (the compare-and-swap, mostly).

#include <memory>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"

namespace floe::testing {

class ForwardingCatalog : public Catalog {
 public:
  explicit ForwardingCatalog(std::shared_ptr<Catalog> inner) : inner_(std::move(inner)) {}

  const std::string& name() const override { return inner_->name(); }
  const std::string& warehouse() const override { return inner_->warehouse(); }
  Status CreateNamespace(const Namespace& ns, const NamespaceProperties& p) override {
    return inner_->CreateNamespace(ns, p);
  }
  Result<bool> NamespaceExists(const Namespace& ns) override { return inner_->NamespaceExists(ns); }
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override {
    return inner_->ListNamespaces(parent);
  }
  Result<NamespaceProperties> LoadNamespaceProperties(const Namespace& ns) override {
    return inner_->LoadNamespaceProperties(ns);
  }
  Status UpdateNamespaceProperties(const Namespace& ns, const NamespaceProperties& set,
                                   const std::vector<std::string>& remove) override {
    return inner_->UpdateNamespaceProperties(ns, set, remove);
  }
  Status DropNamespace(const Namespace& ns) override { return inner_->DropNamespace(ns); }
  Status CreateTableEntry(const TableIdentifier& ident, const std::string& location) override {
    return inner_->CreateTableEntry(ident, location);
  }
  Result<std::string> LoadMetadataLocation(const TableIdentifier& ident) override {
    return inner_->LoadMetadataLocation(ident);
  }
  Result<bool> TableExists(const TableIdentifier& ident) override { return inner_->TableExists(ident); }
  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override {
    return inner_->ListTables(ns);
  }
  Status SwapMetadataLocation(const TableIdentifier& ident, const std::string& expected,
                              const std::string& location) override {
    return inner_->SwapMetadataLocation(ident, expected, location);
  }
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override {
    return inner_->RenameTable(from, to);
  }
  Result<std::string> DropTableEntry(const TableIdentifier& ident) override {
    return inner_->DropTableEntry(ident);
  }
  Result<std::string> DropTableEntry(const TableIdentifier& ident, DropRecord record) override {
    return inner_->DropTableEntry(ident, record);
  }
  Result<std::optional<DroppedTable>> FindDroppedTable(const TableIdentifier& ident) override {
    return inner_->FindDroppedTable(ident);
  }
  Result<std::vector<DroppedTable>> ListDroppedTables(const std::optional<Namespace>& ns) override {
    return inner_->ListDroppedTables(ns);
  }
  Status UndropTableEntry(const DroppedTable& dropped) override {
    return inner_->UndropTableEntry(dropped);
  }
  std::string DefaultTableLocation(const TableIdentifier& ident) const override {
    return inner_->DefaultTableLocation(ident);
  }

 protected:
  std::shared_ptr<Catalog> inner_;
};

}  // namespace floe::testing
