#pragma once

// Percent-encoding of URL path segments and query strings (RFC 3986), as the metadata pages
// build their links and read their requests.

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace floe::server::http {

// Every byte but the unreserved ones (A-Z a-z 0-9 - _ ~) as %XX, so the result is one path
// segment that holds no '/' and no '.', the namespace separator of the table links.
std::string PercentEncode(std::string_view text);

// %XX sequences as bytes; with `plus_is_space` (query strings), '+' as a space. nullopt for a
// '%' not followed by two hex digits, and for a decoded NUL byte.
std::optional<std::string> PercentDecode(std::string_view text, bool plus_is_space = false);

// "a=1&b=x%20y" -> {a: 1, b: x y}; the first of repeated keys wins; a key without '=' has an
// empty value. nullopt when a part does not decode.
std::optional<std::map<std::string, std::string>> ParseQuery(std::string_view query);

}  // namespace floe::server::http
