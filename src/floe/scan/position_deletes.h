#pragma once

// Iceberg v2 position deletes (spec: "Position Delete Files"): rows of a data file named by
// the file's path and the row's position in it, counted from 0 across row groups.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "floe/io/file_io.h"
#include "floe/scan/parquet_file_reader.h"

namespace floe::scan {

// Reserved field ids of a position delete file's columns.
inline constexpr int32_t kDeleteFilePathId = 2147483546;
inline constexpr int32_t kDeletePosId = 2147483545;

// The positions deleted from one data file, sorted, without repeats.
using DeletedPositions = std::vector<int64_t>;

// The positions deleted by either; `a` may be null.
std::shared_ptr<const DeletedPositions> MergePositions(std::shared_ptr<const DeletedPositions> a,
                                                       DeletedPositions b);

// Reads position delete files, each at most once per scan however many data files it names,
// and answers which rows of a data file they delete. Thread-safe.
class PositionDeleteIndex {
 public:
  explicit PositionDeleteIndex(std::shared_ptr<FileIO> io) : io_(std::move(io)) {}

  // The positions of `data_file` that `delete_files` delete; null when none.
  Result<std::shared_ptr<const DeletedPositions>> For(const std::string& data_file,
                                                      const std::vector<std::string>& delete_files);

 private:
  using ByDataFile = std::unordered_map<std::string, DeletedPositions>;
  Result<std::shared_ptr<const ByDataFile>> Load(const std::string& delete_file);

  std::shared_ptr<FileIO> io_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const ByDataFile>> loaded_;
};

}  // namespace floe::scan
