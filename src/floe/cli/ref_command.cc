#include "floe/cli/ref_command.h"

#include <cctype>
#include <memory>
#include <optional>

#include <arrow/array.h>
#include <arrow/table.h>

#include "floe/cli/result_format.h"
#include "floe/cli/statement_error.h"
#include "floe/cli/table_argument.h"
#include "floe/sql/parse/ast.h"
#include "floe/util/json_writer.h"

namespace floe::cli {

namespace {

constexpr char kTableHelp[] = "The table, e.g. db.orders or lakehouse.db.orders";

void AddChangeOptions(CLI::App* action, RefArgs* args, bool create) {
  const std::string kind = args->branch ? "branch" : "tag";
  action->add_option("--snapshot-id", args->snapshot_id,
                     "The snapshot the " + kind + " points at (default: the current snapshot)");
  action->add_option("--retain", args->retain,
                     "Remove the " + kind +
                         " when it is older than this: days (7) or a duration (7d, 12h, 30m, 2w)");
  if (args->branch) {
    action->add_option("--min-snapshots", args->min_snapshots,
                       "Expiry keeps at least this many snapshots of the branch");
    action->add_option("--max-snapshot-age", args->max_snapshot_age,
                       "Expiry keeps the branch's snapshots younger than this (7d, 12h, ...)");
  }
  if (create) {
    action->add_flag("--if-not-exists", args->if_not_exists,
                     "Do nothing when the " + kind + " exists");
  } else {
    action->add_flag("--create", args->or_create,
                     "Create the " + kind + " when it does not exist (CREATE OR REPLACE)");
  }
}

// The value of a refs-table column as a number, or nothing for null.
std::optional<int64_t> NumberAt(const arrow::Array& column, int64_t i) {
  if (column.IsNull(i)) return std::nullopt;
  if (column.type_id() == arrow::Type::INT32) {
    return static_cast<const arrow::Int32Array&>(column).Value(i);
  }
  return static_cast<const arrow::Int64Array&>(column).Value(i);
}

int ListRefs(const RefArgs& args, sql::Session& session, const table::Table& table,
             std::ostream& out, std::ostream& err) {
  std::string columns = "name, snapshot_id, max_reference_age_in_ms";
  if (args.branch) columns += ", min_snapshots_to_keep, max_snapshot_age_in_ms";
  const std::string query = "SELECT " + columns + " FROM " + SqlTableName(session, table.ident()) +
                            ".refs WHERE type = '" + (args.branch ? "BRANCH" : "TAG") +
                            "' ORDER BY name";
  auto result = session.Execute(query);
  if (!result.ok()) return ReportError(WithoutSqlPosition(result.status()), err);
  if (!args.json) {
    auto text = sql::ValueText::Make(session.Setting("spark.sql.session.timeZone", "UTC"));
    if (!text.ok()) return ReportError(text.status(), err);
    out << ShowString(*result->rows, *text, 0, 0);
    return 0;
  }
  auto combined = result->rows->CombineChunksToBatch();
  if (!combined.ok()) return ReportError(combined.status(), err);
  const arrow::RecordBatch& rows = **combined;
  const auto& names = static_cast<const arrow::StringArray&>(*rows.column(0));
  JsonWriter json(JsonWriter::Style::kSpaced);
  json.StartObject();
  json.Key("table").String(table.name());
  json.Key(args.branch ? "branches" : "tags").StartArray();
  for (int64_t i = 0; i < rows.num_rows(); ++i) {
    json.StartObject();
    json.Key("name").String(names.GetView(i));
    json.Key("snapshot_id").OptionalInt64(NumberAt(*rows.column(1), i));
    json.Key("max_reference_age_ms").OptionalInt64(NumberAt(*rows.column(2), i));
    if (args.branch) {
      json.Key("min_snapshots_to_keep").OptionalInt64(NumberAt(*rows.column(3), i));
      json.Key("max_snapshot_age_ms").OptionalInt64(NumberAt(*rows.column(4), i));
    }
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  out << json.view() << "\n";
  return 0;
}

}  // namespace

CLI::App* AddRefCommand(CLI::App& app, RefArgs* args) {
  const std::string kind = args->branch ? "branch" : "tag";
  CLI::App* command =
      app.add_subcommand(kind, args->branch ? "Create, replace, drop or list a table's branches."
                                            : "Create, replace, drop or list a table's tags.");
  command->require_subcommand(1);
  args->create = command->add_subcommand("create", "Create a " + kind + " (prints the SQL it ran)");
  args->replace = command->add_subcommand(
      "replace", "Point an existing " + kind + " elsewhere or change its retention");
  args->drop = command->add_subcommand("drop", "Drop a " + kind);
  args->list = command->add_subcommand(
      "list", args->branch ? "List the table's branches" : "List the table's tags");
  for (CLI::App* action : {args->create, args->replace, args->drop, args->list}) {
    AddCatalogOptions(action, &args->where);
    action->add_option("table", args->table, kTableHelp)->required();
    if (action != args->list) {
      action->add_option("name", args->name, "The " + kind + "'s name")->required();
    }
    action->add_flag("--json", args->json, "Print one JSON object");
  }
  AddChangeOptions(args->create, args, true);
  AddChangeOptions(args->replace, args, false);
  args->drop->add_flag("--if-exists", args->if_exists,
                       "Do nothing when the " + kind + " is absent");
  return command;
}

Result<std::string> RefDurationSql(const std::string& text, const std::string& option) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  std::string unit = text.substr(i);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto invalid = [&] {
    return Status::Invalid("Invalid duration '", text, "' for ", option,
                           ": expected days (7) or a number with a unit d, h, m or w (12h)");
  };
  if (i == 0 || i > 12) return invalid();
  const int64_t n = std::stoll(text.substr(0, i));
  if (unit.empty() || unit == "d" || unit == "day" || unit == "days") return StrCat(n, " DAYS");
  if (unit == "h" || unit == "hour" || unit == "hours") return StrCat(n, " HOURS");
  if (unit == "m" || unit == "min" || unit == "minute" || unit == "minutes") {
    return StrCat(n, " MINUTES");
  }
  if (unit == "w" || unit == "week" || unit == "weeks") return StrCat(n * 7, " DAYS");
  return invalid();
}

int RunRefCommand(const RefArgs& args, std::ostream& out, std::ostream& err) {
  auto session = OpenSession(args.where);
  if (!session.ok()) return ReportError(session.status(), err);
  auto loaded = LoadTableArgument(**session, args.table);
  if (!loaded.ok()) return ReportError(loaded.status(), err);
  const table::Table& t = **loaded;
  if (args.list->parsed()) return ListRefs(args, **session, t, out, err);

  const char* kind_sql = args.branch ? "BRANCH" : "TAG";
  const std::string kind = args.branch ? "branch" : "tag";
  std::string action;
  std::string statement = "ALTER TABLE " + SqlTableName(**session, t.ident()) + " ";
  if (args.drop->parsed()) {
    action = "drop";
    statement += StrCat("DROP ", kind_sql, " ", args.if_exists ? "IF EXISTS " : "",
                        sql::QuoteIdentifier(args.name));
  } else {
    const bool create = args.create->parsed();
    action = create ? "create" : "replace";
    statement += create ? "CREATE " : args.or_create ? "CREATE OR REPLACE " : "REPLACE ";
    statement += StrCat(kind_sql, " ", create && args.if_not_exists ? "IF NOT EXISTS " : "",
                        sql::QuoteIdentifier(args.name));
    const CLI::App& options = create ? *args.create : *args.replace;
    if (options.count("--snapshot-id") > 0) {
      statement += StrCat(" AS OF VERSION ", args.snapshot_id);
    }
    if (!args.retain.empty()) {
      auto retain = RefDurationSql(args.retain, "--retain");
      if (!retain.ok()) return ReportError(retain.status(), err);
      statement += " RETAIN " + *retain;
    }
    const bool min_snapshots = args.branch && options.count("--min-snapshots") > 0;
    if (min_snapshots || !args.max_snapshot_age.empty()) {
      statement += " WITH SNAPSHOT RETENTION";
      if (min_snapshots) statement += StrCat(" ", args.min_snapshots, " SNAPSHOTS");
      if (!args.max_snapshot_age.empty()) {
        auto age = RefDurationSql(args.max_snapshot_age, "--max-snapshot-age");
        if (!age.ok()) return ReportError(age.status(), err);
        statement += " " + *age;
      }
    }
  }
  const bool existed = t.metadata()->refs.count(args.name) > 0;
  auto result = (*session)->Execute(statement);
  if (!result.ok()) return ReportError(WithoutSqlPosition(result.status()), err);

  // What the ref points at now, read back from the committed metadata.
  auto reloaded = LoadTableArgument(**session, args.table);
  if (!reloaded.ok()) return ReportError(reloaded.status(), err);
  const auto md = (*reloaded)->metadata();
  auto ref = md->refs.find(args.name);
  std::optional<int64_t> snapshot_id;
  if (ref != md->refs.end()) snapshot_id = ref->second.snapshot_id;
  if (args.json) {
    JsonWriter json(JsonWriter::Style::kSpaced);
    json.StartObject();
    json.Key("table").String(t.name());
    json.Key("type").String(kind);
    json.Key("action").String(action);
    json.Key("name").String(args.name);
    json.Key("snapshot_id").OptionalInt64(snapshot_id);
    json.Key("sql").String(statement);
    json.EndObject();
    out << json.view() << "\n";
    return 0;
  }
  out << statement << "\n";
  const std::string title = (args.branch ? "Branch " : "Tag ") + args.name;
  if (snapshot_id) {
    out << title << " of " << t.name() << " points at snapshot " << *snapshot_id << "\n";
  } else {
    out << title << " of " << t.name() << (existed ? " dropped" : " does not exist") << "\n";
  }
  return 0;
}

}  // namespace floe::cli
