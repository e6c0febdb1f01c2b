#include "floe/catalog/rest_catalog_config.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

namespace floe {

namespace {

// Iceberg's clients assume these of a server whose config lists no endpoints.
const std::set<std::string>& DefaultEndpoints() {
  static const std::set<std::string> kDefault = {
      kRestListNamespaces,
      "GET /v1/{prefix}/namespaces/{namespace}",
      "POST /v1/{prefix}/namespaces",
      "POST /v1/{prefix}/namespaces/{namespace}/properties",
      "DELETE /v1/{prefix}/namespaces/{namespace}",
      "GET /v1/{prefix}/namespaces/{namespace}/tables",
      kRestLoadTable,
      "POST /v1/{prefix}/namespaces/{namespace}/tables",
      kRestUpdateTable,
      "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "POST /v1/{prefix}/tables/rename",
      "POST /v1/{prefix}/namespaces/{namespace}/register",
      "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
      kRestCommitTransaction,
  };
  return kDefault;
}

Status MergeStrings(const rapidjson::Value& doc, const char* field,
                    std::map<std::string, std::string>* out) {
  auto it = doc.FindMember(field);
  if (it == doc.MemberEnd() || it->value.IsNull()) return Status::OK();
  if (!it->value.IsObject()) {
    return ValidationError("Invalid REST catalog config: ", field, " is not an object");
  }
  for (const auto& m : it->value.GetObject()) {
    if (!m.value.IsString()) {
      return ValidationError("Invalid REST catalog config: ", field, ".", m.name.GetString(),
                             " is not a string");
    }
    (*out)[std::string(m.name.GetString(), m.name.GetStringLength())] =
        std::string(m.value.GetString(), m.value.GetStringLength());
  }
  return Status::OK();
}

}  // namespace

Result<std::string> RestCatalogBaseUri(std::string_view uri) {
  std::string_view rest;
  std::string scheme;
  if (uri.rfind("rest+http://", 0) == 0) {
    scheme = "http://";
    rest = uri.substr(12);
  } else if (uri.rfind("rest+https://", 0) == 0) {
    scheme = "https://";
    rest = uri.substr(13);
  }
  const size_t host_end = rest.find('/');
  if (scheme.empty() || rest.empty() || host_end == 0 || rest.find_first_of("?#") != rest.npos) {
    return ValidationError("Invalid REST catalog URI ", uri,
                           ": expected rest+http://HOST[:PORT][/PATH] or rest+https://...");
  }
  std::string base = scheme + std::string(rest);
  while (base.size() > scheme.size() && base.back() == '/') base.pop_back();
  return base;
}

Status RestCatalogConfig::Require(std::string_view endpoint, std::string_view uri) const {
  if (Serves(endpoint)) return Status::OK();
  return Status::NotImplemented("The REST catalog at ", uri, " does not serve ", endpoint);
}

Result<RestCatalogConfig> ParseRestCatalogConfig(std::string_view body,
                                                 const std::map<std::string, std::string>& client) {
  rapidjson::Document doc;
  const std::string text(body);
  doc.Parse(text.c_str(), text.size());
  if (doc.HasParseError()) {
    return ValidationError(
        "Invalid REST catalog config: ", rapidjson::GetParseError_En(doc.GetParseError()),
        " at byte ", doc.GetErrorOffset());
  }
  if (!doc.IsObject()) return ValidationError("Invalid REST catalog config: not an object");
  RestCatalogConfig config;
  ARROW_RETURN_NOT_OK(MergeStrings(doc, "defaults", &config.properties));
  for (const auto& [key, value] : client) config.properties[key] = value;
  ARROW_RETURN_NOT_OK(MergeStrings(doc, "overrides", &config.properties));
  if (auto it = config.properties.find("prefix"); it != config.properties.end()) {
    config.prefix = it->second;
  }
  auto endpoints = doc.FindMember("endpoints");
  if (endpoints == doc.MemberEnd() || endpoints->value.IsNull()) {
    config.endpoints = DefaultEndpoints();
  } else {
    if (!endpoints->value.IsArray()) {
      return ValidationError("Invalid REST catalog config: endpoints is not a list");
    }
    for (const auto& e : endpoints->value.GetArray()) {
      if (!e.IsString())
        return ValidationError("Invalid REST catalog config: an endpoint is not a string");
      config.endpoints.emplace(e.GetString(), e.GetStringLength());
    }
  }
  return config;
}

}  // namespace floe
