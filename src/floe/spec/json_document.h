#pragma once

// Parsing a JSON document for the spec's readers (internal to spec/).

#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "floe/util/status.h"

namespace floe::spec {

// Parses `json` into `doc` in situ: `buffer` receives a copy that the document's strings
// point into. Damaged input (invalid UTF-8, control characters, lone surrogates) is an error
// with its byte offset; parsing is iterative, so nesting cannot overflow the stack.
Status ParseJsonDocument(std::string_view json, std::string* buffer, rapidjson::Document* doc);

}  // namespace floe::spec
