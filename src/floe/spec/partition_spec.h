#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "floe/spec/literal.h"
#include "floe/spec/schema.h"
#include "floe/spec/transform.h"

namespace floe::spec {

// Partition field ids start at 1000 (spec: "Partition Specs").
inline constexpr int32_t kFirstPartitionFieldId = 1000;

struct PartitionField {
  int32_t source_id = 0;
  int32_t field_id = 0;
  std::string name;
  Transform transform;

  bool operator==(const PartitionField& other) const = default;
};

class PartitionSpec {
 public:
  PartitionSpec() = default;
  PartitionSpec(int32_t spec_id, std::vector<PartitionField> fields)
      : spec_id_(spec_id), fields_(std::move(fields)) {}
  static PartitionSpec Unpartitioned() { return PartitionSpec(0, {}); }

  int32_t spec_id() const { return spec_id_; }
  const std::vector<PartitionField>& fields() const { return fields_; }
  bool is_unpartitioned() const;  // no fields, or only void transforms
  int32_t LastAssignedFieldId() const;  // 999 when empty

  // The partition tuple's struct type (field ids are the partition field ids), as written
  // in manifests' `partition` field.
  Result<TypePtr> PartitionType(const Schema& schema) const;
  // "ts_day=2024-01-15/id_bucket=3" for a tuple of transformed values (values URL-escaped).
  std::string PartitionPath(const std::vector<Literal>& values) const;
  // Same fields ignoring spec-id.
  bool CompatibleWith(const PartitionSpec& other) const;

  bool operator==(const PartitionSpec& other) const = default;

 private:
  int32_t spec_id_ = 0;
  std::vector<PartitionField> fields_;
};

}  // namespace floe::spec
