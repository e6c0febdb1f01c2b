#pragma once

// The parts of table metadata read from parsed JSON values, for messages that carry them
// outside a metadata file (the REST catalog's table updates). Same shapes and error words as
// ParseTableMetadata.

#include <vector>

#include <rapidjson/document.h>

#include "floe/spec/table_metadata.h"
#include "floe/util/status.h"

namespace floe::spec {

Result<SchemaPtr> SchemaFromValue(const rapidjson::Value& json);
// A spec's "fields" array; fields without "field-id" are numbered from 1000 (as v1 writers
// left them) unless none has one, in which case the caller may number them itself.
Result<std::vector<PartitionField>> PartitionFieldsFromValue(const rapidjson::Value& json);
Result<PartitionSpec> PartitionSpecFromValue(const rapidjson::Value& json);
Result<SortOrder> SortOrderFromValue(const rapidjson::Value& json);
Status SnapshotFromValue(const rapidjson::Value& json, Snapshot* out);
Result<SnapshotRef> RefFromValue(const rapidjson::Value& json);
Result<StatisticsFile> StatisticsFromValue(const rapidjson::Value& json);
Result<PartitionStatisticsFile> PartitionStatisticsFromValue(const rapidjson::Value& json);

}  // namespace floe::spec
