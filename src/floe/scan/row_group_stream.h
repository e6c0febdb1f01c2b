#pragma once

#include <atomic>
#include <deque>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>
#include <arrow/util/future.h>

#include "floe/io/file_io.h"
#include "floe/scan/parquet_file_reader.h"
#include "floe/scan/delete_filter.h"
#include "floe/scan/scan_filter.h"
#include "floe/spec/schema.h"
#include "floe/util/memory_limit.h"
#include "floe/util/progress.h"

namespace arrow::internal {
class Executor;
}  // namespace arrow::internal

namespace floe::scan {

// Row groups seen and skipped by a stream, updated while it runs.
struct RowGroupCounters {
  std::atomic<int64_t> total{0};
  std::atomic<int64_t> skipped_by_stats{0};
  std::atomic<int64_t> skipped_by_bloom_filter{0};
  std::atomic<int64_t> skipped_by_page_index{0};
  std::atomic<int64_t> skipped_by_filter_columns{0};
};

// A deletion vector: a blob of a Puffin file (spec: "Deletion Vectors").
struct DeletionVectorRef {
  std::string path;
  int64_t offset = 0;
  int64_t length = 0;
  int64_t cardinality = 0;  // the deleted rows the manifest counts (its record_count)
};

// A data file to read and the delete files that apply to it.
struct ScanFile {
  ScanFile(std::string path) : path(std::move(path)) {}  // NOLINT(runtime/explicit): a file no delete applies to
  ScanFile(std::string path, std::vector<std::string> position_deletes,
           std::vector<EqualityDeleteRef> equality_deletes = {})
      : path(std::move(path)), position_deletes(std::move(position_deletes)),
        equality_deletes(std::move(equality_deletes)) {}
  std::string path;
  std::vector<std::string> position_deletes;  // position delete files that may name rows of it
  // Their fields must be columns of the projection read.
  std::vector<EqualityDeleteRef> equality_deletes;
  std::vector<DeletionVectorRef> deletion_vectors;
  RowLineage lineage;
  // The file's size as its manifest gives it: opening it then asks object storage nothing.
  std::optional<int64_t> size = std::nullopt;
};

struct RowGroupStreamOptions {
  int64_t batch_rows = 64 * 1024;
  // Row groups decoded or waiting to be handed out at once; 0 means the pool's threads plus one.
  int max_in_flight = 0;
  // Where row groups are decoded; null means Arrow's CPU thread pool.
  arrow::internal::Executor* executor = nullptr;
  // False when the consumer takes rows in any order (an aggregate, a sort): row groups are
  // then decoded a batch at a time by one worker per thread and handed out as they come, so
  // memory holds a few batches instead of a few row groups.
  bool ordered = true;
  // Columns handed out: the first this many of the projection, the others being read only to
  // apply equality deletes; negative: all.
  int output_columns = -1;
  // Where decoded rows are allocated: by default, the pool of the statement that made the
  // options (floe/util/memory_limit.h), so its limits hold on the decoding threads too.
  arrow::MemoryPool* memory_pool = StatementMemoryPool();
};

// The positions of `file` its position delete files and deletion vectors delete, read
// through `index` and `io`; null when none. A vector holding another number of positions
// than its manifest entry counts is an IOError naming it.
Result<std::shared_ptr<const DeletedPositions>> DeletedPositionsOf(FileIO& io, PositionDeleteIndex& index,
                                                                   const ScanFile& file);

// The row groups of `files` one after another; row groups whose statistics rule them out are
// skipped and counted. The footers of the next files are read ahead, several at once (on
// object storage each costs a round trip); the positions a file's delete files delete are
// read when it is reached. Not thread-safe.
class RowGroupSequence {
 public:
  RowGroupSequence(std::shared_ptr<FileIO> io, std::vector<ScanFile> files, spec::SchemaPtr projection,
                   std::vector<ColumnPredicate> predicates, spec::SchemaPtr schema,
                   std::shared_ptr<RowGroupCounters> counters, int output_columns = -1);
  RowGroupSequence(RowGroupSequence&&) = default;
  RowGroupSequence& operator=(RowGroupSequence&&) = delete;
  // Waits for the footers still being read ahead: they allocate from the statement's pool.
  ~RowGroupSequence();

  // Files whose footers are read at once.
  static constexpr int kOpenAhead = 64;
  // Row groups of a file (on object storage) whose bytes are fetched while one decodes: at
  // most this many, and as many as kPrefetchBytes holds.
  static constexpr int64_t kPrefetchRowGroups = 8;
  static constexpr int64_t kPrefetchBytes = int64_t{64} << 20;

