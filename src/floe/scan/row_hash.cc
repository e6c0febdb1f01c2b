#include "floe/scan/row_hash.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string_view>

#include <arrow/api.h>
#include <arrow/compare.h>

namespace floe::scan {

namespace {

constexpr uint64_t kNullHash = 0x5bd1e9955bd1e995ULL;

inline uint64_t Combine(uint64_t h, uint64_t v) {
  return MixHash(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

inline uint64_t BytesHash(const uint8_t* data, size_t n) {
  return std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(data), n));
}

template <typename T>
uint64_t FloatHash(T v) {
  if (std::isnan(v)) v = std::numeric_limits<T>::quiet_NaN();
  if (v == 0) v = 0;  // -0.0 equals 0.0
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(v));
  return MixHash(bits);
}

uint64_t ValueHash(const arrow::Array& array, int64_t i);

template <typename ListArrayType>
uint64_t ListHash(const arrow::Array& array, int64_t i) {
  const auto& list = static_cast<const ListArrayType&>(array);
  const int64_t begin = list.value_offset(i), length = list.value_length(i);
  uint64_t h = MixHash(static_cast<uint64_t>(length));
  for (int64_t k = 0; k < length; ++k) h = Combine(h, ValueHash(*list.values(), begin + k));
  return h;
}

uint64_t ValueHash(const arrow::Array& array, int64_t i) {
  if (array.IsNull(i)) return kNullHash;
  switch (array.type_id()) {
    case arrow::Type::BOOL:
      return static_cast<const arrow::BooleanArray&>(array).Value(i) ? 0x2545f4914f6cdd1dULL
                                                                     : 0x9e3779b9ULL;
    case arrow::Type::FLOAT:
      return FloatHash(static_cast<const arrow::FloatArray&>(array).Value(i));
    case arrow::Type::DOUBLE:
      return FloatHash(static_cast<const arrow::DoubleArray&>(array).Value(i));
    case arrow::Type::STRING:
    case arrow::Type::BINARY: {
      auto v = static_cast<const arrow::BinaryArray&>(array).GetView(i);
      return BytesHash(reinterpret_cast<const uint8_t*>(v.data()), v.size());
    }
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY: {
      auto v = static_cast<const arrow::LargeBinaryArray&>(array).GetView(i);
      return BytesHash(reinterpret_cast<const uint8_t*>(v.data()), v.size());
    }
    case arrow::Type::STRUCT: {
      const auto& s = static_cast<const arrow::StructArray&>(array);
      uint64_t h = 0x27d4eb2f165667c5ULL;
      for (int k = 0; k < s.num_fields(); ++k) h = Combine(h, ValueHash(*s.field(k), i));
      return h;
    }
    case arrow::Type::LIST:
    case arrow::Type::MAP:  // a list of key-value structs
      return ListHash<arrow::ListArray>(array, i);
    case arrow::Type::LARGE_LIST:
      return ListHash<arrow::LargeListArray>(array, i);
    case arrow::Type::FIXED_SIZE_LIST:
      return ListHash<arrow::FixedSizeListArray>(array, i);
    default:
      break;
  }
  // Fixed-width values: integers, dates, times, timestamps, decimals, fixed binary.
  const int width = array.type()->byte_width();
  const uint8_t* value = array.data()->buffers[1]->data() + (array.offset() + i) * width;
  if (width <= 8) {
    uint64_t bits = 0;
    std::memcpy(&bits, value, static_cast<size_t>(width));
    return MixHash(bits ^ (static_cast<uint64_t>(width) << 56));
  }
  return BytesHash(value, static_cast<size_t>(width));
}

}  // namespace

