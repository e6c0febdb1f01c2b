#pragma once

// The HTTP client of the REST catalogs floe opens: libcurl, one persistent connection per
// client for reads (requests take turns; a change is sent on a new connection, never resent), TLS verified against the system's trust store or a given CA
// file, timeouts on connecting and on the whole exchange.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/util/status.h"

namespace floe {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

// Every byte but the unreserved ones (letters, digits, - . _ ~) as %XX: a URI path segment, a
// query value or a form value.
std::string PercentEncodeComponent(std::string_view text);

struct RestHttpOptions {
  std::string ca_file;  // empty: the system's trust store
  bool verify_tls = true;
  int64_t connect_timeout_ms = 10000;
  int64_t timeout_ms = 120000;
  HttpHeaders headers;  // sent with every request (after the request's own)
};

struct RestHttpReply {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // names in lower case; the last of repeats
};

class RestHttpClient {
 public:
  static Result<std::unique_ptr<RestHttpClient>> Make(RestHttpOptions options);
  ~RestHttpClient();
  RestHttpClient(const RestHttpClient&) = delete;
  RestHttpClient& operator=(const RestHttpClient&) = delete;

  // One exchange. Any status is a reply; a failure to exchange (no connection, TLS, a
  // timeout) is an IOError naming the method and URL. `maybe_sent` (when given) says whether
  // the request may have reached the server: false only when no connection was made, so a
  // commit that failed otherwise has an unknown outcome.
  Result<RestHttpReply> Send(std::string_view method, const std::string& url,
                             const HttpHeaders& headers, std::string_view body,
                             bool* maybe_sent = nullptr);

 private:
  explicit RestHttpClient(RestHttpOptions options, void* handle);

  const RestHttpOptions options_;
  std::mutex mu_;
  void* handle_;  // CURL*
};

}  // namespace floe
