#pragma once

// Time travel: one resolver from (snapshot id | timestamp | tag | branch | ref name) to a
// snapshot and the schema to read it with, plus the ancestry helpers of Iceberg's
// SnapshotUtil. Everything here reads metadata only; nothing opens a manifest.
//
// Two searches by time exist and differ on purpose, as in Iceberg:
//  - TIMESTAMP AS OF (SnapshotIdAsOfTime): the snapshot-log entry made current at or before
//    the instant, whether or not that snapshot is still an ancestor of the current state.
//  - ResolveSnapshotAsOf: the same search limited to current ancestors, for
//    reproducible pipelines.
//  - rollback_to_timestamp (snapshot_management.h) uses a third rule: the newest current
//    ancestor *committed* strictly before the instant (snapshot timestamps, not the log).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/spec/table_metadata.h"
#include "floe/table/table.h"

namespace floe::table {

// Exactly one field may be set; none means the table's current state.
struct TimeTravelSpec {
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> as_of_timestamp_ms;
  std::optional<std::string> tag;
  std::optional<std::string> branch;
  std::optional<std::string> ref;  // a tag or a branch name

  static TimeTravelSpec Snapshot(int64_t id) { return {id, {}, {}, {}, {}}; }
  static TimeTravelSpec AsOf(int64_t ms) { return {{}, ms, {}, {}, {}}; }
  static TimeTravelSpec Tag(std::string name) { return {{}, {}, std::move(name), {}, {}}; }
  static TimeTravelSpec Branch(std::string name) { return {{}, {}, {}, std::move(name), {}}; }
  static TimeTravelSpec Ref(std::string name) { return {{}, {}, {}, {}, std::move(name)}; }
};

struct ResolvedSnapshot {
  spec::TableMetadataPtr metadata;  // the metadata the snapshot was resolved in
  // nullptr only for the current state of a table with no snapshot yet.
  const spec::Snapshot* snapshot = nullptr;
  // The snapshot's schema (snapshot id, timestamp, tag) or the table's current schema
  // (current state, branch), as Iceberg's SnapshotUtil.schemaFor does.
  spec::SchemaPtr schema;
  // Set when the read is of a branch (main included for the current state): writes
  // addressed the same way go to this branch.
  std::optional<std::string> branch;

  std::optional<int64_t> snapshot_id() const {
    return snapshot ? std::optional<int64_t>(snapshot->snapshot_id) : std::nullopt;
  }
};

// Errors (exact phrases):
//  two fields set:   `Cannot time-travel by more than one of snapshot id, timestamp, tag,
//                     branch or ref (got <a> and <b>)`
//  unknown id:       `Cannot find snapshot with ID <id>`            (Iceberg core)
//  before the log:   `Cannot find a snapshot older than <2024-01-15T10:30:00+00:00>`
//  unknown tag:      `Cannot find snapshot associated with tag name: <name>` (Spark tag_)
//  a tag not a tag:  `Ref <name> is a branch not a tag`
//  unknown branch:   `Cannot use branch (does not exist): <name>`; a tag given as branch:
//                    `Ref <name> is a tag not a branch`
//  unknown ref:      `Cannot find ref <name>`                        (Iceberg useRef)
Result<ResolvedSnapshot> ResolveTimeTravel(const spec::TableMetadataPtr& metadata,
                                           const TimeTravelSpec& spec);
Result<ResolvedSnapshot> ResolveTimeTravel(const Table& table, const TimeTravelSpec& spec);

// Spark's VERSION AS OF '<string>': a string that parses as a (signed 64-bit) number is a
// snapshot id when such a snapshot exists, else (number or not) a tag or branch name; a
// branch reads with the current schema, a tag with its snapshot's. Neither:
// `Cannot find matching snapshot ID or reference name for version <version>`.
Result<ResolvedSnapshot> ResolveVersion(const spec::TableMetadataPtr& metadata,
                                        std::string_view version);
// VERSION AS OF <integer>: a snapshot id only, same error text when absent.
Result<ResolvedSnapshot> ResolveVersion(const spec::TableMetadataPtr& metadata,
                                        int64_t snapshot_id);

// Iceberg SnapshotUtil.nullableSnapshotIdAsOfTime: the snapshot-log entry with the latest
// timestamp at or before `timestamp_ms` (the first of equal ones); never one after.
std::optional<int64_t> NullableSnapshotIdAsOfTime(const spec::TableMetadata& metadata,
                                                  int64_t timestamp_ms);
// As above; none: `Cannot find a snapshot older than <FormatMillisIso(timestamp_ms)>`.
Result<int64_t> SnapshotIdAsOfTime(const spec::TableMetadata& metadata, int64_t timestamp_ms);

// resolve_snapshot_as_of: the latest snapshot-log entry made current at or
// before the instant whose snapshot is an ancestor of the current snapshot. Errors:
// `Table <name> has no snapshots` and `Cannot find a snapshot older than <instant>`.
Result<int64_t> ResolveSnapshotAsOf(const Table& table, int64_t timestamp_ms);
Result<int64_t> ResolveSnapshotAsOf(const spec::TableMetadata& metadata, int64_t timestamp_ms);

// The snapshot and its ancestors, newest first, following parent ids until one is missing
// (expired) or absent. Empty when `snapshot_id` is unknown.
std::vector<const spec::Snapshot*> AncestorsOf(const spec::TableMetadata& metadata,
                                               int64_t snapshot_id);
// Ancestors of the current snapshot (empty for a table without one).
std::vector<const spec::Snapshot*> CurrentAncestors(const spec::TableMetadata& metadata);
// Ancestors of `to` (inclusive) down to but excluding `from_exclusive` (all when nullopt),
// newest first, as Iceberg's ancestorsBetween.
std::vector<const spec::Snapshot*> AncestorsBetween(const spec::TableMetadata& metadata,
                                                    int64_t to_inclusive,
                                                    std::optional<int64_t> from_exclusive);

// Whether `ancestor_id` is `snapshot_id` or one of its ancestors (Iceberg isAncestorOf).
bool IsAncestorOf(const spec::TableMetadata& metadata, int64_t snapshot_id, int64_t ancestor_id);
// The table's branches and tags, with main made from the current snapshot where v1 metadata
// has a current snapshot and no main ref.
std::map<std::string, spec::SnapshotRef> RefsWithMain(const spec::TableMetadata& metadata);
// Whether `snapshot_id` is the current snapshot or one of its ancestors.
bool IsCurrentAncestor(const spec::TableMetadata& metadata, int64_t snapshot_id);
// Whether some ancestor of `snapshot_id` (itself included) has parent `ancestor_parent_id`
// (Iceberg isParentAncestorOf).
bool IsParentAncestorOf(const spec::TableMetadata& metadata, int64_t snapshot_id,
                        int64_t ancestor_parent_id);

// The schema Iceberg reads a snapshot with: its schema-id, else the current schema.
// Errors: `Cannot find snapshot with ID <id>`, `Cannot find schema with schema id <id>`.
Result<spec::SchemaPtr> SchemaForSnapshot(const spec::TableMetadata& metadata, int64_t snapshot_id);

}  // namespace floe::table
