#include "floe/server/rest/rest_json.h"

#include <rapidjson/document.h>

#include "floe/spec/json_document.h"

namespace floe::server::rest {

namespace {

Status ParseObject(std::string_view body, std::string* buffer, rapidjson::Document* doc) {
  Status parsed = spec::ParseJsonDocument(body, buffer, doc);
  if (!parsed.ok()) return Status::Invalid("Malformed request body: ", parsed.message());
  if (!doc->IsObject()) return Status::Invalid("Malformed request body: expected a JSON object");
  return Status::OK();
}

Result<std::vector<std::string>> StringList(const rapidjson::Value& value, const char* field) {
  if (!value.IsArray())
    return Status::Invalid("Cannot parse ", field, ": expected a list of strings");
  std::vector<std::string> out;
  for (const auto& item : value.GetArray()) {
    if (!item.IsString())
      return Status::Invalid("Cannot parse ", field, ": expected a list of strings");
    out.emplace_back(item.GetString(), item.GetStringLength());
  }
  return out;
}

Result<NamespaceProperties> StringMap(const rapidjson::Value& value, const char* field) {
  if (!value.IsObject())
    return Status::Invalid("Cannot parse ", field, ": expected a map of strings");
  NamespaceProperties out;
  for (const auto& member : value.GetObject()) {
    if (!member.value.IsString()) {
      return Status::Invalid("Cannot parse ", field, ": the value of '",
                             std::string(member.name.GetString(), member.name.GetStringLength()),
                             "' is not a string");
    }
    out[std::string(member.name.GetString(), member.name.GetStringLength())] =
        std::string(member.value.GetString(), member.value.GetStringLength());
  }
  return out;
}

}  // namespace

Result<CreateNamespaceRequest> ParseCreateNamespaceRequest(std::string_view body) {
  std::string buffer;
  rapidjson::Document doc;
  ARROW_RETURN_NOT_OK(ParseObject(body, &buffer, &doc));
  CreateNamespaceRequest request;
  auto ns = doc.FindMember("namespace");
  if (ns == doc.MemberEnd()) return Status::Invalid("Cannot parse missing field: namespace");
  ARROW_ASSIGN_OR_RAISE(request.ns.levels, StringList(ns->value, "namespace"));
  auto properties = doc.FindMember("properties");
  if (properties != doc.MemberEnd() && !properties->value.IsNull()) {
    ARROW_ASSIGN_OR_RAISE(request.properties, StringMap(properties->value, "properties"));
  }
  return request;
}

Result<UpdateNamespacePropertiesRequest> ParseUpdateNamespacePropertiesRequest(
    std::string_view body) {
  std::string buffer;
  rapidjson::Document doc;
  ARROW_RETURN_NOT_OK(ParseObject(body, &buffer, &doc));
  UpdateNamespacePropertiesRequest request;
  auto removals = doc.FindMember("removals");
  if (removals != doc.MemberEnd() && !removals->value.IsNull()) {
    ARROW_ASSIGN_OR_RAISE(request.removals, StringList(removals->value, "removals"));
  }
  auto updates = doc.FindMember("updates");
  if (updates != doc.MemberEnd() && !updates->value.IsNull()) {
    ARROW_ASSIGN_OR_RAISE(request.updates, StringMap(updates->value, "updates"));
  }
  return request;
}

Namespace NamespaceFromPathPart(std::string_view decoded) {
  Namespace ns;
  if (decoded.empty()) return ns;
  size_t start = 0;
  while (true) {
    const size_t end = decoded.find('\x1f', start);
    ns.levels.emplace_back(
        decoded.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return ns;
}

}  // namespace floe::server::rest
