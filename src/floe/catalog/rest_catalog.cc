#include "floe/catalog/rest_catalog.h"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cstdlib>
#include <random>
#include <set>
#include <thread>

#include "floe/catalog/rest_answers.h"
#include "floe/spec/metadata_diff.h"
#include "floe/spec/table_update_json.h"
#include "floe/util/clock.h"
#include "floe/util/json_writer.h"

namespace floe {

namespace {

constexpr char kUndropRefusal[] =
    "UNDROP needs a catalog that keeps dropped tables; this REST catalog does not";
constexpr char kAuditRefusal[] =
    "The audit log needs a catalog that keeps one; this REST catalog does not (floe keeps it in "
    "the SQL catalogs it opens directly: SQLite, PostgreSQL)";

void WriteNamespace(JsonWriter& json, const Namespace& ns) { json.Strings(ns.levels); }

// Iceberg's Java catalogs answer "exists" for a table's metadata tables (db.t.snapshots) too.
bool IsJavaMetadataTableName(std::string name) {
  static const std::set<std::string> kNames = {
      "entries",     "files",         "data_files",     "delete_files",     "history",
      "metadata_log_entries",         "snapshots",      "refs",             "manifests",
      "partitions",  "all_data_files", "all_delete_files", "all_files",     "all_manifests",
      "all_entries", "position_deletes"};
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return kNames.count(name) > 0;
}

void WriteIdentifier(JsonWriter& json, const TableIdentifier& ident) {
  json.StartObject().Key("namespace");
  WriteNamespace(json, ident.ns);
  json.Key("name").String(ident.name).EndObject();
}

}  // namespace

bool IsRestCatalogUri(std::string_view uri) {
  return uri.rfind("rest+http://", 0) == 0 || uri.rfind("rest+https://", 0) == 0;
}

// The server, its routes, and the rules of every exchange: authentication, retries of what the
// server did not take (429, 503), and errors that name the request.
class RestCatalog::Impl {
 public:
  Impl(std::string uri, std::string base, RestCatalogOptions options,
       std::unique_ptr<RestHttpClient> http)
      : uri_(std::move(uri)),
        base_(std::move(base)),
        options_(std::move(options)),
        http_(std::move(http)) {}

  // How a request ended badly, for the caller to phrase.
  struct Exchange {
    RestHttpReply reply;
    bool answered = false;  // an HTTP answer came back (any status)
  };

  Status Configure(RestCatalogConfig* config) {
    if (!options_.credential.empty()) {
      OAuth2Credential credential = ParseOAuth2Credential(options_.credential);
      credential.scope = options_.scope;
      credential.token_uri =
          options_.oauth2_uri.empty() ? base_ + "/v1/oauth/tokens" : options_.oauth2_uri;
      oauth2_ = std::make_unique<OAuth2Session>(*http_, std::move(credential), NowMillis);
    }
    std::string url = base_ + "/v1/config";
    if (!options_.warehouse.empty()) {
      url += "?warehouse=" + PercentEncodeComponent(options_.warehouse);
    }
    ARROW_ASSIGN_OR_RAISE(auto reply, Send("GET", url, "", "GET /v1/config"));
    if (reply.status != 200) return ErrorOf(reply, "GET /v1/config");
    std::map<std::string, std::string> client;
    if (!options_.warehouse.empty()) client["warehouse"] = options_.warehouse;
    ARROW_ASSIGN_OR_RAISE(*config, ParseRestCatalogConfig(reply.body, client));
    config_ = config;
    // A server may hand out a token in its config (Iceberg's `token` property).
    if (options_.token.empty() && !oauth2_) {
      if (auto it = config->properties.find("token"); it != config->properties.end()) {
        options_.token = it->second;
      }
    }
    if (options_.page_size <= 0) {
      if (auto it = config->properties.find("rest-page-size"); it != config->properties.end()) {
        char* end = nullptr;
        const long long size = std::strtoll(it->second.c_str(), &end, 10);
        if (end != it->second.c_str() && *end == '\0' && size > 0) options_.page_size = size;
      }
    }
    if (auto it = config->properties.find("namespace-separator");
        it != config->properties.end() && !it->second.empty()) {
      separator_ = it->second;
    }
    return Status::OK();
  }

  const std::string& uri() const { return uri_; }
  const RestCatalogConfig& config() const { return *config_; }

