#pragma once

// Who or what made a snapshot, from its summary: floe's own keys (`floe.user`,
// `floe.client`, `floe.statement`) when floe committed it, else the engine other writers
// record (Spark's `engine-name` and `engine-version`, or `iceberg-version`).

#include <cstddef>
#include <optional>
#include <string>

#include "floe/spec/snapshot.h"

namespace floe::table {

struct SnapshotProvenance {
  std::optional<std::string> user, client, statement;
  std::optional<std::string> engine;  // "spark 3.5.4", "Apache Iceberg 1.10.0 (...)"
};

SnapshotProvenance ProvenanceOf(const spec::Snapshot& snapshot);

// One line: "alice with floe sql: MERGE INTO ..." (the statement on one line, cut to
// `max_statement` characters with "..." when longer; 0 keeps it whole), "spark 3.5.4", or
// "unknown".
std::string DescribeProvenance(const SnapshotProvenance& provenance, size_t max_statement = 0);

}  // namespace floe::table
