#pragma once

// Streams rows into a table's data files: rows are conformed to the table schema and
// split by the default partition spec batch by batch, each partition writes to its own
// open file, and a file is closed and a new one started once it reaches the target size:
// the bytes the Parquet writer has written plus its buffered row group, scaled by the
// compression of the row groups written so far.
//
// Open files: one per partition the rows reach (Iceberg's fanout writer), so input in any
// order gives one file per partition and target size. Memory stays bounded all the same:
// at most `max_open_files` files are open (opening another closes the one written to
// least recently), and the row groups they buffer share `buffer_bytes` (a file flushes
// its row group once it holds its share), so many partitions give smaller row groups,
// never more memory. More partitions than `max_open_files` in unclustered input give more,
// smaller files.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/manifest/data_file.h"
#include "floe/table/data_writer.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/table.h"

namespace floe::table {

struct RollingWriterOptions {
  int64_t target_file_size_bytes = 536870912;  // write.target-file-size-bytes
  int32_t max_open_files = 64;
  int64_t buffer_bytes = 256 << 20;
  // The files also store `_row_id` and `_last_updated_sequence_number` after the table's
  // columns (spec::WithRowLineage): rows a rewrite of a v3 table carries over keep their
  // lineage there. Rows without those columns store nulls (they inherit).
  bool row_lineage = false;

  // The table properties' values over the defaults above.
  static Result<RollingWriterOptions> FromProperties(const std::map<std::string, std::string>& props);
};

class RollingDataWriter {
 public:
  // Writes to `table`'s data directory laid out by its current schema and default spec,
  // as of the table's metadata now.
  static Result<std::unique_ptr<RollingDataWriter>> Make(const Table& table);
  static Result<std::unique_ptr<RollingDataWriter>> Make(const Table& table, const RollingWriterOptions& options);
  // Deletes every file written unless Finish() succeeded.
  ~RollingDataWriter();

  // `rows` in any shape ConformToSchema accepts. A failure deletes every file written.
  Status Write(const arrow::RecordBatch& rows);
  // Closes the open files and hands every file written, with its metrics and partition,
  // to the caller, who then owns them (a failed commit must delete them).
  Result<std::vector<manifest::DataFile>> Finish();
  // Deletes every file written so far, open or closed.
  void Abort();

 private:
  struct OpenFile {
    int64_t ordinal = 0;  // order in which the partition first appeared
    std::vector<spec::Literal> partition;
    std::unique_ptr<ParquetDataFileWriter> writer;
    uint64_t last_write = 0;
  };

  explicit RollingDataWriter(const Table& table) : table_(table) {}
  Status WriteRows(const arrow::RecordBatch& rows);
  Result<OpenFile*> FileFor(const std::string& key, const std::vector<spec::Literal>& partition);
  Status CloseFile(const std::string& key);
  void ShareBuffer();

  const Table& table_;
  spec::TableMetadataPtr metadata_;
  spec::SchemaPtr schema_;
  const spec::PartitionSpec* spec_ = nullptr;
  std::shared_ptr<arrow::Schema> arrow_schema_;
  DataWriterOptions data_options_;
  RollingWriterOptions options_;
  std::string write_id_;
  std::unordered_map<std::string, OpenFile> open_;
  std::unordered_map<std::string, int64_t> ordinals_;
  std::vector<manifest::DataFile> closed_;
  int64_t file_count_ = 0;
  uint64_t clock_ = 0;
  bool done_ = false;
};

// Appends every row `rows` yields as one `append` snapshot; the rows are written while they
// stream, so memory does not grow with their number. Returns the snapshot id. On any
// failure, no file written stays behind and nothing is committed.
Result<int64_t> AppendStream(Table& table, arrow::RecordBatchReader& rows, const WriteOptions& options = {});

}  // namespace floe::table
