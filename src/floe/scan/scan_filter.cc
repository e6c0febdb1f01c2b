#include "floe/scan/scan_filter.h"

#include <optional>
#include <string_view>
#include <type_traits>

namespace floe::scan {

namespace {

using Op = ColumnPredicate::Op;

// Whether a value range [lower, upper] may hold a value satisfying `op value`.
bool RangeMayMatch(const spec::Literal& lower, const spec::Literal& upper, Op op, const spec::Literal& value) {
  switch (op) {
    case Op::kEq: return value.Compare(lower) >= 0 && value.Compare(upper) <= 0;
    case Op::kLt: return lower.Compare(value) < 0;
    case Op::kLe: return lower.Compare(value) <= 0;
    case Op::kGt: return upper.Compare(value) > 0;
    case Op::kGe: return upper.Compare(value) >= 0;
    default: return true;
  }
}

bool Comparable(const spec::Literal& a, const spec::Literal& b) {
  return a.type() && b.type() && a.type()->Equals(*b.type()) && !a.is_null() && !b.is_null() &&
         a.type()->id() != spec::TypeId::kFloat && a.type()->id() != spec::TypeId::kDouble;
}

// The predicate moved onto a partition field's values, when the transform allows:
// identity keeps it, order-preserving transforms (year..hour, truncate) weaken strict
// bounds to inclusive ones, bucket keeps only equality.
std::optional<std::pair<Op, spec::Literal>> Project(const spec::PartitionField& field, const ColumnPredicate& p) {
  if (p.op == Op::kIsNull || p.op == Op::kNotNull) return std::nullopt;
  auto transformed = field.transform.Apply(p.value);
  if (!transformed.ok() || transformed->is_null()) return std::nullopt;
  switch (field.transform.kind()) {
    case spec::TransformKind::kIdentity:
      return std::make_pair(p.op, *transformed);
    case spec::TransformKind::kYear:
    case spec::TransformKind::kMonth:
    case spec::TransformKind::kDay:
    case spec::TransformKind::kHour:
    case spec::TransformKind::kTruncate: {
      Op op = p.op == Op::kLt ? Op::kLe : p.op == Op::kGt ? Op::kGe : p.op;
      return std::make_pair(op, *transformed);
    }
    case spec::TransformKind::kBucket:
      if (p.op == Op::kEq) return std::make_pair(Op::kEq, *transformed);
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

}  // namespace

namespace {

template <typename V>
auto FindMetric(const manifest::IdMap<V>& map, int32_t id) {
  using Out = std::conditional_t<std::is_same_v<V, std::string>, std::string_view, V>;
  auto it = map.find(id);
  return it == map.end() ? std::optional<Out>() : std::optional<Out>(it->second);
}

// The stats of one data file, from a DataFile or from a row of ManifestColumns.
class DataFileStats {
 public:
  explicit DataFileStats(const manifest::DataFile& file) : f_(file) {}
  std::optional<int64_t> value_count(int32_t id) const { return FindMetric(f_.value_counts, id); }
  std::optional<int64_t> null_count(int32_t id) const { return FindMetric(f_.null_value_counts, id); }
  std::optional<std::string_view> lower_bound(int32_t id) const { return FindMetric(f_.lower_bounds, id); }
  std::optional<std::string_view> upper_bound(int32_t id) const { return FindMetric(f_.upper_bounds, id); }
  const spec::Literal* partition() const { return f_.partition.data(); }
  size_t partition_size() const { return f_.partition.size(); }

 private:
  const manifest::DataFile& f_;
};

class ColumnRowStats {
 public:
  ColumnRowStats(const manifest::ManifestColumns& columns, size_t row) : c_(columns), i_(row) {}
  std::optional<int64_t> value_count(int32_t id) const { return c_.value_count(c_.MetricIndex(id), i_); }
  std::optional<int64_t> null_count(int32_t id) const { return c_.null_value_count(c_.MetricIndex(id), i_); }
  std::optional<std::string_view> lower_bound(int32_t id) const { return c_.lower_bound(c_.MetricIndex(id), i_); }
  std::optional<std::string_view> upper_bound(int32_t id) const { return c_.upper_bound(c_.MetricIndex(id), i_); }
  const spec::Literal* partition() const { return c_.partition(i_); }
  size_t partition_size() const { return c_.partition_width(); }

 private:
  const manifest::ManifestColumns& c_;
  size_t i_;
};

template <typename Stats>
bool StatsMayMatch(const Stats& file, const std::vector<ColumnPredicate>& predicates, const spec::PartitionSpec& spec) {
  for (const auto& p : predicates) {
    const auto values = file.value_count(p.field_id);
    const auto nulls = file.null_count(p.field_id);
    const bool all_null = values && nulls && *values == *nulls;
    if (p.op == Op::kIsNull) {
      if (nulls && *nulls == 0) return false;
      continue;
    }
    if (all_null) return false;  // comparisons and IS NOT NULL need a non-null value
    if (p.op == Op::kNotNull) continue;
    const auto lo = file.lower_bound(p.field_id);
    const auto hi = file.upper_bound(p.field_id);
    if (lo && hi && p.value.type()) {
      auto lower = spec::FromSingleValueBinary(p.value.type(), *lo);
      auto upper = spec::FromSingleValueBinary(p.value.type(), *hi);
      if (lower.ok() && upper.ok() && Comparable(*lower, p.value) && Comparable(*upper, p.value) &&
          !RangeMayMatch(*lower, *upper, p.op, p.value)) {
        return false;
      }
    }
    for (size_t i = 0; i < spec.fields().size() && i < file.partition_size(); ++i) {
      const auto& field = spec.fields()[i];
      if (field.source_id != p.field_id) continue;
      auto projected = Project(field, p);
      const spec::Literal& part = file.partition()[i];
      if (!projected || !Comparable(part, projected->second)) continue;
      if (!RangeMayMatch(part, part, projected->first, projected->second)) return false;
    }
  }
  return true;
}

}  // namespace

bool FileMayMatch(const manifest::DataFile& file, const std::vector<ColumnPredicate>& predicates,
                  const spec::PartitionSpec& spec) {
  return StatsMayMatch(DataFileStats(file), predicates, spec);
}

bool FileMayMatch(const manifest::ManifestColumns& columns, size_t row, const std::vector<ColumnPredicate>& predicates,
                  const spec::PartitionSpec& spec) {
  return StatsMayMatch(ColumnRowStats(columns, row), predicates, spec);
}

bool ManifestMayMatch(const manifest::ManifestFile& manifest, const std::vector<ColumnPredicate>& predicates,
                      const spec::PartitionSpec& spec, const spec::Schema& schema) {
  if (manifest.partitions.size() != spec.fields().size()) return true;
  auto partition_type = spec.PartitionType(schema);
  if (!partition_type.ok()) return true;
  for (const auto& p : predicates) {
    for (size_t i = 0; i < spec.fields().size(); ++i) {
      const auto& field = spec.fields()[i];
      if (field.source_id != p.field_id) continue;
      const auto& summary = manifest.partitions[i];
      if (p.op == Op::kIsNull) {
        if (field.transform.kind() == spec::TransformKind::kIdentity && !summary.contains_null) return false;
        continue;
      }
      auto projected = Project(field, p);
      if (!projected || !summary.lower_bound || !summary.upper_bound) continue;
      const auto& type = (*partition_type)->fields()[i].type;
      auto lower = spec::FromSingleValueBinary(type, *summary.lower_bound);
      auto upper = spec::FromSingleValueBinary(type, *summary.upper_bound);
      if (!lower.ok() || !upper.ok() || !Comparable(*lower, projected->second) || !Comparable(*upper, projected->second)) {
        continue;
      }
      if (!RangeMayMatch(*lower, *upper, projected->first, projected->second)) return false;
    }
  }
  return true;
}

}  // namespace floe::scan
