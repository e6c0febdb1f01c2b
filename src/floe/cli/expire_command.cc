#include "floe/cli/expire_command.h"

#include <arrow/array.h>
#include <arrow/table.h>

#include "floe/cli/result_format.h"
#include "floe/cli/table_argument.h"
#include "floe/sql/parse/ast.h"

namespace floe::cli {

namespace {

// The CALL statement the arguments ask for.
std::string ExpireCall(const std::string& procedure_prefix, const std::string& table,
                       const ExpireArgs& args) {
  std::string call = StrCat(procedure_prefix, "(table => ", sql::QuoteString(table));
  if (!args.older_than.empty())
    call += StrCat(", older_than => TIMESTAMP ", sql::QuoteString(args.older_than));
  if (args.retain_last_option && args.retain_last_option->count() > 0) {
    call += StrCat(", retain_last => ", args.retain_last);
  }
  if (!args.snapshot_ids.empty()) {
    call += ", snapshot_ids => array(";
    for (size_t i = 0; i < args.snapshot_ids.size(); ++i) {
      call += StrCat(i ? ", " : "", args.snapshot_ids[i]);
    }
    call += ")";
  }
  if (args.clean_expired_metadata) call += ", clean_expired_metadata => true";
  if (args.dry_run) call += ", dry_run => true";
  return call + ")";
}

}  // namespace

CLI::App* AddExpireCommand(CLI::App& app, ExpireArgs* args) {
  CLI::App* expire = app.add_subcommand(
      "expire",
      "Expire a table's old snapshots and delete the files only they reached (expire_snapshots). "
      "--dry-run lists exactly the files a run would delete and changes nothing.");
  AddCatalogOptions(expire, &args->where);
  expire->add_option("table", args->table, "The table, e.g. db.orders or lakehouse.db.orders")
      ->required();
  expire->add_option(
      "--older-than", args->older_than,
      "Expire snapshots older than this time, e.g. '2026-01-15 10:00:00' (read in --tz; "
      "default: history.expire.max-snapshot-age-ms, five days)");
  args->retain_last_option = expire->add_option("--retain-last", args->retain_last,
                                                "Keep at least this many ancestors of each branch");
  expire->add_option("--snapshot-id", args->snapshot_ids, "Expire this snapshot (repeatable)");
  expire->add_flag("--clean-expired-metadata", args->clean_expired_metadata,
                   "Also remove schemas and partition specs no kept snapshot uses");
  expire->add_flag("--dry-run", args->dry_run, "List the files a run would delete; change nothing");
  expire->add_flag("--json", args->json, "Print the rows as JSON, one object per line");
  return expire;
}

int RunExpireCommand(const ExpireArgs& args, std::ostream& out, std::ostream& err) {
  auto session = OpenSession(args.where);
  if (!session.ok()) return ReportError(session.status(), err);
  auto table = LoadTableArgument(**session, args.table);
  if (!table.ok()) return ReportError(table.status(), err);
  const std::string call =
      ExpireCall(SystemProcedure(**table, "expire_snapshots"), (*table)->ident().ToString(), args);
  if (!args.json) out << "SQL: " << call << "\n";
  auto result = (*session)->Execute(call);
  if (!result.ok()) return ReportError(result.status(), err);
  auto text = sql::ValueText::Make((*session)->Setting("spark.sql.session.timeZone", "UTC"));
  if (!text.ok()) return ReportError(text.status(), err);
  FormatOptions format;
  format.format = args.json ? OutputFormat::kJson : OutputFormat::kTable;
  format.truncate = 0;
  const arrow::Table& rows = *result->rows;
  out << FormatRows(rows, *text, format);
  if (args.dry_run && !args.json) {
    int64_t bytes = 0;
    for (const auto& chunk : rows.GetColumnByName("file_size_in_bytes")->chunks()) {
      const auto& sizes = static_cast<const arrow::Int64Array&>(*chunk);
      for (int64_t i = 0; i < sizes.length(); ++i) bytes += sizes.IsNull(i) ? 0 : sizes.Value(i);
    }
    out << "Dry run: expiring would delete " << rows.num_rows() << " files (" << bytes
        << " bytes) of " << (*table)->name() << "; nothing was changed.\n";
  }
  return 0;
}

}  // namespace floe::cli
