#pragma once

// HTTP/1.1 requests (RFC 9112): the head (request line and header fields) parsed with
// bounds, a body framed by Content-Length up to a limit, and HttpRequestReader, which cuts the
// requests of one persistent connection out of the bytes as they arrive.

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
  std::string body;  // Content-Length bytes; empty when none were sent
  // The peer's address ("127.0.0.1:50412", "[::1]:50412"), set by the server.
  std::string remote_address;

  std::optional<std::string> Header(const std::string& lower_name) const;
  // Whether the client lets the connection stay open after the response: HTTP/1.1 unless it
  // sent "Connection: close", HTTP/1.0 only with "Connection: keep-alive".
  bool KeepAlive() const;
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

// The length of the body that follows a parsed head, from Content-Length (0 without one).
// Errors: 411 for Transfer-Encoding (chunked bodies are not read: a client must send a
// length), 400 for a Content-Length that is not a decimal number, 413 beyond `max_body_bytes`.
struct BodyLength {
  size_t length = 0;
  std::optional<HttpRequestError> error;
};
BodyLength RequestBodyLength(const HttpRequest& request, size_t max_body_bytes);

// The requests of one connection, cut from its bytes as they arrive (pipelined requests
// included). Append() what was received, then Next() until it says kNeedMore. After kError
// the connection cannot be framed any further: answer the error and close it.
class HttpRequestReader {
 public:
  explicit HttpRequestReader(size_t max_body_bytes) : max_body_bytes_(max_body_bytes) {}

  enum class State { kNeedMore, kRequest, kError };
  struct Step {
    State state = State::kNeedMore;
    std::optional<HttpRequest> request;
    std::optional<HttpRequestError> error;
  };

  void Append(std::string_view bytes) { buffer_.append(bytes); }
  Step Next();
  // Bytes received and not yet part of a returned request.
  size_t buffered() const { return buffer_.size(); }
  // Whether a request has begun arriving (its head or body is partly received).
  bool InRequest() const;

 private:
  size_t max_body_bytes_;
  std::string buffer_;
  std::optional<HttpRequest> pending_;  // a head whose body is still arriving
  size_t body_length_ = 0;
  bool failed_ = false;
};

}  // namespace floe::server::http
