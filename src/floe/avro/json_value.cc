#include "floe/avro/json_value.h"

#include <rapidjson/error/en.h>

#include "floe/avro/json_internal.h"

namespace floe::avro {

JsonValue JsonValue::Bool(bool v) {
  JsonValue j;
  j.kind_ = Kind::kBool;
  j.bool_ = v;
  return j;
}

JsonValue JsonValue::Int(int64_t v) {
  JsonValue j;
  j.kind_ = Kind::kInt;
  j.int_ = v;
  return j;
}

JsonValue JsonValue::Double(double v) {
  JsonValue j;
  j.kind_ = Kind::kDouble;
  j.double_ = v;
  return j;
}

JsonValue JsonValue::String(std::string v) {
  JsonValue j;
  j.kind_ = Kind::kString;
  j.string_ = std::move(v);
  return j;
}

JsonValue JsonValue::Array(std::vector<JsonValue> items) {
  JsonValue j;
  j.kind_ = Kind::kArray;
  j.items_ = std::move(items);
  return j;
}

JsonValue JsonValue::Object(std::vector<Member> members) {
  JsonValue j;
  j.kind_ = Kind::kObject;
  j.members_ = std::move(members);
  return j;
}

Result<JsonValue> JsonValue::Parse(std::string_view text) {
  rapidjson::Document doc;
  ARROW_RETURN_NOT_OK(internal::ParseJsonDocument(text, &doc));
  return internal::FromRapidJson(doc);
}

const JsonValue* JsonValue::Find(std::string_view key) const {
  for (const auto& [k, v] : members_) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string JsonValue::ToJson() const {
  rapidjson::StringBuffer buffer;
  internal::JsonWriter writer(buffer);
  internal::WriteJson(*this, &writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

bool operator==(const JsonValue& a, const JsonValue& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case JsonValue::Kind::kNull:
      return true;
    case JsonValue::Kind::kBool:
      return a.bool_ == b.bool_;
    case JsonValue::Kind::kInt:
      return a.int_ == b.int_;
    case JsonValue::Kind::kDouble:
      return a.double_ == b.double_;
    case JsonValue::Kind::kString:
      return a.string_ == b.string_;
    case JsonValue::Kind::kArray:
      return a.items_ == b.items_;
    case JsonValue::Kind::kObject:
      return a.members_ == b.members_;
  }
  return false;
}

namespace internal {

Status ParseJsonDocument(std::string_view text, rapidjson::Document* doc) {
  doc->Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseFullPrecisionFlag>(text.data(),
                                                                                 text.size());
  if (doc->HasParseError()) {
    return Status::Invalid("invalid JSON at offset ", doc->GetErrorOffset(), ": ",
                           rapidjson::GetParseError_En(doc->GetParseError()));
  }
  return Status::OK();
}

Result<JsonValue> FromRapidJson(const rapidjson::Value& v, int depth) {
  if (depth > kMaxJsonDepth) return Status::Invalid("JSON nested deeper than ", kMaxJsonDepth);
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return JsonValue::Null();
    case rapidjson::kFalseType:
      return JsonValue::Bool(false);
    case rapidjson::kTrueType:
      return JsonValue::Bool(true);
    case rapidjson::kNumberType:
      if (v.IsInt64()) return JsonValue::Int(v.GetInt64());
      return JsonValue::Double(v.GetDouble());
    case rapidjson::kStringType:
      return JsonValue::String(std::string(v.GetString(), v.GetStringLength()));
    case rapidjson::kArrayType: {
      std::vector<JsonValue> items;
      items.reserve(v.Size());
      for (const auto& item : v.GetArray()) {
        ARROW_ASSIGN_OR_RAISE(auto converted, FromRapidJson(item, depth + 1));
        items.push_back(std::move(converted));
      }
      return JsonValue::Array(std::move(items));
    }
    case rapidjson::kObjectType: {
      std::vector<JsonValue::Member> members;
      members.reserve(v.MemberCount());
      for (const auto& m : v.GetObject()) {
        ARROW_ASSIGN_OR_RAISE(auto converted, FromRapidJson(m.value, depth + 1));
        members.emplace_back(std::string(m.name.GetString(), m.name.GetStringLength()),
                             std::move(converted));
      }
      return JsonValue::Object(std::move(members));
    }
  }
  return Status::Invalid("unknown JSON value type");
}

void WriteJson(const JsonValue& v, JsonWriter* w) {
  switch (v.kind()) {
    case JsonValue::Kind::kNull:
      w->Null();
      break;
    case JsonValue::Kind::kBool:
      w->Bool(v.as_bool());
      break;
    case JsonValue::Kind::kInt:
      w->Int64(v.as_int());
      break;
    case JsonValue::Kind::kDouble:
      w->Double(v.as_double());
      break;
    case JsonValue::Kind::kString:
      w->String(v.as_string().data(), static_cast<rapidjson::SizeType>(v.as_string().size()));
      break;
    case JsonValue::Kind::kArray:
      w->StartArray();
      for (const auto& item : v.items()) WriteJson(item, w);
      w->EndArray();
      break;
    case JsonValue::Kind::kObject:
      w->StartObject();
      for (const auto& [k, m] : v.members()) {
        w->Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
        WriteJson(m, w);
      }
      w->EndObject();
      break;
  }
}

}  // namespace internal
}  // namespace floe::avro
