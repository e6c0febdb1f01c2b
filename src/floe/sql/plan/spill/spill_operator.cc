#include "floe/sql/plan/spill/spill_operator.h"

#include <algorithm>
#include <functional>
#include <optional>

#include <arrow/acero/options.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/compute/exec.h>
#include <arrow/table.h>
#include <arrow/util/byte_size.h>
#include <arrow/util/thread_pool.h>

#include "floe/sql/execute/statement_cancel.h"
#include "floe/sql/plan/flow_gate.h"
#include "floe/sql/plan/relation.h"
#include "floe/scan/row_hash.h"

namespace floe::sql {

namespace ac = arrow::acero;
namespace cp = arrow::compute;

namespace {

// Input is partitioned in pieces at least this large, so files get few, large batches.
constexpr int64_t kPartitionChunkRows = int64_t{1} << 17;

class HeldReader final : public arrow::RecordBatchReader {
 public:
  HeldReader(std::shared_ptr<arrow::Schema> schema, std::vector<std::shared_ptr<arrow::RecordBatch>> batches)
      : schema_(std::move(schema)), batches_(std::move(batches)) {}
  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    if (next_ >= batches_.size()) {
      batch->reset();
      return arrow::Status::OK();
    }
    // Handed on, not kept: what the plan above is done with is freed.
    *batch = std::move(batches_[next_++]);
    return arrow::Status::OK();
  }

 private:
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches_;
  size_t next_ = 0;
};

class ChainReader final : public arrow::RecordBatchReader {
 public:
  ChainReader(std::shared_ptr<arrow::RecordBatchReader> first, std::shared_ptr<arrow::RecordBatchReader> rest)
      : first_(std::move(first)), rest_(std::move(rest)) {}
  std::shared_ptr<arrow::Schema> schema() const override { return rest_->schema(); }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    if (first_) {
      ARROW_RETURN_NOT_OK(first_->ReadNext(batch));
      if (*batch) return arrow::Status::OK();
      first_.reset();
    }
    return rest_->ReadNext(batch);
  }
  arrow::Status Close() override { return rest_->Close(); }

 private:
  std::shared_ptr<arrow::RecordBatchReader> first_;
  std::shared_ptr<arrow::RecordBatchReader> rest_;
};

// `batch` split into `fanout` batches by the hash of its keys (empty ones are null): a counting
// sort of the rows by partition, then one take and a slice per partition.
Result<std::vector<std::shared_ptr<arrow::RecordBatch>>> PartitionRows(const std::shared_ptr<arrow::RecordBatch>& batch,
                                                                       const std::vector<int>& keys, uint64_t seed,
                                                                       int fanout, arrow::MemoryPool* pool) {
  std::vector<uint64_t> hashes;
  scan::HashRows(*batch, keys, seed, &hashes);
  const int64_t n = batch->num_rows();
  std::vector<int64_t> starts(static_cast<size_t>(fanout) + 1, 0);
  std::vector<uint32_t> part(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    part[i] = static_cast<uint32_t>((hashes[i] >> 32) * static_cast<uint64_t>(fanout) >> 32);
    ++starts[part[i] + 1];
  }
  for (int p = 0; p < fanout; ++p) starts[p + 1] += starts[p];
  arrow::Int64Builder builder(pool);
  ARROW_RETURN_NOT_OK(builder.AppendEmptyValues(n));
  int64_t* order = builder.GetMutableValue(0);
  std::vector<int64_t> next(starts.begin(), starts.end() - 1);
  for (int64_t i = 0; i < n; ++i) order[next[part[i]]++] = i;
  ARROW_ASSIGN_OR_RAISE(auto indices, builder.Finish());
  cp::ExecContext ctx(pool);
  ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(arrow::Datum(batch), arrow::Datum(indices),
                                             cp::TakeOptions::NoBoundsCheck(), &ctx));
  auto sorted = taken.record_batch();
  std::vector<std::shared_ptr<arrow::RecordBatch>> out(static_cast<size_t>(fanout));
  for (int p = 0; p < fanout; ++p) {
    if (starts[p + 1] > starts[p]) out[p] = sorted->Slice(starts[p], starts[p + 1] - starts[p]);
  }
  return out;
}

