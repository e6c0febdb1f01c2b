#include "floe/cli/retention_command.h"

#include <cctype>

#include "floe/catalog/catalog.h"
#include "floe/table/retention.h"
#include "floe/util/clock.h"
#include "floe/util/json_writer.h"
#include "floe/util/str_cat.h"

namespace floe::cli {

namespace {

// ISO-8601 in UTC with a Z, milliseconds always shown ("2024-01-15T10:30:00.000Z"), as the
// JSON output carries times.
std::string Iso(int64_t ms) {
  std::string s = FormatMillisUtc(ms);
  if (s.size() > 10) s[10] = 'T';
  return s + "Z";
}

std::string Age(int64_t ms) {
  const int64_t day = 86400000, hour = 3600000, minute = 60000;
  if (ms >= day && ms % day == 0) return StrCat(ms / day, "d");
  if (ms >= day) return StrCat(ms / day, "d ", (ms % day) / hour, "h");
  if (ms >= hour) return StrCat(ms / hour, "h ", (ms % hour) / minute, "m");
  return StrCat(ms / minute, "m");
}

std::string Bytes(int64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

// "ns.t" or "<catalog>.ns.t", as SQL names a table.
Result<TableIdentifier> TableArg(const sql::Session& session, const std::string& name) {
  ARROW_ASSIGN_OR_RAISE(TableIdentifier ident, TableIdentifier::Parse(name));
  if (ident.ns.size() > 1 && ident.ns.levels.front() == session.catalog()->name()) {
    ident.ns.levels.erase(ident.ns.levels.begin());
  }
  return ident;
}

void PrintText(const table::RetentionReport& r, std::ostream& out) {
  out << "table " << r.table << "\n";
  out << "snapshots: " << r.snapshot_count;
  if (r.oldest_snapshot_id) {
    out << ", oldest " << *r.oldest_snapshot_id << " committed "
        << FormatMillisUtc(*r.oldest_timestamp_ms) << " UTC ("
        << Age(r.now_ms - *r.oldest_timestamp_ms) << " ago)";
  }
  out << "\n";
  for (const auto& h : r.refs) {
    out << "  " << (h.is_branch ? "branch " : "tag    ") << h.name << " -> " << h.snapshot_id;
    if (h.is_branch) {
      out << ": readable back to " << FormatMillisUtc(h.oldest_timestamp_ms) << " UTC ("
          << h.ancestors_kept << (h.ancestors_kept == 1 ? " snapshot" : " snapshots")
          << "); after the next expiry back to " << FormatMillisUtc(h.oldest_after_next_expiry_ms)
          << " UTC";
    } else {
      out << " (" << FormatMillisUtc(h.oldest_timestamp_ms) << " UTC)";
    }
    if (h.ref_expires_at_ms)
      out << "; the ref expires at " << FormatMillisUtc(*h.ref_expires_at_ms) << " UTC";
    out << "\n";
  }
  out << "kept only for history: " << r.history_only_files
      << (r.history_only_files == 1 ? " file, " : " files, ") << Bytes(r.history_only_bytes)
      << "\n";
  out << "expiry settings: max-snapshot-age " << Age(r.max_snapshot_age_ms)
      << ", min-snapshots-to-keep " << r.min_snapshots_to_keep << ", max-ref-age "
      << (r.max_ref_age_ms ? Age(*r.max_ref_age_ms) : "forever")
      << (r.gc_enabled ? "" : ", gc.enabled=false (expiry refused)") << "\n";
  if (!r.required_ms) return;
  out << "requirement " << Age(*r.required_ms) << " (readable as of "
      << FormatMillisUtc(r.now_ms - *r.required_ms)
      << " UTC): " << (r.at_risk() ? "AT RISK" : "kept") << "\n";
  for (const auto& p : r.problems) out << "  - " << p << "\n";
}

void PrintJson(const table::RetentionReport& r, std::ostream& out) {
  JsonWriter json(JsonWriter::Style::kSpaced);
  json.StartObject();
  json.Key("table").String(r.table);
  json.Key("checked_at").String(Iso(r.now_ms));
  json.Key("snapshot_count").Int64(r.snapshot_count);
  json.Key("oldest_snapshot");
  if (r.oldest_snapshot_id) {
    json.StartObject();
    json.Key("snapshot_id").Int64(*r.oldest_snapshot_id);
    json.Key("committed_at").String(Iso(*r.oldest_timestamp_ms));
    json.Key("age_ms").Int64(r.now_ms - *r.oldest_timestamp_ms);
    json.EndObject();
  } else {
    json.Null();
  }
  json.Key("refs").StartArray();
  for (const auto& h : r.refs) {
    json.StartObject();
    json.Key("name").String(h.name);
    json.Key("type").String(h.is_branch ? "branch" : "tag");
    json.Key("snapshot_id").Int64(h.snapshot_id);
    json.Key("horizon").String(Iso(h.oldest_timestamp_ms));
    json.Key("oldest_snapshot_id").Int64(h.oldest_snapshot_id);
    json.Key("snapshots").Int64(h.ancestors_kept);
    json.Key("horizon_after_next_expiry").String(Iso(h.oldest_after_next_expiry_ms));
    json.Key("ref_expires_at");
    if (h.ref_expires_at_ms) {
      json.String(Iso(*h.ref_expires_at_ms));
    } else {
      json.Null();
    }
    json.EndObject();
  }
  json.EndArray();
  json.Key("history_only_bytes").Int64(r.history_only_bytes);
  json.Key("history_only_files").Int64(r.history_only_files);
  json.Key("settings").StartObject();
  json.Key("max_snapshot_age_ms").Int64(r.max_snapshot_age_ms);
  json.Key("min_snapshots_to_keep").Int64(r.min_snapshots_to_keep);
  json.Key("max_ref_age_ms").OptionalInt64(r.max_ref_age_ms);
  json.Key("gc_enabled").Bool(r.gc_enabled);
  json.EndObject();
  json.Key("required_ms").OptionalInt64(r.required_ms);
  json.Key("at_risk").Bool(r.at_risk());
  json.Key("problems").StartArray();
  for (const std::string& problem : r.problems) json.String(problem);
  json.EndArray();
  json.EndObject();
  out << json.view() << "\n";
}

}  // namespace

Result<int64_t> ParseDuration(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  const std::string unit = text.substr(i);
  if (i == 0 || i > 12)
    return Status::Invalid("Invalid duration '", text, "': expected a number and a unit, e.g. 90d");
  const int64_t n = std::stoll(text.substr(0, i));
  int64_t scale = 0;
  if (unit == "ms")
    scale = 1;
  else if (unit == "s")
    scale = 1000;
  else if (unit == "m")
    scale = 60000;
  else if (unit == "h")
    scale = 3600000;
  else if (unit == "d")
    scale = 86400000;
  else if (unit == "w")
    scale = 7 * 86400000LL;
  else
    return Status::Invalid("Invalid duration '", text,
                           "': the unit must be one of ms, s, m, h, d, w");
  return n * scale;
}

int RunRetention(sql::Session& session, const std::string& name, const std::string& require,
                 bool json, std::ostream& out, std::ostream& err) {
  std::optional<int64_t> required;
  if (!require.empty()) {
    auto parsed = ParseDuration(require);
    if (!parsed.ok()) {
      err << "Error: " << parsed.status().message() << "\n";
      return 1;
    }
    required = *parsed;
  }
  auto ident = TableArg(session, name);
  auto loaded = ident.ok() ? table::Table::Load(session.catalog(), session.io(), *ident)
                           : Result<std::shared_ptr<table::Table>>(ident.status());
  if (!loaded.ok()) {
    err << "Error: " << loaded.status().message() << "\n";
    return 1;
  }
  auto report = table::CheckRetention(**loaded, required, NowMillis());
  if (!report.ok()) {
    err << "Error: " << report.status().message() << "\n";
    return 1;
  }
  if (json) {
    PrintJson(*report, out);
  } else {
    PrintText(*report, out);
  }
  return report->at_risk() ? 2 : 0;
}

}  // namespace floe::cli
