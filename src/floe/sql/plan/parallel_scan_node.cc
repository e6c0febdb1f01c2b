#include "floe/sql/plan/parallel_scan_node.h"

#include "floe/util/memory_limit.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

#include <arrow/acero/options.h>
#include <arrow/acero/query_context.h>
#include <arrow/compute/exec.h>
#include <arrow/record_batch.h>
#include <arrow/util/thread_pool.h>

#include "floe/sql/execute/statement_cancel.h"
#include "floe/util/status.h"

namespace floe::sql {

namespace {

namespace ac = arrow::acero;

constexpr const char* kFactory = "floe_parallel_scan";

struct ParallelScanNodeOptions : ac::ExecNodeOptions {
  ParallelScanNodeOptions(std::shared_ptr<scan::SharedRowGroupScan> scan, std::shared_ptr<const std::atomic<bool>> cancel)
      : scan(std::move(scan)), cancel(std::move(cancel)) {}
  std::shared_ptr<scan::SharedRowGroupScan> scan;
  std::shared_ptr<const std::atomic<bool>> cancel;
};

class ParallelScanNode : public ac::ExecNode {
 public:
  ParallelScanNode(ac::ExecPlan* plan, std::shared_ptr<scan::SharedRowGroupScan> scan,
                   std::shared_ptr<const std::atomic<bool>> cancel)
      : ac::ExecNode(plan, {}, {}, scan->schema()), scan_(std::move(scan)), cancel_(std::move(cancel)) {}

  static arrow::Result<ac::ExecNode*> Make(ac::ExecPlan* plan, std::vector<ac::ExecNode*> inputs,
                                           const ac::ExecNodeOptions& options) {
    if (!inputs.empty()) return Status::Invalid(kFactory, " takes no inputs");
    const auto& scan_options = static_cast<const ParallelScanNodeOptions&>(options);
    return plan->EmplaceNode<ParallelScanNode>(plan, scan_options.scan, scan_options.cancel);
  }

  const char* kind_name() const override { return "ParallelScanNode"; }

  Status InputReceived(ac::ExecNode*, arrow::compute::ExecBatch) override {
    return Status::Invalid(kFactory, " has no inputs");
  }
  Status InputFinished(ac::ExecNode*, int) override { return Status::Invalid(kFactory, " has no inputs"); }

  Status StartProducing() override {
    ARROW_ASSIGN_OR_RAISE(done_, plan_->query_context()->BeginExternalTask("ParallelScanNode::Scan"));
    if (!done_.is_valid()) return Status::OK();  // the plan was aborted before it started
    auto* executor = plan_->query_context()->executor();
    const int threads = executor ? std::max(1, executor->GetCapacity()) : 1;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      workers_.resize(threads);
    }
    for (int w = 0; w < threads; ++w) Schedule(w);
    return Status::OK();
  }

  void PauseProducing(ac::ExecNode*, int32_t counter) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (counter <= pause_counter_) return;
    pause_counter_ = counter;
    paused_ = true;
  }

  void ResumeProducing(ac::ExecNode*, int32_t counter) override {
    std::vector<size_t> parked;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (counter <= pause_counter_) return;
      pause_counter_ = counter;
      paused_ = false;
      for (size_t w = 0; w < workers_.size(); ++w) {
        if (workers_[w].state != State::kParked) continue;
        workers_[w].state = State::kRunning;
        parked.push_back(w);
      }
    }
    for (size_t w : parked) Schedule(w);
  }

 protected:
  Status StopProducingImpl() override {
    stop_.store(true);
    std::unique_lock<std::mutex> lock(mutex_);
    // Parked workers will not run again; if none is running, nobody else will finish.
    for (auto& worker : workers_) {
      if (worker.state == State::kParked) worker.state = State::kDone;
    }
    FinishIfLast(lock);
    return Status::OK();
  }

 private:
  enum class State { kRunning, kParked, kDone };
  struct Worker {
    scan::SharedRowGroupScan::Worker scan;
    State state = State::kRunning;
  };

  // Runs worker `w` (marked running) as a task of the plan. A plan that is stopping drops
  // new tasks unrun: the ticket then marks the worker done, so the scan still finishes.
  void Schedule(size_t w) {
    struct Ticket {
      Ticket(ParallelScanNode* n, size_t i) : node(n), w(i) {}
      ParallelScanNode* node;
      size_t w;
      bool ran = false;
      ~Ticket() {
        if (ran) return;
        std::unique_lock<std::mutex> lock(node->mutex_);
        (void)node->Exit(node->workers_[w], lock, Status::OK());
      }
    };
    auto ticket = std::make_shared<Ticket>(this, w);
    plan_->query_context()->ScheduleTask(
        [ticket] {
          ticket->ran = true;
          return ticket->node->Run(ticket->w);
        },
        "ParallelScanNode::Run");
  }

  Status Run(size_t w) {
    // Rows decoded here count against the statement's memory, as the plan's own do.
    ScopedStatementMemoryPool memory(plan_->query_context()->memory_pool());
    Worker& worker = workers_[w];
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (stop_.load()) return Exit(worker, lock, Status::OK());
        if (paused_) {
          worker.state = State::kParked;
          return Status::OK();
        }
      }
      auto batch = cancel_ && cancel_->load(std::memory_order_acquire)
                       ? Result<std::shared_ptr<arrow::RecordBatch>>(CancelledStatus())
                       : scan_->Next(&worker.scan, &stop_);
      Status st = batch.status();
      if (st.ok() && *batch) {
        batches_.fetch_add(1);
        st = output_->InputReceived(this, arrow::compute::ExecBatch(**batch));
        if (st.ok()) continue;
      }
      // The end of the scan, or a failure, which stops the plan.
      if (!st.ok()) stop_.store(true);
      std::unique_lock<std::mutex> lock(mutex_);
      return Exit(worker, lock, st);
    }
  }

  Status Exit(Worker& worker, std::unique_lock<std::mutex>& lock, Status status) {
    worker.state = State::kDone;
    worker.scan = {};
    FinishIfLast(lock);
    return status;
  }

  // Once every worker is done: tells the operators above how many batches came (unless the
  // plan is stopping) and ends the scan's task. Releases the lock.
  void FinishIfLast(std::unique_lock<std::mutex>& lock) {
    for (const auto& worker : workers_) {
      if (worker.state != State::kDone) return;
    }
    if (finished_ || !done_.is_valid()) return;
    finished_ = true;
    lock.unlock();
    Status st;
    if (!stop_.load()) st = output_->InputFinished(this, batches_.load());
    done_.MarkFinished(st);
  }

  std::shared_ptr<scan::SharedRowGroupScan> scan_;
  std::shared_ptr<const std::atomic<bool>> cancel_;
  std::mutex mutex_;
  std::vector<Worker> workers_;
  bool paused_ = false;
  int32_t pause_counter_ = 0;
  bool finished_ = false;
  std::atomic<bool> stop_{false};
  std::atomic<int> batches_{0};
  arrow::Future<> done_;
};

void RegisterNode() {
  static const bool registered = [] {
    return ac::default_exec_factory_registry()->AddFactory(kFactory, ParallelScanNode::Make).ok();
  }();
  (void)registered;
}

}  // namespace

ac::Declaration ParallelScanSource(std::shared_ptr<scan::SharedRowGroupScan> scan,
                                   std::shared_ptr<const std::atomic<bool>> cancel) {
  RegisterNode();
  return ac::Declaration(kFactory, ParallelScanNodeOptions(std::move(scan), std::move(cancel)));
}

}  // namespace floe::sql
