#include "floe/sql/plan/flow_gate.h"

#include <algorithm>

#include <condition_variable>
#include <deque>
#include <functional>
#include <optional>
#include <thread>

#include <arrow/acero/options.h>
#include <arrow/compute/exec.h>
#include <arrow/util/future.h>
#include <arrow/util/thread_pool.h>

#include "floe/util/status.h"

namespace floe::sql {

void FlowGate::Acquire(int64_t rows) {
  std::unique_lock<std::mutex> lock(mutex_);
  released_.wait(lock, [&] { return !armed_ || open_ || in_flight_ == 0 || in_flight_ + rows <= max_rows_; });
  in_flight_ += rows;
}

void FlowGate::Release(int64_t rows) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    in_flight_ = std::max<int64_t>(0, in_flight_ - rows);
  }
  released_.notify_all();
}

void FlowGate::Arm() {
  std::lock_guard<std::mutex> lock(mutex_);
  armed_ = true;
}

void FlowGate::Open() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
  }
  released_.notify_all();
}

int64_t FlowGate::in_flight() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return in_flight_;
}

namespace {

namespace ac = arrow::acero;

constexpr const char* kGateFactory = "floe_flow_gate";

// Takes each batch into flight before handing it to the source node.
class GatedReader : public arrow::RecordBatchReader {
 public:
  GatedReader(std::shared_ptr<arrow::RecordBatchReader> inner, std::shared_ptr<FlowGate> gate)
      : inner_(std::move(inner)), gate_(std::move(gate)) {}
  ~GatedReader() override { gate_->Open(); }

  std::shared_ptr<arrow::Schema> schema() const override { return inner_->schema(); }
  Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    ARROW_RETURN_NOT_OK(inner_->ReadNext(batch));
    if (*batch) gate_->Acquire((*batch)->num_rows());
    return Status::OK();
  }
  Status Close() override {
    gate_->Open();
    return inner_->Close();
  }

 private:
  std::shared_ptr<arrow::RecordBatchReader> inner_;
  std::shared_ptr<FlowGate> gate_;
};

struct FlowGateNodeOptions : ac::ExecNodeOptions {
  explicit FlowGateNodeOptions(std::shared_ptr<FlowGate> gate) : gate(std::move(gate)) {}
  std::shared_ptr<FlowGate> gate;
};

// Passes batches through unchanged; a batch counts as processed when the operators above
// have returned from taking it (aggregated it, queued it, or retained it).
class FlowGateNode : public ac::ExecNode {
 public:
  FlowGateNode(ac::ExecPlan* plan, std::vector<ac::ExecNode*> inputs, std::shared_ptr<FlowGate> gate)
      : ac::ExecNode(plan, inputs, {"input"}, inputs[0]->output_schema()), gate_(std::move(gate)) {}

  static arrow::Result<ac::ExecNode*> Make(ac::ExecPlan* plan, std::vector<ac::ExecNode*> inputs,
                                           const ac::ExecNodeOptions& options) {
    if (inputs.size() != 1) return Status::Invalid(kGateFactory, " takes one input");
    const auto& gate_options = static_cast<const FlowGateNodeOptions&>(options);
    return plan->EmplaceNode<FlowGateNode>(plan, std::move(inputs), gate_options.gate);
  }

  const char* kind_name() const override { return "FlowGateNode"; }
  const arrow::compute::Ordering& ordering() const override { return inputs_[0]->ordering(); }

  Status InputReceived(ac::ExecNode*, arrow::compute::ExecBatch batch) override {
    const int64_t rows = batch.length;
    Status st = output_->InputReceived(this, std::move(batch));
    gate_->Release(rows);
    return st;
  }
  Status InputFinished(ac::ExecNode*, int total_batches) override {
    return output_->InputFinished(this, total_batches);
  }
  Status StartProducing() override {
    gate_->Arm();
    return Status::OK();
  }
  void PauseProducing(ac::ExecNode*, int32_t counter) override { inputs_[0]->PauseProducing(this, counter); }
  void ResumeProducing(ac::ExecNode*, int32_t counter) override { inputs_[0]->ResumeProducing(this, counter); }

 protected:
  Status StopProducingImpl() override {
    gate_->Open();
    return Status::OK();
  }

 private:
  std::shared_ptr<FlowGate> gate_;
};

std::shared_ptr<FlowGate> DefaultGate() {
  // Enough batches of 64K rows to keep every thread busy while the next ones queue.
  const int threads = arrow::internal::GetCpuThreadPool()->GetCapacity();
  const int64_t batches = std::max(4, 2 * threads);
  return std::make_shared<FlowGate>(batches * 64 * 1024);
}

void RegisterGateNode() {
  static const bool registered = [] {
    auto* registry = ac::default_exec_factory_registry();
    return registry->AddFactory(kGateFactory, FlowGateNode::Make).ok();
  }();
  (void)registered;
}

}  // namespace

