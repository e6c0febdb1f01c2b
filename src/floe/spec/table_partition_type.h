#pragma once

// The partition type of a table whose spec evolved (Java's Partitioning.partitionType): every
// field of every spec, ordered by field id, named as the newest spec that has it names it.
// Metadata tables show each file's partition in it, NULL where the file's spec lacks a field.

#include <vector>

#include "floe/spec/literal.h"
#include "floe/spec/table_metadata.h"

namespace floe::spec {

Result<TypePtr> TablePartitionType(const TableMetadata& md);

// `partition` (a tuple of `spec_id`'s fields) placed into `table_type`'s fields by field id.
std::vector<Literal> CoercePartition(const Type& table_type, const TableMetadata& md, int32_t spec_id,
                                     const std::vector<Literal>& partition);

}  // namespace floe::spec
