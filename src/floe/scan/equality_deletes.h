#pragma once

// Iceberg v2 equality deletes (spec: "Equality Delete Files"): a data row is deleted when its
// values of the delete file's equality fields equal those of any row of the file, a null
// equal to a null.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/io/file_io.h"
#include "floe/spec/schema.h"

namespace floe::scan {

// An equality delete file and the field ids its rows are compared on.
struct EqualityDeleteRef {
  std::string path;
  std::vector<int32_t> field_ids;
};

// The rows of one equality delete file, as keys of their equality field values.
struct EqualityDeleteSet {
  std::vector<int32_t> field_ids;
  std::unordered_set<std::string> keys;
};

// Appends to `key` an encoding of `array`'s value at `row` that is equal for equal values of
// one type and differs otherwise (a null differs from every value).
Status AppendValueKey(const arrow::Array& array, int64_t row, std::string* key);

// Reads equality delete files, each once per scan, with the types `schema` gives their
// fields (the types the data files are read with, so that keys compare). Thread-safe.
class EqualityDeleteIndex {
 public:
  EqualityDeleteIndex(std::shared_ptr<FileIO> io, spec::SchemaPtr schema)
      : io_(std::move(io)), schema_(std::move(schema)) {}

  Result<std::shared_ptr<const EqualityDeleteSet>> Load(const EqualityDeleteRef& file);

 private:
  std::shared_ptr<FileIO> io_;
  spec::SchemaPtr schema_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const EqualityDeleteSet>> loaded_;
};

}  // namespace floe::scan
