#pragma once

// Iceberg's metadata columns a scan can return beside a table's own (spec: "Reserved Field
// IDs"): `_file`, the data file a row was read from, `_pos`, its position in that file, and
// the row lineage columns `_row_id` and `_last_updated_sequence_number` (spec: "Row
// Lineage"), null for rows of files without a first row id (before a table's v3), as in Spark.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/spec/schema.h"

namespace floe::scan {

inline constexpr int32_t kFileColumnId = 2147483646;
inline constexpr int32_t kPosColumnId = 2147483645;
inline constexpr int32_t kRowIdColumnId = spec::kRowIdFieldId;
inline constexpr int32_t kLastUpdatedSequenceNumberColumnId =
    spec::kLastUpdatedSequenceNumberFieldId;

// The metadata column called `name` (case-insensitively), or nullopt.
std::optional<spec::NestedField> MetadataColumn(std::string_view name);

// The names of the metadata columns.
const std::vector<std::string>& MetadataColumnNames();

}  // namespace floe::scan