  // The URL of a route under /v1/{prefix}/.
  std::string Url(std::string_view route) const {
    std::string url = base_ + "/v1/";
    if (!config_->prefix.empty()) url += config_->prefix + "/";
    url += route;
    return url;
  }

  std::string NamespacePath(const Namespace& ns) const {
    std::string out;
    for (size_t i = 0; i < ns.levels.size(); ++i) {
      if (i > 0) out += separator_;
      out += PercentEncodeComponent(ns.levels[i]);
    }
    return out;
  }

  std::string TablePath(const TableIdentifier& ident) const {
    return "namespaces/" + NamespacePath(ident.ns) + "/tables/" + PercentEncodeComponent(ident.name);
  }

  Status Require(std::string_view endpoint) const { return config_->Require(endpoint, uri_); }

  // One request through the rules above. `endpoint` names it in errors ("GET /v1/...").
  Result<RestHttpReply> Call(std::string_view method, const std::string& url,
                             std::string_view body, std::string_view endpoint,
                             const HttpHeaders& extra = {}) {
    return Send(method, url, body, endpoint, extra);
  }

  // A request whose outcome matters when the answer is lost (a commit): an exchange that
  // failed after the request may have reached the server is CommitStateUnknown, as is a 5xx
  // other than 503.
  Result<RestHttpReply> CallCommit(const std::string& url, std::string_view body,
                                   std::string_view endpoint, const std::string& what) {
    bool maybe_sent = false;
    auto reply = Send("POST", url, body, endpoint, {}, &maybe_sent);
    if (!reply.ok()) {
      if (maybe_sent) {
        return CommitStateUnknown("Commit state of ", what, " is unknown: ",
                                  reply.status().message());
      }
      return reply.status();
    }
    if (reply->status >= 500 && reply->status != 503) {
      return CommitStateUnknown("Commit state of ", what, " is unknown: ", endpoint,
                                " answered ", reply->status, " ", ErrorMessage(*reply));
    }
    return reply;
  }

  // The server's error as a Status: 404 NotFound, 409 AlreadyExists, the rest by kind; the
  // message is the server's, with the request's name.
  Status ErrorOf(const RestHttpReply& reply, std::string_view endpoint) const {
    const std::string message = ErrorMessage(reply);
    switch (reply.status) {
      case 400:
        return ValidationError(message);
      case 404:
        return NotFound(message);
      case 409:
        return AlreadyExists(message);
      case 401:
      case 419:
        return Status::IOError("The REST catalog at ", uri_, " refused ", endpoint,
                               ": not authorized (", reply.status, "): ", message);
      case 403:
        return Status::IOError("The REST catalog at ", uri_, " refused ", endpoint,
                               ": forbidden (403): ", message);
      case 406:
        return Status::NotImplemented("The REST catalog at ", uri_, " does not support ",
                                      endpoint, ": ", message);
      default:
        return Status::IOError("The REST catalog at ", uri_, " failed ", endpoint, ": ",
                               reply.status, " ", message);
    }
  }

  static std::string ErrorMessage(const RestHttpReply& reply) { return RestErrorMessage(reply.body); }

  // An answer that did not read as the spec says, named.
  Status Unreadable(const Status& st, std::string_view endpoint) const {
    return WithContext(st, StrCat("The REST catalog at ", uri_, " answered ", endpoint));
  }

  // Every page of a list (next-page-token).
  Result<std::vector<RestListPage>> Pages(const std::string& url, std::string_view endpoint,
                                          RestListKind kind) {
    std::vector<RestListPage> pages;
    std::string token;
    for (;;) {
      std::string paged = url;
      auto add = [&](const std::string& param) {
        paged += (paged.find('?') == std::string::npos ? "?" : "&") + param;
      };
      // The first page asks for pages too: a server pages only when asked.
      if (options_.page_size > 0) add("pageSize=" + std::to_string(options_.page_size));
      if (!token.empty()) add("pageToken=" + PercentEncodeComponent(token));
      ARROW_ASSIGN_OR_RAISE(auto reply, Call("GET", paged, "", endpoint));
      if (reply.status != 200) return ErrorOf(reply, endpoint);
      auto page = ParseRestListPage(reply.body, kind);
      if (!page.ok()) return Unreadable(page.status(), endpoint);
      std::string next = page->next_page_token;
      pages.push_back(std::move(*page));
      if (next.empty()) break;
      if (next == token) {
        return ValidationError("The REST catalog at ", uri_, " pages ", endpoint,
                               " without end (page token ", next, " again)");
      }
      token = std::move(next);
    }
    return pages;
  }

