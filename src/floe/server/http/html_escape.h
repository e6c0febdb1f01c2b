#pragma once

#include <string>
#include <string_view>

namespace floe::server::http {

// Text safe inside HTML element content and quoted attribute values: & < > " ' become
// character references. Bytes are otherwise kept (the pages are served as UTF-8).
std::string HtmlEscape(std::string_view text);

}  // namespace floe::server::http
