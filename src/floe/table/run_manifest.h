#pragma once

// Run manifests: the snapshot id of each source table at the start of a
// pipeline run, kept next to its artifact, so a later run reads exactly the same rows
// however the tables, the clock or the session time zone have moved since.
//
// JSON shape (what a Python pipeline's run manifest holds, plus exact fields):
//   {"run_started_at": "2024-01-15T10:30:00.123+00:00", "run_started_at_ms": 1705314600123,
//    "sources": {"lakehouse.db.orders": {"snapshot_id": 123, "committed_at":
//    "2024-01-15 10:29:58.1", "committed_at_ms": 1705314598100, "table_uuid": "..."}}}

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/table/table.h"
#include "floe/table/table_catalog.h"
#include "floe/table/time_travel.h"

namespace floe::table {

struct RunManifestSource {
  std::string table;  // "<catalog>.<namespace>.<table>", as Table::name()
  int64_t snapshot_id = 0;
  int64_t committed_at_ms = 0;
  std::string table_uuid;  // guards against a dropped and re-created table of the same name
};

struct RunManifest {
  int64_t run_started_at_ms = 0;
  std::vector<RunManifestSource> sources;  // in the order given, one per table
};

// Records the current snapshot of each table (after no refresh: what the caller loaded).
// A table without a snapshot: `Table <name> has no current snapshot to record`; the same
// table twice: `Table <name> is listed twice`.
Result<RunManifest> BuildRunManifest(const std::vector<std::shared_ptr<Table>>& tables,
                                     int64_t run_started_at_ms);

std::string RunManifestToJson(const RunManifest& manifest);
// Errors name the problem: `Invalid run manifest: <why>`.
Result<RunManifest> RunManifestFromJson(std::string_view json);

// Through FileIO (kind kOther); writing never replaces an existing file.
Status WriteRunManifest(FileIO& io, const std::string& location, const RunManifest& manifest);
Result<RunManifest> ReadRunManifest(FileIO& io, const std::string& location);

struct ResolvedSource {
  std::shared_ptr<Table> table;
  ResolvedSnapshot snapshot;  // exactly the recorded snapshot, with its schema
};

// The source recorded for `table_name` ("<catalog>.<ns>.<table>"), or null.
const RunManifestSource* FindRunManifestSource(const RunManifest& manifest,
                                               const std::string& table_name);

// The recorded snapshot of `table`, which must be the table recorded (same uuid).
Result<ResolvedSnapshot> ResolveRunManifestSource(const Table& table,
                                                  const RunManifestSource& source);

// Loads each recorded table from `catalog` and resolves the recorded snapshot id. Errors:
// `Run manifest source <name> is in another catalog, not <catalog>`, `Table <name> is not the
// table the run manifest recorded (uuid <now> != <recorded>)`, and for an expired snapshot
// `Cannot find snapshot with ID <id>` prefixed with the table name.
Result<std::vector<ResolvedSource>> ResolveRunManifest(TableCatalog& catalog,
                                                       const RunManifest& manifest);

}  // namespace floe::table
