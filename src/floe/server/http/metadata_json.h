#pragma once

// The JSON the metadata pages' script reads. Snapshot ids are strings ("5521..."): they are
// 64-bit and JavaScript's numbers are not; counts are numbers; times are ISO-8601 in UTC with
// a Z; absent values null.
//
//   /api/tables  {"catalog", "namespaces": [names], "tables": [{"namespace", "name", "table",
//                "path"}]}
//   /api/table/<ns>/<t>
//                {"table", "namespace", "name", "format_version", "location",
//                 "current_snapshot_id", "lanes",
//                 "snapshots": [{"snapshot_id", "parent_id", "sequence_number", "committed_at",
//                   "operation", "is_current", "is_current_ancestor", "refs": [{"name",
//                   "type"}], "added_records", "deleted_records", "added_data_files",
//                   "deleted_data_files", "total_records", "user", "client", "statement",
//                   "engine", "made_by", "summary": {...}, "row", "lane"}] (newest first, as
//                   the lineage graph draws them),
//                 "jumps": [{"branch", "kind", "from_snapshot_id", "to_snapshot_id", "at", "row"}],
//                 "refs": [{"name", "type", "snapshot_id"}],
//                 "log": [{"made_current_at", "snapshot_id"}],
//                 "changes": [{"seq", "changed_at", "kind", "operation", "previous_snapshot_id",
//                   "snapshot_id", "refs": [{"name", "from_snapshot_id", "to_snapshot_id"}],
//                   "user", "client", "client_address", "statement", "detail"}] (the audit
//                   log's newest kChangesShown entries, newest first)}
//   /api/table/<ns>/<t>/diff?from=<id>&to=<id>
//                {"table", "from": {"snapshot_id", "committed_at", "operation"}, "to": {...},
//                 "columns", "columns_only_in_from", "columns_only_in_to", "added", "removed",
//                 "unchanged_files_skipped", "rows_limit", "added_rows": [[cell, ...]],
//                 "removed_rows": [...]} with cells as text (floe sql's) or null
//   /api/table/<ns>/<t>/changes?from=<id>&to=<id>&limit=<n>
//                {"table", "from": {"snapshot_id", "committed_at", "operation"} or null (the
//                 table as created), "to": {...} or null (no snapshot yet), "columns",
//                 "total", "rows_limit", "rows": [[cell, ...]]}: the rows of table_changes,
//                 the first rows_limit of total, cells as in diff

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/catalog/table_identifier.h"
#include "floe/scan/snapshot_diff.h"
#include "floe/table/table.h"

namespace floe::server::http {

// How many audit-log entries the table page lists.
inline constexpr int64_t kChangesShown = 200;

std::string TablesJson(const std::string& catalog_name, const std::vector<Namespace>& namespaces,
                       const std::vector<TableIdentifier>& tables);

std::string TableJson(const table::Table& table);

// `diff` as DiffSnapshots made it with sample_rows = `rows_limit`.
std::string DiffJson(const table::Table& table, const scan::SnapshotDiff& diff, int64_t rows_limit);

// `rows` as ReadTableChanges gave them (already in the order shown): the first `rows_limit`.
std::string ChangesJson(const table::Table& table, std::optional<int64_t> from,
                        std::optional<int64_t> to, const arrow::Table& rows, int64_t rows_limit);

// {"error": message}
std::string ErrorJson(const std::string& message);

}  // namespace floe::server::http
