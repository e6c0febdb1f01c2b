#include "floe/sql/plan/flow_gate.h"

#include <algorithm>

#include <functional>
#include <optional>

#include <arrow/acero/options.h>
#include <arrow/io/interfaces.h>
#include <arrow/util/async_generator.h>
#include <arrow/util/iterator.h>
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

ac::Declaration OrderedGatedSource(std::shared_ptr<arrow::RecordBatchReader> reader) {
  RegisterGateNode();
  auto gate = DefaultGate();
  auto gated = std::make_shared<GatedReader>(std::move(reader), gate);
  auto schema = gated->schema();
  // Made on the first call: building the plan (for its schema, say) must not start reading.
  auto state = std::make_shared<arrow::AsyncGenerator<std::optional<arrow::compute::ExecBatch>>>();
  std::function<arrow::Future<std::optional<arrow::compute::ExecBatch>>()> generator =
      [gated, state]() -> arrow::Future<std::optional<arrow::compute::ExecBatch>> {
    if (!*state) {
      auto batches = arrow::MakeFunctionIterator(
          [gated]() -> arrow::Result<std::optional<arrow::compute::ExecBatch>> {
            std::shared_ptr<arrow::RecordBatch> batch;
            ARROW_RETURN_NOT_OK(gated->ReadNext(&batch));
            if (!batch) return arrow::IterationEnd<std::optional<arrow::compute::ExecBatch>>();
            return std::optional<arrow::compute::ExecBatch>(arrow::compute::ExecBatch(*batch));
          });
      auto made = arrow::MakeBackgroundGenerator(std::move(batches), arrow::io::default_io_context().executor(),
                                                 /*max_q=*/2, /*q_restart=*/1);
      if (!made.ok()) return arrow::Future<std::optional<arrow::compute::ExecBatch>>::MakeFinished(made.status());
      *state = std::move(*made);
    }
    return (*state)();
  };
  return ac::Declaration::Sequence(
      {{"source", ac::SourceNodeOptions(std::move(schema), std::move(generator), arrow::compute::Ordering::Implicit())},
       {kGateFactory, FlowGateNodeOptions(std::move(gate))}});
}

ac::Declaration GatedSource(std::shared_ptr<arrow::RecordBatchReader> reader) {
  return GatedSource(std::move(reader), DefaultGate());
}

}  // namespace floe::sql