Status CheckHashable(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::NA:
    case arrow::Type::BOOL:
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE:
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      return Status::OK();
    case arrow::Type::STRUCT:
    case arrow::Type::LIST:
    case arrow::Type::MAP:
    case arrow::Type::LARGE_LIST:
    case arrow::Type::FIXED_SIZE_LIST:
      for (const auto& child : type.fields()) ARROW_RETURN_NOT_OK(CheckHashable(*child->type()));
      return Status::OK();
    default:
      break;
  }
  if (arrow::is_fixed_width(type.id()) && type.byte_width() > 0) return Status::OK();
  return Status::NotImplemented("Cannot compare values of type ", type.ToString());
}

void HashRows(const arrow::RecordBatch& batch, const std::vector<int>& columns, uint64_t seed,
              std::vector<uint64_t>* out) {
  const int64_t n = batch.num_rows();
  out->assign(static_cast<size_t>(n), MixHash(seed + 0x632be59bd9b4e019ULL));
  for (int c : columns) {
    const arrow::Array& column = *batch.column(c);
    for (int64_t i = 0; i < n; ++i) (*out)[i] = Combine((*out)[i], ValueHash(column, i));
  }
}

uint64_t HashRow(const arrow::RecordBatch& batch, const std::vector<int>& columns, int64_t row,
                 uint64_t seed) {
  uint64_t h = MixHash(seed + 0x632be59bd9b4e019ULL);
  for (int c : columns) h = Combine(h, ValueHash(*batch.column(c), row));
  return h;
}

namespace {

// Whether two floats are one value as the hash takes them: NaNs equal, -0.0 equals 0.0.
template <typename T>
bool FloatEqual(T x, T y) {
  return x == y || (std::isnan(x) && std::isnan(y));
}

// Value i of `x` against value j of `y` (of one type): flat values directly, nested ones
// through Arrow's comparison.
bool ValueEqual(const arrow::Array& x, int64_t i, const arrow::Array& y, int64_t j) {
  const bool null_x = x.IsNull(i), null_y = y.IsNull(j);
  if (null_x || null_y) return null_x == null_y;
  switch (x.type_id()) {
    case arrow::Type::BOOL:
      return static_cast<const arrow::BooleanArray&>(x).Value(i) ==
             static_cast<const arrow::BooleanArray&>(y).Value(j);
    case arrow::Type::FLOAT:
      return FloatEqual(static_cast<const arrow::FloatArray&>(x).Value(i),
                        static_cast<const arrow::FloatArray&>(y).Value(j));
    case arrow::Type::DOUBLE:
      return FloatEqual(static_cast<const arrow::DoubleArray&>(x).Value(i),
                        static_cast<const arrow::DoubleArray&>(y).Value(j));
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      return static_cast<const arrow::BinaryArray&>(x).GetView(i) ==
             static_cast<const arrow::BinaryArray&>(y).GetView(j);
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      return static_cast<const arrow::LargeBinaryArray&>(x).GetView(i) ==
             static_cast<const arrow::LargeBinaryArray&>(y).GetView(j);
    case arrow::Type::STRUCT:
    case arrow::Type::LIST:
    case arrow::Type::MAP:
    case arrow::Type::LARGE_LIST:
    case arrow::Type::FIXED_SIZE_LIST: {
      static const arrow::EqualOptions options = arrow::EqualOptions::Defaults().nans_equal(true);
      return arrow::ArrayRangeEquals(x, y, i, i + 1, j, options);
    }
    default:
      break;
  }
  const int width = x.type()->byte_width();
  return std::memcmp(x.data()->buffers[1]->data() + (x.offset() + i) * width,
                     y.data()->buffers[1]->data() + (y.offset() + j) * width,
                     static_cast<size_t>(width)) == 0;
}

}  // namespace

bool RowsEqual(const arrow::RecordBatch& a, int64_t i, const arrow::RecordBatch& b, int64_t j,
               const std::vector<int>& columns) {
  for (int c : columns) {
    if (!ValueEqual(*a.column(c), i, *b.column(c), j)) return false;
  }
  return true;
}

}  // namespace floe::scan
