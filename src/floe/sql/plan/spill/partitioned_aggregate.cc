#include "floe/sql/plan/spill/partitioned_aggregate.h"

#include <algorithm>
#include <deque>

#include "floe/scan/row_hash.h"

namespace floe::sql {

namespace ac = arrow::acero;

namespace {

// Keys sampled to tell whether groups repeat, and the share of distinct ones above which
// the input is partitioned.
constexpr int64_t kSampleRows = int64_t{1} << 20;
constexpr int64_t kDistinctShare = 8;  // one in eight

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
    ARROW_ASSIGN_OR_RAISE(auto input, RunPlan(input_, env_));
    input_ = ac::Declaration();
    std::vector<std::shared_ptr<arrow::RecordBatch>> held;
    ARROW_ASSIGN_OR_RAISE(bool ended, HoldInput(*input, env_.partition_bytes(), env_, &held));
    if (ended) return Aggregate(SourceOf(HeldRows(input_schema_, std::move(held))));
    const bool repeat = GroupsRepeat(held);
    auto all = Chain(HeldRows(input_schema_, std::move(held)), std::move(input));
    if (repeat) return Aggregate(PlanFedSource(std::move(all)));
    ARROW_ASSIGN_OR_RAISE(auto partitioner, Partitioner::Make(env_, "aggregate", input_schema_, keys_, 0, kSpillFanout));
    ARROW_RETURN_NOT_OK(partitioner->AddAll(*all));
    ARROW_RETURN_NOT_OK(all->Close());
    ARROW_ASSIGN_OR_RAISE(auto files, partitioner->Finish());
    for (auto& [path, bytes] : files) parts_.push_back(Part{path, bytes, 0});
    return Status::OK();
  }

  Status Next(std::shared_ptr<arrow::RecordBatch>* out) override {
    while (true) {
      if (current_) {
        ARROW_RETURN_NOT_OK(current_->ReadNext(out));
        if (*out) return Status::OK();
        ARROW_RETURN_NOT_OK(current_->Close());
        current_.reset();
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
      ARROW_RETURN_NOT_OK(Aggregate(SourceOf(std::move(rows))));
    }
  }

 private:
  Status Aggregate(ac::Declaration rows) {
    ARROW_ASSIGN_OR_RAISE(current_, RunPlan(ac::Declaration::Sequence({std::move(rows), {"aggregate", options_}}), env_));
    return Status::OK();
  }

  // Whether the held rows' keys repeat enough that all groups should fit in memory.
  bool GroupsRepeat(const std::vector<std::shared_ptr<arrow::RecordBatch>>& held) {
    int64_t rows = 0;
    for (const auto& b : held) rows += b->num_rows();
    const int64_t step = std::max<int64_t>(1, rows / kSampleRows);
    std::vector<uint64_t> sample;
    int64_t at = 0;
    for (const auto& b : held) {
      std::vector<uint64_t> hashes;
      scan::HashRows(*b, keys_, 0, &hashes);
      for (int64_t i = 0; i < b->num_rows(); ++i, ++at) {
        if (at % step == 0) sample.push_back(hashes[i]);
      }
    }
    std::sort(sample.begin(), sample.end());
    const int64_t distinct = std::unique(sample.begin(), sample.end()) - sample.begin();
    return distinct * kDistinctShare < static_cast<int64_t>(sample.size());
  }

  ac::Declaration input_;
  std::shared_ptr<arrow::Schema> input_schema_;
  ac::AggregateNodeOptions options_;
  std::vector<int> keys_;
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
  ARROW_ASSIGN_OR_RAISE(auto schema, OutputSchema({input_schema}, "aggregate",
                                                  std::make_shared<ac::AggregateNodeOptions>(options)));
  auto reader = std::make_shared<AggregateReader>(schema, std::move(env), std::move(input), input_schema,
                                                  std::move(options), std::move(*keys));
  return OperatorSource(std::move(reader));
}

}  // namespace floe::sql
