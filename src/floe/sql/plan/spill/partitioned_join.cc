#include "floe/sql/plan/spill/partitioned_join.h"

#include <deque>

namespace floe::sql {

namespace ac = arrow::acero;

namespace {


struct PartPair {
  std::string left;
  std::string right;
  int64_t right_bytes;
  int depth;
};

class JoinReader final : public SpillingReader {
 public:
  JoinReader(std::shared_ptr<arrow::Schema> schema, SpillEnv env, ac::Declaration left, ac::Declaration right,
             std::shared_ptr<arrow::Schema> left_schema, std::shared_ptr<arrow::Schema> right_schema,
             ac::HashJoinNodeOptions options, std::vector<int> left_keys, std::vector<int> right_keys)
      : SpillingReader(std::move(schema), std::move(env)),
        left_(std::move(left)),
        right_(std::move(right)),
        left_schema_(std::move(left_schema)),
        right_schema_(std::move(right_schema)),
        options_(std::move(options)),
        left_keys_(std::move(left_keys)),
        right_keys_(std::move(right_keys)) {}

 protected:
  Status Start() override {
    ARROW_ASSIGN_OR_RAISE(auto right, RunPlan(right_, env_));
    right_ = ac::Declaration();
    std::vector<std::shared_ptr<arrow::RecordBatch>> held;
    ARROW_ASSIGN_OR_RAISE(bool ended, HoldInput(*right, env_.partition_bytes(), env_, &held));
    if (ended) {
      ac::Declaration left = std::move(left_);
      left_ = ac::Declaration();
      return Join(std::move(left), SourceOf(HeldRows(right_schema_, std::move(held))));
    }
    auto all_right = Chain(HeldRows(right_schema_, std::move(held)), std::move(right));
    ARROW_ASSIGN_OR_RAISE(auto right_parts,
                          Partitioner::Make(env_, "join-build", right_schema_, right_keys_, 0, kSpillFanout));
    ARROW_RETURN_NOT_OK(right_parts->AddAll(*all_right));
    ARROW_RETURN_NOT_OK(all_right->Close());
    ARROW_ASSIGN_OR_RAISE(auto right_files, right_parts->Finish());
    ARROW_ASSIGN_OR_RAISE(auto left, RunPlan(left_, env_));
    left_ = ac::Declaration();
    ARROW_ASSIGN_OR_RAISE(auto left_parts, Partitioner::Make(env_, "join-probe", left_schema_, left_keys_, 0, kSpillFanout));
    ARROW_RETURN_NOT_OK(left_parts->AddAll(*left));
    ARROW_RETURN_NOT_OK(left->Close());
    ARROW_ASSIGN_OR_RAISE(auto left_files, left_parts->Finish());
    for (int p = 0; p < kSpillFanout; ++p) {
      parts_.push_back(PartPair{left_files[p].first, right_files[p].first, right_files[p].second, 0});
    }
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
      PartPair part = std::move(parts_.front());
      parts_.pop_front();
      ARROW_ASSIGN_OR_RAISE(auto left, ReadSpillFile(part.left, env_.pool));
      ARROW_ASSIGN_OR_RAISE(auto right, ReadSpillFile(part.right, env_.pool));
      if (part.right_bytes > 2 * env_.partition_bytes() && part.depth < kMaxSpillDepth) {
        const auto seed = static_cast<uint64_t>(part.depth + 1);
        ARROW_ASSIGN_OR_RAISE(auto rp, Partitioner::Make(env_, "join-build", right_schema_, right_keys_, seed,
                                                         kRespillFanout));
        ARROW_RETURN_NOT_OK(rp->AddAll(*right));
        ARROW_ASSIGN_OR_RAISE(auto right_files, rp->Finish());
        ARROW_ASSIGN_OR_RAISE(auto lp, Partitioner::Make(env_, "join-probe", left_schema_, left_keys_, seed,
                                                         kRespillFanout));
        ARROW_RETURN_NOT_OK(lp->AddAll(*left));
        ARROW_ASSIGN_OR_RAISE(auto left_files, lp->Finish());
        for (int p = kRespillFanout - 1; p >= 0; --p) {
          parts_.push_front(PartPair{left_files[p].first, right_files[p].first, right_files[p].second, part.depth + 1});
        }
        continue;
      }
      ARROW_RETURN_NOT_OK(Join(SourceOf(std::move(left)), SourceOf(std::move(right))));
    }
  }

 private:
  Status Join(ac::Declaration left, ac::Declaration right) {
    ARROW_ASSIGN_OR_RAISE(current_, RunPlan(ac::Declaration("hashjoin", {std::move(left), std::move(right)}, options_),
                                            env_));
    return Status::OK();
  }

  ac::Declaration left_;
  ac::Declaration right_;
  std::shared_ptr<arrow::Schema> left_schema_;
  std::shared_ptr<arrow::Schema> right_schema_;
  ac::HashJoinNodeOptions options_;
  std::vector<int> left_keys_;
  std::vector<int> right_keys_;
  std::deque<PartPair> parts_;
  std::shared_ptr<arrow::RecordBatchReader> current_;
};

}  // namespace

Result<ac::Declaration> HashJoinWithSpill(ac::Declaration left, ac::Declaration right, ac::HashJoinNodeOptions options,
                                          SpillEnv env) {
  ARROW_ASSIGN_OR_RAISE(auto left_schema, ac::DeclarationToSchema(left));
  ARROW_ASSIGN_OR_RAISE(auto right_schema, ac::DeclarationToSchema(right));
  auto left_keys = FieldIndices(*left_schema, options.left_keys);
  auto right_keys = FieldIndices(*right_schema, options.right_keys);
  bool hashable = left_keys.ok() && right_keys.ok() && !options.left_keys.empty() &&
                  left_keys->size() == right_keys->size();
  for (size_t k = 0; hashable && k < left_keys->size(); ++k) {
    const auto& lt = *left_schema->field((*left_keys)[k])->type();
    // Keys of different types could hash apart while comparing equal.
    hashable = CanPartitionBy(lt) && lt.Equals(*right_schema->field((*right_keys)[k])->type());
  }
  if (!hashable) return ac::Declaration("hashjoin", {std::move(left), std::move(right)}, std::move(options));
  ARROW_ASSIGN_OR_RAISE(auto schema, OutputSchema({left_schema, right_schema}, "hashjoin",
                                                  std::make_shared<ac::HashJoinNodeOptions>(options)));
  auto reader = std::make_shared<JoinReader>(schema, std::move(env), std::move(left), std::move(right), left_schema,
                                             right_schema, std::move(options), std::move(*left_keys),
                                             std::move(*right_keys));
  return OperatorSource(std::move(reader));
}

}  // namespace floe::sql
