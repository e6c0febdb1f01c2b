#include "python_session.h"

#include <cstdlib>

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

Result<double> ParseSeconds(const std::string& key, const std::string& value) {
  char* end = nullptr;
  double seconds = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !(seconds >= 0) || seconds > 86400) {
    return Status::Invalid("S3 option '", key,
                           "' must be a number of seconds from 0 to 86400, not '", value, "'");
  }
  return seconds;
}

}  // namespace

Result<ObjectStoreOptions> ObjectStoreFromSettings(
    const std::map<std::string, std::string>& settings) {
  ObjectStoreOptions options;
  for (const auto& [key, value] : settings) {
    if (key == "endpoint") {
      options.endpoint = value;
    } else if (key == "region") {
      options.region = value;
    } else if (key == "path_style") {
      if (value != "true" && value != "false") {
        return Status::Invalid("S3 option 'path_style' must be true or false, not '", value, "'");
      }
      options.path_style = value == "true";
    } else if (key == "access_key_id") {
      options.access_key_id = value;
    } else if (key == "secret_access_key") {
      options.secret_access_key = value;
    } else if (key == "session_token") {
      options.session_token = value;
    } else if (key == "connect_timeout") {
      ARROW_ASSIGN_OR_RAISE(options.connect_timeout_seconds, ParseSeconds(key, value));
    } else if (key == "request_timeout") {
      ARROW_ASSIGN_OR_RAISE(options.request_timeout_seconds, ParseSeconds(key, value));
    } else if (key == "max_attempts") {
      char* end = nullptr;
      long attempts = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || end != value.c_str() + value.size() || attempts < 1 || attempts > 100) {
        return Status::Invalid(
            "S3 option 'max_attempts' must be a whole number from 1 to 100, not '", value, "'");
      }
      options.max_attempts = static_cast<int>(attempts);
    } else {
      return Status::Invalid("Unknown S3 option '", key,
                             "'; expected endpoint, region, path_style, access_key_id, "
                             "secret_access_key, session_token, connect_timeout, request_timeout "
                             "or max_attempts");
    }
  }
  if (options.access_key_id.empty() != options.secret_access_key.empty()) {
    return Status::Invalid("S3 options 'access_key_id' and 'secret_access_key' go together");
  }
  return options;
}

Result<std::unique_ptr<PythonSession>> PythonSession::Open(const ConnectOptions& options) {
  cli::CatalogArgs args;
  args.catalog = options.catalog;
  args.warehouse = options.warehouse;
  args.catalog_name = options.catalog_name;
  args.time_zone = options.time_zone;
  args.object_store = options.object_store;
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
