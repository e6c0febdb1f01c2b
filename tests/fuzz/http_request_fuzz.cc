// libFuzzer target: any bytes either hold no complete request head yet, or parse into a
// request or an error status; the target's path and query decode or are refused.
#include "floe/server/http/http_request.h"
#include "floe/server/http/url_encoding.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace http = floe::server::http;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::optional<size_t> end = http::FindRequestHeadEnd(in);
  if (!end) return 0;
  if (*end > in.size()) __builtin_trap();
  http::ParsedRequest parsed = http::ParseRequestHead(in.substr(0, *end));
  if (parsed.request.has_value() == parsed.error.has_value()) __builtin_trap();
  if (parsed.error && (parsed.error->status < 400 || parsed.error->status > 599)) __builtin_trap();
  if (parsed.request) {
    (void)http::PercentDecode(parsed.request->path);
    (void)http::ParseQuery(parsed.request->query);
  }
  return 0;
}
