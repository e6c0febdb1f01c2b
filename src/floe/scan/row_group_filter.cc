#include "floe/scan/row_group_filter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <variant>

#include <arrow/util/decimal.h>
#include <parquet/bloom_filter.h>
#include <parquet/bloom_filter_reader.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>
#include <parquet/page_index.h>
#include <parquet/schema.h>
#include <parquet/statistics.h>
#include <parquet/types.h>

namespace floe::scan {

namespace {

using Op = ColumnPredicate::Op;
using spec::TypeId;

template <typename T>
std::optional<T> LoadLittleEndian(std::string_view bytes) {
  if (bytes.size() != sizeof(T)) return std::nullopt;
  T v;
  std::memcpy(&v, bytes.data(), sizeof(T));
  return v;
}

// Plain signed integers only: unsigned ones are ordered differently in statistics.
bool SignedIntOrNone(const parquet::LogicalType& logical) {
  if (logical.is_none()) return true;
  if (!logical.is_int()) return false;
  return static_cast<const parquet::IntLogicalType&>(logical).is_signed();
}

std::optional<parquet::LogicalType::TimeUnit::unit> TimestampUnit(const parquet::LogicalType& logical) {
  if (!logical.is_timestamp()) return std::nullopt;
  return static_cast<const parquet::TimestampLogicalType&>(logical).time_unit();
}

bool DecimalScaleIs(const parquet::LogicalType& logical, int32_t scale) {
  return logical.is_decimal() && static_cast<const parquet::DecimalLogicalType&>(logical).scale() == scale;
}

bool IsFloating(const spec::TypePtr& type) {
  return type && (type->id() == TypeId::kFloat || type->id() == TypeId::kDouble);
}

double FloatingValue(const spec::Literal& v) {
  if (auto* f = std::get_if<float>(&v.value())) return *f;
  return v.get<double>();
}

}  // namespace

bool PredicateCanPrune(const ColumnPredicate& p) {
  if (p.op == Op::kIsNull || p.op == Op::kNotNull) return true;
  if (!p.value.type() || p.value.is_null()) return false;
  if (!p.value.type()->is_primitive()) return false;
  if (IsFloating(p.value.type())) {
    if (p.op == Op::kGt || p.op == Op::kGe) return false;
    if (std::isnan(FloatingValue(p.value))) return false;
  }
  return true;
}

namespace {

int CompareValues(const spec::Literal& a, const spec::Literal& b) {
  if (IsFloating(a.type())) {
    double x = FloatingValue(a), y = FloatingValue(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return a.Compare(b);
}

// Whether [lower, upper] may hold a value satisfying `p`; unsure (NaN bounds) means yes.
bool BoundsMayMatch(const ColumnPredicate& p, const spec::Literal& lower, const spec::Literal& upper) {
  if (IsFloating(lower.type()) && (std::isnan(FloatingValue(lower)) || std::isnan(FloatingValue(upper)))) {
    return true;
  }
  switch (p.op) {
    case Op::kEq: return CompareValues(p.value, lower) >= 0 && CompareValues(p.value, upper) <= 0;
    case Op::kLt: return CompareValues(lower, p.value) < 0;
    case Op::kLe: return CompareValues(lower, p.value) <= 0;
    case Op::kGt: return CompareValues(upper, p.value) > 0;
    case Op::kGe: return CompareValues(upper, p.value) >= 0;
    default: return true;
  }
}

// Whether a set of values (a row group or a page) may satisfy `p`, given what is known of it.
bool ValuesMayMatch(const parquet::ColumnDescriptor& descr, const ColumnPredicate& p,
                    std::optional<int64_t> null_count, int64_t num_values, bool has_min_max,
                    std::string_view min, std::string_view max) {
  if (p.op == Op::kIsNull) return !null_count || *null_count > 0;
  // Comparisons and IS NOT NULL need a non-null value.
  if (null_count && *null_count >= num_values) return false;
  if (p.op == Op::kNotNull || !has_min_max || !PredicateCanPrune(p)) return true;
  auto lower = StatToLiteral(descr, p.value.type(), min);
  auto upper = StatToLiteral(descr, p.value.type(), max);
  if (!lower || !upper) return true;
  return BoundsMayMatch(p, *lower, *upper);
}

// Big-endian two's complement of `value` in exactly `length` bytes, if it fits.
std::optional<std::string> DecimalBytes(const arrow::Decimal128& value, int32_t length) {
  if (length < 1 || length > 16) return std::nullopt;
  auto le = value.ToBytes();
  std::string be(16, '\0');
  for (int i = 0; i < 16; ++i) be[i] = static_cast<char>(le[15 - i]);
  const char sign = value.IsNegative() ? static_cast<char>(0xFF) : '\0';
  const size_t drop = 16 - static_cast<size_t>(length);
  for (size_t i = 0; i < drop; ++i) {
    if (be[i] != sign) return std::nullopt;
  }
  std::string out = be.substr(drop);
  // The kept top bit must still carry the sign.
  if (((static_cast<unsigned char>(out[0]) & 0x80) != 0) != value.IsNegative()) return std::nullopt;
  return out;
}

// The hash the file's Bloom filter would hold for `value` in column `descr`, when the
// literal maps onto the column's stored form exactly.
std::optional<uint64_t> BloomHash(const parquet::BloomFilter& filter, const parquet::ColumnDescriptor& descr,
                                  const spec::Literal& value) {
  const auto& type = value.type();
  const auto& logical = *descr.logical_type();
  switch (descr.physical_type()) {
    case parquet::Type::INT32: {
      int64_t v;
      switch (type->id()) {
        case TypeId::kInt:
          if (!SignedIntOrNone(logical)) return std::nullopt;
          v = value.get<int32_t>();
          break;
        case TypeId::kLong:
          if (!SignedIntOrNone(logical)) return std::nullopt;
          v = value.get<int64_t>();
          break;
        case TypeId::kDate:
          if (!logical.is_date()) return std::nullopt;
          v = value.get<int32_t>();
          break;
        default: return std::nullopt;
      }
      if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) return std::nullopt;
      return filter.Hash(static_cast<int32_t>(v));
    }
    case parquet::Type::INT64:
      switch (type->id()) {
        case TypeId::kLong:
          if (!SignedIntOrNone(logical)) return std::nullopt;
          return filter.Hash(value.get<int64_t>());
        case TypeId::kTimestamp:
        case TypeId::kTimestampTz:
          if (TimestampUnit(logical) != parquet::LogicalType::TimeUnit::MICROS) return std::nullopt;
          return filter.Hash(value.get<int64_t>());
        default: return std::nullopt;
      }
    case parquet::Type::BYTE_ARRAY: {
      if (type->id() != TypeId::kString && type->id() != TypeId::kBinary) return std::nullopt;
      const auto& s = value.get<std::string>();
      parquet::ByteArray bytes(static_cast<uint32_t>(s.size()), reinterpret_cast<const uint8_t*>(s.data()));
      return filter.Hash(&bytes);
    }
    case parquet::Type::FIXED_LEN_BYTE_ARRAY: {
      std::string bytes;
      if (type->id() == TypeId::kFixed || type->id() == TypeId::kUuid) {
        bytes = value.get<std::string>();
      } else if (type->id() == TypeId::kDecimal && DecimalScaleIs(logical, type->scale())) {
        auto be = DecimalBytes(value.get<arrow::Decimal128>(), descr.type_length());
        if (!be) return std::nullopt;
        bytes = *be;
      } else {
        return std::nullopt;
      }
      if (static_cast<int>(bytes.size()) != descr.type_length()) return std::nullopt;
      parquet::FixedLenByteArray flba(reinterpret_cast<const uint8_t*>(bytes.data()));
      return filter.Hash(&flba, static_cast<uint32_t>(bytes.size()));
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<spec::Literal> StatToLiteral(const parquet::ColumnDescriptor& column, const spec::TypePtr& type,
                                           std::string_view encoded) {
  if (!type) return std::nullopt;
  const auto physical = column.physical_type();
  const auto& logical = *column.logical_type();
  switch (type->id()) {
    case TypeId::kBoolean:
      if (physical != parquet::Type::BOOLEAN || encoded.size() != 1) return std::nullopt;
      return spec::Literal(type, encoded[0] != 0);
    case TypeId::kInt:
      if (physical != parquet::Type::INT32 || !SignedIntOrNone(logical)) return std::nullopt;
      if (auto v = LoadLittleEndian<int32_t>(encoded)) return spec::Literal(type, *v);
      return std::nullopt;
    case TypeId::kLong:
      if (!SignedIntOrNone(logical)) return std::nullopt;
      if (physical == parquet::Type::INT64) {
        if (auto v = LoadLittleEndian<int64_t>(encoded)) return spec::Literal(type, *v);
      } else if (physical == parquet::Type::INT32) {  // promoted int -> long
        if (auto v = LoadLittleEndian<int32_t>(encoded)) return spec::Literal(type, static_cast<int64_t>(*v));
      }
      return std::nullopt;
    case TypeId::kDate:
      if (physical != parquet::Type::INT32 || !logical.is_date()) return std::nullopt;
      if (auto v = LoadLittleEndian<int32_t>(encoded)) return spec::Literal(type, *v);
      return std::nullopt;
    case TypeId::kTime:
      if (physical != parquet::Type::INT64 || !logical.is_time() ||
          static_cast<const parquet::TimeLogicalType&>(logical).time_unit() != parquet::LogicalType::TimeUnit::MICROS) {
        return std::nullopt;
      }
      if (auto v = LoadLittleEndian<int64_t>(encoded)) return spec::Literal(type, *v);
      return std::nullopt;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      if (physical != parquet::Type::INT64) return std::nullopt;
      auto unit = TimestampUnit(logical);
      auto v = LoadLittleEndian<int64_t>(encoded);
      if (!unit || !v) return std::nullopt;
      if (*unit == parquet::LogicalType::TimeUnit::MICROS) return spec::Literal(type, *v);
      if (*unit == parquet::LogicalType::TimeUnit::MILLIS) {
        int64_t micros;
        if (__builtin_mul_overflow(*v, int64_t{1000}, &micros)) return std::nullopt;
        return spec::Literal(type, micros);
      }
      return std::nullopt;
    }
    case TypeId::kFloat:
      if (physical != parquet::Type::FLOAT) return std::nullopt;
      if (auto v = LoadLittleEndian<float>(encoded)) return spec::Literal(type, *v);
      return std::nullopt;
    case TypeId::kDouble:
      if (physical == parquet::Type::DOUBLE) {
        if (auto v = LoadLittleEndian<double>(encoded)) return spec::Literal(type, *v);
      } else if (physical == parquet::Type::FLOAT) {  // promoted float -> double
        if (auto v = LoadLittleEndian<float>(encoded)) return spec::Literal(type, static_cast<double>(*v));
      }
      return std::nullopt;
    case TypeId::kDecimal: {
      if (!DecimalScaleIs(logical, type->scale())) return std::nullopt;
      if (physical == parquet::Type::INT32) {
        if (auto v = LoadLittleEndian<int32_t>(encoded)) return spec::Literal(type, arrow::Decimal128(*v));
      } else if (physical == parquet::Type::INT64) {
        if (auto v = LoadLittleEndian<int64_t>(encoded)) return spec::Literal(type, arrow::Decimal128(*v));
      } else if ((physical == parquet::Type::FIXED_LEN_BYTE_ARRAY || physical == parquet::Type::BYTE_ARRAY) &&
                 !encoded.empty() && encoded.size() <= 16) {
        auto v = arrow::Decimal128::FromBigEndian(reinterpret_cast<const uint8_t*>(encoded.data()),
                                                  static_cast<int32_t>(encoded.size()));
        if (v.ok()) return spec::Literal(type, *v);
      }
      return std::nullopt;
    }
    case TypeId::kString:
    case TypeId::kBinary:
      if (physical != parquet::Type::BYTE_ARRAY) return std::nullopt;
      return spec::Literal(type, std::string(encoded));
    case TypeId::kFixed:
    case TypeId::kUuid:
      if (physical != parquet::Type::FIXED_LEN_BYTE_ARRAY) return std::nullopt;
      return spec::Literal(type, std::string(encoded));
    default:
      return std::nullopt;
  }
}

bool RowGroupStatsMayMatch(const parquet::FileMetaData& metadata, int row_group,
                           const std::vector<BoundPredicate>& predicates) {
  auto rg = metadata.RowGroup(row_group);
  for (const auto& b : predicates) {
    auto chunk = rg->ColumnChunk(b.column);
    auto stats = chunk->statistics();
    if (!stats) continue;  // missing statistics never prune
    std::optional<int64_t> nulls;
    if (stats->HasNullCount()) nulls = stats->null_count();
    bool has_min_max = stats->HasMinMax();
    std::string min = has_min_max ? stats->EncodeMin() : std::string();
    std::string max = has_min_max ? stats->EncodeMax() : std::string();
    if (!ValuesMayMatch(*b.descr, b.predicate, nulls, chunk->num_values(), has_min_max, min, max)) return false;
  }
  return true;
}

bool BloomFiltersMayMatch(parquet::ParquetFileReader& reader, int row_group,
                          const std::vector<BoundPredicate>& predicates) {
  std::shared_ptr<parquet::RowGroupBloomFilterReader> filters;
  for (const auto& b : predicates) {
    const auto& p = b.predicate;
    // Floating values are left out: -0.0 and 0.0 are equal but hash apart.
    if (p.op != Op::kEq || !PredicateCanPrune(p) || IsFloating(p.value.type())) continue;
    if (!filters) filters = reader.GetBloomFilterReader().RowGroup(row_group);
    if (!filters) return true;
    auto filter = filters->GetColumnBloomFilter(b.column);
    if (!filter) continue;
    auto hash = BloomHash(*filter, *b.descr, p.value);
    if (hash && !filter->FindHash(*hash)) return false;
  }
  return true;
}

RowRanges PageIndexRowRanges(parquet::ParquetFileReader& reader, int row_group,
                             const std::vector<BoundPredicate>& predicates) {
  const int64_t rows = reader.metadata()->RowGroup(row_group)->num_rows();
  // Rows that may still match every predicate seen so far.
  RowRanges candidates = {{0, rows}};
  if (predicates.empty()) return candidates;
  auto index = reader.GetPageIndexReader();
  if (!index) return candidates;
  auto rg_index = index->RowGroup(row_group);
  if (!rg_index) return candidates;
  for (const auto& b : predicates) {
    auto column_index = rg_index->GetColumnIndex(b.column);
    auto offset_index = rg_index->GetOffsetIndex(b.column);
    if (!column_index || !offset_index) continue;
    const auto& pages = offset_index->page_locations();
    const auto& null_pages = column_index->null_pages();
    const auto& mins = column_index->encoded_min_values();
    const auto& maxs = column_index->encoded_max_values();
    const bool has_nulls = column_index->has_null_counts();
    if (pages.empty() || null_pages.size() != pages.size() || mins.size() != pages.size() ||
        maxs.size() != pages.size() || (has_nulls && column_index->null_counts().size() != pages.size())) {
      continue;
    }
    std::vector<std::pair<int64_t, int64_t>> keep;
    for (size_t k = 0; k < pages.size(); ++k) {
      int64_t begin = pages[k].first_row_index;
      int64_t end = k + 1 < pages.size() ? pages[k + 1].first_row_index : rows;
      std::optional<int64_t> nulls;
      if (has_nulls) nulls = column_index->null_counts()[k];
      bool may = null_pages[k] ? b.predicate.op == Op::kIsNull
                               : ValuesMayMatch(*b.descr, b.predicate, nulls, end - begin, true, mins[k], maxs[k]);
      if (!may) continue;
      if (!keep.empty() && keep.back().second == begin) {
        keep.back().second = end;
      } else {
        keep.emplace_back(begin, end);
      }
    }
    std::vector<std::pair<int64_t, int64_t>> both;
    size_t i = 0, j = 0;
    while (i < candidates.size() && j < keep.size()) {
      int64_t lo = std::max(candidates[i].first, keep[j].first);
      int64_t hi = std::min(candidates[i].second, keep[j].second);
      if (lo < hi) both.emplace_back(lo, hi);
      (candidates[i].second < keep[j].second) ? ++i : ++j;
    }
    candidates = std::move(both);
    if (candidates.empty()) return candidates;
  }
  return candidates;
}

ByteRange PageIndexSpan(const parquet::FileMetaData& metadata, const std::vector<int>* columns) {
  int64_t begin = INT64_MAX, end = 0;
  for (int rg = 0; rg < metadata.num_row_groups(); ++rg) {
    auto group = metadata.RowGroup(rg);
    const int count = columns ? static_cast<int>(columns->size()) : group->num_columns();
    for (int k = 0; k < count; ++k) {
      auto chunk = group->ColumnChunk(columns ? (*columns)[static_cast<size_t>(k)] : k);
      for (const auto& location : {chunk->GetColumnIndexLocation(), chunk->GetOffsetIndexLocation()}) {
        if (!location || location->offset < 0 || location->length <= 0) continue;
        begin = std::min(begin, location->offset);
        end = std::max(end, location->offset + location->length);
      }
    }
  }
  if (end <= begin) return {};
  return {begin, end - begin};
}

}  // namespace floe::scan
