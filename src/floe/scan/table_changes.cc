#include "floe/scan/table_changes.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "floe/scan/changelog_scan.h"
#include "floe/scan/metadata_columns.h"
#include "floe/scan/snapshot_diff.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/time_travel.h"
#include "floe/util/str_cat.h"

namespace floe::scan {

namespace {

std::shared_ptr<arrow::DataType> CommitTimestampType() {
  return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
}

// The columns every row has after the table's, in order.
std::vector<std::shared_ptr<arrow::Field>> ChangeFields(bool ordinal_nullable) {
  return {arrow::field(kChangeTypeColumn, arrow::utf8(), false),
          arrow::field(kChangeOrdinalColumn, arrow::int32(), ordinal_nullable),
          arrow::field(kCommitSnapshotIdColumn, arrow::int64(), false),
          arrow::field(kCommitTimestampColumn, CommitTimestampType(), false),
          arrow::field(kCommitSequenceNumberColumn, arrow::int64(), false),
          arrow::field(kOperationColumn, arrow::utf8(), false)};
}

// The changelog's rows with the commit of each row's snapshot after them, batch by batch.
class WithCommitColumns : public arrow::RecordBatchReader {
 public:
  WithCommitColumns(spec::TableMetadataPtr md, std::shared_ptr<arrow::RecordBatchReader> rows)
      : md_(std::move(md)), rows_(std::move(rows)) {
    std::vector<std::shared_ptr<arrow::Field>> fields = rows_->schema()->fields();
    for (size_t i = 3; i < 6; ++i) fields.push_back(ChangeFields(false)[i]);
    schema_ = arrow::schema(std::move(fields));
  }

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(rows_->ReadNext(&batch));
    *out = nullptr;
    if (!batch) return Status::OK();
    const auto& ids =
        static_cast<const arrow::Int64Array&>(*batch->GetColumnByName(kCommitSnapshotIdColumn));
    arrow::TimestampBuilder timestamps(CommitTimestampType(), arrow::default_memory_pool());
    arrow::Int64Builder sequence_numbers;
    arrow::StringBuilder operations;
    for (int64_t i = 0; i < ids.length(); ++i) {
      const spec::Snapshot* s = md_->SnapshotById(ids.Value(i));
      ARROW_RETURN_NOT_OK(timestamps.Append(s->timestamp_ms * 1000));
      ARROW_RETURN_NOT_OK(sequence_numbers.Append(s->sequence_number));
      ARROW_RETURN_NOT_OK(operations.Append(s->operation));
    }
    std::vector<std::shared_ptr<arrow::Array>> columns = batch->columns();
    for (arrow::ArrayBuilder* b :
         std::initializer_list<arrow::ArrayBuilder*>{&timestamps, &sequence_numbers, &operations}) {
      ARROW_ASSIGN_OR_RAISE(auto array, b->Finish());
      columns.push_back(std::move(array));
    }
    *out = arrow::RecordBatch::Make(schema_, batch->num_rows(), std::move(columns));
    return Status::OK();
  }

  Status Close() override { return rows_->Close(); }

 private:
  spec::TableMetadataPtr md_;
  std::shared_ptr<arrow::RecordBatchReader> rows_;
  std::shared_ptr<arrow::Schema> schema_;
};

// Rows of the difference of two states, in the table's current columns, each carrying the
// commit of `to`: one batch per compared partition.
class StateChanges {
 public:
  StateChanges(spec::SchemaPtr current, spec::Snapshot to, bool compute_updates)
      : current_(std::move(current)), to_(std::move(to)), compute_updates_(compute_updates) {}

  Status Init() {
    ARROW_ASSIGN_OR_RAISE(data_schema_, table::ToArrowSchema(*current_));
    std::vector<std::shared_ptr<arrow::Field>> fields = data_schema_->fields();
    for (auto& f : fields) f = f->WithNullable(true);
    for (const auto& f : ChangeFields(true)) fields.push_back(f);
    schema_ = arrow::schema(std::move(fields));
    return Status::OK();
  }
  const std::shared_ptr<arrow::Schema>& schema() const { return schema_; }

