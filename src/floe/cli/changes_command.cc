#include "floe/cli/changes_command.h"

#include <algorithm>
#include <optional>

#include "floe/cli/diff_command.h"
#include "floe/cli/result_format.h"
#include "floe/cli/snapshot_point.h"
#include "floe/cli/sql_command.h"
#include "floe/cli/statement_error.h"
#include "floe/cli/table_argument.h"
#include "floe/scan/changelog_scan.h"
#include "floe/sql/parse/ast.h"
#include "floe/sql/plan/table_changes_function.h"
#include "floe/util/byte_size.h"

namespace floe::cli {

namespace {

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// A column of the current schema as SQL names it: each part quoted as it must be.
std::string ColumnPath(const std::string& name) {
  std::string path;
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    path += (path.empty() ? "" : ".") +
            sql::QuoteIdentifier(name.substr(start, dot == std::string::npos ? dot : dot - start));
    if (dot == std::string::npos) return path;
    start = dot + 1;
  }
}

// A point as table_changes takes it. A ref goes by its name, so a branch stays the head of
// its line of history (a range back along it, as after a rollback, compares the two states);
// an id or a timestamp goes as the snapshot id it resolved to.
std::string PointArgument(const std::string& given, const ResolvedPoint& point) {
  if (point.how.rfind("branch ", 0) == 0 || point.how.rfind("tag ", 0) == 0) {
    return sql::QuoteString(given);
  }
  return std::to_string(point.snapshot_id);
}

// ORDER BY: the change's place in the range, its key, the kind of change (a pair's before
// image first), then the other columns that order (not structs, lists or maps).
std::string OrderBy(const spec::Schema& schema, const std::vector<std::string>& keys) {
  std::vector<std::string> terms = {sql::QuoteIdentifier(scan::kChangeOrdinalColumn)};
  std::vector<int32_t> key_ids;
  for (const std::string& key : keys) {
    const spec::NestedField* field = schema.FindFieldByNameCaseInsensitive(key);
    // An unknown one is table_changes' error to report.
    if (field == nullptr || std::find(key_ids.begin(), key_ids.end(), field->id) != key_ids.end()) {
      continue;
    }
    key_ids.push_back(field->id);
    terms.push_back(ColumnPath(schema.FindColumnName(field->id)));
  }
  terms.push_back(StrCat("CASE ", sql::QuoteIdentifier(scan::kChangeTypeColumn), " WHEN '",
                         scan::kChangeDelete, "' THEN 0 WHEN '", scan::kChangeUpdateBefore,
                         "' THEN 1 WHEN '", scan::kChangeUpdateAfter, "' THEN 2 ELSE 3 END"));
  for (const spec::NestedField& field : schema.fields()) {
    if (!field.type->is_primitive()) continue;
    if (std::find(key_ids.begin(), key_ids.end(), field.id) != key_ids.end()) continue;
    terms.push_back(sql::QuoteIdentifier(field.name));
  }
  return Joined(terms);
}

struct ChangesPlan {
  std::string query;
  std::optional<ResolvedPoint> from, to;
};

// The lines above the rows in the table format: what was compared, and the range.
std::string Heading(const ChangesArgs& args, const table::Table& table,
                    const std::optional<ResolvedPoint>& from,
                    const std::optional<ResolvedPoint>& to, const TimeZone& zone) {
  auto md = table.metadata();
  std::string out = StrCat(args.net ? "Net changes of " : "Changes of ", table.name());
  if (!args.keys.empty()) out += " by key " + Joined(args.keys);
  out += "\n";
  auto line = [&](int64_t id, const std::string& how) {
    const spec::Snapshot* snapshot = md->SnapshotById(id);
    std::string text =
        snapshot != nullptr ? SnapshotLine(*snapshot, zone) : StrCat("snapshot ", id);
    return how == "snapshot id" ? text : text + " (" + how + ")";
  };
  out += "from: ";
  out += from ? line(from->snapshot_id, from->how) : std::string("the table as created");
  out += "\nto:   ";
  if (to) {
    out += line(to->snapshot_id, to->how);
  } else if (md->current_snapshot_id) {
    out += line(*md->current_snapshot_id, "current");
  } else {
    out += "no snapshot yet";
  }
  return out + "\n";
}

Result<ChangesPlan> PlanChanges(const ChangesArgs& args, const sql::Session& session,
                                const table::Table& table) {
  if (args.limit_option != nullptr && args.limit_option->count() > 0 && args.limit < 0) {
    return Status::Invalid("--limit must be 0 or more, not ", args.limit);
  }
  ARROW_ASSIGN_OR_RAISE(TimeZone zone, SessionTimeZone(session));
  ChangesPlan plan;
  std::string from = "NULL", to = "NULL";
  if (args.from_option != nullptr && args.from_option->count() > 0) {
    ARROW_ASSIGN_OR_RAISE(plan.from, ResolvePoint(table, args.from, zone));
    from = PointArgument(args.from, *plan.from);
  }
  if (args.to_option != nullptr && args.to_option->count() > 0) {
    ARROW_ASSIGN_OR_RAISE(plan.to, ResolvePoint(table, args.to, zone));
    to = PointArgument(args.to, *plan.to);
  }
  std::string call =
      StrCat(sql::kTableChangesFunction, "(", sql::QuoteString(table.name()), ", ", from, ", ", to);
  if (args.net) call += ", mode => 'net'";
  if (args.updates_option != nullptr && args.updates_option->count() > 0) {
    call += StrCat(", compute_updates => ", args.updates ? "true" : "false");
  }
  if (!args.keys.empty()) {
    std::vector<std::string> keys;
    for (const std::string& key : args.keys) keys.push_back(sql::QuoteString(key));
    call += ", identifier_columns => array(" + Joined(keys) + ")";
  }
  call += ")";

  // Ordered by the key columns named, else the schema's identifier fields.
  spec::SchemaPtr schema = table.metadata()->current_schema();
  if (!schema) return Status::IOError("Table ", table.name(), " has no current schema");
  std::vector<std::string> order_keys = args.keys;
  if (order_keys.empty()) {
    for (int32_t id : schema->identifier_field_ids()) {
      order_keys.push_back(schema->FindColumnName(id));
    }
  }
  plan.query = "SELECT * FROM " + call + " ORDER BY " + OrderBy(*schema, order_keys);
  if (args.limit_option != nullptr && args.limit_option->count() > 0) {
    plan.query += " LIMIT " + std::to_string(args.limit);
  }
  return plan;
}

}  // namespace

