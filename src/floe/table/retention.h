#pragma once

// How far back a table can still be read, what keeping that history costs, and whether the
// table's own expiry settings would cut it shorter than a required horizon at the next
// expire_snapshots run. For operators who must prove, before an audit, that history is kept.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::table {

struct RefHorizon {
  std::string name;
  bool is_branch = true;
  int64_t snapshot_id = 0;
  // Branches: the oldest ancestor still kept, which is as far back as time travel along the
  // branch reaches (without a break in its lineage). Tags: the tag's own snapshot.
  int64_t oldest_snapshot_id = 0;
  int64_t oldest_timestamp_ms = 0;
  int64_t ancestors_kept = 0;
  // When the next expiry removes the ref itself (its max-ref-age passes); unset: never.
  std::optional<int64_t> ref_expires_at_ms;
  // Branches: the oldest ancestor the next expiry run with the table's settings would keep.
  int64_t oldest_after_next_expiry_ms = 0;
};

struct RetentionReport {
  std::string table;
  int64_t now_ms = 0;
  int64_t snapshot_count = 0;
  std::optional<int64_t> oldest_snapshot_id;
  std::optional<int64_t> oldest_timestamp_ms;
  std::vector<RefHorizon> refs;  // main first, then by name
  // Files (data, deletes, manifests, manifest lists) reachable from some snapshot but not
  // from the current one: what expiring all history would free.
  int64_t history_only_bytes = 0;
  int64_t history_only_files = 0;
  // The table's settings, as the next expiry will read them.
  int64_t max_snapshot_age_ms = 0;
  int64_t min_snapshots_to_keep = 0;
  std::optional<int64_t> max_ref_age_ms;
  bool gc_enabled = true;
  // The requirement checked (unset: none), and what breaks it; empty when it holds.
  std::optional<int64_t> required_ms;
  std::vector<std::string> problems;

  bool at_risk() const { return !problems.empty(); }
};

// Reads every manifest list and manifest once. With `required_ms`, the main branch must be
// readable as of now - required_ms, both today and after an expiry run with the table's
// settings; problems name what breaks it.
Result<RetentionReport> CheckRetention(Table& table, std::optional<int64_t> required_ms,
                                       int64_t now_ms);

}  // namespace floe::table
