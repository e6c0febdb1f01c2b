#include "floe/cli/show_command.h"

#include <memory>
#include <vector>

#include "floe/cli/result_format.h"
#include "floe/cli/statement_error.h"
#include "floe/cli/table_argument.h"
#include "floe/sql/parse/ast.h"
#include "floe/table/time_travel.h"
#include "floe/util/time_zone.h"

namespace floe::cli {

namespace {

std::string Trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t");
  return text.substr(begin, end - begin + 1);
}

// "a, b.c" -> "a, b.c" with each name quoted as it must be.
Result<std::string> SelectList(const std::string& columns) {
  if (Trim(columns).empty()) return std::string("*");
  std::string out;
  size_t start = 0;
  while (true) {
    size_t comma = columns.find(',', start);
    std::string column =
        Trim(columns.substr(start, comma == std::string::npos ? comma : comma - start));
    if (column.empty())
      return Status::Invalid("Invalid --columns '", columns, "': an empty column name");
    std::string path;
    size_t part_start = 0;
    while (true) {
      size_t dot = column.find('.', part_start);
      std::string part =
          column.substr(part_start, dot == std::string::npos ? dot : dot - part_start);
      if (part.empty())
        return Status::Invalid("Invalid --columns '", columns, "': column '", column, "'");
      path += (path.empty() ? "" : ".") + sql::QuoteIdentifier(part);
      if (dot == std::string::npos) break;
      part_start = dot + 1;
    }
    out += (out.empty() ? "" : ", ") + path;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

CLI::App* AddShowCommand(CLI::App& app, ShowArgs* args) {
  CLI::App* show = app.add_subcommand(
      "show",
      "Show the rows of a table as of a snapshot id, a time or a ref (at most one; the "
      "current state when none is given).");
  AddCatalogOptions(show, &args->where);
  show->add_option("table", args->table, "The table, e.g. db.orders or lakehouse.db.orders")
      ->required();
  args->snapshot_option =
      show->add_option("--snapshot-id", args->snapshot_id, "Read this snapshot (VERSION AS OF)");
  args->timestamp_option = show->add_option(
      "--timestamp", args->timestamp,
      "Read the snapshot current at this time (TIMESTAMP AS OF), e.g. '2025-06-14 10:00:00', "
      "read in the --tz zone unless it names one");
  args->ref_option = show->add_option("--ref", args->ref, "Read the head of this branch or tag");
  show->add_option("--where", args->condition, "Only rows matching this SQL condition");
  show->add_option("--columns", args->columns, "Comma-separated columns to show (default all)");
  args->limit_option = show->add_option("--limit", args->limit, "Show at most N rows");
  show->add_flag("--json", args->json, "One JSON object per row (the same as --format json)");
  show->add_option("--format", args->format, "Output format for rows")
      ->check(CLI::IsMember({"table", "csv", "json", "markdown"}, CLI::ignore_case))
      ->capture_default_str();
  show->add_option("--truncate", args->truncate,
                   "table format: cut cells longer than N characters (0: never)")
      ->capture_default_str();
  return show;
}

Result<std::string> ShowQuery(const ShowArgs& args, const sql::Session& session,
                              const table::Table& table) {
  if (args.limit_option->count() > 0 && args.limit < 0) {
    return Status::Invalid("--limit must be 0 or more, not ", args.limit);
  }
  std::vector<std::string> points;
  if (args.snapshot_option->count() > 0) points.push_back("--snapshot-id");
  if (args.timestamp_option->count() > 0) points.push_back("--timestamp");
  if (args.ref_option->count() > 0) points.push_back("--ref");
  if (points.size() > 1) {
    return Status::Invalid("Cannot set both ", points[0], " and ", points[1],
                           " to select which table snapshot to scan");
  }
  // Resolved here first, so an unknown snapshot, time or ref fails with the engine's message
  // and no position in a query the user did not write.
  std::string from = SqlTableName(session, table.ident());
  std::string travel;
  if (args.snapshot_option->count() > 0) {
    ARROW_RETURN_NOT_OK(
        table::ResolveTimeTravel(table, table::TimeTravelSpec::Snapshot(args.snapshot_id))
            .status());
    travel = " VERSION AS OF " + std::to_string(args.snapshot_id);
  } else if (args.timestamp_option->count() > 0) {
    ARROW_ASSIGN_OR_RAISE(TimeZone zone,
                          TimeZone::Make(session.Setting("spark.sql.session.timeZone", "UTC")));
    ARROW_ASSIGN_OR_RAISE(int64_t ms, ParseTimestampMillis(args.timestamp, zone));
    ARROW_RETURN_NOT_OK(table::ResolveTimeTravel(table, table::TimeTravelSpec::AsOf(ms)).status());
    travel = " TIMESTAMP AS OF " + sql::QuoteString(args.timestamp);
  } else if (args.ref_option->count() > 0) {
    ARROW_ASSIGN_OR_RAISE(auto resolved,
                          table::ResolveTimeTravel(table, table::TimeTravelSpec::Ref(args.ref)));
    // branch_<name> and tag_<name> name the ref unambiguously, even one that looks like a
    // snapshot id; a branch reads with the current schema, a tag with its snapshot's.
    from += "." + sql::QuoteIdentifier((resolved.branch ? "branch_" : "tag_") + args.ref);
  }
  ARROW_ASSIGN_OR_RAISE(std::string select, SelectList(args.columns));
  std::string query = "SELECT " + select + " FROM " + from + travel;
  if (!Trim(args.condition).empty()) query += " WHERE " + args.condition;
  if (args.limit_option->count() > 0) query += " LIMIT " + std::to_string(args.limit);
  return query;
}

int RunShowCommand(const ShowArgs& args, std::ostream& out, std::ostream& err) {
  FormatOptions format;
  auto parsed_format = ParseOutputFormat(args.json ? "json" : args.format);
  if (!parsed_format.ok()) return ReportError(parsed_format.status(), err);
  format.format = *parsed_format;
  format.truncate = args.truncate;
  auto session = OpenSession(args.where);
  if (!session.ok()) return ReportError(session.status(), err);
  auto loaded = LoadTableArgument(**session, args.table);
  if (!loaded.ok()) return ReportError(loaded.status(), err);
  auto query = ShowQuery(args, **session, **loaded);
  if (!query.ok()) return ReportError(query.status(), err);
  auto result = (*session)->Execute(*query);
  if (!result.ok()) {
    // The position points into the generated query: name the query instead.
    return ReportError(
        Status::Invalid(WithoutSqlPosition(result.status()).message(), " (query: ", *query, ")"),
        err);
  }
  auto text = sql::ValueText::Make((*session)->Setting("spark.sql.session.timeZone", "UTC"));
  if (!text.ok()) return ReportError(text.status(), err);
  out << FormatRows(*result->rows, *text, format);
  return 0;
}

}  // namespace floe::cli
