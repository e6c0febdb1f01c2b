// Procedures that find and remove files under a table that no metadata references.

#include <arrow/api.h>

#include "floe/sql/bind/binder.h"
#include "floe/sql/execute/executors.h"
#include "floe/sql/parse/parser.h"
#include "floe/sql/procedures/procedure_registry.h"
#include "floe/sql/types/spark_names.h"
#include "floe/table/remove_orphan_files.h"
#include "floe/util/ascii.h"
#include "floe/util/clock.h"

namespace floe::sql {

namespace {

using Type = ProcedureArgType;

constexpr int64_t kDayMillis = 24LL * 60 * 60 * 1000;

// The rows of `file_list_view`: a table or view with file_path STRING and last_modified
// TIMESTAMP columns (Iceberg's compareToFileList).
Result<std::vector<table::ListedFile>> ReadFileList(ExecContext& ctx, const std::string& view) {
  const std::string sql = "SELECT * FROM " + view;
  auto statement = ParseStatement(sql);
  const Query* query = statement.ok() ? statement->As<Query>() : nullptr;
  if (!query)
    return ValidationError("Cannot read file_list_view ", view, ": not a table or view name");
  Binder binder(ctx.state, sql);
  QueryPlanner planner = binder.Planner();
  ARROW_ASSIGN_OR_RAISE(auto rows, planner.Run(*query));
  auto column = [&](const char* name,
                    const char* want) -> Result<std::shared_ptr<arrow::ChunkedArray>> {
    auto field = rows->schema()->GetFieldByName(name);
    if (!field) return ValidationError("Field ", name, " does not exist in ", view);
    std::string type = SparkTypeClassName(*field->type());
    if (type != want) {
      return ValidationError("Invalid ", name, " column: ", type, " is not a ",
                             std::string(want) == "StringType" ? "string" : "timestamp");
    }
    return rows->GetColumnByName(name);
  };
  ARROW_ASSIGN_OR_RAISE(auto paths, column("file_path", "StringType"));
  ARROW_ASSIGN_OR_RAISE(auto times, column("last_modified", "TimestampType"));
  std::vector<table::ListedFile> out;
  if (rows->num_rows() == 0) return out;
  ARROW_ASSIGN_OR_RAISE(auto path_array, arrow::Concatenate(paths->chunks()));
  ARROW_ASSIGN_OR_RAISE(auto time_array, arrow::Concatenate(times->chunks()));
  const auto& p = static_cast<const arrow::StringArray&>(*path_array);
  const auto& t = static_cast<const arrow::TimestampArray&>(*time_array);
  const auto unit = static_cast<const arrow::TimestampType&>(*t.type()).unit();
  const int64_t per_milli = unit == arrow::TimeUnit::SECOND  ? 0
                            : unit == arrow::TimeUnit::MILLI ? 1
                            : unit == arrow::TimeUnit::MICRO ? 1000
                                                             : 1000000;
  for (int64_t i = 0; i < p.length(); ++i) {
    // A row without a time is never older than anything (Spark's `<` is NULL there).
    if (p.IsNull(i) || t.IsNull(i)) continue;
    int64_t v = t.Value(i);
    int64_t ms =
        per_milli == 0 ? v * 1000 : (v >= 0 ? v / per_milli : -((-v + per_milli - 1) / per_milli));
    out.push_back(table::ListedFile{p.GetString(i), ms});
  }
  return out;
}

Result<std::shared_ptr<arrow::Table>> RemoveOrphanFilesRun(
    const std::shared_ptr<arrow::Schema>& schema, const ProcedureCall& c) {
  table::RemoveOrphanFilesOptions options;
  const auto& args = c.args;
  options.older_than_ms = args.TimestampMillis("older_than");
  options.location = args.String("location");
  options.dry_run = args.Bool("dry_run").value_or(false);
  if (auto n = args.Long("max_concurrent_deletes")) {
    if (*n <= 0)
      return ValidationError("max_concurrent_deletes should have value > 0, value: ", *n);
    options.max_concurrent_deletes = static_cast<int>(*n);
  }
  if (auto m = args.StringMap("equal_schemes")) options.equal_schemes = {m->begin(), m->end()};
  if (auto m = args.StringMap("equal_authorities"))
    options.equal_authorities = {m->begin(), m->end()};
  if (auto mode = args.String("prefix_mismatch_mode")) {
    ARROW_ASSIGN_OR_RAISE(options.prefix_mismatch_mode, table::ParsePrefixMismatchMode(*mode));
  }
  ARROW_RETURN_NOT_OK(table::CheckGcEnabled(*c.table->metadata()));
  // prefix_listing: floe's listing of a local location is one recursive listing either way.
  if (options.older_than_ms) {
    // As Iceberg's procedure: a short interval may delete the files of writes in flight;
    // only `SET spark.testing = true` (or the C++ API) allows it.
    bool testing = c.ctx && AsciiLower(c.ctx->state.Setting("spark.testing", "false")) == "true";
    if (!testing && NowMillis() - *options.older_than_ms < kDayMillis) {
      return ValidationError(
          "Cannot remove orphan files with an interval less than 24 hours. Executing this "
          "procedure with a "
          "short interval may corrupt the table if other operations are happening at the same "
          "time. If you "
          "are absolutely confident that no concurrent operations will be affected by removing "
          "orphan files "
          "with such a short interval, you can use the Action API to remove orphan files with an "
          "arbitrary "
          "interval.");
    }
  }
  if (auto view = args.String("file_list_view")) {
    if (!c.ctx) return ValidationError("file_list_view needs a session");
    ARROW_ASSIGN_OR_RAISE(options.file_list, ReadFileList(*c.ctx, *view));
  }
  ARROW_ASSIGN_OR_RAISE(auto result, table::RemoveOrphanFiles(*c.table, options));
  arrow::StringBuilder locations;
  for (const auto& f : result.orphan_file_locations) ARROW_RETURN_NOT_OK(locations.Append(f));
  ARROW_ASSIGN_OR_RAISE(auto array, locations.Finish());
  return arrow::Table::Make(schema, {array});
}

}  // namespace

void AddOrphanFileProcedures(std::vector<Procedure>* out) {
  auto schema = arrow::schema({arrow::field("orphan_file_location", arrow::utf8(), false)});
  out->push_back(
      Procedure{"remove_orphan_files",
                "Deletes files under the table's location that no metadata references and that are "
                "older than "
                "older_than (default: three days ago).",
                {{"table", Type::kString, true},
                 {"older_than", Type::kTimestamp, false},
                 {"location", Type::kString, false},
                 {"dry_run", Type::kBoolean, false},
                 {"max_concurrent_deletes", Type::kInteger, false},
                 {"file_list_view", Type::kString, false},
                 {"equal_schemes", Type::kStringMap, false},
                 {"equal_authorities", Type::kStringMap, false},
                 {"prefix_mismatch_mode", Type::kString, false},
                 {"prefix_listing", Type::kBoolean, false}},
                schema,
                [schema](const ProcedureCall& c) { return RemoveOrphanFilesRun(schema, c); }});
}

}  // namespace floe::sql
