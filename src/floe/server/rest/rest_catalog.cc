#include "floe/server/rest/rest_catalog.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <arrow/buffer.h>
#include <rapidjson/document.h>

#include "floe/io/file_io.h"
#include "floe/server/http/url_encoding.h"
#include "floe/server/rest/rest_errors.h"
#include "floe/server/rest/rest_json.h"
#include "floe/server/rest/rest_tables.h"
#include "floe/spec/json_document.h"
#include "floe/util/json_writer.h"
#include "floe/util/utf8.h"

namespace floe::server::rest {

namespace {

using http::HttpRequest;
using http::HttpResponse;
using http::JsonResponse;

// Iceberg's own Namespace.toString joins levels with dots, as floe names them.
std::string Name(const Namespace& ns) { return ns.ToString(); }

void WriteNamespace(JsonWriter& json, const Namespace& ns) { json.Strings(ns.levels); }

void WriteProperties(JsonWriter& json, const NamespaceProperties& properties) {
  json.StartObject();
  for (const auto& [key, value] : properties) json.Key(key).String(value);
  json.EndObject();
}

// The page a list answers: pageToken (absent: no paging; "": the first page) is the name of
// the last entry of the previous page, so pages stay right when entries come and go between
// requests; pageSize a positive number (absent: all the rest).
struct Page {
  std::optional<std::string> token;
  std::optional<size_t> size;
};

Result<Page> ReadPage(const std::map<std::string, std::string>& query) {
  Page page;
  if (auto it = query.find("pageToken"); it != query.end()) page.token = it->second;
  if (auto it = query.find("pageSize"); it != query.end()) {
    const std::string& text = it->second;
    size_t size = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), size);
    if (ec != std::errc() || end != text.data() + text.size() || size == 0) {
      return Status::Invalid("Invalid pageSize '", text, "': expected a positive number");
    }
    page.size = size;
    if (!page.token) page.token = "";
  }
  return page;
}

// The names after page.token, at most page.size of them; `next` is the token of the page
// after, when there is one.
std::vector<std::string> TakePage(const std::vector<std::string>& sorted_names, const Page& page,
                                  std::optional<std::string>* next) {
  auto begin = sorted_names.begin();
  if (page.token && !page.token->empty()) {
    begin = std::upper_bound(sorted_names.begin(), sorted_names.end(), *page.token);
  }
  auto end = sorted_names.end();
  if (page.size && static_cast<size_t>(end - begin) > *page.size) {
    end = begin + static_cast<std::ptrdiff_t>(*page.size);
    *next = *(end - 1);
  }
  return std::vector<std::string>(begin, end);
}

class Handler {
 public:
  Handler(const HttpRequest& request, sql::Session& session, const std::string& user,
          bool vend_credentials)
      : request_(request),
        catalog_(*session.catalog()),
        session_(session),
        user_(user),
        vend_credentials_(vend_credentials) {}

  HttpResponse Run() {
    auto query = http::ParseQuery(request_.query);
    if (!query) return BadRequest("Malformed query string: " + request_.query);
    for (const auto& [key, value] : *query) {
      if (!IsValidUtf8(key) || !IsValidUtf8(value)) {
        return BadRequest("Malformed query string: " + request_.query);
      }
    }
    query_ = std::move(*query);
    std::vector<std::string> segments;
    std::string_view path = request_.path;
    if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    size_t start = 1;
    while (start <= path.size()) {
      size_t end = path.find('/', start);
      if (end == std::string_view::npos) end = path.size();
      auto decoded = http::PercentDecode(path.substr(start, end - start));
      // Names become JSON strings and file paths: only UTF-8 is taken.
      if (!decoded || !IsValidUtf8(*decoded)) return BadRequest("Malformed path: " + request_.path);
      segments.push_back(std::move(*decoded));
      start = end + 1;
    }
    const std::string& method = request_.method;
    auto route = [&](std::initializer_list<const char*> allowed) -> std::optional<HttpResponse> {
      for (const char* m : allowed) {
        if (method == m) return std::nullopt;
      }
      std::string allow;
      for (const char* m : allowed) allow += (allow.empty() ? "" : ", ") + std::string(m);
      HttpResponse response = ErrorResponse(
          405, "MethodNotAllowedException",
          "Method " + method + " is not allowed on " + request_.path + "; allowed: " + allow);
      response.headers.emplace_back("Allow", allow);
      return response;
    };
    const size_t n = segments.size();
    if (n >= 2 && segments[0] == "v1") {
      if (n == 2 && segments[1] == "config") {
        if (auto refused = route({"GET"})) return *refused;
        return Config();
      }
      if (n == 3 && segments[1] == "tables" && segments[2] == "rename") {
        if (auto refused = route({"POST"})) return *refused;
        return Tables().Rename();
      }
      if (n == 3 && segments[1] == "transactions" && segments[2] == "commit") {
        if (auto refused = route({"POST"})) return *refused;
        return Tables().CommitTransaction();
      }
      if (segments[1] == "namespaces") {
        if (n == 2) {
          if (auto refused = route({"GET", "POST"})) return *refused;
          return method == "GET" ? ListNamespaces() : CreateNamespace();
        }
        const Namespace ns = NamespaceFromPathPart(segments[2]);
        if (n == 3) {
          if (auto refused = route({"GET", "HEAD", "DELETE"})) return *refused;
          if (method == "GET") return LoadNamespace(ns);
          if (method == "HEAD") return NamespaceExists(ns);
          return DropNamespace(ns);
        }
        if (n == 4 && segments[3] == "properties") {
          if (auto refused = route({"POST"})) return *refused;
          return UpdateProperties(ns);
        }
        if (n == 4 && segments[3] == "tables") {
          if (auto refused = route({"GET", "POST"})) return *refused;
          return method == "GET" ? ListTables(ns) : Tables().Create(ns);
        }
        if (n == 4 && segments[3] == "register") {
          if (auto refused = route({"POST"})) return *refused;
          return Tables().Register(ns);
        }
        if (n == 5 && segments[3] == "tables") {
          if (auto refused = route({"GET", "HEAD", "POST", "DELETE"})) return *refused;
          const TableIdentifier ident(ns, segments[4]);
          if (method == "GET") return Tables().Load(ident);
          if (method == "HEAD") return Tables().Exists(ident);
          if (method == "POST") return Tables().Commit(ident);
          return Tables().Drop(ident);
        }
        if (n == 6 && segments[3] == "tables" && segments[5] == "metrics") {
          if (auto refused = route({"POST"})) return *refused;
          return Tables().ReportMetrics(TableIdentifier(ns, segments[4]));
        }
      }
    }
    return ErrorResponse(404, "NotFoundException",
                         "No route for " + method + " " + request_.path +
                             " (this server serves the endpoints its /v1/config lists)");
  }

