#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "floe/sql/session.h"

namespace floe::cli {

// `floe demo`: the rollback story on fresh tables in the given catalog. A daily revenue
// report is built from an orders table, corrupted by a bad write, audited through the
// snapshots and history tables and a time-travel diff, then rolled back, redone and rolled
// back again; each step prints its SQL and what Spark would show.
struct DemoSnapshots {
  std::string clean;  // the report's first snapshot id
  std::string bad;    // the snapshot the bad MERGE committed
};
Result<DemoSnapshots> RunDemo(sql::Session& session, std::ostream& out);

// The same story's audit from a terminal, after RunDemo: the bad write made current again
// with `floe set-current`, `floe history --graph`, `floe diff` between the good and the bad
// snapshot, and the guarded `floe rollback`. `catalog_flags` are the options that name the
// demo's catalog (--catalog, --warehouse, ...), passed to each command.
Status RunDemoCommandLine(const std::vector<std::string>& catalog_flags,
                          const DemoSnapshots& snapshots, std::ostream& out);

}  // namespace floe::cli
