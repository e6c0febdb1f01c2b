#include "floe/sql/plan/spill/row_hash.h"

#include <cmath>
#include <cstring>
#include <string_view>

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/util/hashing.h>
#include <arrow/visit_type_inline.h>

namespace floe::sql {

namespace {

uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

uint64_t HashBytes(const void* data, int64_t length) {
  return arrow::internal::ComputeStringHash<0>(data, length);
}

constexpr uint64_t kNullHash = 0x9e3779b97f4a7c15ULL;

template <typename T>
uint64_t HashFloat(T v) {
  if (std::isnan(v)) return 0x7ff8dead;
  v += T(0);  // -0.0 -> 0.0
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(v));
  return Mix(bits);
}

// Folds each value's hash of `array` into `out`.
struct ColumnHasher {
  const arrow::Array& array;
  uint64_t* out;

  template <typename Value>
  void Fold(Value&& hash_of) {
    const int64_t n = array.length();
    for (int64_t i = 0; i < n; ++i) {
      uint64_t h = array.IsNull(i) ? kNullHash : hash_of(i);
      out[i] = Mix(out[i] ^ (h + 0x9e3779b97f4a7c15ULL + (out[i] << 6)));
    }
  }

  arrow::Status Visit(const arrow::NullType&) {
    Fold([](int64_t) { return kNullHash; });
    return arrow::Status::OK();
  }
  arrow::Status Visit(const arrow::BooleanType&) {
    const auto& a = static_cast<const arrow::BooleanArray&>(array);
    Fold([&](int64_t i) { return Mix(a.Value(i) ? 1 : 2); });
    return arrow::Status::OK();
  }
  arrow::Status Visit(const arrow::FloatType&) {
    const auto& a = static_cast<const arrow::FloatArray&>(array);
    Fold([&](int64_t i) { return HashFloat(a.Value(i)); });
    return arrow::Status::OK();
  }
  arrow::Status Visit(const arrow::DoubleType&) {
    const auto& a = static_cast<const arrow::DoubleArray&>(array);
    Fold([&](int64_t i) { return HashFloat(a.Value(i)); });
    return arrow::Status::OK();
  }
  arrow::Status Visit(const arrow::HalfFloatType&) { return Unsupported(); }
  template <typename T>
  arrow::enable_if_t<arrow::is_integer_type<T>::value || arrow::is_date_type<T>::value ||
                         arrow::is_time_type<T>::value || arrow::is_timestamp_type<T>::value ||
                         arrow::is_duration_type<T>::value,
                     arrow::Status>
  Visit(const T&) {
    using ArrayType = typename arrow::TypeTraits<T>::ArrayType;
    const auto& a = static_cast<const ArrayType&>(array);
    Fold([&](int64_t i) { return Mix(static_cast<uint64_t>(a.Value(i))); });
    return arrow::Status::OK();
  }
  template <typename T>
  arrow::enable_if_t<arrow::is_base_binary_type<T>::value || arrow::is_binary_view_like_type<T>::value ||
                         arrow::is_fixed_size_binary_type<T>::value,
                     arrow::Status>
  Visit(const T&) {
    using ArrayType = typename arrow::TypeTraits<T>::ArrayType;
    const auto& a = static_cast<const ArrayType&>(array);
    Fold([&](int64_t i) {
      std::string_view v = a.GetView(i);
      return HashBytes(v.data(), static_cast<int64_t>(v.size()));
    });
    return arrow::Status::OK();
  }
  arrow::Status Visit(const arrow::DataType&) { return Unsupported(); }
  arrow::Status Unsupported() {
    return arrow::Status::NotImplemented("rows cannot be hashed by a key of type ", array.type()->ToString());
  }
};

}  // namespace

bool CanHashKey(const arrow::DataType& type) {
  if (arrow::is_nested(type.id()) || type.id() == arrow::Type::DICTIONARY || type.id() == arrow::Type::EXTENSION ||
      type.id() == arrow::Type::HALF_FLOAT) {
    return false;
  }
  return true;
}

Result<std::vector<uint64_t>> HashRows(const arrow::RecordBatch& batch, const std::vector<int>& keys, uint64_t seed) {
  std::vector<uint64_t> hashes(static_cast<size_t>(batch.num_rows()), Mix(seed + 1));
  for (int k : keys) {
    const arrow::Array& column = *batch.column(k);
    ColumnHasher hasher{column, hashes.data()};
    ARROW_RETURN_NOT_OK(arrow::VisitTypeInline(*column.type(), &hasher));
  }
  return hashes;
}

Result<std::vector<std::shared_ptr<arrow::RecordBatch>>> PartitionRows(const std::shared_ptr<arrow::RecordBatch>& batch,
                                                                       const std::vector<int>& keys, uint64_t seed,
                                                                       int fanout, arrow::MemoryPool* pool) {
  ARROW_ASSIGN_OR_RAISE(auto hashes, HashRows(*batch, keys, seed));
  const int64_t n = batch->num_rows();
  // A counting sort of the rows by partition, then one take and a slice per partition.
  std::vector<int64_t> starts(static_cast<size_t>(fanout) + 1, 0);
  std::vector<uint32_t> part(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    part[i] = static_cast<uint32_t>((hashes[i] >> 32) * static_cast<uint64_t>(fanout) >> 32);
    ++starts[part[i] + 1];
  }
  for (int p = 0; p < fanout; ++p) starts[p + 1] += starts[p];
  arrow::Int64Builder builder(pool);
  ARROW_RETURN_NOT_OK(builder.AppendEmptyValues(n));
  int64_t* order = builder.GetMutableValue(0);
  std::vector<int64_t> next(starts.begin(), starts.end() - 1);
  for (int64_t i = 0; i < n; ++i) order[next[part[i]]++] = i;
  ARROW_ASSIGN_OR_RAISE(auto indices, builder.Finish());
  arrow::compute::ExecContext ctx(pool);
  ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(arrow::Datum(batch), arrow::Datum(indices),
                                                         arrow::compute::TakeOptions::NoBoundsCheck(), &ctx));
  auto sorted = taken.record_batch();
  std::vector<std::shared_ptr<arrow::RecordBatch>> out(static_cast<size_t>(fanout));
  for (int p = 0; p < fanout; ++p) {
    if (starts[p + 1] > starts[p]) out[p] = sorted->Slice(starts[p], starts[p + 1] - starts[p]);
  }
  return out;
}

}  // namespace floe::sql
