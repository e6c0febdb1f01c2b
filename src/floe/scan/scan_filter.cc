#include "floe/scan/scan_filter.h"

#include <optional>

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

bool FileMayMatch(const manifest::DataFile& file, const std::vector<ColumnPredicate>& predicates,
                  const spec::PartitionSpec& spec) {
  for (const auto& p : predicates) {
    auto values = file.value_counts.find(p.field_id);
    auto nulls = file.null_value_counts.find(p.field_id);
    bool all_null = values != file.value_counts.end() && nulls != file.null_value_counts.end() &&
                    values->second == nulls->second;
    if (p.op == Op::kIsNull) {
      if (nulls != file.null_value_counts.end() && nulls->second == 0) return false;
      continue;
    }
    if (all_null) return false;  // comparisons and IS NOT NULL need a non-null value
    if (p.op == Op::kNotNull) continue;
    auto lo = file.lower_bounds.find(p.field_id);
    auto hi = file.upper_bounds.find(p.field_id);
    if (lo != file.lower_bounds.end() && hi != file.upper_bounds.end() && p.value.type()) {
      auto lower = spec::FromSingleValueBinary(p.value.type(), lo->second);
      auto upper = spec::FromSingleValueBinary(p.value.type(), hi->second);
      if (lower.ok() && upper.ok() && Comparable(*lower, p.value) && Comparable(*upper, p.value) &&
          !RangeMayMatch(*lower, *upper, p.op, p.value)) {
        return false;
      }
    }
    for (size_t i = 0; i < spec.fields().size() && i < file.partition.size(); ++i) {
      const auto& field = spec.fields()[i];
      if (field.source_id != p.field_id) continue;
      auto projected = Project(field, p);
      const spec::Literal& part = file.partition[i];
      if (!projected || !Comparable(part, projected->second)) continue;
      if (!RangeMayMatch(part, part, projected->first, projected->second)) return false;
    }
  }
  return true;
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
