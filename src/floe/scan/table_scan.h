#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/manifest/data_file.h"
#include "floe/manifest/manifest_cache.h"
#include "floe/scan/row_group_stream.h"
#include "floe/scan/scan_filter.h"
#include "floe/table/table.h"

namespace floe::scan {

struct FileScanTask {
  manifest::DataFile file;
  int64_t data_sequence_number = 0;
  // The delete files that apply to `file`: position deletes that may name it, equality deletes.
  std::vector<manifest::DataFile> deletes;
};

// What identifies a data file's rows in a snapshot: its path and the delete files applying.
// Two snapshots' tasks of equal keys hold the same rows.
std::string FileTaskKey(const FileScanTask& task);

// What the row-group stream reads of `file`: it, its deletes by kind, and its row lineage.
// An encrypted file is refused by name.
Result<ScanFile> ScanFileOf(const manifest::DataFile& file, int64_t data_sequence_number,
                            const std::vector<manifest::DataFile>& deletes);

// What the row-group stream reads for planned tasks: each data file with its delete files,
// and `projection` widened by the columns equality deletes compare on that it lacks (taken
// from `schema`, else the newest older schema of `md` that has them). Those extra columns
// come last; `output_columns` is then how many columns were asked for (-1: none added).
struct ScanFilesPlan {
  spec::SchemaPtr projection;
  std::vector<ScanFile> files;
  int output_columns = -1;
};
Result<ScanFilesPlan> PlanScanFiles(const spec::TableMetadata& md, std::vector<FileScanTask> tasks,
                                    spec::SchemaPtr projection, const spec::Schema& schema);

// Reads a table as of its current snapshot, a snapshot id or a named ref, by Iceberg field
// id. A snapshot id or tag reads with the schema that snapshot was written with; the
// current state and branches read with the table's current schema (as Iceberg does).
class TableScan {
 public:
  explicit TableScan(std::shared_ptr<table::Table> table) : table_(std::move(table)) {}

  TableScan& UseSnapshot(int64_t snapshot_id);
  TableScan& UseRef(std::string ref);
  // Column names of the read schema, or the metadata columns `_file` and `_pos` (not in the
  // table's schema); empty means all the table's columns.
  TableScan& Select(std::vector<std::string> columns);
  // Predicates (ANDed) used to skip manifests and files that cannot match. Rows are not
  // filtered: callers still apply their filter to what the scan returns.
  TableScan& Filter(std::vector<ColumnPredicate> predicates);
  // Planned files carry the metrics (counts, bounds) of these columns besides the filter's;
  // planning decodes no other column's metrics.
  TableScan& IncludeColumnStats(std::vector<int32_t> field_ids);
  // Planned files carry every column's metrics.
  TableScan& IncludeColumnStats();

  // The snapshot read, or nullopt for a table with no snapshot yet.
  Result<std::optional<int64_t>> SnapshotId() const;
  Result<spec::SchemaPtr> ReadSchema() const;
  Result<std::vector<FileScanTask>> PlanFiles() const;
  Result<std::shared_ptr<arrow::Table>> ToArrowTable() const;
  // Streams the planned files in order, row group by row group, decoding row groups in
  // parallel on Arrow's CPU pool a bounded number ahead (memory bounded by a few row groups,
  // not by files). Row groups the predicates rule out (statistics, Bloom filters, page index,
  // or the predicate columns decoded first) are skipped.
  Result<std::shared_ptr<arrow::RecordBatchReader>> ToRecordBatchReader() const;
  // The same rows for a consumer that takes them in any order (aggregates, sorts): each
  // thread decodes its own row group a batch at a time and batches are handed out as they
  // are ready, so memory holds a few batches whatever the row group size.
  Result<std::shared_ptr<arrow::RecordBatchReader>> ToUnorderedRecordBatchReader() const;
  // The planned row groups for workers of the caller's to share out (see SharedRowGroupScan).
  Result<std::shared_ptr<SharedRowGroupScan>> ToSharedRowGroupScan(int64_t batch_rows) const;

  // What planning and reading skipped, for tests and EXPLAIN. The manifest and file counts
  // are final once planning is done; the row-group counts grow while the last reader made
  // by ToRecordBatchReader streams and are final once it returned its end of stream (at once
  // for ToArrowTable). A reader destroyed early leaves the counts of what it had reached.
  struct Metrics {
    int64_t manifests = 0, manifests_skipped = 0, files = 0, files_skipped = 0;
    int64_t row_groups = 0, row_groups_skipped_by_stats = 0, row_groups_skipped_by_bloom_filter = 0,
            row_groups_skipped_by_page_index = 0, row_groups_skipped_by_filter_columns = 0;
  };
  const Metrics& metrics() const;

 private:
  Result<const spec::Snapshot*> ResolveSnapshot(const spec::TableMetadata& md) const;
  Result<spec::SchemaPtr> SnapshotSchema(const spec::TableMetadata& md) const;
  Result<std::shared_ptr<arrow::RecordBatchReader>> MakeReader(bool ordered) const;
  // Gives each task the delete files that apply to it.
  Status AssignDeletes(const spec::TableMetadata& md, const spec::Snapshot& snap,
                       const std::vector<manifest::ManifestEntry>& deletes,
                       std::vector<FileScanTask>* tasks) const;
  struct Planned {
    spec::SchemaPtr projection, schema;  // the projection may end in columns read for equality deletes
    std::vector<ScanFile> files;
    int output_columns = -1;  // how many of the projection's columns the caller asked for; -1: all
  };
  // Plans the files and resets the row-group counters for a new read.
  Result<Planned> PlanRead() const;

  std::shared_ptr<table::Table> table_;
  std::optional<int64_t> snapshot_id_;
  std::optional<std::string> ref_;
  std::vector<std::string> columns_;
  std::vector<ColumnPredicate> predicates_;
  std::vector<int32_t> stats_columns_;
  bool all_stats_ = false;
  mutable Metrics metrics_;
  mutable std::shared_ptr<RowGroupCounters> row_groups_;
};

}  // namespace floe::scan
