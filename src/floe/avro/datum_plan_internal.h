#pragma once

// A schema flattened once into an array of nodes, references resolved to indexes, so that
// reading and writing values walk plain arrays instead of the schema tree.

#include <cstdint>
#include <vector>

#include "floe/avro/schema.h"

namespace floe::avro::internal {

struct PlanNode {
  Type type = Type::kNull;
  // Children in Plan::child_ids: record fields, union branches, array items, map values.
  uint32_t first_child = 0;
  uint32_t num_children = 0;
  // A lower bound on the encoded size of one value; bounds counts read from the input.
  uint32_t min_size = 0;
  // Fixed size, or the number of enum symbols.
  int64_t size = 0;
  // The resolved schema node, for names in error messages.
  const Node* node = nullptr;
};

struct Plan {
  std::vector<PlanNode> nodes;
  std::vector<uint32_t> child_ids;
  uint32_t root = 0;

  const uint32_t* children(const PlanNode& n) const { return child_ids.data() + n.first_child; }

  static Result<Plan> Compile(const Schema& schema);
};

}  // namespace floe::avro::internal
