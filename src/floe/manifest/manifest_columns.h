#pragma once

// A manifest's entries as planning reads them: one array per field rather than a DataFile
// per entry. Paths and bounds share one byte arena, counts and sequence numbers sit in plain
// arrays, and the fields few entries carry (equality ids, deletion vector offsets, key
// metadata) are kept aside for the entries that have them. Decoding allocates per column,
// not per entry, and planning turns into a DataFile only the entries its filter keeps.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/manifest/data_file.h"
#include "floe/manifest/manifest_file.h"
#include "floe/spec/literal.h"

namespace floe::manifest {

class ManifestColumns {
 public:
  size_t size() const { return status_.size(); }
  bool empty() const { return status_.empty(); }
  int32_t spec_id() const { return spec_id_; }

  EntryStatus status(size_t i) const { return static_cast<EntryStatus>(status_[i]); }
  FileContent content(size_t i) const { return static_cast<FileContent>(content_[i]); }
  std::string_view file_path(size_t i) const { return View(path_[i]); }
  int64_t record_count(size_t i) const { return record_count_[i]; }
  int64_t file_size_in_bytes(size_t i) const { return file_size_[i]; }
  // After inheritance from the manifest list entry, as ReadManifest gives them.
  std::optional<int64_t> snapshot_id(size_t i) const { return Optional(snapshot_id_, i, kHasSnapshotId); }
  std::optional<int64_t> sequence_number(size_t i) const { return Optional(sequence_number_, i, kHasSequenceNumber); }
  std::optional<int64_t> file_sequence_number(size_t i) const {
    return Optional(file_sequence_number_, i, kHasFileSequenceNumber);
  }
  // The entry's partition tuple: one value per field of the manifest's spec.
  const spec::Literal* partition(size_t i) const { return partition_.data() + i * partition_width_; }
  size_t partition_width() const { return partition_width_; }

  // Column metrics of the field ids decoded (those projected, or every one met). `metric`
  // is MetricIndex(field_id); -1 (not decoded) reads as absent.
  int MetricIndex(int32_t field_id) const;
  std::optional<int64_t> value_count(int metric, size_t i) const { return Count(metric, kValues, i); }
  std::optional<int64_t> null_value_count(int metric, size_t i) const { return Count(metric, kNulls, i); }
  std::optional<int64_t> nan_value_count(int metric, size_t i) const { return Count(metric, kNans, i); }
  std::optional<std::string_view> lower_bound(int metric, size_t i) const { return Bound(metric, 0, i); }
  std::optional<std::string_view> upper_bound(int metric, size_t i) const { return Bound(metric, 1, i); }

  // Entry i whole, as ReadManifest gives it with the same projection.
  ManifestEntry Entry(size_t i) const;
  // The memory held, for the manifest cache's budget.
  int64_t bytes() const;

  // The reader's last step: the spec id the manifest was written with, and what its entries
  // inherit from the manifest list entry (see inheritance.h).
  void Inherit(const ManifestFile& manifest, int32_t spec_id, bool v1);

 private:
  friend class ColumnSink;

  // Where a variable-length value sits in bytes_; kAbsent when the entry has none.
  struct Span {
    uint64_t offset = 0;
    uint32_t size = kAbsent;
  };
  static constexpr uint32_t kAbsent = UINT32_MAX;
  static constexpr int64_t kNoCount = INT64_MIN;

  enum CountKind { kSizes = 0, kValues = 1, kNulls = 2, kNans = 3 };
  // One decoded field id's metrics. Arrays grow only as far as the last entry that had a
  // value; rows past their end have none.
  struct Metric {
    int32_t field_id = 0;
    std::vector<int64_t> counts[4];
    std::vector<Span> bounds[2];
  };
  // The fields few entries carry, with the entry they belong to.
  struct Rare {
    uint32_t row = 0;
    std::string file_format;  // empty: PARQUET
    std::optional<std::string> key_metadata;
    std::vector<int32_t> equality_ids;
    std::optional<std::string> referenced_data_file;
    std::optional<int64_t> content_offset;
    std::optional<int64_t> content_size_in_bytes;
  };
  enum Flag : uint8_t {
    kHasSnapshotId = 1 << 0,
    kHasSequenceNumber = 1 << 1,
    kHasFileSequenceNumber = 1 << 2,
    kHasSortOrderId = 1 << 3,
    kHasFirstRowId = 1 << 4,
    kHasRare = 1 << 5,
  };

  std::string_view View(Span s) const { return {bytes_.data() + s.offset, s.size}; }
  std::optional<int64_t> Optional(const std::vector<int64_t>& column, size_t i, uint8_t flag) const {
    if (!(flags_[i] & flag)) return std::nullopt;
    return column[i];
  }
  std::optional<int64_t> Count(int metric, CountKind kind, size_t i) const;
  std::optional<std::string_view> Bound(int metric, int which, size_t i) const;
  const Rare* RareOf(size_t i) const;

  int32_t spec_id_ = 0;
  size_t partition_width_ = 0;
  std::vector<uint8_t> status_;
  std::vector<uint8_t> content_;
  std::vector<uint8_t> flags_;
  std::vector<uint8_t> empty_maps_;  // DataFile::empty_metric_maps
  std::vector<int64_t> snapshot_id_;
  std::vector<int64_t> sequence_number_;
  std::vector<int64_t> file_sequence_number_;
  std::vector<int64_t> record_count_;
  std::vector<int64_t> file_size_;
  std::vector<int64_t> first_row_id_;
  std::vector<int32_t> sort_order_id_;
  std::vector<Span> path_;
  std::vector<spec::Literal> partition_;
  // Entry i's split offsets are split_offsets_[split_begin_[i], split_begin_[i + 1]).
  std::vector<uint32_t> split_begin_;
  std::vector<int64_t> split_offsets_;
  std::vector<Metric> metrics_;
  std::vector<Rare> rare_;  // in row order
  std::string bytes_;
};

}  // namespace floe::manifest
