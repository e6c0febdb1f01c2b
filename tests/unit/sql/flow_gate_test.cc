#include "floe/sql/plan/flow_gate.h"

#include <atomic>
#include <chrono>
#include <thread>

#include <arrow/acero/exec_plan.h>
#include <arrow/acero/options.h>
#include <arrow/api.h>

#include "floe_test.h"

namespace floe::sql {
namespace {

namespace ac = arrow::acero;
using std::chrono::milliseconds;

TEST(FlowGateTest, WaitsOnlyWhenArmedAndOverTheLimit) {
  FlowGate gate(100);
  // Before the plan runs nothing waits, whatever is in flight.
  gate.Acquire(80);
  gate.Acquire(80);
  EXPECT_EQ(gate.in_flight(), 160);
  gate.Release(160);
  gate.Arm();
  gate.Acquire(60);
  std::atomic<bool> passed{false};
  std::thread second([&] {
    gate.Acquire(60);
    passed = true;
  });
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_FALSE(passed.load());
  gate.Release(60);
  second.join();
  EXPECT_TRUE(passed.load());
  EXPECT_EQ(gate.in_flight(), 60);
  // A lone batch passes whatever its size.
  gate.Release(60);
  gate.Acquire(1000);
  EXPECT_EQ(gate.in_flight(), 1000);
}

TEST(FlowGateTest, OpeningReleasesAWaitingReader) {
  FlowGate gate(10);
  gate.Arm();
  gate.Acquire(10);
  std::thread waiting([&] { gate.Acquire(5); });
  std::this_thread::sleep_for(milliseconds(50));
  gate.Open();
  waiting.join();
  EXPECT_EQ(gate.in_flight(), 15);
}

// Batches of `rows` rows numbered 0, 1, 2, ...; records the most rows the gate had in
// flight whenever the source asked for the next batch.
class CountingReader : public arrow::RecordBatchReader {
 public:
  CountingReader(int batches, int64_t rows, std::shared_ptr<FlowGate> gate)
      : batches_(batches), rows_(rows), gate_(std::move(gate)) {}
  std::shared_ptr<arrow::Schema> schema() const override { return arrow::schema({arrow::field("x", arrow::int64())}); }
  Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    max_in_flight = std::max(max_in_flight.load(), gate_->in_flight());
    if (next_ == batches_) {
      *batch = nullptr;
      return Status::OK();
    }
    arrow::Int64Builder b;
    for (int64_t i = 0; i < rows_; ++i) ARROW_RETURN_NOT_OK(b.Append(next_ * rows_ + i));
    ++next_;
    ARROW_ASSIGN_OR_RAISE(auto values, b.Finish());
    *batch = arrow::RecordBatch::Make(schema(), rows_, {values});
    return Status::OK();
  }
  std::atomic<int64_t> max_in_flight{0};

 private:
  int batches_;
  int64_t rows_;
  int next_ = 0;
  std::shared_ptr<FlowGate> gate_;
};

TEST(FlowGateTest, PlanAboveTheGateReleasesWhatItAggregates) {
  auto gate = std::make_shared<FlowGate>(3000);
  auto reader = std::make_shared<CountingReader>(200, 1000, gate);
  auto plan = ac::Declaration::Sequence(
      {GatedSource(reader, gate),
       {"aggregate", ac::AggregateNodeOptions({arrow::compute::Aggregate("sum", nullptr, arrow::FieldRef("x"), "total"),
                                                arrow::compute::Aggregate("count_all", "n")})}});
  ASSERT_OK_AND_ASSIGN(auto table, ac::DeclarationToTable(plan, /*use_threads=*/true));
  EXPECT_EQ(table->ToString(), "total: int64\nn: int64\n----\ntotal:\n  [\n    [\n      19999900000\n    ]\n  ]\nn:\n  [\n    [\n      200000\n    ]\n  ]\n");
  // Never more than the limit plus the batch being handed out.
  EXPECT_LE(reader->max_in_flight.load(), 3000);
  EXPECT_EQ(gate->in_flight(), 0);
}

TEST(FlowGateTest, FailedPlanDoesNotLeaveTheReaderWaiting) {
  auto gate = std::make_shared<FlowGate>(1000);
  auto reader = std::make_shared<CountingReader>(100, 1000, gate);
  // Dividing by zero fails on the first batch; the source must still finish.
  auto plan = ac::Declaration::Sequence(
      {GatedSource(reader, gate),
       {"project", ac::ProjectNodeOptions({arrow::compute::call("divide_checked", {arrow::compute::field_ref("x"),
                                                                                   arrow::compute::literal(int64_t{0})})})}});
  auto table = ac::DeclarationToTable(plan, /*use_threads=*/true);
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.status().message(), "divide by zero");
}

}  // namespace
}  // namespace floe::sql
