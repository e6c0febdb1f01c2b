#include "floe/sql/plan/spill/partitioned_aggregate.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <mutex>

#include <arrow/compute/exec.h>

#include "floe/scan/row_hash.h"

namespace floe::sql {

namespace ac = arrow::acero;

namespace {

constexpr const char* kProbeFactory = "floe_group_probe";

// Keys sampled to tell whether groups repeat, and the share of distinct ones above which
// the input is partitioned.
constexpr int64_t kSampleRows = int64_t{1} << 16;
constexpr int64_t kDistinctShare = 8;  // one in eight
// Input held before the first look at its keys: groups that repeat within it are aggregated
// as the rest streams in, so memory holds the groups rather than a share of the input.
constexpr int64_t kFirstLookBytes = int64_t{4} << 20;

// Whether the keys of `held` repeat enough that all groups should fit in memory.
bool GroupsRepeat(const std::vector<std::shared_ptr<arrow::RecordBatch>>& held, const std::vector<int>& keys) {
  int64_t rows = 0;
  for (const auto& b : held) rows += b->num_rows();
  const int64_t step = std::max<int64_t>(1, rows / kSampleRows);
  std::vector<uint64_t> sample;
  int64_t at = 0;
  for (const auto& b : held) {
    std::vector<uint64_t> hashes;
    scan::HashRows(*b, keys, 0, &hashes);
    for (int64_t i = 0; i < b->num_rows(); ++i, ++at) {
      if (at % step == 0) sample.push_back(hashes[i]);
    }
  }
  std::sort(sample.begin(), sample.end());
  const int64_t distinct = std::unique(sample.begin(), sample.end()) - sample.begin();
  return distinct * kDistinctShare < static_cast<int64_t>(sample.size());
}

// Where the input of one aggregate goes, decided while the plan runs: held at first, then
// either passed on to the aggregate above (the groups repeat, or the input ended while held)
// or sent to spill files by key, the aggregate above then seeing nothing.
class GroupProbe {
 public:
  GroupProbe(SpillEnv env, std::shared_ptr<arrow::Schema> schema, std::vector<int> keys)
      : env_(std::move(env)), schema_(std::move(schema)), keys_(std::move(keys)) {}

  // Takes `batch`: what should go on to the aggregate now (it, or it and those held before).
  Result<std::vector<arrow::compute::ExecBatch>> Take(arrow::compute::ExecBatch batch) {
    std::lock_guard<std::mutex> lock(mutex_);
    // Held and spilled rows are the slow part of a stopped statement: it stops here.
    if (mode_ != Mode::kPass) ARROW_RETURN_NOT_OK(env_.CheckCancel());
    switch (mode_) {
      case Mode::kPass:
        return std::vector<arrow::compute::ExecBatch>{std::move(batch)};
      case Mode::kPartition: {
        ARROW_ASSIGN_OR_RAISE(auto rows, batch.ToRecordBatch(schema_, env_.pool));
        ARROW_RETURN_NOT_OK(partitioner_->Add(rows));
        return std::vector<arrow::compute::ExecBatch>{};
      }
      case Mode::kHold:
        break;
    }
    ARROW_ASSIGN_OR_RAISE(auto rows, batch.ToRecordBatch(schema_, env_.pool));
    held_bytes_ += BatchBytes(*rows);
    held_.push_back(std::move(rows));
    const int64_t first_look = std::min(kFirstLookBytes, env_.partition_bytes());
    if (!looked_ && held_bytes_ > first_look) {
      looked_ = true;
      if (GroupsRepeat(held_, keys_)) return PassHeld();
    }
    if (held_bytes_ > env_.partition_bytes()) {
      // Few repeats in a sixteenth of memory: every group may not fit.
      if (GroupsRepeat(held_, keys_)) return PassHeld();
      ARROW_ASSIGN_OR_RAISE(partitioner_, Partitioner::Make(env_, "aggregate", schema_, keys_, 0, kSpillFanout));
      for (const auto& b : held_) {
        ARROW_RETURN_NOT_OK(env_.CheckCancel());
        ARROW_RETURN_NOT_OK(partitioner_->Add(b));
      }
      held_.clear();
      mode_ = Mode::kPartition;
    }
    return std::vector<arrow::compute::ExecBatch>{};
  }

  // The input ended: what is still held goes on to the aggregate.
  std::vector<arrow::compute::ExecBatch> End() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (mode_ != Mode::kHold) return {};
    return PassHeld();
  }

