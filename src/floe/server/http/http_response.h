#pragma once

// An HTTP/1.1 response as floe's HTTP server sends it: always complete (Content-Length),
// never cached, with headers that keep browsers from sniffing types or framing the pages.

#include <string>
#include <utility>
#include <vector>

namespace floe::server::http {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  // Further header fields, e.g. {"Allow", "GET"}; names and values must hold no line breaks.
  std::vector<std::pair<std::string, std::string>> headers;
};

// "OK", "Not Found", ...; "Error" for a status this server does not send.
const char* StatusReason(int status);

// How a response goes out: whether the connection stays open after it ("Connection:
// keep-alive" or "close"), and whether it answers HEAD (the fields of the GET response, no body).
struct ResponseFraming {
  bool keep_alive = false;
  bool head = false;
};

// The status line, the header fields and the body. A 204 or 304 has neither Content-Length nor
// body.
std::string SerializeResponse(const HttpResponse& response, ResponseFraming framing = {});

// A plain-text response: "<status> <reason>: <message>" and a line break.
HttpResponse TextResponse(int status, const std::string& message);

// An application/json response with `body` as it is.
HttpResponse JsonResponse(int status, std::string body);

// 204 No Content.
HttpResponse NoContentResponse();

}  // namespace floe::server::http