  // The rows of one partition of the diff; null when it has none.
  Result<std::shared_ptr<arrow::RecordBatch>> Rows(const DiffRows& d) {
    if (source_.empty()) {
      // Each current column's place among the compared ones.
      const auto& compared = d.added->schema();
      for (const auto& f : current_->fields()) source_.push_back(compared->GetFieldIndex(f.name));
    }
    const int64_t removed = d.removed->num_rows(), pairs = d.changed_before->num_rows(),
                  added = d.added->num_rows();
    const int64_t n = removed + 2 * pairs + added;
    if (n == 0) return nullptr;
    arrow::Int64Builder take;
    arrow::StringBuilder types;
    ARROW_RETURN_NOT_OK(take.Reserve(n));
    for (int64_t i = 0; i < removed; ++i) {
      take.UnsafeAppend(i);
      ARROW_RETURN_NOT_OK(types.Append(kChangeDelete));
    }
    for (int64_t i = 0; i < pairs; ++i) {
      take.UnsafeAppend(removed + i);
      take.UnsafeAppend(removed + pairs + i);
      ARROW_RETURN_NOT_OK(types.Append(compute_updates_ ? kChangeUpdateBefore : kChangeDelete));
      ARROW_RETURN_NOT_OK(types.Append(compute_updates_ ? kChangeUpdateAfter : kChangeInsert));
    }
    for (int64_t i = 0; i < added; ++i) {
      take.UnsafeAppend(removed + 2 * pairs + i);
      ARROW_RETURN_NOT_OK(types.Append(kChangeInsert));
    }
    ARROW_ASSIGN_OR_RAISE(auto indices, take.Finish());
    ARROW_ASSIGN_OR_RAISE(auto all, arrow::Table::FromRecordBatches(
                                        {d.removed, d.changed_before, d.changed_after, d.added}));
    ARROW_ASSIGN_OR_RAISE(arrow::Datum taken, arrow::compute::Take(all, indices));
    ARROW_ASSIGN_OR_RAISE(auto rows, taken.table()->CombineChunksToBatch());

    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (size_t i = 0; i < source_.size(); ++i) {
      const auto& type = data_schema_->field(static_cast<int>(i))->type();
      if (source_[i] < 0) {
        ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(type, n));
        columns.push_back(std::move(nulls));
        continue;
      }
      std::shared_ptr<arrow::Array> column = rows->column(source_[i]);
      if (!column->type()->Equals(*type)) {
        ARROW_ASSIGN_OR_RAISE(column, arrow::compute::Cast(*column, type));
      }
      columns.push_back(std::move(column));
    }
    ARROW_ASSIGN_OR_RAISE(auto type_array, types.Finish());
    columns.push_back(std::move(type_array));
    ARROW_ASSIGN_OR_RAISE(auto no_ordinal, arrow::MakeArrayOfNull(arrow::int32(), n));
    columns.push_back(std::move(no_ordinal));
    for (const auto& value : std::vector<std::shared_ptr<arrow::Scalar>>{
             arrow::MakeScalar(to_.snapshot_id),
             std::make_shared<arrow::TimestampScalar>(to_.timestamp_ms * 1000,
                                                      CommitTimestampType()),
             arrow::MakeScalar(to_.sequence_number), arrow::MakeScalar(to_.operation)}) {
      ARROW_ASSIGN_OR_RAISE(auto constant, arrow::MakeArrayFromScalar(*value, n));
      columns.push_back(std::move(constant));
    }
    return arrow::RecordBatch::Make(schema_, n, std::move(columns));
  }

 private:
  spec::SchemaPtr current_;
  spec::Snapshot to_;
  bool compute_updates_;
  std::shared_ptr<arrow::Schema> data_schema_, schema_;
  std::vector<int> source_;
};

