#pragma once

// Small values many tests build: bytes from numbers, a buffer's text, a run of ids, an Arrow
// field that carries its Iceberg field id the way Parquet files do.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include <arrow/api.h>
#include <arrow/util/key_value_metadata.h>

namespace floe::testing {

inline std::string Bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

inline std::string AsString(const arrow::Buffer& buf) {
  return std::string(reinterpret_cast<const char*>(buf.data()), static_cast<size_t>(buf.size()));
}

// The ids first, first + 1, ..., first + n - 1.
inline std::vector<int64_t> Range(int64_t first, int64_t n) {
  std::vector<int64_t> out;
  for (int64_t i = first; i < first + n; ++i) out.push_back(i);
  return out;
}

// A field with "PARQUET:field_id" metadata; a negative id gives a field without one.
inline std::shared_ptr<arrow::Field> IdField(const std::string& name,
                                             std::shared_ptr<arrow::DataType> type, int64_t id,
                                             bool nullable = true) {
  auto metadata =
      id < 0 ? nullptr : arrow::key_value_metadata({"PARQUET:field_id"}, {std::to_string(id)});
  return arrow::field(name, std::move(type), nullable, std::move(metadata));
}

}  // namespace floe::testing
