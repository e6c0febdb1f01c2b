#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace floe::manifest {

enum class ManifestContent : int32_t { kData = 0, kDeletes = 1 };

// Spec: "Manifest Lists", field_summary (ids 509-511, 518).
struct PartitionFieldSummary {
  bool contains_null = false;
  std::optional<bool> contains_nan;
  std::optional<std::string> lower_bound;  // single-value binary form
  std::optional<std::string> upper_bound;
  bool operator==(const PartitionFieldSummary& other) const = default;
};

// Spec: "Manifest Lists", manifest_file (ids 500-520).
struct ManifestFile {
  std::string manifest_path;
  int64_t manifest_length = 0;
  int32_t partition_spec_id = 0;
  ManifestContent content = ManifestContent::kData;
  int64_t sequence_number = 0;
  int64_t min_sequence_number = 0;
  int64_t added_snapshot_id = 0;
  int32_t added_files_count = 0;
  int32_t existing_files_count = 0;
  int32_t deleted_files_count = 0;
  int64_t added_rows_count = 0;
  int64_t existing_rows_count = 0;
  int64_t deleted_rows_count = 0;
  std::vector<PartitionFieldSummary> partitions;
  std::optional<std::string> key_metadata;
  // v3: the row id its first data file without one inherits (data manifests only).
  std::optional<int64_t> first_row_id;

  bool has_added_files() const { return added_files_count > 0; }
  bool has_existing_files() const { return existing_files_count > 0; }
  bool operator==(const ManifestFile& other) const = default;
};

// Value written in a manifest list for sequence numbers assigned at commit (spec: the
// writer leaves them unassigned until the snapshot's sequence number is known).
inline constexpr int64_t kUnassignedSequenceNumber = -1;

}  // namespace floe::manifest
