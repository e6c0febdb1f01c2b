#include "floe/scan/row_group_stream.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>

#include <arrow/record_batch.h>
#include <arrow/table.h>
#include <arrow/util/future.h>
#include <arrow/util/thread_pool.h>

#include "floe/io/read_pool.h"
#include "floe/manifest/deletion_vector.h"
#include "floe/scan/metadata_columns.h"
#include "floe/scan/parquet_file_reader.h"
#include "floe/table/arrow_schema.h"

namespace floe::scan {

namespace {

using Batches = std::vector<std::shared_ptr<arrow::RecordBatch>>;

// The Arrow schema of the first `output_columns` fields of `projection` (all when negative).
Result<std::shared_ptr<arrow::Schema>> OutputSchema(const spec::Schema& projection, int output_columns) {
  ARROW_ASSIGN_OR_RAISE(auto schema, table::ToArrowSchema(projection));
  if (output_columns < 0 || output_columns >= schema->num_fields()) return schema;
  return arrow::schema(arrow::FieldVector(schema->fields().begin(), schema->fields().begin() + output_columns),
                       schema->metadata());
}

void Count(ParquetDataFile::Outcome outcome, RowGroupCounters& counters) {
  switch (outcome) {
    case ParquetDataFile::Outcome::kSkippedByBloomFilter: ++counters.skipped_by_bloom_filter; break;
    case ParquetDataFile::Outcome::kSkippedByPageIndex: ++counters.skipped_by_page_index; break;
    case ParquetDataFile::Outcome::kSkippedByFilterColumns: ++counters.skipped_by_filter_columns; break;
    case ParquetDataFile::Outcome::kRead: break;
  }
}

// Decodes one row group into batches of at most `batch_rows`, counting why it was skipped.
Result<Batches> DecodeRowGroup(const RowGroupSequence::Taken& taken, RowGroupCounters& counters,
                               const std::atomic<bool>& stop, int64_t batch_rows) {
  Batches out;
  if (stop.load()) return out;
  ARROW_ASSIGN_OR_RAISE(auto opened, RowGroupSequence::Open(taken, batch_rows, &stop));
  Count(opened.outcome, counters);
  if (!opened.cursor) return out;
  while (!stop.load()) {
    ARROW_ASSIGN_OR_RAISE(auto batch, opened.cursor->Next());
    if (!batch) break;
    if (batch->num_rows() > 0) out.push_back(std::move(batch));
  }
  return out;
}

class RowGroupStream : public arrow::RecordBatchReader {
 public:
  RowGroupStream(RowGroupSequence sequence, std::shared_ptr<arrow::Schema> arrow_schema,
                 std::shared_ptr<RowGroupCounters> counters, RowGroupStreamOptions options)
      : sequence_(std::move(sequence)), arrow_schema_(std::move(arrow_schema)), counters_(std::move(counters)),
        options_(options) {
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
      auto next = sequence_.Take();
      if (!next.ok()) {
        // Delivered in order, after the rows of the files before it.
        pending_.push_back(arrow::Future<Batches>::MakeFinished(next.status()));
        stopped_ = true;
        return;
      }
      if (!next->file) return;
      auto task = [taken = std::move(*next), counters = counters_, stop = stop_,
                   batch_rows = options_.batch_rows, pool = options_.memory_pool]() -> Result<Batches> {
        ScopedStatementMemoryPool memory(pool);
        return DecodeRowGroup(taken, *counters, *stop, batch_rows);
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

  RowGroupSequence sequence_;
  std::shared_ptr<arrow::Schema> arrow_schema_;
  std::shared_ptr<RowGroupCounters> counters_;
  RowGroupStreamOptions options_;

  std::shared_ptr<std::atomic<bool>> stop_ = std::make_shared<std::atomic<bool>>(false);
  bool stopped_ = false;
  std::deque<arrow::Future<Batches>> pending_;  // in file and row-group order
  Batches ready_;
  size_t next_batch_ = 0;
  Status error_;
};

// One worker per pool thread, each decoding a row group a batch at a time into a shared
// queue. A worker never blocks a pool thread: when the queue is full it parks and returns,
// and the consumer starts it again once it has taken a batch.
class UnorderedRowGroupStream : public arrow::RecordBatchReader {
 public:
  UnorderedRowGroupStream(std::shared_ptr<SharedRowGroupScan> scan, RowGroupStreamOptions options)
      : state_(std::make_shared<State>()), arrow_schema_(scan->schema()) {
    state_->scan = std::move(scan);
    state_->executor = options.executor ? options.executor : arrow::internal::GetCpuThreadPool();
    state_->memory_pool = options.memory_pool;
    const int workers = options.max_in_flight > 0 ? options.max_in_flight : std::max(1, state_->executor->GetCapacity());
    state_->workers.resize(workers);
    state_->capacity = 2 * static_cast<size_t>(workers);
  }

  ~UnorderedRowGroupStream() override { Stop(); }

  std::shared_ptr<arrow::Schema> schema() const override { return arrow_schema_; }

  Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    State& s = *state_;
    if (s.executor->OwnsThisThread()) return ReadInline(batch);
    std::unique_lock<std::mutex> lock(s.mutex);
    if (!started_) {
      started_ = true;
      for (size_t w = 0; w < s.workers.size(); ++w) Launch(state_, w);
    }
    if (s.error.ok() && s.stop.load()) {
      *batch = nullptr;
      return Status::OK();
    }
    s.changed.wait(lock, [&] { return !s.error.ok() || !s.queue.empty() || s.Finished(); });
    if (!s.error.ok()) {
      Status error = s.error;
      lock.unlock();
      Stop();
      return error;
    }
    if (s.queue.empty()) {
      *batch = nullptr;
      return Status::OK();
    }
    *batch = std::move(s.queue.front());
    s.queue.pop_front();
    for (size_t w = 0; w < s.workers.size() && s.queue.size() < s.capacity; ++w) {
      if (s.workers[w].parked) Launch(state_, w);
    }
    return Status::OK();
  }

  Status Close() override {
    Stop();
    return Status::OK();
  }

 private:
  struct Worker {
    SharedRowGroupScan::Worker scan;
    bool running = false;
    bool parked = false;
    bool done = false;
  };
  struct State {
    std::mutex mutex;
    std::condition_variable changed;
    std::shared_ptr<SharedRowGroupScan> scan;
    arrow::internal::Executor* executor = nullptr;
    arrow::MemoryPool* memory_pool = nullptr;
    std::vector<Worker> workers;
    std::deque<std::shared_ptr<arrow::RecordBatch>> queue;
    size_t capacity = 0;
    Status error;
    std::atomic<bool> stop{false};

    bool Finished() const {
      for (const auto& w : workers) {
        if (!w.done) return false;
      }
      return true;
    }
    bool Idle() const {
      for (const auto& w : workers) {
        if (w.running) return false;
      }
      return true;
    }
  };

  // Caller holds the lock.
  static void Launch(const std::shared_ptr<State>& state, size_t w) {
    State& s = *state;
    s.workers[w].parked = false;
    s.workers[w].running = true;
    Status submitted = s.executor->Spawn([state, w] { Run(*state, w); });
    if (!submitted.ok()) {
      s.workers[w].running = false;
      s.workers[w].done = true;
      if (s.error.ok()) s.error = submitted;
    }
  }

  // Produces at most one batch into the queue; false when the worker has nothing left.
  static Result<bool> Step(State& s, Worker& worker) {
    ARROW_ASSIGN_OR_RAISE(auto batch, s.scan->Next(&worker.scan, &s.stop));
    if (!batch) return false;
    std::lock_guard<std::mutex> lock(s.mutex);
    s.queue.push_back(std::move(batch));
    s.changed.notify_all();
    return true;
  }

  static void Run(State& s, size_t w) {
    ScopedStatementMemoryPool memory(s.memory_pool);
    Worker& worker = s.workers[w];
    while (true) {
      Result<bool> more = s.stop.load() ? Result<bool>(false) : Step(s, worker);
      std::lock_guard<std::mutex> lock(s.mutex);
      if (!more.ok() || !*more) {
        if (!more.ok() && s.error.ok()) s.error = more.status();
        worker.scan = {};
        worker.done = true;
        worker.running = false;
        s.changed.notify_all();
        return;
      }
      if (s.queue.size() >= s.capacity) {
        worker.parked = true;
        worker.running = false;
        s.changed.notify_all();
        return;
      }
    }
  }

  // On a pool thread waiting for the pool could starve it: decode right here instead.
  Status ReadInline(std::shared_ptr<arrow::RecordBatch>* batch) {
    State& s = *state_;
    while (true) {
      {
        std::lock_guard<std::mutex> lock(s.mutex);
        ARROW_RETURN_NOT_OK(s.error);
        if (!s.queue.empty()) {
          *batch = std::move(s.queue.front());
          s.queue.pop_front();
          return Status::OK();
        }
        if (inline_done_) {
          *batch = nullptr;
          return Status::OK();
        }
      }
      ARROW_ASSIGN_OR_RAISE(bool more, Step(s, inline_worker_));
      inline_done_ = !more;
    }
  }

  void Stop() {
    State& s = *state_;
    s.stop.store(true);
    std::unique_lock<std::mutex> lock(s.mutex);
    s.changed.wait(lock, [&] { return s.Idle(); });
    s.queue.clear();
  }

  std::shared_ptr<State> state_;
  std::shared_ptr<arrow::Schema> arrow_schema_;
  bool started_ = false;
  Worker inline_worker_;
  bool inline_done_ = false;
};

}  // namespace

Result<std::shared_ptr<arrow::RecordBatchReader>> MakeRowGroupStream(
    std::shared_ptr<FileIO> io, std::vector<ScanFile> files, spec::SchemaPtr projection,
    std::vector<ColumnPredicate> predicates, spec::SchemaPtr schema, std::shared_ptr<RowGroupCounters> counters,
    RowGroupStreamOptions options) {
  ARROW_ASSIGN_OR_RAISE(auto arrow_schema, OutputSchema(*projection, options.output_columns));
  if (!counters) counters = std::make_shared<RowGroupCounters>();
  if (!options.ordered) {
    ARROW_ASSIGN_OR_RAISE(auto scan, SharedRowGroupScan::Make(std::move(io), std::move(files), std::move(projection),
                                                              std::move(predicates), std::move(schema),
                                                              std::move(counters), options.batch_rows,
                                                              options.output_columns));
    return std::make_shared<UnorderedRowGroupStream>(std::move(scan), options);
  }
  RowGroupSequence sequence(std::move(io), std::move(files), std::move(projection), std::move(predicates),
                            std::move(schema), counters, options.output_columns);
  return std::make_shared<RowGroupStream>(std::move(sequence), std::move(arrow_schema), std::move(counters), options);
}

RowGroupSequence::RowGroupSequence(std::shared_ptr<FileIO> io, std::vector<ScanFile> files,
                                   spec::SchemaPtr projection, std::vector<ColumnPredicate> predicates,
                                   spec::SchemaPtr schema, std::shared_ptr<RowGroupCounters> counters,
                                   int output_columns)
    : io_(std::move(io)), files_(std::move(files)), projection_(std::move(projection)),
      predicates_(std::move(predicates)), schema_(std::move(schema)),
      counters_(counters ? std::move(counters) : std::make_shared<RowGroupCounters>()),
      position_deletes_(std::make_shared<PositionDeleteIndex>(io_)),
      equality_deletes_(std::make_shared<EqualityDeleteIndex>(io_, projection_)) {
  layout_.output_columns = output_columns;
  const auto& fields = projection_->fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].id == kFileColumnId) layout_.file_column = static_cast<int>(i);
    if (fields[i].id == kPosColumnId) layout_.pos_column = static_cast<int>(i);
    if (fields[i].id == kRowIdColumnId) layout_.row_id_column = static_cast<int>(i);
    if (fields[i].id == kLastUpdatedSequenceNumberColumnId) layout_.last_updated_column = static_cast<int>(i);
  }
}