// A running plan's rows; the plan stops when the reader is closed or dropped.
class PlanReader final : public arrow::RecordBatchReader {
 public:
  PlanReader(std::shared_ptr<ac::ExecPlan> plan, std::shared_ptr<arrow::RecordBatchReader> rows)
      : plan_(std::move(plan)), rows_(std::move(rows)) {}
  ~PlanReader() override { (void)Close(); }
  std::shared_ptr<arrow::Schema> schema() const override { return rows_->schema(); }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    ARROW_RETURN_NOT_OK(rows_->ReadNext(batch));
    // A plan that failed ends its rows early: the end is only an end if the plan succeeded.
    if (!*batch && plan_) return plan_->finished().status();
    return arrow::Status::OK();
  }
  arrow::Status Close() override {
    if (!plan_) return arrow::Status::OK();
    plan_->StopProducing();
    plan_->finished().Wait();
    plan_.reset();
    return arrow::Status::OK();
  }

 private:
  std::shared_ptr<ac::ExecPlan> plan_;
  std::shared_ptr<arrow::RecordBatchReader> rows_;
};

}  // namespace

int64_t SpillEnv::sort_run_bytes() const { return std::max<int64_t>(memory / 4, int64_t{1} << 20); }

int64_t SpillEnv::partition_bytes() const { return std::max<int64_t>(memory / 16, int64_t{1} << 20); }

Status SpillEnv::CheckCancel() const {
  if (cancel && cancel->load(std::memory_order_acquire)) return CancelledStatus();
  if (abandoned && abandoned->load(std::memory_order_acquire)) {
    return Status::Cancelled("the rows of this operator are no longer read");
  }
  return Status::OK();
}

arrow::Status SpillingReader::ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) {
  batch->reset();
  if (done_) return arrow::Status::OK();
  ARROW_RETURN_NOT_OK(env_.CheckCancel());
  if (!started_) {
    started_ = true;
    ARROW_RETURN_NOT_OK(Start());
  }
  ARROW_RETURN_NOT_OK(Next(batch));
  if (!*batch) {
    // Done with its files: the statement's spill directory goes once no operator needs it.
    done_ = true;
    env_.space.reset();
  }
  return arrow::Status::OK();
}

Result<std::shared_ptr<arrow::RecordBatchReader>> RunPlan(const ac::Declaration& decl, const SpillEnv& env) {
  ac::QueryOptions options;
  options.use_threads = true;
  options.memory_pool = env.pool;
  ARROW_ASSIGN_OR_RAISE(auto plan, ac::ExecPlan::Make(options, cp::ExecContext(env.pool, arrow::internal::GetCpuThreadPool())));
  std::function<arrow::Future<std::optional<cp::ExecBatch>>()> batches;
  std::shared_ptr<arrow::Schema> schema;
  // Acero's own reader lets a plan run 1 GiB ahead of its reader; an operator reads at its
  // own pace (writing files, merging), so the plan pauses much sooner.
  const uint64_t pause = static_cast<uint64_t>(std::clamp<int64_t>(env.memory / 32, 1 << 20, 32 << 20));
  ARROW_RETURN_NOT_OK(ac::Declaration::Sequence(
                          {decl, {"sink", ac::SinkNodeOptions(&batches, &schema, ac::BackpressureOptions(pause / 4, pause))}})
                          .AddToPlan(plan.get()));
  ARROW_RETURN_NOT_OK(plan->Validate());
  plan->StartProducing();
  return std::make_shared<PlanReader>(std::move(plan), ac::MakeGeneratorReader(schema, std::move(batches), env.pool));
}

ac::Declaration SourceOf(std::shared_ptr<arrow::RecordBatchReader> reader) {
  // Gated: Acero would otherwise read the whole source ahead of the operators above it.
  return GatedSource(std::move(reader));
}

ac::Declaration PlanFedSource(std::shared_ptr<arrow::RecordBatchReader> reader) {
  return ThreadedGatedSource(std::move(reader), /*ordered=*/false, {});
}

ac::Declaration OperatorSource(std::shared_ptr<SpillingReader> reader, bool ordered) {
  auto abandoned = reader->abandoned();
  return ThreadedGatedSource(std::move(reader), ordered, [abandoned] { abandoned->store(true); });
}

Result<std::shared_ptr<arrow::Schema>> OutputSchema(const std::vector<std::shared_ptr<arrow::Schema>>& inputs,
                                                    const std::string& factory,
                                                    std::shared_ptr<ac::ExecNodeOptions> options) {
  std::vector<ac::Declaration::Input> sources;
  for (const auto& schema : inputs) {
    ARROW_ASSIGN_OR_RAISE(auto empty, arrow::Table::MakeEmpty(schema));
    sources.emplace_back(ac::Declaration("table_source", ac::TableSourceNodeOptions(std::move(empty))));
  }
  return ac::DeclarationToSchema(ac::Declaration(factory, std::move(sources), std::move(options)));
}

