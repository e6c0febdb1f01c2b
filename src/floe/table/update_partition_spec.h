#pragma once

// Partition evolution (ALTER TABLE ... ADD | DROP | REPLACE PARTITION FIELD): changes to the
// default spec, applied in order, committed as a new default spec (or an earlier spec with the
// same fields made default again). Follows Iceberg's UpdatePartitionSpec: new fields get ids
// after last-partition-id, unless a v2 table had the same source and transform in an earlier
// spec (then that field and its id come back); a removed field disappears in v2 and becomes a
// void transform in v1. Source columns are matched case-sensitively, as Iceberg does.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "floe/spec/partition_spec.h"
#include "floe/spec/table_metadata.h"
#include "floe/table/table.h"

namespace floe::table {

// A transform of a source column ("a.b" for a nested one), as the statement wrote it.
struct PartitionTerm {
  std::string column;
  spec::Transform transform;

  // Iceberg's text for the unbound term: ref(name="id"), bucket[16](ref(name="id")).
  std::string ToString() const;
};

class UpdatePartitionSpec {
 public:
  explicit UpdatePartitionSpec(Table& table) : table_(table) {}

  // `name` empty: Iceberg's generated name (id_bucket_16, ts_day, data_trunc_4, id).
  UpdatePartitionSpec& AddField(std::optional<std::string> name, PartitionTerm term);
  UpdatePartitionSpec& RemoveField(std::string name);
  UpdatePartitionSpec& RemoveField(PartitionTerm term);

  // The spec the changes make of `base`'s default spec (its id not yet assigned). On
  // failure, `failed` (when given) is the index of the change that failed.
  Result<spec::PartitionSpec> Apply(const spec::TableMetadata& base, size_t* failed = nullptr) const;
  Status Commit(size_t* failed = nullptr);

 private:
  struct Change {
    enum class Kind { kAdd, kRemoveByName, kRemoveByTerm } kind;
    std::optional<std::string> name;
    PartitionTerm term;
  };

  Table& table_;
  std::vector<Change> changes_;
};

}  // namespace floe::table