RowGroupSequence::~RowGroupSequence() {
  for (auto& opening : opening_) opening.Wait();
}

Result<std::shared_ptr<const DeletedPositions>> DeletedPositionsOf(FileIO& io, PositionDeleteIndex& index,
                                                                   const ScanFile& file) {
  ARROW_ASSIGN_OR_RAISE(auto positions, index.For(file.path, file.position_deletes));
  for (const auto& dv : file.deletion_vectors) {
    ARROW_ASSIGN_OR_RAISE(auto deleted, manifest::ReadDeletionVector(io, dv.path, dv.offset, dv.length));
    if (static_cast<int64_t>(deleted.size()) != dv.cardinality) {
      return Status::IOError("Invalid deletion vector in ", dv.path, " for ", file.path, ": it deletes ",
                             deleted.size(), " rows, its manifest entry counts ", dv.cardinality);
    }
    positions = MergePositions(std::move(positions), std::move(deleted));
  }
  return positions;
}

Result<std::shared_ptr<const FileDeletes>> RowGroupSequence::DeletesOf(const ScanFile& file) {
  if (file.position_deletes.empty() && file.equality_deletes.empty() && file.deletion_vectors.empty()) {
    return nullptr;
  }
  auto deletes = std::make_shared<FileDeletes>();
  ARROW_ASSIGN_OR_RAISE(deletes->positions, DeletedPositionsOf(*io_, *position_deletes_, file));
  const auto& fields = projection_->fields();
  for (const auto& ref : file.equality_deletes) {
    FileDeletes::Equality eq;
    for (int32_t id : ref.field_ids) {
      auto it = std::find_if(fields.begin(), fields.end(), [id](const spec::NestedField& f) { return f.id == id; });
      if (it == fields.end()) {
        return Status::Invalid("Equality delete file ", ref.path, " compares field id ", id,
                               ", which the scan of ", file.path, " does not read");
      }
      eq.columns.push_back(static_cast<int>(it - fields.begin()));
    }
    ARROW_ASSIGN_OR_RAISE(eq.set, equality_deletes_->Load(ref));
    deletes->equality.push_back(std::move(eq));
  }
  return deletes;
}

