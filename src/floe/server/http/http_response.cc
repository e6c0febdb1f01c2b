#include "floe/server/http/http_response.h"

namespace floe::server::http {

const char* StatusReason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
    case 304:
      return "Not Modified";
    case 400:
      return "Bad Request";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 406:
      return "Not Acceptable";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Content";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Error";
  }
}

std::string SerializeResponse(const HttpResponse& response, ResponseFraming framing) {
  const bool no_content = response.status == 204 || response.status == 304;
  std::string out =
      "HTTP/1.1 " + std::to_string(response.status) + " " + StatusReason(response.status) + "\r\n";
  if (!no_content) {
    out += "Content-Type: " + response.content_type + "\r\n";
    out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  }
  out += framing.keep_alive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
  out += "Cache-Control: no-store\r\n";
  out += "X-Content-Type-Options: nosniff\r\n";
  out += "X-Frame-Options: DENY\r\n";
  out += "Referrer-Policy: no-referrer\r\n";
  for (const auto& [name, value] : response.headers) out += name + ": " + value + "\r\n";
  out += "\r\n";
  if (!no_content && !framing.head) out += response.body;
  return out;
}

HttpResponse TextResponse(int status, const std::string& message) {
  HttpResponse response;
  response.status = status;
  response.body = std::to_string(status) + " " + StatusReason(status) + ": " + message + "\n";
  return response;
}

HttpResponse JsonResponse(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.content_type = "application/json";
  response.body = std::move(body);
  return response;
}

HttpResponse NoContentResponse() {
  HttpResponse response;
  response.status = 204;
  return response;
}

}  // namespace floe::server::http
