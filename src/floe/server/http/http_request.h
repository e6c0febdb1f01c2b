#pragma once

// The head of an HTTP/1.1 request (RFC 9112): request line and header fields, parsed with
// bounds. The metadata server reads no request bodies.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace floe::server::http {

// Bounds on what a client may send before the server answers 431 or 400.
inline constexpr size_t kMaxRequestHeadBytes = 16 * 1024;
inline constexpr size_t kMaxHeaderFields = 100;

struct HttpRequest {
  std::string method;   // as sent: methods are case-sensitive
  std::string target;   // origin-form: "/path?query"
  std::string path;     // the target up to '?', still percent-encoded
  std::string query;    // after '?', still percent-encoded; empty when none
  std::string version;  // "HTTP/1.1" or "HTTP/1.0"
  // Field names lower-cased; repeated fields joined with ", " as RFC 9110 allows.
  std::map<std::string, std::string> headers;

  std::optional<std::string> Header(const std::string& lower_name) const;
};

// Why a request head could not be read: the status to answer and a short reason.
struct HttpRequestError {
  int status = 400;
  std::string reason;
};

// Where the head ends: the index just past the blank line ("\r\n\r\n", or "\n\n" from lenient
// clients) in `bytes`, or nullopt while it is incomplete.
std::optional<size_t> FindRequestHeadEnd(std::string_view bytes);

// Parses a complete head (as FindRequestHeadEnd delimits it). Errors: 400 for a malformed
// request line or field, a target not in origin-form, or an HTTP/1.1 request without Host;
// 505 for another HTTP version; 431 for more than kMaxHeaderFields fields.
struct ParsedRequest {
  std::optional<HttpRequest> request;
  std::optional<HttpRequestError> error;
};
ParsedRequest ParseRequestHead(std::string_view head);

}  // namespace floe::server::http
