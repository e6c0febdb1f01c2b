#pragma once

// Bounds the rows a streamed table has handed to a query plan that the plan has not yet
// processed. Acero's sources read ahead without limit: every batch becomes a queued task,
// and when decoding outruns aggregation the whole table ends up waiting in the queue. A gate
// node placed right above the source reports each batch as processed once the operators
// above it have taken it, and the reader waits while too many rows are outstanding.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include <arrow/acero/exec_plan.h>
#include <arrow/record_batch.h>

namespace floe::sql {

class FlowGate {
 public:
  explicit FlowGate(int64_t max_rows) : max_rows_(max_rows) {}

  // Takes `rows` into flight, waiting while the gate is armed and they would exceed the
  // limit (a lone batch always passes, whatever its size).
  void Acquire(int64_t rows);
  void Release(int64_t rows);
  // The plan is running and will release what it processes; before that, nothing waits.
  void Arm();
  // The plan stopped or failed: nothing will be released any more, so nothing waits.
  void Open();

  int64_t in_flight() const;
  int64_t max_rows() const { return max_rows_; }

 private:
  const int64_t max_rows_;
  mutable std::mutex mutex_;
  std::condition_variable released_;
  int64_t in_flight_ = 0;
  bool armed_ = false;
  bool open_ = false;
};

// A source declaration for `reader` whose read-ahead is bounded by a gate: a
// record_batch_reader_source followed by the gate node.
arrow::acero::Declaration GatedSource(std::shared_ptr<arrow::RecordBatchReader> reader);

// The same, read by a thread of its own: for readers that wait on plans of their own (the
// spilling operators), which would otherwise each hold one of Acero's few I/O threads and,
// nested deeply enough, all of them. `ordered`: the batches keep the reader's order through
// the plan above (Acero's implicit ordering), so LIMIT/OFFSET and the result keep it.
// `on_abandon` runs when the plan lets go of the source, so a reader still working can stop.
arrow::acero::Declaration ThreadedGatedSource(std::shared_ptr<arrow::RecordBatchReader> reader, bool ordered,
                                              std::function<void()> on_abandon);

// The same with a gate of the caller's (for tests).
arrow::acero::Declaration GatedSource(std::shared_ptr<arrow::RecordBatchReader> reader,
                                      std::shared_ptr<FlowGate> gate);

}  // namespace floe::sql
