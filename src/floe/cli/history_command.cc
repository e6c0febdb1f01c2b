#include "floe/cli/history_command.h"

#include <memory>
#include <optional>
#include <unordered_set>
#include <vector>

#include <arrow/builder.h>
#include <arrow/table.h>
#include <arrow/type.h>

#include "floe/table/lineage.h"
#include "floe/cli/result_format.h"
#include "floe/cli/short_statement.h"
#include "floe/cli/table_argument.h"
#include "floe/table/history.h"
#include "floe/table/time_travel.h"
#include "floe/util/json_writer.h"
#include "floe/util/number_parse.h"

namespace floe::cli {

namespace {

using spec::Snapshot;
using spec::TableMetadata;

// What a snapshot's summary says, for one row of either output.
struct SnapshotFacts {
  std::optional<int64_t> committed_at_ms;
  std::optional<std::string> operation;
  std::optional<int64_t> added_records, deleted_records, added_data_files, deleted_data_files;
  std::optional<std::string> user, client, statement;
};

SnapshotFacts FactsOf(const Snapshot* s) {
  SnapshotFacts f;
  if (s == nullptr) return f;  // an expired snapshot the log still names
  f.committed_at_ms = s->timestamp_ms;
  if (!s->operation.empty()) f.operation = s->operation;
  auto number = [&](const char* key) -> std::optional<int64_t> {
    auto it = s->summary.find(key);
    return it == s->summary.end() ? std::nullopt : ParseInt64(it->second);
  };
  auto text = [&](const char* key) -> std::optional<std::string> {
    auto it = s->summary.find(key);
    return it == s->summary.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  f.added_records = number("added-records");
  f.deleted_records = number("deleted-records");
  f.added_data_files = number("added-data-files");
  f.deleted_data_files = number("deleted-data-files");
  f.user = text("floe.user");
  f.client = text("floe.client");
  f.statement = text("floe.statement");
  return f;
}

template <typename Builder, typename T>
Status AppendOptional(Builder& b, const std::optional<T>& v) {
  return v ? b.Append(*v) : b.AppendNull();
}

Result<std::shared_ptr<arrow::Table>> HistoryTable(const TableMetadata& md) {
  auto ts = arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
  arrow::TimestampBuilder made(ts, arrow::default_memory_pool()),
      committed(ts, arrow::default_memory_pool());
  arrow::Int64Builder id, parent, added_records, deleted_records, added_files, deleted_files;
  arrow::BooleanBuilder ancestor;
  arrow::StringBuilder operation, user, client, statement;
  for (const table::HistoryRow& row : table::HistoryRows(md)) {
    SnapshotFacts f = FactsOf(md.SnapshotById(row.snapshot_id));
    ARROW_RETURN_NOT_OK(made.Append(row.made_current_at_ms * 1000));
    ARROW_RETURN_NOT_OK(id.Append(row.snapshot_id));
    ARROW_RETURN_NOT_OK(AppendOptional(parent, row.parent_id));
    ARROW_RETURN_NOT_OK(ancestor.Append(row.is_current_ancestor));
    std::optional<int64_t> committed_us;
    if (f.committed_at_ms) committed_us = *f.committed_at_ms * 1000;
    ARROW_RETURN_NOT_OK(AppendOptional(committed, committed_us));
    ARROW_RETURN_NOT_OK(AppendOptional(operation, f.operation));
    ARROW_RETURN_NOT_OK(AppendOptional(added_records, f.added_records));
    ARROW_RETURN_NOT_OK(AppendOptional(deleted_records, f.deleted_records));
    ARROW_RETURN_NOT_OK(AppendOptional(added_files, f.added_data_files));
    ARROW_RETURN_NOT_OK(AppendOptional(deleted_files, f.deleted_data_files));
    ARROW_RETURN_NOT_OK(AppendOptional(user, f.user));
    ARROW_RETURN_NOT_OK(AppendOptional(client, f.client));
    std::optional<std::string> short_statement;
    if (f.statement) short_statement = ShortStatement(*f.statement);
    ARROW_RETURN_NOT_OK(AppendOptional(statement, short_statement));
  }
  std::vector<std::shared_ptr<arrow::Field>> fields = {
      arrow::field("made_current_at", ts),
      arrow::field("snapshot_id", arrow::int64()),
      arrow::field("parent_id", arrow::int64()),
      arrow::field("is_current_ancestor", arrow::boolean()),
      arrow::field("committed_at", ts),
      arrow::field("operation", arrow::utf8()),
      arrow::field("added_records", arrow::int64()),
      arrow::field("deleted_records", arrow::int64()),
      arrow::field("added_data_files", arrow::int64()),
      arrow::field("deleted_data_files", arrow::int64()),
      arrow::field("user", arrow::utf8()),
      arrow::field("client", arrow::utf8()),
      arrow::field("statement", arrow::utf8())};
  std::vector<std::shared_ptr<arrow::Array>> columns(fields.size());
  ARROW_RETURN_NOT_OK(made.Finish(&columns[0]));
  ARROW_RETURN_NOT_OK(id.Finish(&columns[1]));
  ARROW_RETURN_NOT_OK(parent.Finish(&columns[2]));
  ARROW_RETURN_NOT_OK(ancestor.Finish(&columns[3]));
  ARROW_RETURN_NOT_OK(committed.Finish(&columns[4]));
  ARROW_RETURN_NOT_OK(operation.Finish(&columns[5]));
  ARROW_RETURN_NOT_OK(added_records.Finish(&columns[6]));
  ARROW_RETURN_NOT_OK(deleted_records.Finish(&columns[7]));
  ARROW_RETURN_NOT_OK(added_files.Finish(&columns[8]));
  ARROW_RETURN_NOT_OK(deleted_files.Finish(&columns[9]));
  ARROW_RETURN_NOT_OK(user.Finish(&columns[10]));
  ARROW_RETURN_NOT_OK(client.Finish(&columns[11]));
  ARROW_RETURN_NOT_OK(statement.Finish(&columns[12]));
  return arrow::Table::Make(arrow::schema(fields), columns);
}

// The summary facts as members of the object being written.
void WriteFacts(const SnapshotFacts& f, JsonWriter* json) {
  json->Key("committed_at").OptionalTime(f.committed_at_ms);
  json->Key("operation").OptionalString(f.operation);
  json->Key("added_records").OptionalInt64(f.added_records);
  json->Key("deleted_records").OptionalInt64(f.deleted_records);
  json->Key("added_data_files").OptionalInt64(f.added_data_files);
  json->Key("deleted_data_files").OptionalInt64(f.deleted_data_files);
  json->Key("user").OptionalString(f.user);
  json->Key("client").OptionalString(f.client);
  json->Key("statement").OptionalString(f.statement);
}

void PrintJson(const std::string& name, const TableMetadata& md, bool graph, std::ostream& out) {
  JsonWriter json(JsonWriter::Style::kSpaced);
  json.StartObject();
  json.Key("table").String(name);
  json.Key("current_snapshot_id").OptionalInt64(md.current_snapshot_id);
  json.Key("history").StartArray();
  for (const table::HistoryRow& row : table::HistoryRows(md)) {
    json.StartObject();
    json.Key("made_current_at").Time(row.made_current_at_ms);
    json.Key("snapshot_id").Int64(row.snapshot_id);
    json.Key("parent_id").OptionalInt64(row.parent_id);
    json.Key("is_current_ancestor").Bool(row.is_current_ancestor);
    WriteFacts(FactsOf(md.SnapshotById(row.snapshot_id)), &json);
    json.EndObject();
  }
  json.EndArray();
  if (graph) {
    std::unordered_set<int64_t> ancestors;
    for (const Snapshot* s : table::CurrentAncestors(md)) ancestors.insert(s->snapshot_id);
    const std::vector<table::MainJump> jumps = table::MainJumps(md);
    json.Key("snapshots").StartArray();
    for (const table::LineageItem& item : table::LineageOrder(md, jumps)) {
      if (!item.snapshot) continue;
      const Snapshot& s = *item.snapshot;
      json.StartObject();
      json.Key("snapshot_id").Int64(s.snapshot_id);
      json.Key("parent_id").OptionalInt64(s.parent_snapshot_id);
      json.Key("sequence_number").Int64(s.sequence_number);
      json.Key("is_current_ancestor").Bool(ancestors.count(s.snapshot_id) > 0);
      json.Key("refs").StartArray();
      for (const auto& [ref_name, ref] : md.refs) {
        if (ref.snapshot_id == s.snapshot_id) json.String(ref_name);
      }
      json.EndArray();
      WriteFacts(FactsOf(&s), &json);
      json.EndObject();
    }
    json.EndArray();
    json.Key("refs").StartArray();
    for (const auto& [ref_name, ref] : md.refs) {
      json.StartObject();
      json.Key("name").String(ref_name);
      json.Key("type").String(ref.is_branch() ? "branch" : "tag");
      json.Key("snapshot_id").Int64(ref.snapshot_id);
      json.EndObject();
    }
    json.EndArray();
    json.Key("jumps").StartArray();
    for (const table::MainJump& j : jumps) {
      json.StartObject();
      json.Key("branch").String("main");
      json.Key("kind").String(table::MainJumpKindName(j.kind));
      json.Key("from_snapshot_id").Int64(j.from_snapshot_id);
      json.Key("to_snapshot_id").Int64(j.to_snapshot_id);
      json.Key("at").Time(j.at_ms);
      json.EndObject();
    }
    json.EndArray();
  }
  json.EndObject();
  out << json.view() << "\n";
}

}  // namespace

CLI::App* AddHistoryCommand(CLI::App& app, HistoryArgs* args) {
  CLI::App* history = app.add_subcommand(
      "history",
      "Show a table's history: every change of its current snapshot with what the snapshot did "
      "and who made it; --graph draws the lineage of every snapshot with its branches, tags "
      "and the rollbacks of main.");
  AddCatalogOptions(history, &args->where);
  history->add_option("table", args->table, "The table, e.g. db.orders or lakehouse.db.orders")
      ->required();
  history->add_flag("--graph", args->graph,
                    "Draw every snapshot, newest first, with its refs, side lines and rollbacks");
  history->add_flag("--json", args->json, "Print one JSON object");
  return history;
}

int RunHistoryCommand(const HistoryArgs& args, std::ostream& out, std::ostream& err) {
  auto session = OpenSession(args.where);
  if (!session.ok()) return ReportError(session.status(), err);
  auto loaded = LoadTableArgument(**session, args.table);
  if (!loaded.ok()) return ReportError(loaded.status(), err);
  const spec::TableMetadataPtr md = (*loaded)->metadata();
  if (args.json) {
    PrintJson((*loaded)->name(), *md, args.graph, out);
    return 0;
  }
  const std::string zone_name = (*session)->Setting("spark.sql.session.timeZone", "UTC");
  auto zone = TimeZone::Make(zone_name);
  if (!zone.ok()) return ReportError(zone.status(), err);
  if (args.graph) {
    for (const std::string& line : table::DrawLineage(*md, *zone)) out << line << "\n";
    return 0;
  }
  auto rows = HistoryTable(*md);
  if (!rows.ok()) return ReportError(rows.status(), err);
  auto text = sql::ValueText::Make(zone_name);
  if (!text.ok()) return ReportError(text.status(), err);
  out << ShowString(**rows, *text, 0, 0);
  return 0;
}

}  // namespace floe::cli
