#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/manifest/id_map.h"
#include "floe/spec/literal.h"

namespace floe::manifest {

enum class FileContent : int32_t { kData = 0, kPositionDeletes = 1, kEqualityDeletes = 2 };
enum class EntryStatus : int32_t { kExisting = 0, kAdded = 1, kDeleted = 2 };

// Bits of DataFile::empty_metric_maps, one a metric map.
enum MetricMap : uint8_t {
  kColumnSizesMap = 1 << 0,
  kValueCountsMap = 1 << 1,
  kNullValueCountsMap = 1 << 2,
  kNanValueCountsMap = 1 << 3,
  kLowerBoundsMap = 1 << 4,
  kUpperBoundsMap = 1 << 5,
};

// Spec: "Manifests", the data_file struct (field ids 100-145). Bounds are kept in the
// spec's single-value binary form, exactly as they travel in the Avro file.
struct DataFile {
  FileContent content = FileContent::kData;
  std::string file_path;
  std::string file_format = "PARQUET";
  std::vector<spec::Literal> partition;  // one value per field of the entry's partition spec
  int32_t spec_id = 0;                    // from the manifest, not stored per entry
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  IdMap<int64_t> column_sizes;
  IdMap<int64_t> value_counts;
  IdMap<int64_t> null_value_counts;
  IdMap<int64_t> nan_value_counts;
  IdMap<std::string> lower_bounds;
  IdMap<std::string> upper_bounds;
  // The metric maps the manifest held empty rather than null (MetricMap bits). Java writes
  // an empty nan_value_counts for a table without float columns, floe writes none, and
  // Spark's files tables tell the two apart ({} and NULL); a writer keeps them as read.
  uint8_t empty_metric_maps = 0;
  std::optional<std::string> key_metadata;
  std::vector<int64_t> split_offsets;
  std::vector<int32_t> equality_ids;
  std::optional<int32_t> sort_order_id;
  // v3 row lineage: the row id of the file's first row; null in a manifest for a file added
  // by its snapshot, then inherited from the manifest's (spec: "First Row ID Inheritance").
  std::optional<int64_t> first_row_id;
  // The one data file a position delete file (always a deletion vector) applies to.
  std::optional<std::string> referenced_data_file;
  // A deletion vector's blob in its Puffin file.
  std::optional<int64_t> content_offset;
  std::optional<int64_t> content_size_in_bytes;

  // A v3 deletion vector: a blob of a Puffin file rather than a file of its own.
  bool is_deletion_vector() const {
    return content == FileContent::kPositionDeletes && file_format == "PUFFIN";
  }
  bool operator==(const DataFile& other) const = default;
};

// What tells a table's delete files apart: the path, and for a deletion vector also its
// blob's offset, since one Puffin file holds the vectors of many data files.
inline std::string DeleteFileId(const DataFile& f) {
  return f.is_deletion_vector() ? f.file_path + "@" + std::to_string(f.content_offset.value_or(0))
                                : f.file_path;
}

// One row of a manifest. Null sequence numbers and snapshot id are inherited from the
// manifest list entry when read (spec: "Sequence Number Inheritance").
struct ManifestEntry {
  EntryStatus status = EntryStatus::kAdded;
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> sequence_number;
  std::optional<int64_t> file_sequence_number;
  DataFile data_file;

  bool operator==(const ManifestEntry& other) const = default;
};

}  // namespace floe::manifest
