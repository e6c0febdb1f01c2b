#pragma once

// Writes Arrow data as Parquet data files with Iceberg field ids and collects the column
// metrics that go into manifests.

#include <map>
#include <memory>
#include <optional>
#include <string>

#include <arrow/type_fwd.h>
#include <parquet/type_fwd.h>

#include "floe/io/file_io.h"
#include "floe/manifest/data_file.h"
#include "floe/spec/schema.h"

namespace floe::table {

// How column metrics are kept (table property `write.metadata.metrics.default`).
struct MetricsMode {
  enum Kind { kNone, kCounts, kTruncate, kFull } kind = kTruncate;
  int32_t length = 16;
  static Result<MetricsMode> Parse(const std::string& text);
};

struct DataWriterOptions {
  std::string compression = "zstd";           // write.parquet.compression-codec
  std::optional<int32_t> compression_level;   // write.parquet.compression-level
  int64_t row_group_rows = 1 << 20;
  int64_t row_group_bytes = 128 << 20;        // write.parquet.row-group-size-bytes (streaming)
  int64_t page_size_bytes = 1 << 20;          // write.parquet.page-size-bytes
  MetricsMode metrics;                        // write.metadata.metrics.default

  static Result<DataWriterOptions> FromProperties(const std::map<std::string, std::string>& props);
};

// Writes `data`, whose columns are in `schema`'s Arrow form (see ToArrowSchema), to
// `location` and returns the data file with its metrics. The partition tuple is left to
// the caller.
Result<manifest::DataFile> WriteParquetDataFile(FileIO& io, const std::string& location,
                                                const arrow::Table& data,
                                                const spec::Schema& schema,
                                                const DataWriterOptions& options);

// Writes one Parquet data file batch by batch, for writes that stream: row groups are
// buffered in memory until they hold `row_group_rows` rows or about `row_group_bytes`
// bytes, and metrics accumulate over every batch. Dropping the writer before Close()
// deletes the file.
class ParquetDataFileWriter {
 public:
  // `schema` must outlive the writer; batches are in its Arrow form (see ToArrowSchema).
  static Result<std::unique_ptr<ParquetDataFileWriter>> Open(FileIO& io, std::string location,
                                                             std::shared_ptr<arrow::Schema> arrow_schema,
                                                             const spec::Schema& schema,
                                                             const DataWriterOptions& options);
  ~ParquetDataFileWriter();

  Status Write(const arrow::RecordBatch& batch);
  Status Write(const arrow::Table& rows);
  // Flushes the buffered row group once it holds `bytes` (when lower than the options').
  void set_row_group_bytes(int64_t bytes) { row_group_bytes_ = bytes; }

  int64_t rows() const { return rows_; }
  const std::string& location() const { return location_; }
  // Bytes already written plus the buffered row group, scaled by the compression ratio
  // of the row groups written so far.
  int64_t EstimatedSize() const;

  // Writes the footer and makes the file durable; returns it with its metrics.
  Result<manifest::DataFile> Close();
  // Deletes the file; the writer is unusable afterwards.
  void Abort();

 private:
  ParquetDataFileWriter() = default;
  Status FlushRowGroup();
  Status CountNaNs(const arrow::RecordBatch& batch);

  FileIO* io_ = nullptr;
  std::string location_;
  const spec::Schema* schema_ = nullptr;
  DataWriterOptions options_;
  int64_t row_group_bytes_ = 0;
  std::shared_ptr<arrow::io::OutputStream> sink_;
  std::unique_ptr<parquet::arrow::FileWriter> writer_;
  int64_t rows_ = 0;
  int64_t group_rows_ = 0;
  int64_t group_bytes_ = 0;      // uncompressed estimate of the buffered row group
  int64_t flushed_bytes_ = 0;    // uncompressed estimate of the row groups written
  bool flush_pending_ = false;
  bool done_ = false;
  std::map<int32_t, int64_t> nan_counts_;
};

// Truncated bounds as Iceberg keeps them for strings and binary (metrics mode truncate(N)).
std::string TruncateStringLower(const std::string& value, int32_t length);
std::optional<std::string> TruncateStringUpper(const std::string& value, int32_t length);
std::string TruncateBinaryLower(const std::string& value, int32_t length);
std::optional<std::string> TruncateBinaryUpper(const std::string& value, int32_t length);

}  // namespace floe::table
