// Procedures that expire snapshots: they remove history and the files only that history reached.

#include <arrow/api.h>

#include "floe/sql/procedures/procedure_registry.h"
#include "floe/table/expire_snapshots.h"

namespace floe::sql {

void AddExpiryProcedures(std::vector<Procedure>* out) {
  using Type = ProcedureArgType;
  auto dry_run_schema = RemovedFilesSchema();
  auto schema = arrow::schema({arrow::field("deleted_data_files_count", arrow::int64()),
                               arrow::field("deleted_position_delete_files_count", arrow::int64()),
                               arrow::field("deleted_equality_delete_files_count", arrow::int64()),
                               arrow::field("deleted_manifest_files_count", arrow::int64()),
                               arrow::field("deleted_manifest_lists_count", arrow::int64()),
                               arrow::field("deleted_statistics_files_count", arrow::int64())});
  out->push_back(Procedure{
      "expire_snapshots",
      "Removes snapshots older than a time (keeping the newest of each branch and what refs "
      "retain) "
      "and deletes the files only they reached. With dry_run => true it changes nothing and lists "
      "the files a run would delete.",
      {{"table", Type::kString, true},
       {"older_than", Type::kTimestamp, false},
       {"retain_last", Type::kInteger, false},
       {"max_concurrent_deletes", Type::kInteger, false},
       {"stream_results", Type::kBoolean, false},
       {"snapshot_ids", Type::kLongArray, false},
       {"clean_expired_metadata", Type::kBoolean, false},
       {"dry_run", Type::kBoolean, false}},
      schema,
      [schema, dry_run_schema](const ProcedureCall& c) -> Result<std::shared_ptr<arrow::Table>> {
        table::ExpireSnapshotsOptions options;
        options.older_than_ms = c.args.TimestampMillis("older_than");
        if (auto n = c.args.Long("retain_last")) options.retain_last = static_cast<int32_t>(*n);
        if (auto n = c.args.Long("max_concurrent_deletes")) {
          if (*n <= 0)
            return Status::Invalid("max_concurrent_deletes should have value > 0, value: ", *n);
          options.max_concurrent_deletes = static_cast<int32_t>(*n);
        }
        if (auto ids = c.args.LongArray("snapshot_ids")) options.snapshot_ids = *ids;
        options.clean_expired_metadata = c.args.Bool("clean_expired_metadata").value_or(false);
        options.dry_run = c.args.Bool("dry_run").value_or(false);
        ARROW_ASSIGN_OR_RAISE(auto r, table::ExpireSnapshots(*c.table, options));
        if (options.dry_run) return RemovedFilesTable(dry_run_schema, r.files);
        std::vector<std::shared_ptr<arrow::Array>> columns;
        for (int64_t v : {r.deleted_data_files, r.deleted_position_delete_files,
                          r.deleted_equality_delete_files, r.deleted_manifests,
                          r.deleted_manifest_lists, r.deleted_statistics_files}) {
          arrow::Int64Builder b;
          ARROW_RETURN_NOT_OK(b.Append(v));
          ARROW_ASSIGN_OR_RAISE(auto a, b.Finish());
          columns.push_back(std::move(a));
        }
        return arrow::Table::Make(schema, columns);
      },
      dry_run_schema});
}

}  // namespace floe::sql
