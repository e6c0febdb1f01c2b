#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/manifest/data_file.h"
#include "floe/scan/scan_filter.h"
#include "floe/table/table.h"

namespace floe::scan {

struct FileScanTask {
  manifest::DataFile file;
  int64_t data_sequence_number = 0;
};

// Reads a table as of its current snapshot, a snapshot id or a named ref, by Iceberg field
// id. A snapshot id or tag reads with the schema that snapshot was written with; the
// current state and branches read with the table's current schema (as Iceberg does).
class TableScan {
 public:
  explicit TableScan(std::shared_ptr<table::Table> table) : table_(std::move(table)) {}

  TableScan& UseSnapshot(int64_t snapshot_id);
  TableScan& UseRef(std::string ref);
  // Column names of the read schema; empty means all columns.
  TableScan& Select(std::vector<std::string> columns);
  // Predicates (ANDed) used to skip manifests and files that cannot match. Rows are not
  // filtered: callers still apply their filter to what the scan returns.
  TableScan& Filter(std::vector<ColumnPredicate> predicates);

  // The snapshot read, or nullopt for a table with no snapshot yet.
  Result<std::optional<int64_t>> SnapshotId() const;
  Result<spec::SchemaPtr> ReadSchema() const;
  Result<std::vector<FileScanTask>> PlanFiles() const;
  Result<std::shared_ptr<arrow::Table>> ToArrowTable() const;
  // Streams the files one by one (memory bounded by the largest file, not the table).
  Result<std::shared_ptr<arrow::RecordBatchReader>> ToRecordBatchReader() const;

  // What planning skipped, for tests and EXPLAIN.
  struct Metrics {
    int64_t manifests = 0, manifests_skipped = 0, files = 0, files_skipped = 0;
  };
  const Metrics& metrics() const { return metrics_; }

 private:
  Result<const spec::Snapshot*> ResolveSnapshot(const spec::TableMetadata& md) const;
  Result<spec::SchemaPtr> SnapshotSchema(const spec::TableMetadata& md) const;

  std::shared_ptr<table::Table> table_;
  std::optional<int64_t> snapshot_id_;
  std::optional<std::string> ref_;
  std::vector<std::string> columns_;
  std::vector<ColumnPredicate> predicates_;
  mutable Metrics metrics_;
};

}  // namespace floe::scan