 private:
  HttpResponse Config() {
    JsonWriter json;
    json.StartObject();
    json.Key("defaults").StartObject().EndObject();
    json.Key("overrides").StartObject().EndObject();
    json.Key("endpoints").Strings(ServedEndpoints());
    json.Key("idempotency-key-lifetime").String(kIdempotencyKeyLifetime);
    json.EndObject();
    return JsonResponse(200, json.Take());
  }

  // Ok when `ns` is a valid name that exists; otherwise the response to send.
  std::optional<HttpResponse> RequireNamespace(const Namespace& ns) {
    Status valid = ns.Validate();
    if (!valid.ok()) return BadRequest(valid.message());
    auto exists = catalog_.NamespaceExists(ns);
    if (!exists.ok()) return FromStatus(exists.status());
    if (!*exists) return NoSuchNamespace(ns);
    return std::nullopt;
  }

  HttpResponse ListNamespaces() {
    Namespace parent;
    if (auto it = query_.find("parent"); it != query_.end()) {
      parent = NamespaceFromPathPart(it->second);
      if (!parent.empty()) {
        if (auto refused = RequireNamespace(parent)) return *refused;
      }
    }
    auto page = ReadPage(query_);
    if (!page.ok()) return BadRequest(page.status().message());
    auto children = catalog_.ListNamespaces(parent);
    if (!children.ok()) return FromStatus(children.status());
    // Children of one parent differ in their last level only.
    std::vector<std::string> names;
    for (const auto& child : *children) names.push_back(child.levels.back());
    std::sort(names.begin(), names.end());
    std::optional<std::string> next;
    const std::vector<std::string> shown = TakePage(names, *page, &next);
    JsonWriter json;
    json.StartObject().Key("namespaces").StartArray();
    for (const auto& name : shown) {
      Namespace child = parent;
      child.levels.push_back(name);
      WriteNamespace(json, child);
    }
    json.EndArray();
    if (page->token) json.Key("next-page-token").OptionalString(next);
    json.EndObject();
    return JsonResponse(200, json.Take());
  }

  HttpResponse CreateNamespace() {
    auto request = ParseCreateNamespaceRequest(request_.body);
    if (!request.ok()) return BadRequest(request.status().message());
    Status valid = request->ns.ValidateNew();
    if (!valid.ok()) return BadRequest(valid.message());
    Status created = catalog_.CreateNamespace(request->ns, request->properties);
    if (!created.ok()) return FromStatus(created);
    auto properties = catalog_.LoadNamespaceProperties(request->ns);
    if (!properties.ok()) return FromStatus(properties.status());
    JsonWriter json;
    json.StartObject().Key("namespace");
    WriteNamespace(json, request->ns);
    json.Key("properties");
    WriteProperties(json, *properties);
    json.EndObject();
    return JsonResponse(200, json.Take());
  }

  HttpResponse LoadNamespace(const Namespace& ns) {
    if (auto refused = RequireNamespace(ns)) return *refused;
    auto properties = catalog_.LoadNamespaceProperties(ns);
    if (!properties.ok()) return FromStatus(properties.status());
    JsonWriter json;
    json.StartObject().Key("namespace");
    WriteNamespace(json, ns);
    json.Key("properties");
    WriteProperties(json, *properties);
    json.EndObject();
    return JsonResponse(200, json.Take());
  }

  HttpResponse NamespaceExists(const Namespace& ns) {
    if (auto refused = RequireNamespace(ns)) return *refused;
    return http::NoContentResponse();
  }