// Runs a producer on a thread of its own and hands its batches to the reader through a short
// queue, so rows flow out as the diff compares partitions and memory stays bounded whatever
// the result's size. Closing the reader early stops the producer at its next batch.
class ProducedBatches : public arrow::RecordBatchReader {
 public:
  using Emit = std::function<Status(std::shared_ptr<arrow::RecordBatch>)>;

  ProducedBatches(std::shared_ptr<arrow::Schema> schema, std::function<Status(const Emit&)> run)
      : schema_(std::move(schema)) {
    thread_ = std::thread([this, run = std::move(run)] {
      Status st = run([this](std::shared_ptr<arrow::RecordBatch> b) { return Push(std::move(b)); });
      std::lock_guard<std::mutex> lock(mutex_);
      status_ = std::move(st);
      done_ = true;
      changed_.notify_all();
    });
  }
  ~ProducedBatches() override { Stop(); }

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !queue_.empty() || done_; });
    if (!queue_.empty()) {
      *out = std::move(queue_.front());
      queue_.pop_front();
      changed_.notify_all();
      return Status::OK();
    }
    *out = nullptr;
    return stopped_ ? Status::OK() : status_;
  }

  Status Close() override {
    Stop();
    return Status::OK();
  }

 private:
  static constexpr size_t kDepth = 2;

  Status Push(std::shared_ptr<arrow::RecordBatch> batch) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return queue_.size() < kDepth || stopped_; });
    if (stopped_) return Status::Cancelled("The reader of the changes was closed");
    queue_.push_back(std::move(batch));
    changed_.notify_all();
    return Status::OK();
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
      queue_.clear();
      changed_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
  }

  std::shared_ptr<arrow::Schema> schema_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::shared_ptr<arrow::RecordBatch>> queue_;
  bool done_ = false, stopped_ = false;
  Status status_;
  std::thread thread_;
};

Result<std::shared_ptr<arrow::Table>> NoChanges(const spec::Schema& schema) {
  ARROW_ASSIGN_OR_RAISE(auto data_schema, table::ToArrowSchema(schema));
  std::vector<std::shared_ptr<arrow::Field>> fields = data_schema->fields();
  for (const auto& f : ChangeFields(false)) fields.push_back(f);
  return arrow::Table::MakeEmpty(arrow::schema(std::move(fields)));
}

}  // namespace

