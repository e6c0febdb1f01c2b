#pragma once

// Rows of two sides (the "from" and "to" of a diff) hash-partitioned so that rows that may
// match land in the same partition, for work on more rows than memory holds. Batches stay
// in memory while they fit a buffer; past it every partition is spilled to its own Arrow IPC
// file (LZ4-compressed when Arrow has the codec) in a spill directory.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/util/status.h"

namespace floe::scan {

// A fresh directory for spill files, removed with everything in it when destroyed.
class SpillDirectory {
 public:
  // A new directory `floe-spill-XXXXXX` under `parent` (empty: the system temp directory,
  // $TMPDIR or /tmp).
  static Result<std::unique_ptr<SpillDirectory>> Make(const std::string& parent);
  ~SpillDirectory();
  SpillDirectory(const SpillDirectory&) = delete;
  SpillDirectory& operator=(const SpillDirectory&) = delete;

  const std::string& path() const { return path_; }
  // A path inside that no other call returned.
  std::string NewFile();

 private:
  explicit SpillDirectory(std::string path) : path_(std::move(path)) {}
  std::string path_;
  int64_t next_ = 0;
};

// One side's rows of one partition: batches in memory, and those spilled to a file.
struct PartitionSide {
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  std::string spill_file;  // empty when nothing was spilled
  int64_t rows = 0;
  int64_t bytes = 0;  // Arrow buffer bytes of its rows, in memory or not
};

struct Partition {
  std::array<PartitionSide, 2> sides;
  int64_t rows() const { return sides[0].rows + sides[1].rows; }
  int64_t bytes() const { return sides[0].bytes + sides[1].bytes; }
};

// The partition among `fan_out` of a row with hash `hash` at recursion `level`: each level
// splits by different bits of the hash, so a partition split again spreads out.
int PartitionOf(uint64_t hash, int level, int fan_out);

class HashPartitioner {
 public:
  struct Options {
    int level = 0;
    // Partitions; 0: decided when the buffer first overflows, by `choose_fan_out` given the
    // bytes and rows seen so far (if nothing overflows, Finish returns one partition).
    int fan_out = 0;
    std::function<int(int64_t bytes, int64_t rows)> choose_fan_out;
    // Bytes of rows held in memory before every partition is spilled.
    int64_t buffer_bytes = 64 << 20;
  };

  // `schema`: of every batch added; its last column is the rows' hash (uint64).
  HashPartitioner(std::shared_ptr<arrow::Schema> schema, SpillDirectory* directory,
                  Options options);
  ~HashPartitioner();

  // Adds rows of side 0 or 1.
  Status Add(int side, const std::shared_ptr<arrow::RecordBatch>& batch);
  // The partitions, every spill file closed. Partitions holding no row are kept (empty).
  Result<std::vector<Partition>> Finish();

  int fan_out() const { return fan_out_; }
  // Bytes written to spill files so far.
  int64_t spilled_bytes() const { return spilled_bytes_; }

 private:
  struct Writer;
  Status Split(int side, const std::shared_ptr<arrow::RecordBatch>& batch);
  Status Spill();

  std::shared_ptr<arrow::Schema> schema_;
  SpillDirectory* directory_;
  Options options_;
  int fan_out_ = 0;
  std::vector<Partition> partitions_;
  std::vector<std::array<std::unique_ptr<Writer>, 2>> writers_;
  int64_t buffered_bytes_ = 0;
  int64_t seen_bytes_ = 0, seen_rows_ = 0;
  int64_t spilled_bytes_ = 0;
  bool spilled_ = false;
};

// Calls `fn` with each batch of `side`: those in memory, then those of its spill file.
Status ForEachBatch(const PartitionSide& side,
                    const std::function<Status(const std::shared_ptr<arrow::RecordBatch>&)>& fn);

}  // namespace floe::scan
