#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace floe::spec {

// Spec: "Snapshots". `operation` lives in the summary map under "operation" on the wire.
struct Snapshot {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;  // 0 in v1 metadata
  int64_t timestamp_ms = 0;
  std::string manifest_list;             // empty for v1 snapshots that list manifests inline
  std::vector<std::string> v1_manifests;  // v1 only
  std::string operation;                  // append | replace | overwrite | delete
  std::map<std::string, std::string> summary;  // everything but "operation"
  std::optional<int32_t> schema_id;
  // v3 row lineage: the first row id this snapshot assigns, and how many rows it added
  // (its range of ids is [first_row_id, first_row_id + added_rows)).
  std::optional<int64_t> first_row_id;
  std::optional<int64_t> added_rows;
  std::optional<std::string> key_id;  // v3: the encryption key of its manifest list

  bool operator==(const Snapshot& other) const = default;
};

enum class SnapshotRefType { kBranch, kTag };

// Spec: "Snapshot References".
struct SnapshotRef {
  int64_t snapshot_id = 0;
  SnapshotRefType type = SnapshotRefType::kBranch;
  std::optional<int32_t> min_snapshots_to_keep;  // branches only
  std::optional<int64_t> max_snapshot_age_ms;    // branches only
  std::optional<int64_t> max_ref_age_ms;

  bool is_branch() const { return type == SnapshotRefType::kBranch; }
  bool operator==(const SnapshotRef& other) const = default;
};

inline constexpr char kMainBranch[] = "main";

struct SnapshotLogEntry {
  int64_t timestamp_ms = 0;
  int64_t snapshot_id = 0;
  bool operator==(const SnapshotLogEntry& other) const = default;
};

struct MetadataLogEntry {
  int64_t timestamp_ms = 0;
  std::string metadata_file;
  bool operator==(const MetadataLogEntry& other) const = default;
};

// Spec: "Table Statistics" and "Partition Statistics".
struct BlobMetadata {
  std::string type;
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;
  std::vector<int32_t> fields;
  std::map<std::string, std::string> properties;
  bool operator==(const BlobMetadata& other) const = default;
};

struct StatisticsFile {
  int64_t snapshot_id = 0;
  std::string statistics_path;
  int64_t file_size_in_bytes = 0;
  int64_t file_footer_size_in_bytes = 0;
  std::string key_metadata;  // base64 text as on the wire; empty when absent
  std::vector<BlobMetadata> blob_metadata;
  bool operator==(const StatisticsFile& other) const = default;
};

struct PartitionStatisticsFile {
  int64_t snapshot_id = 0;
  std::string statistics_path;
  int64_t file_size_in_bytes = 0;
  bool operator==(const PartitionStatisticsFile& other) const = default;
};

}  // namespace floe::spec
