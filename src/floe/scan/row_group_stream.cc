#include "floe/scan/row_group_stream.h"

#include <deque>

#include <arrow/record_batch.h>
#include <arrow/table.h>
#include <arrow/util/future.h>
#include <arrow/util/thread_pool.h>

#include "floe/scan/parquet_file_reader.h"
#include "floe/table/arrow_schema.h"

namespace floe::scan {

namespace {

using Batches = std::vector<std::shared_ptr<arrow::RecordBatch>>;

// Decodes one row group into batches of at most `batch_rows`, counting why it was skipped.
Result<Batches> DecodeRowGroup(const ParquetDataFile& file, int row_group, RowGroupCounters& counters,
                               const std::atomic<bool>& stop, int64_t batch_rows) {
  Batches out;
  if (stop.load()) return out;
  ARROW_ASSIGN_OR_RAISE(auto read, file.ReadRowGroup(row_group, &stop));
  switch (read.outcome) {
    case ParquetDataFile::Outcome::kSkippedByBloomFilter: ++counters.skipped_by_bloom_filter; break;
    case ParquetDataFile::Outcome::kSkippedByPageIndex: ++counters.skipped_by_page_index; break;
    case ParquetDataFile::Outcome::kSkippedByFilterColumns: ++counters.skipped_by_filter_columns; break;
    case ParquetDataFile::Outcome::kRead: break;
  }
  if (!read.rows) return out;
  arrow::TableBatchReader slicer(*read.rows);
  slicer.set_chunksize(batch_rows);
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(slicer.ReadNext(&batch));
    if (!batch) break;
    if (batch->num_rows() > 0) out.push_back(std::move(batch));
  }
  return out;
}

class RowGroupStream : public arrow::RecordBatchReader {
 public:
  RowGroupStream(std::shared_ptr<FileIO> io, std::vector<std::string> files, spec::SchemaPtr projection,
                 std::shared_ptr<arrow::Schema> arrow_schema, std::vector<ColumnPredicate> predicates,
                 spec::SchemaPtr schema, std::shared_ptr<RowGroupCounters> counters, RowGroupStreamOptions options)
      : io_(std::move(io)), files_(std::move(files)), projection_(std::move(projection)),
        arrow_schema_(std::move(arrow_schema)), predicates_(std::move(predicates)), schema_(std::move(schema)),
        counters_(std::move(counters)), options_(options) {
    if (!options_.executor) options_.executor = arrow::internal::GetCpuThreadPool();
    if (options_.max_in_flight <= 0) {
      options_.max_in_flight = std::max(2, options_.executor->GetCapacity() + 1);
    }
    if (options_.batch_rows <= 0) options_.batch_rows = 64 * 1024;
  }

  ~RowGroupStream() override { Stop(); }

  std::shared_ptr<arrow::Schema> schema() const override { return arrow_schema_; }

  Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    while (true) {
      if (next_batch_ < ready_.size()) {
        *batch = std::move(ready_[next_batch_++]);
        return Status::OK();
      }
      ready_.clear();
      next_batch_ = 0;
      ARROW_RETURN_NOT_OK(error_);
      Fill();
      if (pending_.empty()) {
        *batch = nullptr;
        return Status::OK();
      }
      arrow::Future<Batches> next = std::move(pending_.front());
      pending_.pop_front();
      const auto& result = next.result();
      if (!result.ok()) {
        error_ = result.status();
        Stop();
        return error_;
      }
      ready_ = *result;
      Fill();
    }
  }

  Status Close() override {
    Stop();
    return Status::OK();
  }

 private:
  // Cancels the tasks not yet started and waits for the running ones, which hold only
  // shared state, so nothing they touch goes away under them.
  void Stop() {
    stop_->store(true);
    for (auto& f : pending_) f.Wait();
    pending_.clear();
    stopped_ = true;
  }

  // Queues row groups until `max_in_flight` are pending, opening the next file's footer
  // when the current one has none left.
  void Fill() {
    while (!stopped_ && pending_.size() < static_cast<size_t>(options_.max_in_flight)) {
      if (!file_ || next_row_group_ >= file_->num_row_groups()) {
        if (next_file_ >= files_.size()) return;
        auto opened = ParquetDataFile::Open(*io_, files_[next_file_++], projection_, predicates_, schema_.get());
        if (!opened.ok()) {
          // Delivered in order, after the rows of the files before it.
          pending_.push_back(arrow::Future<Batches>::MakeFinished(opened.status()));
          stopped_ = true;
          return;
        }
        file_ = *opened;
        next_row_group_ = 0;
        counters_->total += file_->num_row_groups();
        continue;
      }
      int row_group = next_row_group_++;
      if (!file_->StatsMayMatch(row_group)) {
        ++counters_->skipped_by_stats;
        continue;
      }
      auto task = [file = file_, row_group, counters = counters_, stop = stop_,
                   batch_rows = options_.batch_rows]() -> Result<Batches> {
        return DecodeRowGroup(*file, row_group, *counters, *stop, batch_rows);
      };
      // A reader driven from one of the pool's own threads decodes inline: waiting there
      // for the pool could leave no thread to run the tasks.
      if (options_.executor->OwnsThisThread()) {
        auto decoded = task();
        if (!decoded.ok()) stopped_ = true;
        pending_.push_back(arrow::Future<Batches>::MakeFinished(std::move(decoded)));
        continue;
      }
      auto submitted = options_.executor->Submit(std::move(task));
      if (!submitted.ok()) {
        pending_.push_back(arrow::Future<Batches>::MakeFinished(submitted.status()));
        stopped_ = true;
        return;
      }
      pending_.push_back(std::move(*submitted));
    }
  }

  std::shared_ptr<FileIO> io_;
  std::vector<std::string> files_;
  spec::SchemaPtr projection_;
  std::shared_ptr<arrow::Schema> arrow_schema_;
  std::vector<ColumnPredicate> predicates_;
  spec::SchemaPtr schema_;
  std::shared_ptr<RowGroupCounters> counters_;
  RowGroupStreamOptions options_;

  std::shared_ptr<std::atomic<bool>> stop_ = std::make_shared<std::atomic<bool>>(false);
  bool stopped_ = false;
  size_t next_file_ = 0;
  std::shared_ptr<ParquetDataFile> file_;
  int next_row_group_ = 0;
  std::deque<arrow::Future<Batches>> pending_;  // in file and row-group order
  Batches ready_;
  size_t next_batch_ = 0;
  Status error_;
};

}  // namespace

Result<std::shared_ptr<arrow::RecordBatchReader>> MakeRowGroupStream(
    std::shared_ptr<FileIO> io, std::vector<std::string> files, spec::SchemaPtr projection,
    std::vector<ColumnPredicate> predicates, spec::SchemaPtr schema, std::shared_ptr<RowGroupCounters> counters,
    RowGroupStreamOptions options) {
  ARROW_ASSIGN_OR_RAISE(auto arrow_schema, table::ToArrowSchema(*projection));
  if (!counters) counters = std::make_shared<RowGroupCounters>();
  return std::make_shared<RowGroupStream>(std::move(io), std::move(files), std::move(projection),
                                          std::move(arrow_schema), std::move(predicates), std::move(schema),
                                          std::move(counters), options);
}

}  // namespace floe::scan