Result<std::shared_ptr<arrow::RecordBatchReader>> ReadTableChanges(
    const std::shared_ptr<table::Table>& table, const TableChangesOptions& options) {
  auto md = table->metadata();
  spec::SchemaPtr schema = md->current_schema();
  if (!schema) return Status::IOError("Table ", table->name(), " has no current schema");
  const std::optional<int64_t> from = options.from_exclusive;
  const std::optional<int64_t> to =
      options.to_inclusive ? options.to_inclusive : md->current_snapshot_id;
  for (std::optional<int64_t> id : {from, to}) {
    if (id && !md->SnapshotById(*id))
      return NotFound("Cannot find snapshot with ID ", *id, " in table ", table->name());
  }

  // Identifier columns: those named, else the schema's; checked against the current schema.
  std::vector<std::string> keys = options.identifier_columns;
  if (keys.empty()) {
    for (int32_t id : schema->identifier_field_ids()) keys.push_back(schema->FindColumnName(id));
  }
  std::vector<int32_t> key_ids;
  for (const auto& name : keys) {
    const spec::NestedField* f = schema->FindFieldByNameCaseInsensitive(name);
    if (!f) return NotFound("Cannot find identifier column '", name, "' in table ", table->name());
    key_ids.push_back(f->id);
  }
  // Format v3: row lineage pairs the images of one row in each snapshot (mode all), without
  // identifier columns; and without them two states compare by row id (net mode, ranges off
  // one line of history) when both ends have lineage: snapshots written at v3, whose rows all
  // have row ids.
  const bool v3 = md->format_version >= 3;
  const spec::Snapshot* to_snapshot = to ? md->SnapshotById(*to) : nullptr;
  const bool states_by_row_id = v3 && key_ids.empty() && to_snapshot && to_snapshot->first_row_id &&
                                (!from || md->SnapshotById(*from)->first_row_id);
  const bool by_lineage = v3 && (!options.net || states_by_row_id);
  const bool compute_updates =
      options.compute_updates.value_or(!options.identifier_columns.empty() || by_lineage);
  if (compute_updates && keys.empty() && !by_lineage) {
    return Status::Invalid(
        "Cannot compute the update images because identifier columns are not set");
  }
  if (!to || from == to) {
    ARROW_ASSIGN_OR_RAISE(auto none, NoChanges(*schema));
    return std::make_shared<arrow::TableBatchReader>(none);
  }

  // One line of history with every snapshot kept: `from` among `to`'s ancestors, or, from
  // the start, ancestors back to a snapshot without a parent.
  const auto ancestors = table::AncestorsOf(*md, *to);
  const bool lineage =
      from ? std::any_of(ancestors.begin(), ancestors.end(),
                         [&](const spec::Snapshot* s) { return s->snapshot_id == *from; })
           : !ancestors.back()->parent_snapshot_id;
  if (from && !lineage && !options.to_is_head && options.to_inclusive) {
    for (const spec::Snapshot* s : table::AncestorsOf(*md, *from)) {
      if (s->snapshot_id == *to) {
        return Status::Invalid("Starting snapshot (exclusive) ", *from, " is after end snapshot ",
                               *to, " in table ", table->name());
      }
    }
  }

  if (lineage && !options.net) {
    ChangelogOptions changelog;
    changelog.from_exclusive = from;
    changelog.to_inclusive = to;
    changelog.identifier_columns = keys;
    changelog.compute_updates = compute_updates;
    ARROW_ASSIGN_OR_RAISE(auto rows, StreamChangelog(table, changelog));
    return std::make_shared<WithCommitColumns>(md, std::move(rows));
  }

  // The two ends' states compared in the current columns, by key where there is one, else by
  // row id with the rows' lineage compared too: a row written again unchanged (same row id
  // and sequence number) is no change, one updated is a changed row.
  DiffOptions diff_options;
  diff_options.compare_schema = schema;
  for (int32_t id : key_ids) diff_options.key_columns.push_back(schema->FindColumnName(id));
  if (states_by_row_id) {
    std::vector<spec::NestedField> fields = schema->fields();
    fields.push_back(*MetadataColumn("_row_id"));
    fields.push_back(*MetadataColumn("_last_updated_sequence_number"));
    diff_options.compare_schema =
        std::make_shared<const spec::Schema>(schema->schema_id(), std::move(fields));
    diff_options.key_columns = {"_row_id"};
  }
  diff_options.sample_rows = 0;
  diff_options.memory_budget_bytes = options.memory_budget_bytes;
  diff_options.spill_directory = options.spill_directory;
  auto changes = std::make_shared<StateChanges>(
      schema, *md->SnapshotById(*to), compute_updates && (!keys.empty() || states_by_row_id));
  ARROW_RETURN_NOT_OK(changes->Init());
  auto output_schema = changes->schema();
  return std::make_shared<ProducedBatches>(
      output_schema, [table, from, to, diff_options, changes](const ProducedBatches::Emit& emit) {
        DiffOptions streaming = diff_options;
        streaming.on_rows = [&](const DiffRows& rows) -> Status {
          ARROW_ASSIGN_OR_RAISE(auto batch, changes->Rows(rows));
          return batch ? emit(std::move(batch)) : Status::OK();
        };
        return DiffSnapshots(table, from, *to, streaming).status();
      });
}

}  // namespace floe::scan
