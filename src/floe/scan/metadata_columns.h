#pragma once

// Iceberg's metadata columns a scan can return beside a table's own (spec: "Reserved Field
// IDs"): `_file`, the data file a row was read from, and `_pos`, its position in that file.

#include <cstdint>
#include <optional>
#include <string_view>

#include "floe/spec/schema.h"

namespace floe::scan {

inline constexpr int32_t kFileColumnId = 2147483646;
inline constexpr int32_t kPosColumnId = 2147483645;

// The metadata column called `name` (case-insensitively), or nullopt.
std::optional<spec::NestedField> MetadataColumn(std::string_view name);

}  // namespace floe::scan