  struct Taken {
    std::shared_ptr<ParquetDataFile> file;  // null when every row group has been taken
    int row_group = 0;
    std::shared_ptr<const FileDeletes> deletes;  // of the file; null when none
    RowLayout layout;
    RowLineage lineage;
  };
  // The next row group. A file that cannot be opened is an error, now and on every later call.
  Result<Taken> Take();
  // Opens a taken row group for reading a batch at a time, without its deleted rows.
  static Result<ParquetDataFile::OpenedRowGroup> Open(const Taken& taken, int64_t batch_rows,
                                                      const std::atomic<bool>* cancel);

  RowGroupCounters& counters() { return *counters_; }

 private:
  Result<std::shared_ptr<const FileDeletes>> DeletesOf(const ScanFile& file);
  // Starts reading footers until kOpenAhead files from next_file_ on are being opened.
  void OpenAhead();

  std::shared_ptr<FileIO> io_;
  std::vector<ScanFile> files_;
  spec::SchemaPtr projection_;
  std::vector<ColumnPredicate> predicates_;
  spec::SchemaPtr schema_;
  std::shared_ptr<RowGroupCounters> counters_;
  RowLayout layout_;
  std::shared_ptr<PositionDeleteIndex> position_deletes_;
  std::shared_ptr<EqualityDeleteIndex> equality_deletes_;
  Status error_;
  size_t next_file_ = 0;
  // Footers of the files after the current one, opened ahead, oldest first; opening_[0]
  // is files_[next_file_].
  std::deque<arrow::Future<std::shared_ptr<ParquetDataFile>>> opening_;
  arrow::MemoryPool* memory_pool_ = StatementMemoryPool();
  std::shared_ptr<ParquetDataFile> file_;
  std::shared_ptr<const FileDeletes> deletes_;
  RowLineage lineage_;
  int next_row_group_ = 0;
  // Files whose row groups are all handed out; from the first file to the last.
  std::unique_ptr<ProgressTask> progress_;
};

// The row groups of `files`, shared out among workers that each decode one row group at a
// time, a batch per call, for consumers that take rows in any order. Thread-safe; a Worker is
// used by one thread at a time.
class SharedRowGroupScan {
 public:
  struct Worker {
    std::unique_ptr<ParquetDataFile::Cursor> cursor;  // the row group it is in, if any
  };

  static Result<std::shared_ptr<SharedRowGroupScan>> Make(
      std::shared_ptr<FileIO> io, std::vector<ScanFile> files, spec::SchemaPtr projection,
      std::vector<ColumnPredicate> predicates, spec::SchemaPtr schema, std::shared_ptr<RowGroupCounters> counters,
      int64_t batch_rows, int output_columns = -1);

  // The next batch (never empty) for `worker`: of its row group, else of the next one not yet
  // taken; null when none is left or `stop` is set. A file that cannot be opened fails every
  // worker from then on.
  Result<std::shared_ptr<arrow::RecordBatch>> Next(Worker* worker, const std::atomic<bool>* stop = nullptr);

  const std::shared_ptr<arrow::Schema>& schema() const { return arrow_schema_; }

 private:
  SharedRowGroupScan(RowGroupSequence sequence, std::shared_ptr<arrow::Schema> arrow_schema, int64_t batch_rows)
      : sequence_(std::move(sequence)), arrow_schema_(std::move(arrow_schema)), batch_rows_(batch_rows) {}

  std::mutex mutex_;
  RowGroupSequence sequence_;
  std::shared_ptr<arrow::Schema> arrow_schema_;
  int64_t batch_rows_ = 0;
};

// Streams the rows of `files` in order (file by file, row group by row group) in batches of
// at most `batch_rows`, projected onto `projection`, without the rows their position deletes name. Footers are opened as the stream reaches
// each file; row groups are decoded as tasks on the executor, a bounded number ahead of the
// consumer. Row groups the predicates rule out are skipped and counted in `counters`.
// Destroying or closing the reader cancels the tasks not yet started and waits for the rest.
// With `ordered` false, batches of different row groups interleave (each row group's stay in
// order) and at most a few batches wait for the consumer.
Result<std::shared_ptr<arrow::RecordBatchReader>> MakeRowGroupStream(
    std::shared_ptr<FileIO> io, std::vector<ScanFile> files, spec::SchemaPtr projection,
    std::vector<ColumnPredicate> predicates, spec::SchemaPtr schema, std::shared_ptr<RowGroupCounters> counters,
    RowGroupStreamOptions options = {});

}  // namespace floe::scan
