#pragma once

// Cancelling the statement a session runs (Session::Cancel): a flag set from any thread and
// read where a statement works in steps (each batch it reads or returns, each scan task).

#include <atomic>
#include <memory>
#include <mutex>

#include <arrow/type_fwd.h>

#include "floe/util/status.h"

namespace floe::sql {

// PostgreSQL's words for a cancelled statement.
inline constexpr char kCancelledMessage[] = "canceling statement due to user request";

class StatementCancel {
 public:
  // A statement starts / ends. Begin forgets a cancel that came while nothing ran.
  void Begin();
  void End();
  // From any thread: stops the running statement, if any.
  void Cancel();

  bool cancelled() const { return flag_->load(std::memory_order_acquire); }
  // Cancelled(kCancelledMessage) once the running statement is cancelled.
  Status Check() const;
  // For work that may outlive the session's own frames (plan nodes, readers).
  std::shared_ptr<const std::atomic<bool>> flag() const { return flag_; }

 private:
  // Orders Cancel against Begin/End, so a cancel never lands on the statement after the one
  // it was meant for.
  std::mutex mutex_;
  bool running_ = false;
  std::shared_ptr<std::atomic<bool>> flag_ = std::make_shared<std::atomic<bool>>(false);
};

Status CancelledStatus();

// `status`, or the cancel that caused it: a plan stopped by a cancel fails with whatever
// error its operators report.
Status WhenCancelled(const std::atomic<bool>& flag, Status status);

// `reader`, failing with CancelledStatus() at the next batch once `flag` is set.
std::shared_ptr<arrow::RecordBatchReader> CancellableReader(
    std::shared_ptr<arrow::RecordBatchReader> reader,
    std::shared_ptr<const std::atomic<bool>> flag);

}  // namespace floe::sql