void RowGroupSequence::OpenAhead() {
  while (opening_.size() < static_cast<size_t>(kOpenAhead) && next_file_ + opening_.size() < files_.size()) {
    const ScanFile& file = files_[next_file_ + opening_.size()];
    auto task = [io = io_, path = file.path, size = file.size, projection = projection_, predicates = predicates_,
                 schema = schema_, pool = memory_pool_]() -> Result<std::shared_ptr<ParquetDataFile>> {
      ScopedStatementMemoryPool memory(pool);
      return ParquetDataFile::Open(*io, path, projection, predicates, schema.get(), size);
    };
    auto submitted = ReadPool()->Submit(std::move(task));
    opening_.push_back(submitted.ok() ? std::move(*submitted)
                                      : arrow::Future<std::shared_ptr<ParquetDataFile>>::MakeFinished(
                                            submitted.status()));
  }
}

Result<RowGroupSequence::Taken> RowGroupSequence::Take() {
  ARROW_RETURN_NOT_OK(error_);
  while (true) {
    if (!file_ || next_row_group_ >= file_->num_row_groups()) {
      if (file_ && progress_) progress_->Advance();
      file_ = nullptr;
      if (next_file_ >= files_.size()) {
        progress_.reset();
        return Taken{};
      }
      if (next_file_ == 0) progress_ = std::make_unique<ProgressTask>("Reading data files", static_cast<int64_t>(files_.size()));
      OpenAhead();
      auto opening = std::move(opening_.front());
      opening_.pop_front();
      const ScanFile& next = files_[next_file_++];
      OpenAhead();
      const auto& opened = opening.result();
      if (!opened.ok()) {
        error_ = opened.status();
        return error_;
      }
      auto deletes = DeletesOf(next);
      if (!deletes.ok()) {
        error_ = deletes.status();
        return error_;
      }
      file_ = *opened;
      deletes_ = *deletes;
      lineage_ = next.lineage;
      next_row_group_ = 0;
      counters_->total += file_->num_row_groups();
      continue;
    }
    int row_group = next_row_group_++;
    if (!file_->StatsMayMatch(row_group)) {
      ++counters_->skipped_by_stats;
      continue;
    }
    // Without predicates every row group of the file is read: fetch the next ones while this
    // one decodes. (With them, the page index may spare most of their bytes.)
    if (predicates_.empty()) {
      const int64_t group_bytes = std::max<int64_t>(1, file_->RowGroupCompressedBytes(row_group));
      const int ahead = static_cast<int>(std::clamp<int64_t>(kPrefetchBytes / group_bytes, 1, kPrefetchRowGroups));
      for (int rg = row_group; rg < std::min(row_group + ahead, file_->num_row_groups()); ++rg) {
        if (file_->StatsMayMatch(rg)) file_->Prefetch(rg);
      }
    }
    return Taken{file_, row_group, deletes_, layout_, lineage_};
  }
}

