#pragma once

// Conjunctive column predicates pushed into a scan, and the pruning they allow: a manifest
// whose partition summaries, or a data file whose partition values and column bounds, rule
// out every predicate is skipped before it is opened.

#include <cstdint>
#include <vector>

#include "floe/manifest/data_file.h"
#include "floe/manifest/manifest_columns.h"
#include "floe/manifest/manifest_file.h"
#include "floe/spec/partition_spec.h"
#include "floe/spec/schema.h"

namespace floe::scan {

struct ColumnPredicate {
  enum class Op { kEq, kLt, kLe, kGt, kGe, kIsNull, kNotNull };
  int32_t field_id = 0;
  Op op = Op::kEq;
  spec::Literal value;  // of the column's Iceberg type; unused for kIsNull/kNotNull
};

// False only when no row of the file can satisfy every predicate.
bool FileMayMatch(const manifest::DataFile& file, const std::vector<ColumnPredicate>& predicates,
                  const spec::PartitionSpec& spec);
// The same for entry `row` of a manifest read by columns.
bool FileMayMatch(const manifest::ManifestColumns& columns, size_t row, const std::vector<ColumnPredicate>& predicates,
                  const spec::PartitionSpec& spec);
// False only when no file of the manifest can satisfy every predicate.
bool ManifestMayMatch(const manifest::ManifestFile& manifest, const std::vector<ColumnPredicate>& predicates,
                      const spec::PartitionSpec& spec, const spec::Schema& schema);

}  // namespace floe::scan
