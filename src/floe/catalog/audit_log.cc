#include "floe/catalog/audit_log.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include "floe/util/json_writer.h"

namespace floe {

std::string EncodeRefMoves(const std::vector<AuditRefMove>& refs) {
  JsonWriter json(JsonWriter::Style::kCompact);
  json.StartArray();
  for (const auto& ref : refs) {
    json.StartObject().Key("name").String(ref.name);
    json.Key("from").OptionalInt64(ref.from_snapshot_id);
    json.Key("to").OptionalInt64(ref.to_snapshot_id).EndObject();
  }
  json.EndArray();
  return json.Take();
}

Result<std::vector<AuditRefMove>> DecodeRefMoves(std::string_view text) {
  std::vector<AuditRefMove> out;
  if (text.empty()) return out;
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  auto bad = [&](std::string_view why) {
    return Status::IOError("Unreadable refs in floe_audit_log (", why, "): ", text);
  };
  if (doc.HasParseError()) return bad(rapidjson::GetParseError_En(doc.GetParseError()));
  if (!doc.IsArray()) return bad("not an array");
  for (const auto& item : doc.GetArray()) {
    if (!item.IsObject() || !item.HasMember("name") || !item["name"].IsString()) {
      return bad("a ref without a name");
    }
    AuditRefMove ref;
    ref.name.assign(item["name"].GetString(), item["name"].GetStringLength());
    for (auto [key, slot] : {std::pair{"from", &ref.from_snapshot_id},
                             std::pair{"to", &ref.to_snapshot_id}}) {
      auto it = item.FindMember(key);
      if (it == item.MemberEnd() || it->value.IsNull()) continue;
      if (!it->value.IsInt64()) return bad("a snapshot id that is not a number");
      *slot = it->value.GetInt64();
    }
    out.push_back(std::move(ref));
  }
  return out;
}

}  // namespace floe
