#include "floe/table/run_manifest.h"

#include <set>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "floe/util/time_zone.h"

namespace floe::table {

Result<RunManifest> BuildRunManifest(const std::vector<std::shared_ptr<Table>>& tables,
                                     int64_t run_started_at_ms) {
  RunManifest out;
  out.run_started_at_ms = run_started_at_ms;
  std::set<std::string> seen;
  for (const auto& t : tables) {
    auto md = t->metadata();
    const spec::Snapshot* snap = md->current_snapshot();
    if (!snap) return ValidationError("Table ", t->name(), " has no current snapshot to record");
    if (!seen.insert(t->name()).second)
      return ValidationError("Table ", t->name(), " is listed twice");
    out.sources.push_back({t->name(), snap->snapshot_id, snap->timestamp_ms, md->table_uuid});
  }
  return out;
}

std::string RunManifestToJson(const RunManifest& m) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("run_started_at");
  w.String(FormatMillisIso(m.run_started_at_ms));
  w.Key("run_started_at_ms");
  w.Int64(m.run_started_at_ms);
  w.Key("sources");
  w.StartObject();
  for (const auto& s : m.sources) {
    w.Key(s.table.data(), static_cast<rapidjson::SizeType>(s.table.size()));
    w.StartObject();
    w.Key("snapshot_id");
    w.Int64(s.snapshot_id);
    w.Key("committed_at");
    w.String(FormatMillis(s.committed_at_ms, TimeZone::Utc()));
    w.Key("committed_at_ms");
    w.Int64(s.committed_at_ms);
    if (!s.table_uuid.empty()) {
      w.Key("table_uuid");
      w.String(s.table_uuid);
    }
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

Result<RunManifest> RunManifestFromJson(std::string_view json) {
  auto bad = [](const std::string& why) { return Status::Invalid("Invalid run manifest: ", why); };
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError())
    return bad("not JSON (at offset " + std::to_string(doc.GetErrorOffset()) + ")");
  if (!doc.IsObject()) return bad("not a JSON object");
  RunManifest out;
  auto started = doc.FindMember("run_started_at_ms");
  if (started != doc.MemberEnd()) {
    if (!started->value.IsInt64()) return bad("run_started_at_ms is not an integer");
    out.run_started_at_ms = started->value.GetInt64();
  }
  auto sources = doc.FindMember("sources");
  if (sources == doc.MemberEnd() || !sources->value.IsObject()) return bad("no \"sources\" object");
  for (auto& m : sources->value.GetObject()) {
    std::string name(m.name.GetString(), m.name.GetStringLength());
    if (!m.value.IsObject()) return bad("source " + name + " is not an object");
    RunManifestSource s;
    s.table = name;
    auto id = m.value.FindMember("snapshot_id");
    if (id == m.value.MemberEnd() || !id->value.IsInt64()) {
      return bad("source " + name + " has no integer snapshot_id");
    }
    s.snapshot_id = id->value.GetInt64();
    auto at = m.value.FindMember("committed_at_ms");
    if (at != m.value.MemberEnd() && at->value.IsInt64()) s.committed_at_ms = at->value.GetInt64();
    auto uuid = m.value.FindMember("table_uuid");
    if (uuid != m.value.MemberEnd() && uuid->value.IsString())
      s.table_uuid = uuid->value.GetString();
    out.sources.push_back(std::move(s));
  }
  return out;
}

Status WriteRunManifest(FileIO& io, const std::string& location, const RunManifest& manifest) {
  return io.WriteFile(location, FileKind::kOther, RunManifestToJson(manifest));
}

Result<RunManifest> ReadRunManifest(FileIO& io, const std::string& location) {
  ARROW_ASSIGN_OR_RAISE(auto buffer, io.ReadFile(location, FileKind::kOther));
  auto parsed = RunManifestFromJson(std::string_view(reinterpret_cast<const char*>(buffer->data()),
                                                     static_cast<size_t>(buffer->size())));
  if (!parsed.ok()) return WithContext(parsed.status(), location);
  return parsed;
}

const RunManifestSource* FindRunManifestSource(const RunManifest& manifest,
                                               const std::string& table_name) {
  for (const auto& s : manifest.sources) {
    if (s.table == table_name) return &s;
  }
  return nullptr;
}

Result<ResolvedSnapshot> ResolveRunManifestSource(const Table& table,
                                                  const RunManifestSource& source) {
  auto md = table.metadata();
  if (!source.table_uuid.empty() && md->table_uuid != source.table_uuid) {
    return ValidationError("Table ", source.table,
                           " is not the table the run manifest recorded (uuid ", md->table_uuid,
                           " != ", source.table_uuid, ")");
  }
  auto resolved = ResolveTimeTravel(md, TimeTravelSpec::Snapshot(source.snapshot_id));
  if (!resolved.ok()) return WithContext(resolved.status(), "Table " + source.table);
  return resolved;
}

Result<std::vector<ResolvedSource>> ResolveRunManifest(TableCatalog& catalog,
                                                       const RunManifest& manifest) {
  std::vector<ResolvedSource> out;
  const std::string prefix = catalog.catalog()->name() + ".";
  for (const auto& s : manifest.sources) {
    if (s.table.compare(0, prefix.size(), prefix) != 0) {
      return ValidationError("Run manifest source ", s.table, " is in another catalog, not ",
                             catalog.catalog()->name());
    }
    ARROW_ASSIGN_OR_RAISE(auto ident, TableIdentifier::Parse(s.table.substr(prefix.size())));
    ARROW_ASSIGN_OR_RAISE(auto table, catalog.LoadTable(ident));
    ARROW_ASSIGN_OR_RAISE(ResolvedSnapshot resolved, ResolveRunManifestSource(*table, s));
    out.push_back({std::move(table), std::move(resolved)});
  }
  return out;
}

}  // namespace floe::table
