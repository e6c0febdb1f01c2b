#pragma once

// A floe SQL session as the Python package drives it: statements run without the GIL, one
// at a time per session (Python threads may share a connection), and run manifests built
// and resolved on the session's catalog.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/sql/session.h"
#include "floe/util/status.h"

namespace floe::python {

struct ConnectOptions {
  std::string catalog;    // empty: $FLOE_CATALOG, else ./warehouse/catalog.db (as the CLI)
  std::string warehouse;  // empty: $FLOE_WAREHOUSE, else ./warehouse
  std::string catalog_name = "lakehouse";
  std::string time_zone;  // empty: the session default, UTC
  // How to reach s3:// locations; empty fields come from the environment (AWS_*), as in
  // the CLI. See ObjectStoreFromSettings.
  ObjectStoreOptions object_store;
  // How to reach a REST catalog (catalog rest+http://...); see RestFromSettings.
  RestCatalogOptions rest;
};

// The object-store options of floe.connect(s3={...}): endpoint, region, path_style
// ("true"/"false"), access_key_id, secret_access_key, session_token, connect_timeout and
// request_timeout (seconds), max_attempts. Any other key, or a value that does not parse,
// is an error naming it.
Result<ObjectStoreOptions> ObjectStoreFromSettings(
    const std::map<std::string, std::string>& settings);

// The REST catalog options of floe.connect(rest={...}): warehouse, token, credential
// (CLIENT_ID:SECRET), oauth2_uri, scope, ca_file, vended_credentials ("true"/"false") and
// header.NAME for each extra header. Any other key is an error naming it.
Result<RestCatalogOptions> RestFromSettings(const std::map<std::string, std::string>& settings);

// A recorded source of a run manifest, resolved: the table's full name and the snapshot.
struct ManifestSource {
  std::string table;
  int64_t snapshot_id = 0;
};

class PythonSession {
 public:
  // Opens the catalog as `floe sql` would, with "floe python" as the client its commits
  // record.
  static Result<std::unique_ptr<PythonSession>> Open(const ConnectOptions& options);

  Result<sql::StatementResult> Execute(const std::string& sql);
  std::string Setting(const std::string& key);
  std::string catalog_name();

  // The run manifest JSON of the current snapshot of each table (names as SQL takes them).
  Result<std::string> BuildRunManifest(const std::vector<std::string>& tables,
                                       int64_t run_started_at_ms);
  // Checks a run manifest against the catalog (same tables, recorded snapshots still there).
  Result<std::vector<ManifestSource>> ResolveRunManifest(const std::string& json);

  // The rows that the appends after snapshot `start_exclusive` up to `end_inclusive` (default:
  // the current snapshot) added to `table` (a name as SQL takes it), as Spark's
  // start-snapshot-id and end-snapshot-id read options give them (rules and errors:
  // table::AppendedFilesBetween). Then `SELECT columns FROM table WHERE filter` runs over
  // those rows in floe SQL, in the session's time zone: no columns means `*`, an empty
  // filter none. The filter may not read other tables.
  Result<sql::StatementResult> ReadAppendedRows(const std::string& table, int64_t start_exclusive,
                                                std::optional<int64_t> end_inclusive,
                                                const std::vector<std::string>& columns,
                                                const std::string& filter);

 private:
  explicit PythonSession(std::unique_ptr<sql::Session> session) : session_(std::move(session)) {}

  std::mutex mutex_;
  std::unique_ptr<sql::Session> session_;
};

}  // namespace floe::python
