#pragma once

#include <memory>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/spec/partition_spec.h"
#include "floe/spec/schema.h"

namespace floe::table {

struct PartitionSlice {
  std::vector<spec::Literal> partition;  // transformed values, one per spec field
  std::shared_ptr<arrow::Table> rows;
};

// Splits rows (in `schema`'s Arrow form) into one slice per partition tuple of `spec`, in
// order of first appearance. An unpartitioned spec gives one slice with all rows.
Result<std::vector<PartitionSlice>> SplitByPartition(const std::shared_ptr<arrow::Table>& data,
                                                     const spec::Schema& schema,
                                                     const spec::PartitionSpec& spec);

// Reshapes user data into the table schema's Arrow form: columns matched by name
// (case-insensitively), missing optional columns filled with nulls, values cast safely.
// Errors name the table column that cannot be written.
Result<std::shared_ptr<arrow::Table>> ConformToSchema(const arrow::Table& data,
                                                      const spec::Schema& schema);

}  // namespace floe::table