  bool vended_credentials() const { return options_.vended_credentials; }

 private:
  Result<RestHttpReply> Send(std::string_view method, const std::string& url, std::string_view body,
                             std::string_view endpoint, const HttpHeaders& extra = {},
                             bool* maybe_sent = nullptr) {
    if (maybe_sent) *maybe_sent = false;
    int64_t wait_ms = 100;
    bool reauthorized = false;
    for (int attempt = 1;; ++attempt) {
      HttpHeaders headers = extra;
      if (!body.empty()) headers.emplace_back("Content-Type", "application/json");
      if (oauth2_) {
        ARROW_ASSIGN_OR_RAISE(std::string token, oauth2_->Token());
        headers.emplace_back("Authorization", "Bearer " + token);
      } else if (!options_.token.empty()) {
        headers.emplace_back("Authorization", "Bearer " + options_.token);
      }
      bool sent = false;
      auto reply = http_->Send(method, url, headers, body, &sent);
      if (maybe_sent) *maybe_sent = *maybe_sent || sent;
      if (!reply.ok()) {
        // A request that never reached the server is safe to try again.
        if (!sent && attempt < options_.max_attempts) {
          Backoff(&wait_ms, "");
          continue;
        }
        return Status::IOError("Cannot reach the REST catalog at ", uri_, " (", endpoint,
                               "): ", reply.status().message());
      }
      if (reply->status == 401 && oauth2_ && !reauthorized) {
        oauth2_->Invalidate();  // a token revoked or expired early: one more with a new one
        reauthorized = true;
        continue;
      }
      if ((reply->status == 429 || reply->status == 503) && attempt < options_.max_attempts) {
        auto retry_after = reply->headers.find("retry-after");
        Backoff(&wait_ms, retry_after == reply->headers.end() ? "" : retry_after->second);
        continue;
      }
      return reply;
    }
  }

