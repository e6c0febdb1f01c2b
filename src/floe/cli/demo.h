#pragma once

#include <ostream>

#include "floe/sql/session.h"

namespace floe::cli {

// `floe demo`: the rollback story on fresh tables in the given catalog. A daily revenue
// report is built from an orders table, corrupted by a bad write, audited through the
// snapshots and history tables and a time-travel diff, then rolled back, redone and rolled
// back again; each step prints its SQL and what Spark would show.
Status RunDemo(sql::Session& session, std::ostream& out);

}  // namespace floe::cli
