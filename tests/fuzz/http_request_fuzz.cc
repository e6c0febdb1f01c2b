// libFuzzer target: any bytes either hold no complete request head yet, or parse into a
// request or an error status; the target's path and query decode or are refused. The same
// bytes as one connection's stream, arriving in two pieces, give requests whose bodies are as
// long as their Content-Length says, up to the first error, after which nothing more is read.
#include <string>

#include "floe/server/http/http_request.h"
#include "floe/server/http/url_encoding.h"

namespace http = floe::server::http;

static void Drain(http::HttpRequestReader& reader, bool& failed) {
  while (true) {
    http::HttpRequestReader::Step step = reader.Next();
    if (step.state == http::HttpRequestReader::State::kNeedMore) return;
    if (failed && step.state != http::HttpRequestReader::State::kError) __builtin_trap();
    if (step.state == http::HttpRequestReader::State::kError) {
      if (step.error->status < 400 || step.error->status > 599) __builtin_trap();
      failed = true;
      return;
    }
    const http::BodyLength length = http::RequestBodyLength(*step.request, 4096);
    if (length.error || step.request->body.size() != length.length) __builtin_trap();
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (std::optional<size_t> end = http::FindRequestHeadEnd(in)) {
    if (*end > in.size()) __builtin_trap();
    http::ParsedRequest parsed = http::ParseRequestHead(in.substr(0, *end));
    if (parsed.request.has_value() == parsed.error.has_value()) __builtin_trap();
    if (parsed.error && (parsed.error->status < 400 || parsed.error->status > 599))
      __builtin_trap();
    if (parsed.request) {
      (void)http::PercentDecode(parsed.request->path);
      (void)http::ParseQuery(parsed.request->query);
    }
  }
  http::HttpRequestReader reader(4096);
  const size_t cut = size == 0 ? 0 : data[size - 1] % (size + 1);
  bool failed = false;
  reader.Append(in.substr(0, cut));
  Drain(reader, failed);
  reader.Append(in.substr(cut));
  Drain(reader, failed);
  return 0;
}
