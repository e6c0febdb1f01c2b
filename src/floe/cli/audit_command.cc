#include "floe/cli/audit_command.h"

#include <arrow/builder.h>
#include <arrow/table.h>
#include <arrow/type.h>

#include "floe/cli/result_format.h"
#include "floe/cli/short_statement.h"
#include "floe/cli/table_argument.h"
#include "floe/table/audit_log.h"
#include "floe/util/json_writer.h"
#include "floe/util/time_zone.h"

namespace floe::cli {

namespace {

std::string IdText(const std::optional<int64_t>& id) {
  return id ? std::to_string(*id) : "none";
}

// "append; main: 1 -> 2", "v1: none -> 3", "renamed from db.a".
std::string ChangeText(const AuditEntry& e) {
  std::string out = e.operation;
  auto add = [&](const std::string& part) {
    if (part.empty()) return;
    if (!out.empty()) out += "; ";
    out += part;
  };
  for (const auto& ref : e.refs) {
    add(StrCat(ref.name, ": ", IdText(ref.from_snapshot_id), " -> ", IdText(ref.to_snapshot_id)));
  }
  add(e.detail);
  return out;
}

Result<std::shared_ptr<arrow::Table>> TextRows(const std::vector<AuditEntry>& rows) {
  arrow::Int64Builder seq;
  arrow::TimestampBuilder at(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                             arrow::default_memory_pool());
  arrow::StringBuilder table, kind, change, user, client, statement;
  for (const auto& e : rows) {
    ARROW_RETURN_NOT_OK(seq.Append(e.seq));
    ARROW_RETURN_NOT_OK(at.Append(e.at_ms * 1000));
    ARROW_RETURN_NOT_OK(table.Append(e.ident.ToString()));
    ARROW_RETURN_NOT_OK(kind.Append(e.kind));
    ARROW_RETURN_NOT_OK(change.Append(ChangeText(e)));
    std::string who = e.user;
    ARROW_RETURN_NOT_OK(user.Append(who));
    std::string from = e.client;
    if (!e.client_address.empty()) from += " (" + e.client_address + ")";
    ARROW_RETURN_NOT_OK(client.Append(from));
    ARROW_RETURN_NOT_OK(statement.Append(ShortStatement(e.statement)));
  }
  std::vector<std::shared_ptr<arrow::Array>> columns(8);
  ARROW_RETURN_NOT_OK(seq.Finish(&columns[0]));
  ARROW_RETURN_NOT_OK(at.Finish(&columns[1]));
  ARROW_RETURN_NOT_OK(table.Finish(&columns[2]));
  ARROW_RETURN_NOT_OK(kind.Finish(&columns[3]));
  ARROW_RETURN_NOT_OK(change.Finish(&columns[4]));
  ARROW_RETURN_NOT_OK(user.Finish(&columns[5]));
  ARROW_RETURN_NOT_OK(client.Finish(&columns[6]));
  ARROW_RETURN_NOT_OK(statement.Finish(&columns[7]));
  auto schema = arrow::schema(
      {arrow::field("seq", arrow::int64()), arrow::field("changed_at", columns[1]->type()),
       arrow::field("table", arrow::utf8()), arrow::field("kind", arrow::utf8()),
       arrow::field("change", arrow::utf8()), arrow::field("user", arrow::utf8()),
       arrow::field("client", arrow::utf8()), arrow::field("statement", arrow::utf8())});
  return arrow::Table::Make(schema, columns);
}

void WriteText(JsonWriter& json, const char* key, const std::string& value) {
  json.Key(key);
  value.empty() ? json.Null() : json.String(value);
}

void PrintJson(const std::string& catalog, const std::optional<TableIdentifier>& table,
               const std::vector<AuditEntry>& rows, std::optional<int64_t> next_before,
               std::ostream& out) {
  JsonWriter json(JsonWriter::Style::kSpaced);
  json.StartObject().Key("catalog").String(catalog).Key("table");
  table ? json.String(table->ToString()) : json.Null();
  json.Key("entries").StartArray();
  for (const auto& e : rows) {
    json.StartObject();
    json.Key("seq").Int64(e.seq);
    json.Key("changed_at").Time(e.at_ms);
    json.Key("namespace").String(e.ident.ns.ToString());
    json.Key("table_name").String(e.ident.name);
    json.Key("kind").String(e.kind);
    WriteText(json, "operation", e.operation);
    json.Key("previous_snapshot_id").OptionalInt64(e.previous_snapshot_id);
    json.Key("snapshot_id").OptionalInt64(e.snapshot_id);
    json.Key("refs").StartArray();
    for (const auto& ref : e.refs) {
      json.StartObject().Key("name").String(ref.name);
      json.Key("from_snapshot_id").OptionalInt64(ref.from_snapshot_id);
      json.Key("to_snapshot_id").OptionalInt64(ref.to_snapshot_id).EndObject();
    }
    json.EndArray();
    WriteText(json, "user_name", e.user);
    WriteText(json, "client", e.client);
    WriteText(json, "client_address", e.client_address);
    WriteText(json, "application_name", e.application_name);
    WriteText(json, "statement", e.statement);
    WriteText(json, "detail", e.detail);
    json.Key("previous_metadata_location").OptionalString(e.previous_metadata_location);
    json.Key("metadata_location").OptionalString(e.metadata_location);
    json.EndObject();
  }
  json.EndArray();
  json.Key("next_before_seq").OptionalInt64(next_before);
  json.EndObject();
  out << json.view() << "\n";
}

int RunTriggerCommand(const AuditArgs& args, sql::Session& session, std::ostream& out,
                      std::ostream& err) {
  Catalog& catalog = *session.catalog();
  if (args.install_trigger) {
    Status st = catalog.InstallAuditTrigger();
    if (!st.ok()) return ReportError(st, err);
    out << "Audit trigger installed in catalog " << catalog.name()
        << ": every engine's changes are recorded\n";
    return 0;
  }
  if (args.remove_trigger) {
    Status st = catalog.RemoveAuditTrigger();
    if (!st.ok()) return ReportError(st, err);
    out << "Audit trigger removed from catalog " << catalog.name()
        << ": only floe's own changes are recorded from now on\n";
    return 0;
  }
  auto state = catalog.AuditTrigger();
  if (!state.ok()) return ReportError(state.status(), err);
  if (state->installed) {
    out << "Audit trigger: installed (every engine's changes are recorded)\n";
  } else {
    out << "Audit trigger: not installed (" << state->reason
        << "); other engines' changes are not recorded\n";
  }
  return 0;
}

}  // namespace

CLI::App* AddAuditCommand(CLI::App& app, AuditArgs* args) {
  CLI::App* audit = app.add_subcommand(
      "audit",
      "Show the catalog's audit log, newest first: every change of a table's metadata pointer by "
      "any engine (commits, rollbacks, ref, schema and property changes, drops, renames), who "
      "made it and from where.");
  AddCatalogOptions(audit, &args->where);
  audit->add_option("table", args->table,
                    "Only this table's changes, e.g. db.orders (also after it was dropped)");
  audit->add_option("--since", args->since,
                    "Only changes at or after this time, e.g. '2026-01-15 10:00:00' (session zone)");
  audit->add_option("--limit", args->limit, "Show at most this many changes (default 50; 0: all)")
      ->check(CLI::NonNegativeNumber);
  audit->add_option("--before", args->before_seq,
                    "Only changes older than this sequence number: the next page")
      ->check(CLI::PositiveNumber);
  audit->add_flag("--json", args->json, "Print one JSON object");
  auto* trigger = audit->add_flag("--trigger", args->trigger,
                                  "Say whether other engines' changes are recorded");
  auto* install = audit->add_flag(
      "--install-trigger", args->install_trigger,
      "Install the database trigger that records other engines' changes (the default)");
  auto* remove = audit->add_flag("--remove-trigger", args->remove_trigger,
                                 "Remove that trigger: only floe's own changes are recorded");
  trigger->excludes(install)->excludes(remove);
  install->excludes(remove);
  return audit;
}

int RunAuditCommand(const AuditArgs& args, std::ostream& out, std::ostream& err) {
  auto session = OpenSession(args.where);
  if (!session.ok()) return ReportError(session.status(), err);
  if (args.trigger || args.install_trigger || args.remove_trigger) {
    return RunTriggerCommand(args, **session, out, err);
  }
  AuditQuery query;
  if (!args.table.empty()) {
    auto ident = ParseTableArgument(**session, args.table);
    if (!ident.ok()) return ReportError(ident.status(), err);
    query.table = *ident;
  }
  const std::string zone_name = (*session)->Setting("spark.sql.session.timeZone", "UTC");
  if (!args.since.empty()) {
    auto zone = TimeZone::Make(zone_name);
    if (!zone.ok()) return ReportError(zone.status(), err);
    auto since = ParseTimestampMillis(args.since, *zone);
    if (!since.ok()) {
      return ReportError(Status::Invalid("Invalid --since '", args.since,
                                         "': ", since.status().message()),
                         err);
    }
    query.since_ms = *since;
  }
  if (args.before_seq > 0) query.before_seq = args.before_seq;
  query.limit = args.limit;
  Catalog& catalog = *(*session)->catalog();
  if (!catalog.HasAuditLog()) {
    return ReportError(Status::Invalid("Cannot read the audit log: ", catalog.NoAuditLog()), err);
  }
  auto rows = table::ReadAuditLog(catalog, *(*session)->io(), query);
  if (!rows.ok()) return ReportError(rows.status(), err);
  std::optional<int64_t> next_before;
  if (args.limit > 0 && static_cast<int64_t>(rows->size()) == args.limit) {
    next_before = rows->back().seq;
  }
  if (args.json) {
    PrintJson(catalog.name(), query.table, *rows, next_before, out);
    return 0;
  }
  if (rows->empty()) {
    out << "No changes recorded" << (query.table ? " for table " + query.table->ToString() : "")
        << (query.since_ms ? " since " + args.since : "") << "\n";
    return 0;
  }
  auto table = TextRows(*rows);
  if (!table.ok()) return ReportError(table.status(), err);
  auto text = sql::ValueText::Make(zone_name);
  if (!text.ok()) return ReportError(text.status(), err);
  out << ShowString(**table, *text, 0, 0);
  if (next_before) out << "Older changes: floe audit ... --before " << *next_before << "\n";
  return 0;
}

}  // namespace floe::cli