  // After the plan: the spill files, when the input went to them.
  bool partitioned() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return mode_ == Mode::kPartition;
  }
  Result<std::vector<std::pair<std::string, int64_t>>> FinishPartitions() {
    std::lock_guard<std::mutex> lock(mutex_);
    return partitioner_->Finish();
  }

 private:
  enum class Mode { kHold, kPass, kPartition };

  std::vector<arrow::compute::ExecBatch> PassHeld() {
    mode_ = Mode::kPass;
    std::vector<arrow::compute::ExecBatch> out;
    for (auto& b : held_) out.emplace_back(*b);
    held_.clear();
    held_bytes_ = 0;
    return out;
  }

  SpillEnv env_;
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<int> keys_;
  mutable std::mutex mutex_;
  Mode mode_ = Mode::kHold;
  bool looked_ = false;
  std::vector<std::shared_ptr<arrow::RecordBatch>> held_;
  int64_t held_bytes_ = 0;
  std::unique_ptr<Partitioner> partitioner_;
};

struct GroupProbeNodeOptions : ac::ExecNodeOptions {
  explicit GroupProbeNodeOptions(std::shared_ptr<GroupProbe> probe) : probe(std::move(probe)) {}
  std::shared_ptr<GroupProbe> probe;
};

// The probe as a plan node right below the aggregate, so that when the groups repeat each
// batch is aggregated on the thread that produced it, as in a plan without the probe.
class GroupProbeNode : public ac::ExecNode {
 public:
  GroupProbeNode(ac::ExecPlan* plan, std::vector<ac::ExecNode*> inputs, std::shared_ptr<GroupProbe> probe)
      : ac::ExecNode(plan, inputs, {"input"}, inputs[0]->output_schema()), probe_(std::move(probe)) {}

  static Result<ac::ExecNode*> Make(ac::ExecPlan* plan, std::vector<ac::ExecNode*> inputs,
                                    const ac::ExecNodeOptions& options) {
    if (inputs.size() != 1) return Status::Invalid(kProbeFactory, " takes one input");
    return plan->EmplaceNode<GroupProbeNode>(plan, std::move(inputs),
                                             static_cast<const GroupProbeNodeOptions&>(options).probe);
  }

  const char* kind_name() const override { return "GroupProbeNode"; }
  const arrow::compute::Ordering& ordering() const override { return arrow::compute::Ordering::Unordered(); }

  Status InputReceived(ac::ExecNode*, arrow::compute::ExecBatch batch) override {
    auto out = probe_->Take(std::move(batch));
    Status st = out.status();
    if (st.ok()) st = Forward(std::move(*out));
    received_.fetch_add(1);
    Status done = MaybeFinish();
    return st.ok() ? done : st;
  }
  Status InputFinished(ac::ExecNode*, int total_batches) override {
    total_.store(total_batches);
    return MaybeFinish();
  }
  Status StartProducing() override { return Status::OK(); }
  void PauseProducing(ac::ExecNode*, int32_t counter) override { inputs_[0]->PauseProducing(this, counter); }
  void ResumeProducing(ac::ExecNode*, int32_t counter) override { inputs_[0]->ResumeProducing(this, counter); }

 protected:
  Status StopProducingImpl() override { return Status::OK(); }

 private:
  Status Forward(std::vector<arrow::compute::ExecBatch> batches) {
    for (auto& b : batches) {
      forwarded_.fetch_add(1);
      ARROW_RETURN_NOT_OK(output_->InputReceived(this, std::move(b)));
    }
    return Status::OK();
  }

  // Once every batch has been taken: the held ones go on, then the end with their count.
  Status MaybeFinish() {
    const int total = total_.load();
    if (total < 0 || received_.load() != total || finishing_.exchange(true)) return Status::OK();
    ARROW_RETURN_NOT_OK(Forward(probe_->End()));
    return output_->InputFinished(this, forwarded_.load());
  }

  std::shared_ptr<GroupProbe> probe_;
  std::atomic<int> total_{-1};
  std::atomic<int> received_{0};
  std::atomic<int> forwarded_{0};
  std::atomic<bool> finishing_{false};
};

void RegisterProbeNode() {
  static const bool registered =
      ac::default_exec_factory_registry()->AddFactory(kProbeFactory, GroupProbeNode::Make).ok();
  (void)registered;
}

struct Part {
  std::string path;
  int64_t bytes;
  int depth;
};

