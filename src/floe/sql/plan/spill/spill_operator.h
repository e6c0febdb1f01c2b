#pragma once

// What floe's spilling operators (sort, aggregate, join) share. Each is a reader that runs its
// inputs as plans of their own when first read, holds at most a share of the statement's
// memory, writes the rest to spill files, and produces its rows through Acero plans over
// parts small enough to fit. A plan above sees it as a source.
//
// Memory each may take, of what the statement may hold (MemoryAllowance):
//  - sort: runs of a quarter (sorting one takes about two and a half times that), merged
//    with one small batch per run in memory;
//  - aggregate and join: a sixteenth of input before partitioning; each partition is then
//    aggregated or joined on its own, with a hash table sized by that partition.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <arrow/acero/exec_plan.h>
#include <arrow/record_batch.h>

#include "floe/sql/plan/spill/spill_space.h"
#include "floe/util/status.h"

namespace floe::sql {

// Aggregates and joins send their input to this many files; a file still too large is split
// into kRespillFanout more, at most kMaxSpillDepth times.
inline constexpr int kSpillFanout = 32;
inline constexpr int kRespillFanout = 8;
inline constexpr int kMaxSpillDepth = 3;

struct SpillEnv {
  // The statement's pool, which every plan and buffer of the operator allocates from.
  arrow::MemoryPool* pool = nullptr;
  // The statement's cancel flag (may be null).
  std::shared_ptr<const std::atomic<bool>> cancel;
  std::shared_ptr<SpillSpace> space;
  // What the statement may hold.
  int64_t memory = 0;
  // Set when the plan above no longer reads the operator (a LIMIT was met, the plan failed).
  std::shared_ptr<std::atomic<bool>> abandoned;

  int64_t sort_run_bytes() const;
  int64_t partition_bytes() const;
  Status CheckCancel() const;
};

// The operator's rows: produced on demand, the inputs started on the first read.
class SpillingReader : public arrow::RecordBatchReader {
 public:
  SpillingReader(std::shared_ptr<arrow::Schema> schema, SpillEnv env)
      : schema_(std::move(schema)), env_(std::move(env)) {
    env_.abandoned = std::make_shared<std::atomic<bool>>(false);
  }
  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) final;
  const std::shared_ptr<std::atomic<bool>>& abandoned() const { return env_.abandoned; }

 protected:
  virtual Status Start() = 0;
  // The next batch, or null at the end.
  virtual Status Next(std::shared_ptr<arrow::RecordBatch>* batch) = 0;

  std::shared_ptr<arrow::Schema> schema_;
  SpillEnv env_;

 private:
  bool started_ = false;
  bool done_ = false;
};

// Starts `decl` as a plan of its own on the statement's pool.
Result<std::shared_ptr<arrow::RecordBatchReader>> RunPlan(const arrow::acero::Declaration& decl, const SpillEnv& env);

// A source declaration over rows held in memory or in spill files.
arrow::acero::Declaration SourceOf(std::shared_ptr<arrow::RecordBatchReader> reader);
// A source declaration over rows that a running plan feeds (RunPlan's), read by a thread of
// its own so that waiting on that plan never holds one of Acero's I/O threads.
arrow::acero::Declaration PlanFedSource(std::shared_ptr<arrow::RecordBatchReader> reader);
// The source a plan above reads an operator through; `ordered` keeps its batches' order.
arrow::acero::Declaration OperatorSource(std::shared_ptr<SpillingReader> reader, bool ordered = false);

// The schema `node` produces over inputs of `inputs`' schemas, found without running anything.
Result<std::shared_ptr<arrow::Schema>> OutputSchema(const std::vector<std::shared_ptr<arrow::Schema>>& inputs,
                                                    const std::string& factory,
                                                    std::shared_ptr<arrow::acero::ExecNodeOptions> options);

// Reads `input` into `held` until it ends (true) or `held` passes `bytes` (false).
Result<bool> HoldInput(arrow::RecordBatchReader& input, int64_t bytes, const SpillEnv& env,
                       std::vector<std::shared_ptr<arrow::RecordBatch>>* held);

// Whether rows can be sent to partitions by a key of this type: equal keys (NULLs, NaNs,
// -0.0 and 0.0 alike) hash alike.
bool CanPartitionBy(const arrow::DataType& type);

// Batches held in memory, read back in order.
std::shared_ptr<arrow::RecordBatchReader> HeldRows(std::shared_ptr<arrow::Schema> schema,
                                                   std::vector<std::shared_ptr<arrow::RecordBatch>> batches);

// `first`'s batches, then the rest of `rest`.
std::shared_ptr<arrow::RecordBatchReader> Chain(std::shared_ptr<arrow::RecordBatchReader> first,
                                                std::shared_ptr<arrow::RecordBatchReader> rest);

// The columns of `schema` that `refs` name.
Result<std::vector<int>> FieldIndices(const arrow::Schema& schema, const std::vector<arrow::FieldRef>& refs);

// Rows sent to `fanout` spill files by the hash of their keys.
class Partitioner {
 public:
  static Result<std::unique_ptr<Partitioner>> Make(const SpillEnv& env, const std::string& what,
                                                   std::shared_ptr<arrow::Schema> schema, std::vector<int> keys,
                                                   uint64_t seed, int fanout);
  Status Add(const std::shared_ptr<arrow::RecordBatch>& batch);
  // Every row of `reader`.
  Status AddAll(arrow::RecordBatchReader& reader);
  // Closes the files: their paths and sizes, by partition.
  Result<std::vector<std::pair<std::string, int64_t>>> Finish();

 private:
  Partitioner() = default;
  Status Flush();
  SpillEnv env_;
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<int> keys_;
  uint64_t seed_ = 0;
  std::vector<std::unique_ptr<SpillWriter>> writers_;
  std::vector<std::shared_ptr<arrow::RecordBatch>> pending_;
  int64_t pending_rows_ = 0;
};

}  // namespace floe::sql