  HttpResponse DropNamespace(const Namespace& ns) {
    if (auto refused = RequireNamespace(ns)) return *refused;
    auto tables = catalog_.ListTables(ns);
    if (!tables.ok()) return FromStatus(tables.status());
    if (!tables->empty()) {
      return ErrorResponse(409, "NamespaceNotEmptyException",
                           "Namespace " + Name(ns) + " is not empty. " +
                               std::to_string(tables->size()) + " tables exist.");
    }
    auto children = catalog_.ListNamespaces(ns);
    if (!children.ok()) return FromStatus(children.status());
    if (!children->empty()) {
      return ErrorResponse(409, "NamespaceNotEmptyException",
                           "Namespace " + Name(ns) + " is not empty. " +
                               std::to_string(children->size()) + " namespaces exist.");
    }
    Status dropped = catalog_.DropNamespace(ns);
    if (!dropped.ok()) {
      // A table or namespace created in between.
      if (dropped.message().rfind("Namespace not empty", 0) == 0) {
        return ErrorResponse(409, "NamespaceNotEmptyException", dropped.message());
      }
      return FromStatus(dropped);
    }
    return http::NoContentResponse();
  }

  HttpResponse UpdateProperties(const Namespace& ns) {
    auto request = ParseUpdateNamespacePropertiesRequest(request_.body);
    if (!request.ok()) return BadRequest(request.status().message());
    std::set<std::string> both;
    for (const auto& key : request->removals) {
      if (request->updates.count(key)) both.insert(key);
    }
    if (!both.empty()) {
      std::string keys;
      for (const auto& key : both) keys += (keys.empty() ? "" : ", ") + key;
      return ErrorResponse(
          422, "UnprocessableEntityException",
          "Invalid namespace update, cannot simultaneously set and remove keys: [" + keys + "]");
    }
    if (auto refused = RequireNamespace(ns)) return *refused;
    auto before = catalog_.LoadNamespaceProperties(ns);
    if (!before.ok()) return FromStatus(before.status());
    std::set<std::string> removals(request->removals.begin(), request->removals.end());
    std::vector<std::string> removed, missing, updated;
    for (const auto& key : removals) (before->count(key) ? removed : missing).push_back(key);
    for (const auto& [key, value] : request->updates) updated.push_back(key);
    Status changed = catalog_.UpdateNamespaceProperties(
        ns, request->updates, std::vector<std::string>(removals.begin(), removals.end()));
    if (!changed.ok()) return FromStatus(changed);
    JsonWriter json;
    json.StartObject();
    json.Key("updated").Strings(updated);
    json.Key("removed").Strings(removed);
    json.Key("missing").Strings(missing);
    json.EndObject();
    return JsonResponse(200, json.Take());
  }

  HttpResponse ListTables(const Namespace& ns) {
    if (auto refused = RequireNamespace(ns)) return *refused;
    auto page = ReadPage(query_);
    if (!page.ok()) return BadRequest(page.status().message());
    auto tables = catalog_.ListTables(ns);
    if (!tables.ok()) return FromStatus(tables.status());
    std::vector<std::string> names;
    for (const auto& table : *tables) names.push_back(table.name);
    std::sort(names.begin(), names.end());
    std::optional<std::string> next;
    const std::vector<std::string> shown = TakePage(names, *page, &next);
    JsonWriter json;
    json.StartObject().Key("identifiers").StartArray();
    for (const auto& name : shown) {
      json.StartObject().Key("namespace");
      WriteNamespace(json, ns);
      json.Key("name").String(name).EndObject();
    }
    json.EndArray();
    if (page->token) json.Key("next-page-token").OptionalString(next);
    json.EndObject();
    return JsonResponse(200, json.Take());
  }

  TableRoutes Tables() { return TableRoutes(request_, query_, session_, user_, vend_credentials_); }

  const HttpRequest& request_;
  Catalog& catalog_;
  sql::Session& session_;
  const std::string& user_;
  const bool vend_credentials_;
  std::map<std::string, std::string> query_;
};

}  // namespace

const std::vector<std::string>& ServedEndpoints() {
  static const std::vector<std::string> endpoints = {
      "GET /v1/{prefix}/namespaces",
      "POST /v1/{prefix}/namespaces",
      "GET /v1/{prefix}/namespaces/{namespace}",
      "HEAD /v1/{prefix}/namespaces/{namespace}",
      "DELETE /v1/{prefix}/namespaces/{namespace}",
      "POST /v1/{prefix}/namespaces/{namespace}/properties",
      "GET /v1/{prefix}/namespaces/{namespace}/tables",
      "POST /v1/{prefix}/namespaces/{namespace}/tables",
      "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "POST /v1/{prefix}/namespaces/{namespace}/register",
      "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
      "POST /v1/{prefix}/tables/rename",
      "POST /v1/{prefix}/transactions/commit",
  };
  return endpoints;
}

HttpResponse RestCatalog::Handle(const HttpRequest& request, sql::Session& session,
                                 const std::string& user) {
  return Handler(request, session, user, vend_credentials_).Run();
}

}  // namespace floe::server::rest
