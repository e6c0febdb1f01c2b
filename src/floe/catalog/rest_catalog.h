#pragma once

// An Iceberg REST catalog opened by floe (rest+http://HOST:PORT[/PATH], rest+https://...). The
// server holds each table's metadata: floe loads it whole (with every snapshot) and commits a
// change as a commit request, the updates and requirements that state it; the server writes
// the metadata file. Namespaces, tables, renames, drops and registrations are its routes.
// What the server keeps no record of (dropped tables, an audit log) floe says it lacks.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/catalog/rest_catalog_config.h"
#include "floe/catalog/rest_http_client.h"
#include "floe/catalog/rest_oauth2.h"

namespace floe {

struct RestCatalogOptions {
  std::string warehouse;   // sent as GET /v1/config?warehouse=...; empty: none
  std::string token;       // a bearer token; empty: none, or OAuth2 below
  std::string credential;  // CLIENT_ID:SECRET for OAuth2 client credentials; empty: none
  std::string oauth2_uri;  // the token endpoint; empty: <base>/v1/oauth/tokens
  std::string scope = "catalog";
  HttpHeaders headers;     // sent with every request
  std::string user_agent = "floe";  // the User-Agent (a server's audit names the client by it)
  std::string ca_file;     // empty: the system's trust store
  // Ask for the credentials of each table's files (X-Iceberg-Access-Delegation).
  bool vended_credentials = true;
  int64_t timeout_ms = 120000;
  // Entries per page of a list (pageSize); 0: the config's `rest-page-size`, else the server's
  // choice.
  int64_t page_size = 0;
  // Tries of a request the server answers 429 or 503 (or cannot be reached), the first
  // included, waiting 100 ms, then twice as long each time up to 5 s (or as Retry-After says).
  int max_attempts = 6;
};

class RestCatalog : public Catalog {
 public:
  // Reads GET /v1/config; fails naming the URI when the server cannot be reached or refuses.
  static Result<std::unique_ptr<RestCatalog>> Open(const std::string& catalog_uri,
                                                   std::string name, RestCatalogOptions options);
  ~RestCatalog() override;

  const std::string& name() const override { return name_; }
  const std::string& warehouse() const override { return warehouse_; }
  const RestCatalogConfig& config() const { return config_; }

  Status CreateNamespace(const Namespace& ns, const NamespaceProperties& properties) override;
  Result<bool> NamespaceExists(const Namespace& ns) override;
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override;
  Result<NamespaceProperties> LoadNamespaceProperties(const Namespace& ns) override;
  Status UpdateNamespaceProperties(const Namespace& ns, const NamespaceProperties& set,
                                   const std::vector<std::string>& remove) override;
  Status DropNamespace(const Namespace& ns) override;

  // Registers the metadata file (POST .../register).
  Status CreateTableEntry(const TableIdentifier& ident,
                          const std::string& metadata_location) override;
  Result<std::string> LoadMetadataLocation(const TableIdentifier& ident) override;
  Result<bool> TableExists(const TableIdentifier& ident) override;
  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override;
  // Registers `new_location` over the table (register with overwrite) when it is still at
  // `expected_location`; a REST catalog has no compare-and-swap of locations.
  Status SwapMetadataLocation(const TableIdentifier& ident, const std::string& expected_location,
                              const std::string& new_location) override;
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override;
  // Never asks the server to purge: floe purges the files itself, only under the table.
  Result<std::string> DropTableEntry(const TableIdentifier& ident) override;

  Result<std::optional<DroppedTable>> FindDroppedTable(const TableIdentifier& ident) override;
  Result<std::vector<DroppedTable>> ListDroppedTables(const std::optional<Namespace>& ns) override;
  // The audit log: refused, saying this catalog keeps none.
  Result<std::vector<AuditEntry>> ReadAuditLog(const AuditQuery& query) override;
  std::string NoAuditLog() const override;
  Result<AuditTriggerState> AuditTrigger() override;
  Status InstallAuditTrigger() override;

  bool CommitsMetadata() const override { return true; }
  bool PlacesTables() const override { return true; }
  Result<CatalogTable> LoadTable(const TableIdentifier& ident) override;
  Result<CatalogTable> CommitTable(const TableIdentifier& ident, const spec::TableMetadata* base,
                                   const spec::TableMetadata& updated) override;
  // POST /transactions/commit, when the server serves it.
  Status CommitTables(const std::vector<TableCommit>& commits) override;
  // The location the server gives a staged create of the table.
  Result<std::string> NewTableLocation(const TableIdentifier& ident) override;

  class Impl;

 private:
  RestCatalog(std::string name, std::unique_ptr<Impl> impl);

  const std::string name_;
  std::string warehouse_;
  RestCatalogConfig config_;
  std::unique_ptr<Impl> impl_;
};

// Whether a catalog URI names a REST catalog (rest+http://, rest+https://).
bool IsRestCatalogUri(std::string_view uri);

}  // namespace floe