CLI::App* AddChangesCommand(CLI::App& app, ChangesArgs* args) {
  CLI::App* changes = app.add_subcommand(
      "changes",
      "The rows that changed between two points of a table's history, each with the commit that "
      "changed it (the table_changes function). A point is a branch or tag name, else a snapshot "
      "id, else a timestamp (read in --tz). --from is exclusive (default: the table as created), "
      "--to inclusive (default: the current snapshot). With --net, per key the state at --from "
      "against the state at --to, as `floe diff` compares them.");
  AddCatalogOptions(changes, &args->where);
  changes->add_option("table", args->table, "The table, e.g. db.orders or lakehouse.db.orders")
      ->required();
  args->from_option = changes->add_option(
      "--from", args->from, "Changes after this point: a ref, a snapshot id or a timestamp");
  args->to_option = changes->add_option(
      "--to", args->to,
      "Changes up to and including this point: a ref, a snapshot id or a timestamp");
  changes
      ->add_option("--key", args->keys,
                   "Key columns (comma-separated): a key deleted and inserted by one commit is one "
                   "update, shown as UPDATE_BEFORE and UPDATE_AFTER rows")
      ->delimiter(',');
  changes->add_flag("--net", args->net,
                    "Only the net change of each key over the range: the state at --from against "
                    "the state at --to");
  args->updates_option = changes->add_flag(
      "--updates,!--no-updates", args->updates,
      "Show a key's delete and insert as an update (default: with --key) or keep them apart");
  args->limit_option = changes->add_option("--limit", args->limit, "Show at most N rows");
  changes->add_flag("--json", args->json, "One JSON object per row (the same as --format json)");
  changes->add_option("--format", args->format, "Output format for rows")
      ->check(CLI::IsMember({"table", "csv", "json", "markdown"}, CLI::ignore_case))
      ->capture_default_str();
  changes
      ->add_option("--truncate", args->truncate,
                   "table format: cut cells longer than N characters (0: never)")
      ->capture_default_str();
  changes
      ->add_option("--memory-budget", args->memory_budget,
                   "Memory --net and state comparisons work within, e.g. 256MB, 1G")
      ->capture_default_str();
  changes->add_option("--spill-dir", args->spill_directory,
                      "Where rows beyond the budget go (default: $TMPDIR or /tmp)");
  return changes;
}

Result<std::string> ChangesQuery(const ChangesArgs& args, const sql::Session& session,
                                 const table::Table& table) {
  ARROW_ASSIGN_OR_RAISE(ChangesPlan plan, PlanChanges(args, session, table));
  return plan.query;
}

int RunChanges(sql::Session& session, const ChangesArgs& args, std::ostream& out,
               std::ostream& err) {
  auto run = [&]() -> Status {
    FormatOptions format;
    ARROW_ASSIGN_OR_RAISE(format.format, ParseOutputFormat(args.json ? "json" : args.format));
    format.truncate = args.truncate;
    ARROW_RETURN_NOT_OK(ParseByteSize(args.memory_budget).status());
    ARROW_ASSIGN_OR_RAISE(auto table, LoadTableArgument(session, args.table));
    ARROW_ASSIGN_OR_RAISE(ChangesPlan plan, PlanChanges(args, session, *table));
    ARROW_RETURN_NOT_OK(session.SetSetting(sql::kChangesMemoryBudgetKey, args.memory_budget));
    ARROW_RETURN_NOT_OK(session.SetSetting(sql::kChangesSpillDirKey, args.spill_directory));
    auto result = session.Execute(plan.query);
    if (!result.ok()) return WithoutSqlPosition(result.status());
    ARROW_ASSIGN_OR_RAISE(
        auto text, sql::ValueText::Make(session.Setting("spark.sql.session.timeZone", "UTC")));
    if (format.format == OutputFormat::kTable) {
      ARROW_ASSIGN_OR_RAISE(TimeZone zone, SessionTimeZone(session));
      out << Heading(args, *table, plan.from, plan.to, zone);
    }
    out << FormatRows(*result->rows, text, format);
    return Status::OK();
  };
  Status st = run();
  if (!st.ok()) return ReportError(st, err);
  return kExitOk;
}

int RunChangesCommand(const ChangesArgs& args, std::ostream& out, std::ostream& err) {
  auto session = OpenSession(args.where);
  if (!session.ok()) return ReportError(session.status(), err);
  return RunChanges(**session, args, out, err);
}

}  // namespace floe::cli
