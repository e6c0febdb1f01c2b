#include "floe/catalog/rest_answers.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace floe {

namespace {

Status Invalid(std::string_view what) {
  return ValidationError("Invalid REST catalog answer: ", what);
}

Result<rapidjson::Document> ParseObject(std::string_view body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) return Invalid("not a JSON object");
  return doc;
}

std::string StringMember(const rapidjson::Value& v, const char* name) {
  if (!v.IsObject()) return "";
  auto it = v.FindMember(name);
  if (it == v.MemberEnd() || !it->value.IsString()) return "";
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

Result<std::vector<std::string>> StringList(const rapidjson::Value& v, std::string_view what) {
  if (!v.IsArray()) return Invalid(StrCat(what, " is not a list"));
  std::vector<std::string> out;
  for (const auto& e : v.GetArray()) {
    if (!e.IsString()) return Invalid(StrCat(what, " holds a non-string"));
    out.emplace_back(e.GetString(), e.GetStringLength());
  }
  return out;
}

// Members whose value is null are left out: a property without a value.
Result<std::map<std::string, std::string>> StringMap(const rapidjson::Value& v,
                                                     std::string_view what) {
  std::map<std::string, std::string> out;
  if (v.IsNull()) return out;
  if (!v.IsObject()) return Invalid(StrCat(what, " is not an object"));
  for (const auto& m : v.GetObject()) {
    if (m.value.IsNull()) continue;
    if (!m.value.IsString()) return Invalid(StrCat(what, " holds a non-string"));
    out.emplace(std::string(m.name.GetString(), m.name.GetStringLength()),
                std::string(m.value.GetString(), m.value.GetStringLength()));
  }
  return out;
}

std::string ToJsonText(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

std::string RestErrorMessage(std::string_view body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (!doc.HasParseError() && doc.IsObject()) {
    auto error = doc.FindMember("error");
    if (error != doc.MemberEnd()) {
      std::string message = StringMember(error->value, "message");
      if (!message.empty()) return message;
      std::string type = StringMember(error->value, "type");
      if (!type.empty()) return type;
    }
  }
  if (body.empty()) return "(no message)";
  return body.size() > 300 ? std::string(body.substr(0, 300)) + "..." : std::string(body);
}

Result<RestListPage> ParseRestListPage(std::string_view body, RestListKind kind) {
  ARROW_ASSIGN_OR_RAISE(auto doc, ParseObject(body));
  RestListPage page;
  page.next_page_token = StringMember(doc, "next-page-token");
  const char* field = kind == RestListKind::kNamespaces ? "namespaces" : "identifiers";
  auto it = doc.FindMember(field);
  if (it == doc.MemberEnd() || !it->value.IsArray()) return Invalid(StrCat("no ", field, " list"));
  for (const auto& entry : it->value.GetArray()) {
    if (kind == RestListKind::kNamespaces) {
      ARROW_ASSIGN_OR_RAISE(auto levels, StringList(entry, "a namespace"));
      page.namespaces.emplace_back(std::move(levels));
      continue;
    }
    auto levels = entry.IsObject() ? entry.FindMember("namespace") : entry.MemberEnd();
    const std::string name = StringMember(entry, "name");
    if (!entry.IsObject() || levels == entry.MemberEnd() || name.empty()) {
      return Invalid("an identifier without namespace or name");
    }
    ARROW_ASSIGN_OR_RAISE(auto ns, StringList(levels->value, "a namespace"));
    page.tables.emplace_back(Namespace(std::move(ns)), name);
  }
  return page;
}

Result<NamespaceProperties> ParseNamespaceProperties(std::string_view body) {
  ARROW_ASSIGN_OR_RAISE(auto doc, ParseObject(body));
  auto it = doc.FindMember("properties");
  if (it == doc.MemberEnd()) return NamespaceProperties{};
  return StringMap(it->value, "properties");
}

Result<CatalogTable> ParseLoadTableResult(std::string_view body) {
  ARROW_ASSIGN_OR_RAISE(auto doc, ParseObject(body));
  CatalogTable table;
  table.metadata_location = StringMember(doc, "metadata-location");
  auto metadata = doc.FindMember("metadata");
  if (metadata == doc.MemberEnd() || !metadata->value.IsObject()) return Invalid("no metadata");
  ARROW_ASSIGN_OR_RAISE(table.metadata, spec::ParseTableMetadata(ToJsonText(metadata->value),
                                                                 table.metadata_location));
  if (auto config = doc.FindMember("config"); config != doc.MemberEnd()) {
    ARROW_ASSIGN_OR_RAISE(table.config, StringMap(config->value, "config"));
  }
  auto creds = doc.FindMember("storage-credentials");
  if (creds == doc.MemberEnd() || creds->value.IsNull()) return table;
  if (!creds->value.IsArray()) return Invalid("storage-credentials is not a list");
  const rapidjson::Value* chosen = nullptr;
  size_t longest = 0;
  for (const auto& c : creds->value.GetArray()) {
    const std::string prefix = StringMember(c, "prefix");
    if (table.metadata->location.rfind(prefix, 0) == 0 && (!chosen || prefix.size() > longest)) {
      longest = prefix.size();
      chosen = &c;
    }
  }
  if (chosen != nullptr) {
    if (auto config = chosen->FindMember("config"); config != chosen->MemberEnd()) {
      ARROW_ASSIGN_OR_RAISE(auto vended, StringMap(config->value, "storage-credentials config"));
      for (auto& [key, value] : vended) table.config[key] = std::move(value);
    }
  }
  return table;
}

Result<std::string> ParseStagedTableLocation(std::string_view body) {
  ARROW_ASSIGN_OR_RAISE(auto doc, ParseObject(body));
  auto metadata = doc.FindMember("metadata");
  std::string location = metadata == doc.MemberEnd() ? "" : StringMember(metadata->value, "location");
  if (location.empty()) return Invalid("the staged table has no location");
  return location;
}

Result<std::pair<std::string, std::string>> ParseHeaderLine(std::string_view text) {
  const size_t colon = text.find(':');
  std::string_view name = text.substr(0, colon == std::string_view::npos ? 0 : colon);
  if (colon == std::string_view::npos || name.empty() ||
      name.find_first_of(" \t\r\n") != std::string_view::npos) {
    return ValidationError("Invalid header ", text, ": expected 'Name: value'");
  }
  std::string_view value = text.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  if (value.find_first_of("\r\n") != std::string_view::npos) {
    return ValidationError("Invalid header ", name, ": its value holds a line break");
  }
  return std::make_pair(std::string(name), std::string(value));
}

}  // namespace floe