  static void Backoff(int64_t* wait_ms, const std::string& retry_after) {
    int64_t ms = *wait_ms;
    if (!retry_after.empty() &&
        std::all_of(retry_after.begin(), retry_after.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
        retry_after.size() < 6) {
      ms = std::min<int64_t>(std::stoll(retry_after) * 1000, 30000);
    }
    static thread_local std::mt19937 jitter(std::random_device{}());
    ms += std::uniform_int_distribution<int64_t>(0, ms / 10)(jitter);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    *wait_ms = std::min<int64_t>(*wait_ms * 2, 5000);
  }

  const std::string uri_;
  const std::string base_;
  RestCatalogOptions options_;
  std::unique_ptr<RestHttpClient> http_;
  std::unique_ptr<OAuth2Session> oauth2_;
  const RestCatalogConfig* config_ = nullptr;
  std::string separator_ = "%1F";
};

Result<std::unique_ptr<RestCatalog>> RestCatalog::Open(const std::string& catalog_uri,
                                                       std::string name,
                                                       RestCatalogOptions options) {
  ARROW_ASSIGN_OR_RAISE(std::string base, RestCatalogBaseUri(catalog_uri));
  RestHttpOptions http;
  http.ca_file = options.ca_file;
  http.timeout_ms = options.timeout_ms;
  http.headers = options.headers;
  if (!options.user_agent.empty()) http.headers.emplace_back("User-Agent", options.user_agent);
  ARROW_ASSIGN_OR_RAISE(auto client, RestHttpClient::Make(std::move(http)));
  std::string warehouse = options.warehouse;
  auto impl = std::make_unique<Impl>(catalog_uri, std::move(base), std::move(options),
                                     std::move(client));
  std::unique_ptr<RestCatalog> catalog(new RestCatalog(std::move(name), std::move(impl)));
  ARROW_RETURN_NOT_OK(catalog->impl_->Configure(&catalog->config_));
  catalog->warehouse_ = std::move(warehouse);
  return catalog;
}

RestCatalog::RestCatalog(std::string name, std::unique_ptr<Impl> impl)
    : name_(std::move(name)), impl_(std::move(impl)) {}

RestCatalog::~RestCatalog() = default;

Status RestCatalog::CreateNamespace(const Namespace& ns, const NamespaceProperties& properties) {
  constexpr char kEndpoint[] = "POST /v1/{prefix}/namespaces";
  ARROW_RETURN_NOT_OK(impl_->Require(kEndpoint));
  JsonWriter json;
  json.StartObject().Key("namespace");
  WriteNamespace(json, ns);
  json.Key("properties").StartObject();
  for (const auto& [key, value] : properties) json.Key(key).String(value);
  json.EndObject().EndObject();
  ARROW_ASSIGN_OR_RAISE(auto reply, impl_->Call("POST", impl_->Url("namespaces"), json.view(), kEndpoint));
  if (reply.status == 200) return Status::OK();
  if (reply.status == 409) return AlreadyExists("Namespace already exists: ", ns.ToString());
  return impl_->ErrorOf(reply, kEndpoint);
}

Result<bool> RestCatalog::NamespaceExists(const Namespace& ns) {
  if (ns.empty()) return true;
  constexpr char kHead[] = "HEAD /v1/{prefix}/namespaces/{namespace}";
  constexpr char kGet[] = "GET /v1/{prefix}/namespaces/{namespace}";
  const bool head = impl_->config().Serves(kHead);
  if (!head) ARROW_RETURN_NOT_OK(impl_->Require(kGet));
  ARROW_ASSIGN_OR_RAISE(auto reply, impl_->Call(head ? "HEAD" : "GET",
                                                impl_->Url("namespaces/" + impl_->NamespacePath(ns)),
                                                "", head ? kHead : kGet));
  if (reply.status == 200 || reply.status == 204) return true;
  if (reply.status == 404) return false;
  return impl_->ErrorOf(reply, head ? kHead : kGet);
}

Result<std::vector<Namespace>> RestCatalog::ListNamespaces(const Namespace& parent) {
  ARROW_RETURN_NOT_OK(impl_->Require(kRestListNamespaces));
  std::string url = impl_->Url("namespaces");
  if (!parent.empty()) url += "?parent=" + impl_->NamespacePath(parent);
  ARROW_ASSIGN_OR_RAISE(auto pages, impl_->Pages(url, kRestListNamespaces, RestListKind::kNamespaces));
  std::vector<Namespace> out;
  for (auto& page : pages) {
    for (auto& ns : page.namespaces) out.push_back(std::move(ns));
  }
  std::sort(out.begin(), out.end(),
            [](const Namespace& a, const Namespace& b) { return a.levels < b.levels; });
  return out;
}

Result<NamespaceProperties> RestCatalog::LoadNamespaceProperties(const Namespace& ns) {
  constexpr char kEndpoint[] = "GET /v1/{prefix}/namespaces/{namespace}";
  ARROW_RETURN_NOT_OK(impl_->Require(kEndpoint));
  ARROW_ASSIGN_OR_RAISE(auto reply, impl_->Call("GET", impl_->Url("namespaces/" + impl_->NamespacePath(ns)),
                                                "", kEndpoint));
  if (reply.status == 404) return NotFound("Namespace does not exist: ", ns.ToString());
  if (reply.status != 200) return impl_->ErrorOf(reply, kEndpoint);
  auto properties = ParseNamespaceProperties(reply.body);
  if (!properties.ok()) return impl_->Unreadable(properties.status(), kEndpoint);
  return properties;
}

Status RestCatalog::UpdateNamespaceProperties(const Namespace& ns, const NamespaceProperties& set,
                                              const std::vector<std::string>& remove) {
  constexpr char kEndpoint[] = "POST /v1/{prefix}/namespaces/{namespace}/properties";
  ARROW_RETURN_NOT_OK(impl_->Require(kEndpoint));
  JsonWriter json;
  json.StartObject().Key("removals").Strings(remove).Key("updates").StartObject();
  for (const auto& [key, value] : set) json.Key(key).String(value);
  json.EndObject().EndObject();
  ARROW_ASSIGN_OR_RAISE(
      auto reply, impl_->Call("POST", impl_->Url("namespaces/" + impl_->NamespacePath(ns) + "/properties"),
                              json.view(), kEndpoint));
  if (reply.status == 404) return NotFound("Namespace does not exist: ", ns.ToString());
  if (reply.status != 200) return impl_->ErrorOf(reply, kEndpoint);
  return Status::OK();
}

Status RestCatalog::DropNamespace(const Namespace& ns) {
  constexpr char kEndpoint[] = "DELETE /v1/{prefix}/namespaces/{namespace}";
  ARROW_RETURN_NOT_OK(impl_->Require(kEndpoint));
  ARROW_ASSIGN_OR_RAISE(auto reply, impl_->Call("DELETE", impl_->Url("namespaces/" + impl_->NamespacePath(ns)),
                                                "", kEndpoint));
  if (reply.status == 200 || reply.status == 204) return Status::OK();
  if (reply.status == 404) return NotFound("Namespace does not exist: ", ns.ToString());
  if (reply.status == 409) return ValidationError("Namespace not empty: ", ns.ToString());
  return impl_->ErrorOf(reply, kEndpoint);
}

namespace {

// Registers a metadata file as a table, over an existing one with `overwrite`.
Status Register(RestCatalog::Impl& impl, const TableIdentifier& ident, const std::string& location,
                bool overwrite) {
  constexpr char kEndpoint[] = "POST /v1/{prefix}/namespaces/{namespace}/register";
  ARROW_RETURN_NOT_OK(impl.Require(kEndpoint));
  JsonWriter json;
  json.StartObject().Key("name").String(ident.name).Key("metadata-location").String(location);
  if (overwrite) json.Key("overwrite").Bool(true);
  json.EndObject();
  ARROW_ASSIGN_OR_RAISE(
      auto reply, impl.Call("POST", impl.Url("namespaces/" + impl.NamespacePath(ident.ns) + "/register"),
                            json.view(), kEndpoint));
  if (reply.status == 200) return Status::OK();
  if (reply.status == 409) return AlreadyExists("Table already exists: ", ident.ToString());
  if (reply.status == 404) return NotFound(RestCatalog::Impl::ErrorMessage(reply));
  return impl.ErrorOf(reply, kEndpoint);
}

// A LoadTableResult (or a commit's answer), named when it does not read.
Result<CatalogTable> ReadLoadedTable(RestCatalog::Impl& impl, const RestHttpReply& reply,
                                     std::string_view endpoint, const TableIdentifier& ident) {
  auto table = ParseLoadTableResult(reply.body);
  if (!table.ok()) {
    return impl.Unreadable(table.status(), StrCat(endpoint, " for table ", ident.ToString()));
  }
  return table;
}

}  // namespace

Status RestCatalog::CreateTableEntry(const TableIdentifier& ident,
                                     const std::string& metadata_location) {
  return Register(*impl_, ident, metadata_location, false);
}

Result<CatalogTable> RestCatalog::LoadTable(const TableIdentifier& ident) {
  ARROW_RETURN_NOT_OK(impl_->Require(kRestLoadTable));
  HttpHeaders headers;
  if (impl_->vended_credentials()) {
    headers.emplace_back("X-Iceberg-Access-Delegation", "vended-credentials");
  }
  ARROW_ASSIGN_OR_RAISE(auto reply, impl_->Call("GET", impl_->Url(impl_->TablePath(ident)) + "?snapshots=all",
                                                "", kRestLoadTable, headers));
  if (reply.status == 404) {
    // The server says which is missing: the table or its namespace.
    std::string message = Impl::ErrorMessage(reply);
    if (message.find("amespace") == std::string::npos) {
      message = "Table does not exist: " + ident.ToString();
    }
    return NotFound(message);
  }
  if (reply.status != 200) return impl_->ErrorOf(reply, kRestLoadTable);
  return ReadLoadedTable(*impl_, reply, kRestLoadTable, ident);
}

Result<std::string> RestCatalog::LoadMetadataLocation(const TableIdentifier& ident) {
  ARROW_ASSIGN_OR_RAISE(CatalogTable table, LoadTable(ident));
  return table.metadata_location;
}

Result<bool> RestCatalog::TableExists(const TableIdentifier& ident) {
  constexpr char kHead[] = "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}";
  if (!impl_->config().Serves(kHead) || IsJavaMetadataTableName(ident.name)) {
    auto table = LoadTable(ident);
    if (table.ok()) return true;
    if (IsNotFound(table.status())) return false;
    return table.status();
  }
  ARROW_ASSIGN_OR_RAISE(auto reply, impl_->Call("HEAD", impl_->Url(impl_->TablePath(ident)), "", kHead));
  if (reply.status == 200 || reply.status == 204) return true;
  if (reply.status == 404) return false;
  return impl_->ErrorOf(reply, kHead);
}

Result<std::vector<TableIdentifier>> RestCatalog::ListTables(const Namespace& ns) {
  constexpr char kEndpoint[] = "GET /v1/{prefix}/namespaces/{namespace}/tables";
  ARROW_RETURN_NOT_OK(impl_->Require(kEndpoint));
  auto pages = impl_->Pages(impl_->Url("namespaces/" + impl_->NamespacePath(ns) + "/tables"),
                            kEndpoint, RestListKind::kTables);
  if (!pages.ok() && IsNotFound(pages.status())) {
    return NotFound("Namespace does not exist: ", ns.ToString());
  }
  ARROW_RETURN_NOT_OK(pages.status());
  std::vector<TableIdentifier> out;
  for (auto& page : *pages) {
    for (auto& ident : page.tables) out.push_back(std::move(ident));
  }
  std::sort(out.begin(), out.end(), [](const TableIdentifier& a, const TableIdentifier& b) {
    return a.ToString() < b.ToString();
  });
  return out;
}

Status RestCatalog::SwapMetadataLocation(const TableIdentifier& ident,
                                         const std::string& expected_location,
                                         const std::string& new_location) {
  ARROW_ASSIGN_OR_RAISE(std::string current, LoadMetadataLocation(ident));
  if (current != expected_location) {
    return CommitConflict("Cannot commit ", ident.ToString(), ": its metadata moved to ", current);
  }
  return Register(*impl_, ident, new_location, true);
}

Status RestCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to) {
  constexpr char kEndpoint[] = "POST /v1/{prefix}/tables/rename";
  ARROW_RETURN_NOT_OK(impl_->Require(kEndpoint));
  JsonWriter json;
  json.StartObject().Key("source");
  WriteIdentifier(json, from);
  json.Key("destination");
  WriteIdentifier(json, to);
  json.EndObject();
  ARROW_ASSIGN_OR_RAISE(auto reply, impl_->Call("POST", impl_->Url("tables/rename"), json.view(), kEndpoint));
  if (reply.status == 200 || reply.status == 204) return Status::OK();
  if (reply.status == 409) return AlreadyExists("Table already exists: ", to.ToString());
  if (reply.status == 404) {
    std::string message = Impl::ErrorMessage(reply);
    if (message.find("amespace") == std::string::npos) {
      message = "Table does not exist: " + from.ToString();
    }
    return NotFound(message);
  }
  return impl_->ErrorOf(reply, kEndpoint);
}

Result<std::string> RestCatalog::DropTableEntry(const TableIdentifier& ident) {
  constexpr char kEndpoint[] = "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}";
  ARROW_RETURN_NOT_OK(impl_->Require(kEndpoint));
  ARROW_ASSIGN_OR_RAISE(std::string location, LoadMetadataLocation(ident));
  ARROW_ASSIGN_OR_RAISE(auto reply, impl_->Call("DELETE", impl_->Url(impl_->TablePath(ident)) + "?purgeRequested=false",
                                                "", kEndpoint));
  if (reply.status == 200 || reply.status == 204) return location;
  if (reply.status == 404) return NotFound("Table does not exist: ", ident.ToString());
  return impl_->ErrorOf(reply, kEndpoint);
}

Result<std::optional<DroppedTable>> RestCatalog::FindDroppedTable(const TableIdentifier&) {
  return Status::NotImplemented(kUndropRefusal);
}

Result<std::vector<DroppedTable>> RestCatalog::ListDroppedTables(const std::optional<Namespace>&) {
  return Status::NotImplemented(kUndropRefusal);
}

Result<std::vector<AuditEntry>> RestCatalog::ReadAuditLog(const AuditQuery&) {
  return Status::NotImplemented(kAuditRefusal);
}

std::string RestCatalog::NoAuditLog() const {
  return StrCat("catalog ", name(), " is a REST catalog, which keeps no audit log");
}

Result<AuditTriggerState> RestCatalog::AuditTrigger() {
  return AuditTriggerState{false, false, NoAuditLog()};
}

Status RestCatalog::InstallAuditTrigger() {
  return Status::NotImplemented(kAuditRefusal);
}

Result<CatalogTable> RestCatalog::CommitTable(const TableIdentifier& ident,
                                              const spec::TableMetadata* base,
                                              const spec::TableMetadata& updated) {
  ARROW_RETURN_NOT_OK(impl_->Require(kRestUpdateTable));
  ARROW_ASSIGN_OR_RAISE(spec::TableChanges changes, base ? spec::DiffTableMetadata(*base, updated)
                                                         : spec::CreateTableChanges(updated));
  const std::string body = spec::CommitRequestToJson(changes.requirements, changes.updates);
  const std::string what = name() + "." + ident.ToString();
  ARROW_ASSIGN_OR_RAISE(auto reply,
                        impl_->CallCommit(impl_->Url(impl_->TablePath(ident)), body, kRestUpdateTable, what));
  if (reply.status == 409) {
    if (!base) return AlreadyExists("Table already exists: ", ident.ToString());
    return CommitConflict("Cannot commit ", what, ": ", Impl::ErrorMessage(reply));
  }
  if (reply.status == 404) {
    std::string message = Impl::ErrorMessage(reply);
    if (message.find("amespace") == std::string::npos) {
      message = "Table does not exist: " + ident.ToString();
    }
    return NotFound(message);
  }
  if (reply.status != 200) return impl_->ErrorOf(reply, kRestUpdateTable);
  ARROW_ASSIGN_OR_RAISE(CatalogTable committed, ReadLoadedTable(*impl_, reply, kRestUpdateTable, ident));
  if (!base) {
    // A commit's answer carries no credentials: a new table is loaded for its own.
    auto loaded = LoadTable(ident);
    if (loaded.ok()) committed.config = std::move(loaded->config);
  }
  return committed;
}

Status RestCatalog::CommitTables(const std::vector<TableCommit>& commits) {
  ARROW_RETURN_NOT_OK(impl_->Require(kRestCommitTransaction));
  std::string body = "{\"table-changes\":[";
  std::string what;
  for (size_t i = 0; i < commits.size(); ++i) {
    const TableCommit& c = commits[i];
    ARROW_ASSIGN_OR_RAISE(spec::TableChanges changes,
                          c.base ? spec::DiffTableMetadata(*c.base, *c.updated)
                                 : spec::CreateTableChanges(*c.updated));
    if (i > 0) body += ",";
    body += spec::CommitRequestToJson(changes.requirements, changes.updates,
                                      spec::CommitTarget{c.ident.ns.levels, c.ident.name});
    what += (i > 0 ? ", " : "") + c.ident.ToString();
  }
  body += "]}";
  what = StrCat("the transaction of ", name(), " (", what, ")");
  ARROW_ASSIGN_OR_RAISE(auto reply, impl_->CallCommit(impl_->Url("transactions/commit"), body,
                                                      kRestCommitTransaction, what));
  if (reply.status == 200 || reply.status == 204) return Status::OK();
  if (reply.status == 409) {
    return CommitConflict("Cannot commit ", what, ": ", Impl::ErrorMessage(reply));
  }
  return impl_->ErrorOf(reply, kRestCommitTransaction);
}

Result<std::string> RestCatalog::NewTableLocation(const TableIdentifier& ident) {
  constexpr char kEndpoint[] = "POST /v1/{prefix}/namespaces/{namespace}/tables";
  ARROW_RETURN_NOT_OK(impl_->Require(kEndpoint));
  // A staged create: the server places the table and remembers nothing.
  JsonWriter json;
  json.StartObject().Key("name").String(ident.name).Key("schema").StartObject();
  json.Key("type").String("struct").Key("schema-id").Int64(0).Key("fields").StartArray().EndArray();
  json.EndObject().Key("stage-create").Bool(true).EndObject();
  HttpHeaders headers;
  if (impl_->vended_credentials()) {
    headers.emplace_back("X-Iceberg-Access-Delegation", "vended-credentials");
  }
  ARROW_ASSIGN_OR_RAISE(
      auto reply, impl_->Call("POST", impl_->Url("namespaces/" + impl_->NamespacePath(ident.ns) + "/tables"),
                              json.view(), kEndpoint, headers));
  if (reply.status == 409) return AlreadyExists("Table already exists: ", ident.ToString());
  if (reply.status == 404) return NotFound("Namespace does not exist: ", ident.ns.ToString());
  if (reply.status != 200) return impl_->ErrorOf(reply, kEndpoint);
  auto location = ParseStagedTableLocation(reply.body);
  if (!location.ok()) {
    return impl_->Unreadable(location.status(), StrCat(kEndpoint, " for table ", ident.ToString()));
  }
  return location;
}

}  // namespace floe
