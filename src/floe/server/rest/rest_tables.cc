#include "floe/server/rest/rest_tables.h"

#include <charconv>
#include <cstdio>
#include <memory>

#include <rapidjson/document.h>

#include "floe/io/object_store.h"
#include "floe/server/rest/rest_errors.h"
#include "floe/server/rest/rest_json.h"
#include "floe/spec/json_document.h"
#include "floe/table/commit.h"
#include "floe/table/metadata_files.h"
#include "floe/table/metadata_update.h"
#include "floe/table/transaction_commit.h"
#include "floe/util/ascii.h"
#include "floe/util/clock.h"
#include "floe/util/json_writer.h"

namespace floe::server::rest {

namespace {

using http::HttpResponse;

// Ok when `ident` can name a table; otherwise the response to send.
std::optional<HttpResponse> CheckTableName(const TableIdentifier& ident) {
  Status valid = ident.Validate();
  if (!valid.ok()) return BadRequest(valid.message());
  if (ident.ns.empty()) {
    return BadRequest("Invalid table identifier " + ident.ToString() +
                      ": a table needs a namespace");
  }
  return std::nullopt;
}

// LoadTableResult and CommitTableResponse: the metadata and where it is (nothing for a staged
// table, which has no file yet).
// `config_json` empty: no config (a CommitTableResponse).
std::string TableResultJson(const std::string& metadata_location, std::string_view metadata_json,
                            std::string_view config_json) {
  JsonWriter json;
  json.StartObject();
  if (!metadata_location.empty()) json.Key("metadata-location").String(metadata_location);
  json.Key("metadata").Raw(metadata_json);
  if (!config_json.empty()) json.Key("config").Raw(config_json);
  json.EndObject();
  return json.Take();
}

// A stable tag for one metadata file served one way, so a client that has it gets 304.
std::string EntityTag(const std::string& metadata_location, const std::string& mode) {
  uint64_t hash = 1469598103934665603ULL;  // FNV-1a
  for (char c : metadata_location + '\n' + mode) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  char text[24];
  std::snprintf(text, sizeof(text), "\"%016llx\"", static_cast<unsigned long long>(hash));
  return text;
}

// Whether If-None-Match names `tag` (or is "*").
bool Matches(const std::optional<std::string>& if_none_match, const std::string& tag) {
  if (!if_none_match) return false;
  std::string_view rest = *if_none_match;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.rfind("W/", 0) == 0) item.remove_prefix(2);
    if (item == "*" || item == tag) return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

// Only the snapshots a branch or tag points at, as Iceberg serves snapshots=refs: the client
// loads the rest when it needs them.
void KeepReferencedSnapshots(spec::TableMetadata* md) {
  std::set<int64_t> referenced;
  for (const auto& [name, ref] : md->refs) referenced.insert(ref.snapshot_id);
  if (md->current_snapshot_id) referenced.insert(*md->current_snapshot_id);
  std::erase_if(md->snapshots,
                [&](const spec::Snapshot& s) { return referenced.count(s.snapshot_id) == 0; });
  md->IndexSnapshots();
}

std::shared_ptr<const table::CommitProvenance> Provenance(const http::HttpRequest& request,
                                                          const std::string& user) {
  auto provenance = std::make_shared<table::CommitProvenance>();
  const auto agent = request.Header("user-agent");
  provenance->client = agent ? "rest (" + *agent + ")" : "rest";
  provenance->user = user;
  provenance->idempotency_key = request.Header("idempotency-key").value_or("");
  provenance->client_address = request.remote_address;
  return provenance;
}

}  // namespace

TableRoutes::TableRoutes(const http::HttpRequest& request,
                         const std::map<std::string, std::string>& query, sql::Session& session,
                         const std::string& user, bool vend_credentials)
    : request_(request),
      query_(query),
      session_(session),
      tables_(session.catalog(), session.io()),
      vend_credentials_(vend_credentials) {
  tables_.set_provenance(Provenance(request, user));
}

std::string TableRoutes::Config(const std::string& location) const {
  const auto asked = request_.Header("x-iceberg-access-delegation");
  if (!vend_credentials_ || !asked || asked->find("vended-credentials") == std::string::npos ||
      !IsObjectStoreLocation(location)) {
    return "{}";
  }
  const ObjectStoreOptions options = WithEnvironment(session_.io()->object_store());
  JsonWriter json;
  json.StartObject();
  auto put = [&](const char* key, const std::string& value) {
    if (!value.empty()) json.Key(key).String(value);
  };
  put("s3.access-key-id", options.access_key_id);
  put("s3.secret-access-key", options.secret_access_key);
  put("s3.session-token", options.session_token);
  put("s3.endpoint", options.endpoint);
  put("client.region", options.region);
  const bool path_style = options.path_style.value_or(!options.endpoint.empty());
  json.Key("s3.path-style-access").String(path_style ? "true" : "false");
  json.EndObject();
  return json.Take();
}

std::string TableRoutes::TableResult(const std::string& metadata_location,
                                     std::string_view metadata_json, bool with_config,
                                     const std::string& location) const {
  return TableResultJson(metadata_location, metadata_json, with_config ? Config(location) : "");
}

std::optional<HttpResponse> TableRoutes::Replay(const std::optional<TableIdentifier>& table,
                                                bool with_metadata, bool with_config) {
  const auto key = request_.Header("idempotency-key");
  if (!key) return std::nullopt;
  if (key->empty() || key->size() > 255) {
    return BadRequest("Invalid Idempotency-Key: expected 1 to 255 characters");
  }
  const int64_t since = NowMillis() - kIdempotencyKeyLifetimeMs;
  auto changes = tables_.catalog()->FindIdempotencyKey(*key, since);
  if (!changes.ok()) return FromStatus(changes.status());
  if (changes->empty()) return std::nullopt;
  if (!with_metadata) return http::NoContentResponse();
  for (const auto& change : *changes) {
    if (table && change.ident.ToString() != table->ToString()) continue;
    if (!change.metadata_location) return http::NoContentResponse();
    auto md = table::ReadMetadataFile(*session_.io(), *change.metadata_location);
    if (!md.ok()) return FromStatus(md.status());
    return http::JsonResponse(
        200, TableResult(*change.metadata_location, spec::WriteTableMetadata(**md), with_config,
                         (*md)->location));
  }
  return BadRequest("Idempotency-Key " + *key + " was used for another request");
}

HttpResponse TableRoutes::Create(const Namespace& ns) {
  auto request = ParseCreateTableRequest(request_.body);
  if (!request.ok()) return BadRequest(request.status().message());
  const TableIdentifier ident(ns, request->name);
  if (auto refused = CheckTableName(ident)) return *refused;
  if (!request->stage_create) {
    if (auto replayed = Replay(ident, true)) return *replayed;
  }
  auto ns_exists = tables_.catalog()->NamespaceExists(ns);
  if (!ns_exists.ok()) return FromStatus(ns_exists.status());
  if (!*ns_exists) return NoSuchNamespace(ns);
  table::CreateTableOptions options;
  options.location = request->location;
  options.location_as_given = true;
  options.properties = request->properties;
  // Iceberg reads the format version from this property and does not keep it.
  if (auto it = options.properties.find("format-version"); it != options.properties.end()) {
    int32_t version = 0;
    const std::string& text = it->second;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
    if (ec != std::errc() || end != text.data() + text.size()) {
      return BadRequest("Invalid format-version '" + text + "': expected 1, 2 or 3");
    }
    options.format_version = version;
    options.properties.erase(it);
  }
  const spec::Schema& schema = *request->schema;
  for (const auto& field : request->partition_fields) {
    const std::string column = schema.FindColumnName(field.source_id);
    if (column.empty()) {
      return BadRequest("Cannot find source column for partition field: " + field.name +
                        " (source id " + std::to_string(field.source_id) + ")");
    }
    options.partition_by.push_back({column, field.transform, field.name});
  }
  for (const auto& field : request->sort_fields) {
    const std::string column = schema.FindColumnName(field.source_id);
    if (column.empty()) {
      return BadRequest("Cannot find source column for sort field: source id " +
                        std::to_string(field.source_id));
    }
    options.sort_by.push_back({column, field.transform, field.direction, field.null_order});
  }
  if (request->stage_create) {
    auto staged = tables_.StageCreate(ident, schema, options);
    if (!staged.ok()) return FromStatus(staged.status());
    return http::JsonResponse(
        200, TableResult("", spec::WriteTableMetadata(**staged), true, (*staged)->location));
  }
  auto created = tables_.CreateTable(ident, schema, options);
  if (!created.ok()) return FromStatus(created.status());
  const auto& table = *created;
  return http::JsonResponse(200, TableResult(table->metadata_location(),
                                             spec::WriteTableMetadata(*table->metadata()), true,
                                             table->metadata()->location));
}

HttpResponse TableRoutes::Load(const TableIdentifier& ident) {
  if (auto refused = CheckTableName(ident)) return *refused;
  std::string mode = "all";
  if (auto it = query_.find("snapshots"); it != query_.end()) {
    mode = it->second;
    if (mode != "all" && mode != "refs") {
      return BadRequest("Invalid snapshots '" + mode + "': expected all or refs");
    }
  }
  auto location = tables_.catalog()->LoadMetadataLocation(ident);
  if (!location.ok()) return FromStatus(location.status());
  // Credentials vended or not make another answer.
  const std::string tag =
      EntityTag(*location, mode + (Config("s3://") == "{}" ? "" : "+vended"));
  if (Matches(request_.Header("if-none-match"), tag)) {
    HttpResponse not_modified;
    not_modified.status = 304;
    not_modified.headers.emplace_back("ETag", tag);
    return not_modified;
  }
  auto file = session_.io()->ReadFile(*location, FileKind::kMetadata);
  if (!file.ok()) return FromStatus(file.status());
  const std::string_view metadata(reinterpret_cast<const char*>((*file)->data()),
                                  static_cast<size_t>((*file)->size()));
  HttpResponse response;
  if (mode == "refs") {
    auto md = spec::ParseTableMetadata(metadata, *location);
    if (!md.ok()) {
      return ErrorResponse(
          500, "ServiceFailureException",
          "Cannot read the metadata file of " + ident.ToString() + ": " + md.status().message());
    }
    KeepReferencedSnapshots(md->get());
    response =
        http::JsonResponse(200, TableResult(*location, spec::WriteTableMetadata(**md), true,
                                            (*md)->location));
  } else {
    // Served as stored; checked to be one JSON object so the answer is well-formed.
    std::string buffer;
    rapidjson::Document doc;
    Status parsed = spec::ParseJsonDocument(metadata, &buffer, &doc);
    if (!parsed.ok() || !doc.IsObject()) {
      return ErrorResponse(500, "ServiceFailureException",
                           "Cannot read the metadata file " + *location + " of " +
                               ident.ToString() + ": " +
                               (parsed.ok() ? "not a JSON object" : parsed.message()));
    }
    auto table_location = doc.FindMember("location");
    response = http::JsonResponse(
        200, TableResult(*location, metadata, true,
                         table_location != doc.MemberEnd() && table_location->value.IsString()
                             ? table_location->value.GetString()
                             : ""));
  }
  response.headers.emplace_back("ETag", tag);
  return response;
}

HttpResponse TableRoutes::Commit(const TableIdentifier& ident) {
  if (auto refused = CheckTableName(ident)) return *refused;
  auto request = ParseCommitTableRequest(request_.body);
  if (!request.ok()) return BadRequest(request.status().message());
  if (request->identifier && request->identifier->ToString() != ident.ToString()) {
    return BadRequest("Invalid commit: the body names table " + request->identifier->ToString() +
                      " but the path names " + ident.ToString());
  }
  if (auto replayed = Replay(ident, true, false)) return *replayed;
  bool creates = false;
  for (const auto& r : request->requirements) {
    creates |= r.kind == table::UpdateRequirement::Kind::kAssertCreate;
  }
  auto loaded = tables_.LoadTable(ident);
  if (!loaded.ok()) {
    if (!IsNotFound(loaded.status()) || !creates) return FromStatus(loaded.status());
    // The commit of a staged create.
    auto md = table::NewTableFromUpdates(request->requirements, request->updates,
                                         tables_.DefaultLocation(ident));
    if (!md.ok()) return FromStatus(md.status());
    auto created = tables_.CreateTableFromMetadata(ident, std::move(*md));
    if (!created.ok()) {
      if (IsAlreadyExists(created.status())) {
        return ErrorResponse(409, "CommitFailedException",
                             "Requirement failed: table already exists");
      }
      return FromStatus(created.status());
    }
    const auto& table = *created;
    return http::JsonResponse(
        200, TableResult(table->metadata_location(), spec::WriteTableMetadata(*table->metadata()),
                         false, ""));
  }
  std::shared_ptr<table::Table> table = *loaded;
  Status committed =
      table::Commit(*table, [&](const spec::TableMetadataPtr& base, std::vector<std::string>*) {
        return table::ApplyTableChanges(base, request->requirements, request->updates);
      });
  if (!committed.ok()) return FromStatus(committed);
  return http::JsonResponse(200, TableResult(table->metadata_location(),
                                             spec::WriteTableMetadata(*table->metadata()), false,
                                             ""));
}

HttpResponse TableRoutes::Exists(const TableIdentifier& ident) {
  if (auto refused = CheckTableName(ident)) return *refused;
  auto exists = tables_.catalog()->TableExists(ident);
  if (!exists.ok()) return FromStatus(exists.status());
  if (!*exists) return NoSuchTable(ident);
  return http::NoContentResponse();
}

HttpResponse TableRoutes::Drop(const TableIdentifier& ident) {
  if (auto refused = CheckTableName(ident)) return *refused;
  bool purge = false;
  if (auto it = query_.find("purgeRequested"); it != query_.end()) {
    // PyIceberg sends Python's spelling, "True".
    const std::string value = AsciiLower(it->second);
    if (value != "true" && value != "false") {
      return BadRequest("Invalid purgeRequested '" + it->second + "': expected true or false");
    }
    purge = value == "true";
  }
  if (auto replayed = Replay(ident, false)) return *replayed;
  auto exists = tables_.catalog()->TableExists(ident);
  if (!exists.ok()) return FromStatus(exists.status());
  if (!*exists) return NoSuchTable(ident);
  auto dropped = tables_.DropTable(ident, purge);
  if (!dropped.ok()) return FromStatus(dropped.status());
  return http::NoContentResponse();
}

HttpResponse TableRoutes::ReportMetrics(const TableIdentifier& ident) {
  if (auto refused = CheckTableName(ident)) return *refused;
  std::string buffer;
  rapidjson::Document doc;
  Status parsed = spec::ParseJsonDocument(request_.body, &buffer, &doc);
  if (!parsed.ok() || !doc.IsObject()) {
    return BadRequest("Malformed metrics report: " +
                      (parsed.ok() ? std::string("expected a JSON object") : parsed.message()));
  }
  return http::NoContentResponse();
}

HttpResponse TableRoutes::Register(const Namespace& ns) {
  auto request = ParseRegisterTableRequest(request_.body);
  if (!request.ok()) return BadRequest(request.status().message());
  const TableIdentifier ident(ns, request->name);
  if (auto refused = CheckTableName(ident)) return *refused;
  if (auto replayed = Replay(ident, true)) return *replayed;
  auto registered = tables_.RegisterTable(ident, request->metadata_location, request->overwrite);
  if (!registered.ok()) return FromStatus(registered.status());
  const auto& table = *registered;
  return http::JsonResponse(200, TableResult(table->metadata_location(),
                                             spec::WriteTableMetadata(*table->metadata()), true,
                                             table->metadata()->location));
}

HttpResponse TableRoutes::Rename() {
  auto request = ParseRenameTableRequest(request_.body);
  if (!request.ok()) return BadRequest(request.status().message());
  if (auto refused = CheckTableName(request->source)) return *refused;
  if (auto refused = CheckTableName(request->destination)) return *refused;
  if (auto replayed = Replay(std::nullopt, false)) return *replayed;
  Status renamed = tables_.RenameTable(request->source, request->destination);
  if (!renamed.ok()) return FromStatus(renamed);
  return http::NoContentResponse();
}

HttpResponse TableRoutes::CommitTransaction() {
  auto request = ParseCommitTransactionRequest(request_.body);
  if (!request.ok()) return BadRequest(request.status().message());
  if (auto replayed = Replay(std::nullopt, false)) return *replayed;
  std::vector<table::TableChange> changes;
  for (auto& change : *request) {
    if (auto refused = CheckTableName(*change.identifier)) return *refused;
    changes.push_back(
        {*change.identifier, std::move(change.requirements), std::move(change.updates)});
  }
  Status committed = table::CommitTableChanges(tables_, changes);
  if (!committed.ok()) return FromStatus(committed);
  return http::NoContentResponse();
}

}  // namespace floe::server::rest
