#include "floe/server/http/loopback_host.h"

#include <cctype>
#include <string>

namespace floe::server::http {

namespace {

// Four dot-separated decimal numbers 0-255, the first 127.
bool IsLoopbackIpv4(std::string_view host) {
  int parts = 0;
  size_t start = 0;
  while (start <= host.size()) {
    size_t end = host.find('.', start);
    if (end == std::string_view::npos) end = host.size();
    const std::string_view part = host.substr(start, end - start);
    if (part.empty() || part.size() > 3) return false;
    int value = 0;
    for (char c : part) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + (c - '0');
    }
    if (value > 255 || (parts == 0 && value != 127)) return false;
    ++parts;
    start = end + 1;
  }
  return parts == 4;
}

}  // namespace

bool IsLoopbackHost(std::string_view host_header) {
  std::string host;
  for (char c : host_header) host += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (host.rfind("[::1]", 0) == 0) {
    const std::string rest = host.substr(5);
    return rest.empty() || rest.front() == ':';
  }
  const size_t colon = host.find(':');
  const std::string name = host.substr(0, colon);
  if (colon != std::string::npos) {
    const std::string port = host.substr(colon + 1);
    if (port.empty() || port.size() > 5) return false;
    for (char c : port) {
      if (c < '0' || c > '9') return false;
    }
  }
  return name == "localhost" || IsLoopbackIpv4(name);
}

}  // namespace floe::server::http
