#pragma once

// Whether a request's Host names this machine's loopback interface. A server bound to
// loopback answers only such requests: a web page elsewhere that gets its own host name
// resolved to 127.0.0.1 (DNS rebinding) still sends that name, and is refused.

#include <string_view>

namespace floe::server::http {

// "localhost", "127.x.y.z" or "[::1]", each with or without ":port" (any case).
bool IsLoopbackHost(std::string_view host_header);

}  // namespace floe::server::http
