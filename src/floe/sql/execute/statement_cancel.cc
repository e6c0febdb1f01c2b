#include "floe/sql/execute/statement_cancel.h"

#include <arrow/record_batch.h>

namespace floe::sql {

void StatementCancel::Begin() {
  std::lock_guard<std::mutex> lock(mutex_);
  running_ = true;
  flag_->store(false, std::memory_order_release);
}

void StatementCancel::End() {
  std::lock_guard<std::mutex> lock(mutex_);
  running_ = false;
  flag_->store(false, std::memory_order_release);
}

void StatementCancel::Cancel() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (running_) flag_->store(true, std::memory_order_release);
}

Status StatementCancel::Check() const { return cancelled() ? CancelledStatus() : Status::OK(); }

Status CancelledStatus() { return Status::Cancelled(kCancelledMessage); }

Status WhenCancelled(const std::atomic<bool>& flag, Status status) {
  if (!status.ok() && flag.load(std::memory_order_acquire)) return CancelledStatus();
  return status;
}

namespace {

class CancellableBatchReader : public arrow::RecordBatchReader {
 public:
  CancellableBatchReader(std::shared_ptr<arrow::RecordBatchReader> inner,
                         std::shared_ptr<const std::atomic<bool>> flag)
      : inner_(std::move(inner)), flag_(std::move(flag)) {}
  std::shared_ptr<arrow::Schema> schema() const override { return inner_->schema(); }
  Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    if (flag_->load(std::memory_order_acquire)) return CancelledStatus();
    return inner_->ReadNext(batch);
  }
  Status Close() override { return inner_->Close(); }

 private:
  std::shared_ptr<arrow::RecordBatchReader> inner_;
  std::shared_ptr<const std::atomic<bool>> flag_;
};

}  // namespace

std::shared_ptr<arrow::RecordBatchReader> CancellableReader(
    std::shared_ptr<arrow::RecordBatchReader> reader,
    std::shared_ptr<const std::atomic<bool>> flag) {
  return std::make_shared<CancellableBatchReader>(std::move(reader), std::move(flag));
}

}  // namespace floe::sql
