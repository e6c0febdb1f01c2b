#include "python_session.h"

#include "floe/catalog/table_identifier.h"
#include "floe/cli/command_common.h"
#include "floe/table/run_manifest.h"
#include "floe/table/table_catalog.h"
#include "floe/util/ascii.h"

namespace floe::python {

namespace {

// "lakehouse.db.t" and "db.t" name the same table, as in SQL.
Result<TableIdentifier> ParseTableName(const std::string& name, const std::string& catalog_name) {
  ARROW_ASSIGN_OR_RAISE(TableIdentifier ident, TableIdentifier::Parse(name));
  if (ident.ns.size() > 1 && AsciiLower(ident.ns.levels.front()) == AsciiLower(catalog_name)) {
    ident.ns.levels.erase(ident.ns.levels.begin());
  }
  return ident;
}

}  // namespace

Result<std::unique_ptr<PythonSession>> PythonSession::Open(const ConnectOptions& options) {
  cli::CatalogArgs args;
  args.catalog = options.catalog;
  args.warehouse = options.warehouse;
  args.catalog_name = options.catalog_name;
  args.time_zone = options.time_zone;
  ARROW_ASSIGN_OR_RAISE(std::unique_ptr<sql::Session> session,
                        cli::OpenSession(args, "floe python"));
  return std::unique_ptr<PythonSession>(new PythonSession(std::move(session)));
}

Result<sql::StatementResult> PythonSession::Execute(const std::string& sql) {
  std::lock_guard<std::mutex> lock(mutex_);
  return session_->Execute(sql);
}

std::string PythonSession::Setting(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  return session_->Setting(key);
}

std::string PythonSession::catalog_name() {
  std::lock_guard<std::mutex> lock(mutex_);
  return session_->catalog()->name();
}

Result<std::string> PythonSession::BuildRunManifest(const std::vector<std::string>& tables,
                                                    int64_t run_started_at_ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  table::TableCatalog catalog(session_->catalog(), session_->io());
  std::vector<std::shared_ptr<table::Table>> loaded;
  for (const std::string& name : tables) {
    ARROW_ASSIGN_OR_RAISE(TableIdentifier ident, ParseTableName(name, session_->catalog()->name()));
    ARROW_ASSIGN_OR_RAISE(auto table, catalog.LoadTable(ident));
    loaded.push_back(std::move(table));
  }
  ARROW_ASSIGN_OR_RAISE(table::RunManifest manifest,
                        table::BuildRunManifest(loaded, run_started_at_ms));
  return table::RunManifestToJson(manifest);
}

Result<std::vector<ManifestSource>> PythonSession::ResolveRunManifest(const std::string& json) {
  std::lock_guard<std::mutex> lock(mutex_);
  ARROW_ASSIGN_OR_RAISE(table::RunManifest manifest, table::RunManifestFromJson(json));
  table::TableCatalog catalog(session_->catalog(), session_->io());
  ARROW_ASSIGN_OR_RAISE(auto resolved, table::ResolveRunManifest(catalog, manifest));
  std::vector<ManifestSource> out;
  for (const auto& source : resolved) {
    out.push_back({source.table->name(), *source.snapshot.snapshot_id()});
  }
  return out;
}

}  // namespace floe::python