Result<ParquetDataFile::OpenedRowGroup> RowGroupSequence::Open(const Taken& taken, int64_t batch_rows,
                                                               const std::atomic<bool>* cancel) {
  // Rows that cannot match may be left out only where nothing counts positions.
  const bool positions_unused = (!taken.deletes || taken.deletes->empty()) && taken.layout.plain();
  ARROW_ASSIGN_OR_RAISE(auto opened, taken.file->OpenRowGroup(taken.row_group, batch_rows, cancel, positions_unused));
  if (opened.cursor) {
    opened.cursor = FinishRows(std::move(opened.cursor), taken.file->location(),
                               taken.file->RowGroupFirstRow(taken.row_group), taken.deletes, taken.layout,
                               taken.lineage);
  }
  return opened;
}

Result<std::shared_ptr<SharedRowGroupScan>> SharedRowGroupScan::Make(
    std::shared_ptr<FileIO> io, std::vector<ScanFile> files, spec::SchemaPtr projection,
    std::vector<ColumnPredicate> predicates, spec::SchemaPtr schema, std::shared_ptr<RowGroupCounters> counters,
    int64_t batch_rows, int output_columns) {
  ARROW_ASSIGN_OR_RAISE(auto arrow_schema, OutputSchema(*projection, output_columns));
  RowGroupSequence sequence(std::move(io), std::move(files), std::move(projection), std::move(predicates),
                            std::move(schema), std::move(counters), output_columns);
  return std::shared_ptr<SharedRowGroupScan>(
      new SharedRowGroupScan(std::move(sequence), std::move(arrow_schema), batch_rows > 0 ? batch_rows : 64 * 1024));
}

Result<std::shared_ptr<arrow::RecordBatch>> SharedRowGroupScan::Next(Worker* worker, const std::atomic<bool>* stop) {
  while (!(stop && stop->load())) {
    if (!worker->cursor) {
      RowGroupSequence::Taken next;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ARROW_ASSIGN_OR_RAISE(next, sequence_.Take());
      }
      if (!next.file) break;
      ARROW_ASSIGN_OR_RAISE(auto opened, RowGroupSequence::Open(next, batch_rows_, stop));
      Count(opened.outcome, sequence_.counters());
      worker->cursor = std::move(opened.cursor);
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto batch, worker->cursor->Next());
    if (!batch) {
      worker->cursor.reset();
      continue;
    }
    if (batch->num_rows() > 0) return batch;
  }
  return nullptr;
}

}  // namespace floe::scan
