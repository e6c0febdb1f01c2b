#pragma once

// What a REST catalog floe opens says of itself: the base URI a `rest+http://` or
// `rest+https://` catalog URI names, and GET /v1/config's answer merged with the client's own
// properties as the Iceberg REST spec says (the server's defaults, then the client's, then the
// server's overrides), with the endpoints it serves.

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "floe/util/status.h"

namespace floe {

// "rest+http://host:port/path" -> "http://host:port/path" (no trailing slash); the same for
// rest+https. Anything else: `Invalid REST catalog URI ...: expected rest+http://HOST[:PORT][/PATH]
// or rest+https://...`.
Result<std::string> RestCatalogBaseUri(std::string_view catalog_uri);

// "GET /v1/{prefix}/namespaces", as the config's `endpoints` lists them.
inline constexpr char kRestListNamespaces[] = "GET /v1/{prefix}/namespaces";
inline constexpr char kRestLoadTable[] = "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}";
inline constexpr char kRestUpdateTable[] =
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}";
inline constexpr char kRestCommitTransaction[] = "POST /v1/{prefix}/transactions/commit";

struct RestCatalogConfig {
  std::map<std::string, std::string> properties;
  // The `prefix` property: the path segment after /v1 of every route (empty: none).
  std::string prefix;
  // Those the server listed; a server that lists none serves Iceberg's default set.
  std::set<std::string> endpoints;

  bool Serves(std::string_view endpoint) const {
    return endpoints.count(std::string(endpoint)) > 0;
  }
  // OK when served; else `The REST catalog at <uri> does not serve <endpoint>`.
  Status Require(std::string_view endpoint, std::string_view uri) const;
};

// Reads GET /v1/config's body ({"defaults": {...}, "overrides": {...}, "endpoints": [...]}) and
// merges `client` properties between the two maps.
Result<RestCatalogConfig> ParseRestCatalogConfig(std::string_view body,
                                                 const std::map<std::string, std::string>& client);

}  // namespace floe
