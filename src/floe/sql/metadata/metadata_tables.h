#pragma once

// Iceberg's metadata tables as Spark exposes them (t.snapshots, t.history, t.refs,
// t.metadata_log_entries, t.files, t.data_files, t.delete_files, t.manifests, t.entries,
// t.partitions and the all_* tables over every snapshot), with Spark's column names and types.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/table/table.h"

namespace floe::sql {

// One entry a metadata table: its name after the table's (`db.t.snapshots`, `"t$snapshots"`)
// and how its rows are built, as of a snapshot (null: the table has none) where that applies.
// Adding a metadata table is one entry in AllMetadataTables().
struct MetadataTableEntry {
  std::string name;
  std::string description;
  std::function<Result<std::shared_ptr<arrow::Table>>(const table::Table&, const spec::Snapshot*)> build;
};

// Sorted by name.
const std::vector<MetadataTableEntry>& AllMetadataTables();
const MetadataTableEntry* FindMetadataTable(const std::string& lower_name);
bool IsMetadataTableName(const std::string& lower_name);

// The metadata table `name` of `table`; files, manifests and partitions are read as of
// `snapshot_id` (the current snapshot when absent).
Result<std::shared_ptr<arrow::Table>> MetadataTable(const table::Table& table, const std::string& name,
                                                    std::optional<int64_t> snapshot_id);

}  // namespace floe::sql