ac::Declaration GatedSource(std::shared_ptr<arrow::RecordBatchReader> reader, std::shared_ptr<FlowGate> gate) {
  RegisterGateNode();
  auto gated = std::make_shared<GatedReader>(std::move(reader), gate);
  return ac::Declaration::Sequence({{"record_batch_reader_source", ac::RecordBatchReaderSourceNodeOptions(gated)},
                                    {kGateFactory, FlowGateNodeOptions(std::move(gate))}});
}

namespace {

using BatchResult = arrow::Result<std::optional<arrow::compute::ExecBatch>>;
using BatchFuture = arrow::Future<std::optional<arrow::compute::ExecBatch>>;

// What a source's thread and the plan share: the batches read ahead (at most two) and the
// plan's requests that wait for one.
struct ThreadedSource {
  std::mutex mutex;
  std::condition_variable changed;
  std::shared_ptr<arrow::RecordBatchReader> reader;
  std::function<void()> on_abandon;
  std::deque<BatchResult> ready;
  std::deque<BatchFuture> waiting;
  bool started = false;
  bool ended = false;
  bool abandoned = false;
  bool finished = false;  // the thread is done with the reader

  static void Run(std::shared_ptr<ThreadedSource> self) {
    std::shared_ptr<arrow::RecordBatchReader> reader;
    {
      std::lock_guard<std::mutex> lock(self->mutex);
      reader = self->reader;
    }
    while (true) {
      {
        std::unique_lock<std::mutex> lock(self->mutex);
        self->changed.wait(lock, [&] { return self->abandoned || self->ready.size() < 2; });
        if (self->abandoned) break;
      }
      std::shared_ptr<arrow::RecordBatch> batch;
      arrow::Status st = reader->ReadNext(&batch);
      BatchResult next = !st.ok()  ? BatchResult(st)
                         : !batch ? BatchResult(std::optional<arrow::compute::ExecBatch>())
                                  : BatchResult(std::optional<arrow::compute::ExecBatch>(arrow::compute::ExecBatch(*batch)));
      const bool last = !st.ok() || !batch;
      std::unique_lock<std::mutex> lock(self->mutex);
      if (last) self->ended = true;
      if (!self->waiting.empty()) {
        BatchFuture future = std::move(self->waiting.front());
        self->waiting.pop_front();
        lock.unlock();
        future.MarkFinished(std::move(next));
      } else {
        self->ready.push_back(std::move(next));
      }
      if (last) break;
    }
    // The reader's plans end here, off the plan's threads.
    (void)reader->Close();
    reader.reset();
    std::lock_guard<std::mutex> lock(self->mutex);
    self->reader.reset();
    self->finished = true;
    self->changed.notify_all();
  }

  BatchFuture Next(const std::shared_ptr<ThreadedSource>& self) {
    std::unique_lock<std::mutex> lock(mutex);
    if (!started) {
      started = true;
      std::thread(Run, self).detach();
    }
    if (!ready.empty()) {
      BatchResult next = std::move(ready.front());
      ready.pop_front();
      changed.notify_all();
      return BatchFuture::MakeFinished(std::move(next));
    }
    if (ended) return BatchFuture::MakeFinished(std::optional<arrow::compute::ExecBatch>());
    waiting.push_back(BatchFuture::Make());
    return waiting.back();
  }
};

// Held by the plan's source node: when the plan lets go of it, the thread stops.
struct ThreadedSourceHandle {
  std::shared_ptr<ThreadedSource> source;
  ~ThreadedSourceHandle() {
    std::function<void()> on_abandon;
    {
      std::lock_guard<std::mutex> lock(source->mutex);
      source->abandoned = true;
      on_abandon = std::move(source->on_abandon);
      if (!source->started) source->reader.reset();
    }
    source->changed.notify_all();
    if (on_abandon) on_abandon();
    // Its statement ends only once the thread has let go of the reader and the plans under it.
    std::unique_lock<std::mutex> lock(source->mutex);
    source->changed.wait(lock, [&] { return !source->started || source->finished; });
  }
};

}  // namespace

ac::Declaration ThreadedGatedSource(std::shared_ptr<arrow::RecordBatchReader> reader, bool ordered,
                                    std::function<void()> on_abandon) {
  RegisterGateNode();
  auto gate = DefaultGate();
  auto source = std::make_shared<ThreadedSource>();
  source->reader = std::make_shared<GatedReader>(std::move(reader), gate);
  source->on_abandon = std::move(on_abandon);
  auto schema = source->reader->schema();
  auto handle = std::make_shared<ThreadedSourceHandle>();
  handle->source = source;
  std::function<BatchFuture()> generator = [handle]() { return handle->source->Next(handle->source); };
  return ac::Declaration::Sequence(
      {{"source", ac::SourceNodeOptions(std::move(schema), std::move(generator),
                                        ordered ? arrow::compute::Ordering::Implicit()
                                                : arrow::compute::Ordering::Unordered())},
       {kGateFactory, FlowGateNodeOptions(std::move(gate))}});
}

ac::Declaration GatedSource(std::shared_ptr<arrow::RecordBatchReader> reader) {
  return GatedSource(std::move(reader), DefaultGate());
}

}  // namespace floe::sql
