#pragma once

// RapidJSON glue shared by json_value.cc and schema.cc; not part of the public API.

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "floe/avro/json_value.h"

namespace floe::avro::internal {

// Deeper JSON than this is rejected rather than risking the stack.
constexpr int kMaxJsonDepth = 256;

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// Parses `text` (iteratively, so deep input cannot overflow the stack).
Status ParseJsonDocument(std::string_view text, rapidjson::Document* doc);

Result<JsonValue> FromRapidJson(const rapidjson::Value& v, int depth = 0);

void WriteJson(const JsonValue& v, JsonWriter* w);

}  // namespace floe::avro::internal