Result<bool> HoldInput(arrow::RecordBatchReader& input, int64_t bytes, const SpillEnv& env,
                       std::vector<std::shared_ptr<arrow::RecordBatch>>* held) {
  int64_t held_bytes = 0;
  while (held_bytes <= bytes) {
    ARROW_RETURN_NOT_OK(env.CheckCancel());
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(input.ReadNext(&batch));
    if (!batch) return true;
    held_bytes += BatchBytes(*batch);
    held->push_back(std::move(batch));
  }
  return false;
}

bool CanPartitionBy(const arrow::DataType& type) { return scan::CheckHashable(type).ok(); }

std::shared_ptr<arrow::RecordBatchReader> HeldRows(std::shared_ptr<arrow::Schema> schema,
                                                   std::vector<std::shared_ptr<arrow::RecordBatch>> batches) {
  return std::make_shared<HeldReader>(std::move(schema), std::move(batches));
}

std::shared_ptr<arrow::RecordBatchReader> Chain(std::shared_ptr<arrow::RecordBatchReader> first,
                                                std::shared_ptr<arrow::RecordBatchReader> rest) {
  return std::make_shared<ChainReader>(std::move(first), std::move(rest));
}

Result<std::vector<int>> FieldIndices(const arrow::Schema& schema, const std::vector<arrow::FieldRef>& refs) {
  std::vector<int> out;
  for (const auto& ref : refs) {
    ARROW_ASSIGN_OR_RAISE(auto path, ref.FindOne(schema));
    if (path.indices().size() != 1) return Status::NotImplemented("a nested key column");
    out.push_back(path.indices()[0]);
  }
  return out;
}

Result<std::unique_ptr<Partitioner>> Partitioner::Make(const SpillEnv& env, const std::string& what,
                                                       std::shared_ptr<arrow::Schema> schema, std::vector<int> keys,
                                                       uint64_t seed, int fanout) {
  std::unique_ptr<Partitioner> out(new Partitioner());
  out->env_ = env;
  out->schema_ = std::move(schema);
  out->keys_ = std::move(keys);
  out->seed_ = seed;
  for (int p = 0; p < fanout; ++p) {
    ARROW_ASSIGN_OR_RAISE(auto path, env.space->NewFile(what));
    ARROW_ASSIGN_OR_RAISE(auto writer, SpillWriter::Open(path, out->schema_, env.pool));
    out->writers_.push_back(std::move(writer));
  }
  return out;
}

Status Partitioner::Add(const std::shared_ptr<arrow::RecordBatch>& batch) {
  if (batch->num_rows() == 0) return Status::OK();
  pending_.push_back(batch);
  pending_rows_ += batch->num_rows();
  if (pending_rows_ >= kPartitionChunkRows) return Flush();
  return Status::OK();
}

Status Partitioner::AddAll(arrow::RecordBatchReader& reader) {
  while (true) {
    ARROW_RETURN_NOT_OK(env_.CheckCancel());
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
    if (!batch) return Status::OK();
    ARROW_RETURN_NOT_OK(Add(batch));
  }
}

Status Partitioner::Flush() {
  if (pending_.empty()) return Status::OK();
  std::shared_ptr<arrow::RecordBatch> chunk;
  if (pending_.size() == 1) {
    chunk = pending_[0];
  } else {
    ARROW_ASSIGN_OR_RAISE(chunk, arrow::ConcatenateRecordBatches(pending_, env_.pool));
  }
  pending_.clear();
  pending_rows_ = 0;
  ARROW_ASSIGN_OR_RAISE(auto parts,
                        PartitionRows(chunk, keys_, seed_, static_cast<int>(writers_.size()), env_.pool));
  for (size_t p = 0; p < parts.size(); ++p) {
    if (parts[p]) ARROW_RETURN_NOT_OK(writers_[p]->Write(*parts[p]));
  }
  return Status::OK();
}

Result<std::vector<std::pair<std::string, int64_t>>> Partitioner::Finish() {
  ARROW_RETURN_NOT_OK(Flush());
  std::vector<std::pair<std::string, int64_t>> out;
  for (auto& writer : writers_) {
    ARROW_RETURN_NOT_OK(writer->Close());
    out.emplace_back(writer->path(), writer->bytes());
  }
  writers_.clear();
  return out;
}

}  // namespace floe::sql
