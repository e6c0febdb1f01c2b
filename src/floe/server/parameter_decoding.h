#pragma once

// Bind message parameter values (text or binary, by the type OID the client gave in Parse)
// as statement parameters. A parameter of unspecified type (OID 0) or of a type floe reads
// from text (numeric, date, timestamps, uuid in text form) binds as an untyped string,
// like a literal in the query.

#include <cstdint>
#include <optional>
#include <string_view>

#include "floe/server/session_adapter.h"
#include "floe/util/status.h"

namespace floe::server {

// `value` nullopt: SQL NULL.
Result<Parameter> DecodeParameter(int32_t oid, bool binary, std::optional<std::string_view> value);

}  // namespace floe::server
