#pragma once

// RapidJSON glue shared by json_value.cc and schema.cc; not part of the public API.

// The build defines RAPIDJSON_SSE42 without compiling for SSE4.2, which RapidJSON's SIMD
// whitespace skipping needs; use its SSE2 code (x86-64 baseline) unless the target has SSE4.2.
#if defined(RAPIDJSON_SSE42) && !defined(__SSE4_2__)
#undef RAPIDJSON_SSE42
#if defined(__SSE2__) && !defined(RAPIDJSON_SSE2)
#define RAPIDJSON_SSE2 1
#endif
#endif

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
