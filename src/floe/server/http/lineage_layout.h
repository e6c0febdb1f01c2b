#pragma once

// Where the lineage graph of the table page puts each snapshot: the rows of
// floe::table::LineageOrder (newest first, each snapshot above its parent, a row for each jump
// of main) and a lane (column) per snapshot. A snapshot continues the lane that waits for it
// (its first child's); a snapshot nobody waits for opens the leftmost free lane. A lane keeps
// its column until its line ends, so an edge from a child to its parent either runs straight
// down one lane or, when the parent's lane was already waiting for it, bends into that lane
// right below the child.

#include <cstdint>
#include <optional>
#include <vector>

#include "floe/table/lineage.h"
#include "floe/spec/table_metadata.h"

namespace floe::server::http {

struct LineageRow {
  const spec::Snapshot* snapshot = nullptr;  // or
  const table::MainJump* jump = nullptr;
  int lane = 0;  // snapshots only
};

struct LineageLayout {
  std::vector<table::MainJump> jumps;  // the rows' jumps point into this
  std::vector<LineageRow> rows;
  int lanes = 0;  // columns used
};

LineageLayout LayOutLineage(const spec::TableMetadata& metadata);

}  // namespace floe::server::http
