#pragma once

// The spec's JSON single-value serialization (Appendix D), in which v3 schemas state a
// column's `initial-default` and `write-default`: 1 and 3.5 as numbers, "14.20" for decimals,
// "2017-11-16" for dates, "22:31:08.123456" for times, "2017-11-16T22:31:08.123456" and
// "...+00:00" for timestamps, hex for binary and fixed.

#include <string_view>

#include "floe/spec/literal.h"
#include "floe/spec/type.h"

namespace floe::spec {

// The value `json` states for a field of `type` (JSON null: a null literal). Defaults of
// nested types are NotImplemented.
Result<Literal> LiteralFromJson(std::string_view json, const TypePtr& type);

}  // namespace floe::spec
