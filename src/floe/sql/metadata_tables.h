#pragma once

// Iceberg's metadata tables as Spark exposes them (t.snapshots, t.history, t.refs,
// t.metadata_log_entries, t.files, t.data_files, t.delete_files, t.manifests,
// t.partitions), with Spark's column names and types.

#include <memory>
#include <optional>
#include <string>

#include <arrow/type_fwd.h>

#include "floe/table/table.h"

namespace floe::sql {

bool IsMetadataTableName(const std::string& lower_name);

// The metadata table `name` of `table`; files, manifests and partitions are read as of
// `snapshot_id` (the current snapshot when absent).
Result<std::shared_ptr<arrow::Table>> MetadataTable(const table::Table& table, const std::string& name,
                                                    std::optional<int64_t> snapshot_id);

}  // namespace floe::sql
