#pragma once

#include <cstdint>
#include <vector>

#include "floe/spec/transform.h"

namespace floe::spec {

enum class SortDirection { kAsc, kDesc };
enum class NullOrder { kNullsFirst, kNullsLast };

struct SortField {
  Transform transform;
  int32_t source_id = 0;
  SortDirection direction = SortDirection::kAsc;
  NullOrder null_order = NullOrder::kNullsFirst;

  bool operator==(const SortField& other) const = default;
};

struct SortOrder {
  int32_t order_id = 0;
  std::vector<SortField> fields;

  static SortOrder Unsorted() { return SortOrder{}; }
  bool is_unsorted() const { return fields.empty(); }
  bool operator==(const SortOrder& other) const = default;
};

}  // namespace floe::spec
