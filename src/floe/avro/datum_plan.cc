#include <algorithm>
#include <unordered_map>

#include "floe/avro/datum_plan_internal.h"

namespace floe::avro::internal {

namespace {

class Compiler {
 public:
  Compiler(const Schema& schema, Plan* plan) : schema_(schema), plan_(plan) {}

  uint32_t Add(const Node& use) {
    const Node& node = schema_.Resolve(use);
    if (IsNamed(node.type)) {
      auto it = named_.find(&node);
      if (it != named_.end()) return it->second;
    }
    const auto id = static_cast<uint32_t>(plan_->nodes.size());
    PlanNode pn;
    pn.type = node.type;
    pn.node = &node;
    pn.size = node.type == Type::kEnum ? static_cast<int64_t>(node.symbols.size())
                                       : node.fixed_size;
    plan_->nodes.push_back(pn);
    // Registered before the children, so recursive records point back at themselves.
    if (IsNamed(node.type)) named_.emplace(&node, id);

    std::vector<uint32_t> kids;
    if (node.type == Type::kRecord) {
      for (const Field& f : node.fields) kids.push_back(Add(f.type));
    } else {
      for (const Node& c : node.children) kids.push_back(Add(c));
    }
    plan_->nodes[id].first_child = static_cast<uint32_t>(plan_->child_ids.size());
    plan_->nodes[id].num_children = static_cast<uint32_t>(kids.size());
    plan_->child_ids.insert(plan_->child_ids.end(), kids.begin(), kids.end());
    return id;
  }

  // Minimum encoded sizes; a record still being computed (recursion) counts as 0.
  uint64_t MinSize(uint32_t id) {
    if (state_.size() < plan_->nodes.size()) state_.resize(plan_->nodes.size(), 0);
    if (state_[id] == 1) return 0;
    if (state_[id] == 2) return plan_->nodes[id].min_size;
    state_[id] = 1;
    const PlanNode& n = plan_->nodes[id];
    const uint32_t* kids = plan_->children(n);
    uint64_t size = 0;
    switch (n.type) {
      case Type::kNull:
        size = 0;
        break;
      case Type::kFloat:
        size = 4;
        break;
      case Type::kDouble:
        size = 8;
        break;
      case Type::kFixed:
        size = static_cast<uint64_t>(n.size);
        break;
      case Type::kRecord:
        for (uint32_t i = 0; i < n.num_children; ++i) size += MinSize(kids[i]);
        break;
      case Type::kUnion: {
        uint64_t smallest = UINT64_MAX;
        for (uint32_t i = 0; i < n.num_children; ++i) {
          smallest = std::min(smallest, MinSize(kids[i]));
        }
        size = 1 + (n.num_children == 0 ? 0 : smallest);
        break;
      }
      default:
        // boolean, int, long, bytes, string, enum, array, map: at least one byte.
        size = 1;
        for (uint32_t i = 0; i < n.num_children; ++i) MinSize(kids[i]);
        break;
    }
    size = std::min<uint64_t>(size, UINT32_MAX);
    plan_->nodes[id].min_size = static_cast<uint32_t>(size);
    state_[id] = 2;
    return size;
  }

 private:
  const Schema& schema_;
  Plan* plan_;
  std::unordered_map<const Node*, uint32_t> named_;
  std::vector<uint8_t> state_;
};

}  // namespace

Result<Plan> Plan::Compile(const Schema& schema) {
  Plan plan;
  Compiler compiler(schema, &plan);
  plan.root = compiler.Add(schema.root());
  for (uint32_t i = 0; i < plan.nodes.size(); ++i) compiler.MinSize(i);
  return plan;
}

}  // namespace floe::avro::internal
