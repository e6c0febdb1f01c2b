#pragma once

// Writes Arrow data as Parquet data files with Iceberg field ids and collects the column
// metrics that go into manifests.

#include <map>
#include <memory>
#include <optional>
#include <string>

#include <arrow/type_fwd.h>

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

// Truncated bounds as Iceberg keeps them for strings and binary (metrics mode truncate(N)).
std::string TruncateStringLower(const std::string& value, int32_t length);
std::optional<std::string> TruncateStringUpper(const std::string& value, int32_t length);
std::string TruncateBinaryLower(const std::string& value, int32_t length);
std::optional<std::string> TruncateBinaryUpper(const std::string& value, int32_t length);

}  // namespace floe::table