class AggregateReader final : public SpillingReader {
 public:
  AggregateReader(std::shared_ptr<arrow::Schema> schema, SpillEnv env, ac::Declaration input,
                  std::shared_ptr<arrow::Schema> input_schema, ac::AggregateNodeOptions options, std::vector<int> keys)
      : SpillingReader(std::move(schema), std::move(env)),
        input_(std::move(input)),
        input_schema_(std::move(input_schema)),
        options_(std::move(options)),
        keys_(std::move(keys)) {}

 protected:
  Status Start() override {
    probe_ = std::make_shared<GroupProbe>(env_, input_schema_, keys_);
    ARROW_ASSIGN_OR_RAISE(current_, RunPlan(ac::Declaration::Sequence({std::move(input_),
                                                                        {kProbeFactory, GroupProbeNodeOptions(probe_)},
                                                                        {"aggregate", options_}}),
                                            env_));
    input_ = ac::Declaration();
    return Status::OK();
  }

  Status Next(std::shared_ptr<arrow::RecordBatch>* out) override {
    while (true) {
      if (current_) {
        ARROW_RETURN_NOT_OK(current_->ReadNext(out));
        if (*out) return Status::OK();
        ARROW_RETURN_NOT_OK(current_->Close());
        current_.reset();
        if (probe_ && probe_->partitioned()) {
          // The aggregate above the probe saw no rows: they are all in the spill files.
          ARROW_ASSIGN_OR_RAISE(auto files, probe_->FinishPartitions());
          for (auto& [path, bytes] : files) parts_.push_back(Part{path, bytes, 0});
        }
        probe_.reset();
      }
      if (parts_.empty()) return Status::OK();
      ARROW_RETURN_NOT_OK(env_.CheckCancel());
      Part part = std::move(parts_.front());
      parts_.pop_front();
      ARROW_ASSIGN_OR_RAISE(auto rows, ReadSpillFile(part.path, env_.pool));
      if (part.bytes > 2 * env_.partition_bytes() && part.depth < kMaxSpillDepth) {
        // Too many groups hashed alike: split this part again with another seed.
        ARROW_ASSIGN_OR_RAISE(auto partitioner, Partitioner::Make(env_, "aggregate", input_schema_, keys_,
                                                                  static_cast<uint64_t>(part.depth + 1), kRespillFanout));
        ARROW_RETURN_NOT_OK(partitioner->AddAll(*rows));
        ARROW_ASSIGN_OR_RAISE(auto files, partitioner->Finish());
        for (auto it = files.rbegin(); it != files.rend(); ++it) {
          parts_.push_front(Part{it->first, it->second, part.depth + 1});
        }
        continue;
      }
      if (part.bytes == 0) continue;
      ARROW_ASSIGN_OR_RAISE(
          current_, RunPlan(ac::Declaration::Sequence({SourceOf(std::move(rows)), {"aggregate", options_}}), env_));
    }
  }

 private:
  ac::Declaration input_;
  std::shared_ptr<arrow::Schema> input_schema_;
  ac::AggregateNodeOptions options_;
  std::vector<int> keys_;
  std::shared_ptr<GroupProbe> probe_;
  std::deque<Part> parts_;
  std::shared_ptr<arrow::RecordBatchReader> current_;
};

}  // namespace

Result<ac::Declaration> AggregateWithSpill(ac::Declaration input, ac::AggregateNodeOptions options, SpillEnv env) {
  ARROW_ASSIGN_OR_RAISE(auto input_schema, ac::DeclarationToSchema(input));
  auto keys = FieldIndices(*input_schema, options.keys);
  bool hashable = keys.ok() && !options.keys.empty() && options.segment_keys.empty();
  if (hashable) {
    for (int k : *keys) hashable = hashable && CanPartitionBy(*input_schema->field(k)->type());
  }
  if (!hashable) return ac::Declaration::Sequence({std::move(input), {"aggregate", std::move(options)}});
  RegisterProbeNode();
  ARROW_ASSIGN_OR_RAISE(auto schema, OutputSchema({input_schema}, "aggregate",
                                                  std::make_shared<ac::AggregateNodeOptions>(options)));
  auto reader = std::make_shared<AggregateReader>(schema, std::move(env), std::move(input), input_schema,
                                                  std::move(options), std::move(*keys));
  return OperatorSource(std::move(reader));
}

}  // namespace floe::sql
