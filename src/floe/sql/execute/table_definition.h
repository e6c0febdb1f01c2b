#pragma once

// From a statement's table definition to Iceberg: column types, partition transforms,
// ref retention, the format-version check, and the properties SHOW/DESCRIBE print.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/spec/table_metadata.h"
#include "floe/spec/transform.h"
#include "floe/spec/type.h"
#include "floe/sql/parse/ast.h"
#include "floe/util/status.h"

namespace floe::sql {

// AST type -> Iceberg type; ids are placeholders (counted up from *next_id) that table
// creation reassigns.
Result<spec::TypePtr> IcebergType(const DataType& t, int32_t* next_id);
// The 'format-version' a statement asks for, against the table's current one (none when
// creating): 2 or 3, the versions floe writes.
Result<int32_t> CheckFormatVersion(const std::string& value, std::optional<int> current, const std::string& table);
// A table's properties as Spark shows them: Iceberg's reserved ones added.
std::map<std::string, std::string> ShownProperties(const spec::TableMetadata& md);
spec::Transform ToTransform(const PartitionField& f);
std::string JoinNames(const std::vector<Identifier>& parts);
int64_t DurationMs(const RefDuration& d);

}  // namespace floe::sql
