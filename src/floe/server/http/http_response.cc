#include "floe/server/http/http_response.h"

namespace floe::server::http {

const char* StatusReason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Error";
  }
}

std::string SerializeResponse(const HttpResponse& response) {
  std::string out =
      "HTTP/1.1 " + std::to_string(response.status) + " " + StatusReason(response.status) + "\r\n";
  out += "Content-Type: " + response.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  out += "Connection: close\r\n";
  out += "Cache-Control: no-store\r\n";
  out += "X-Content-Type-Options: nosniff\r\n";
  out += "X-Frame-Options: DENY\r\n";
  out += "Referrer-Policy: no-referrer\r\n";
  for (const auto& [name, value] : response.headers) out += name + ": " + value + "\r\n";
  out += "\r\n";
  out += response.body;
  return out;
}

HttpResponse TextResponse(int status, const std::string& message) {
  HttpResponse response;
  response.status = status;
  response.body = std::to_string(status) + " " + StatusReason(status) + ": " + message + "\n";
  return response;
}

}  // namespace floe::server::http
