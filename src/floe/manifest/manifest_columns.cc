#include "floe/manifest/manifest_columns.h"

#include <algorithm>

#include "floe/manifest/inheritance.h"

namespace floe::manifest {

int ManifestColumns::MetricIndex(int32_t field_id) const {
  for (size_t m = 0; m < metrics_.size(); ++m) {
    if (metrics_[m].field_id == field_id) return static_cast<int>(m);
  }
  return -1;
}

std::optional<int64_t> ManifestColumns::Count(int metric, CountKind kind, size_t i) const {
  if (metric < 0) return std::nullopt;
  const auto& column = metrics_[static_cast<size_t>(metric)].counts[kind];
  if (i >= column.size() || column[i] == kNoCount) return std::nullopt;
  return column[i];
}

std::optional<std::string_view> ManifestColumns::Bound(int metric, int which, size_t i) const {
  if (metric < 0) return std::nullopt;
  const auto& column = metrics_[static_cast<size_t>(metric)].bounds[which];
  if (i >= column.size() || column[i].size == kAbsent) return std::nullopt;
  return View(column[i]);
}

const ManifestColumns::Rare* ManifestColumns::RareOf(size_t i) const {
  if (!(flags_[i] & kHasRare)) return nullptr;
  auto it = std::lower_bound(rare_.begin(), rare_.end(), i,
                             [](const Rare& r, size_t row) { return r.row < row; });
  return it != rare_.end() && it->row == i ? &*it : nullptr;
}

ManifestEntry ManifestColumns::Entry(size_t i) const {
  ManifestEntry e;
  e.status = status(i);
  e.snapshot_id = snapshot_id(i);
  e.sequence_number = sequence_number(i);
  e.file_sequence_number = file_sequence_number(i);
  DataFile& f = e.data_file;
  f.content = content(i);
  f.file_path = std::string(file_path(i));
  f.partition.assign(partition(i), partition(i) + partition_width_);
  f.spec_id = spec_id_;
  f.record_count = record_count_[i];
  f.file_size_in_bytes = file_size_[i];
  for (size_t m = 0; m < metrics_.size(); ++m) {
    const Metric& metric = metrics_[m];
    const int index = static_cast<int>(m);
    IdMap<int64_t>* counts[] = {&f.column_sizes, &f.value_counts, &f.null_value_counts, &f.nan_value_counts};
    for (int kind = kSizes; kind <= kNans; ++kind) {
      if (auto v = Count(index, static_cast<CountKind>(kind), i)) (*counts[kind])[metric.field_id] = *v;
    }
    if (auto v = lower_bound(index, i)) f.lower_bounds[metric.field_id] = std::string(*v);
    if (auto v = upper_bound(index, i)) f.upper_bounds[metric.field_id] = std::string(*v);
  }
  f.empty_metric_maps = empty_maps_[i];
  f.split_offsets.assign(split_offsets_.begin() + split_begin_[i], split_offsets_.begin() + split_begin_[i + 1]);
  if (flags_[i] & kHasSortOrderId) f.sort_order_id = sort_order_id_[i];
  if (flags_[i] & kHasFirstRowId) f.first_row_id = first_row_id_[i];
  if (const Rare* rare = RareOf(i)) {
    if (!rare->file_format.empty()) f.file_format = rare->file_format;
    f.key_metadata = rare->key_metadata;
    f.equality_ids = rare->equality_ids;
    f.referenced_data_file = rare->referenced_data_file;
    f.content_offset = rare->content_offset;
    f.content_size_in_bytes = rare->content_size_in_bytes;
  }
  return e;
}

int64_t ManifestColumns::bytes() const {
  auto capacity = [](const auto& v) { return static_cast<int64_t>(v.capacity() * sizeof(v[0])); };
  int64_t n = static_cast<int64_t>(sizeof(*this) + bytes_.capacity());
  n += capacity(status_) + capacity(content_) + capacity(flags_) + capacity(empty_maps_);
  n += capacity(snapshot_id_) + capacity(sequence_number_) + capacity(file_sequence_number_);
  n += capacity(record_count_) + capacity(file_size_) + capacity(first_row_id_) + capacity(sort_order_id_);
  n += capacity(path_) + capacity(split_begin_) + capacity(split_offsets_);
  // A partition value's type is shared; a string value may hold a few bytes more.
  n += static_cast<int64_t>(partition_.capacity() * (sizeof(spec::Literal) + 16));
  for (const Metric& m : metrics_) {
    n += static_cast<int64_t>(sizeof(Metric));
    for (const auto& c : m.counts) n += capacity(c);
    for (const auto& b : m.bounds) n += capacity(b);
  }
  for (const Rare& r : rare_) {
    n += static_cast<int64_t>(sizeof(Rare) + r.file_format.capacity() + r.equality_ids.capacity() * 4);
    n += static_cast<int64_t>((r.key_metadata ? r.key_metadata->capacity() : 0) +
                              (r.referenced_data_file ? r.referenced_data_file->capacity() : 0));
  }
  return n;
}

void ManifestColumns::Inherit(const ManifestFile& manifest, int32_t spec_id, bool v1) {
  spec_id_ = spec_id;
  FirstRowIds row_ids(manifest);
  for (size_t i = 0; i < size(); ++i) {
    std::optional<int64_t> snapshot = snapshot_id(i), sequence = sequence_number(i),
                           file_sequence = file_sequence_number(i);
    InheritSequenceNumbers(manifest, v1, status(i), snapshot, sequence, file_sequence);
    auto store = [&](const std::optional<int64_t>& v, std::vector<int64_t>& column, uint8_t flag) {
      if (!v) return;
      column[i] = *v;
      flags_[i] |= flag;
    };
    store(snapshot, snapshot_id_, kHasSnapshotId);
    store(sequence, sequence_number_, kHasSequenceNumber);
    store(file_sequence, file_sequence_number_, kHasFileSequenceNumber);
    store(row_ids.Next(status(i), content(i), flags_[i] & kHasFirstRowId, record_count_[i]), first_row_id_,
          kHasFirstRowId);
  }
}

}  // namespace floe::manifest
