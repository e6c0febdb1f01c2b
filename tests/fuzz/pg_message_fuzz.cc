// libFuzzer target: any bytes are a startup packet or fail with a reason; any stream splits
// into messages that rebuild to the same bytes, or stops at a bad length.
#include "floe/server/pg_message.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)floe::server::ParseStartupPacket(in);
  char type = 0;
  std::string_view body;
  for (auto used = floe::server::SplitMessage(in, &type, &body); used.ok() && *used > 0;
       used = floe::server::SplitMessage(in, &type, &body)) {
    std::string again;
    floe::server::MessageBuilder(&again, type).Bytes(body).Finish();
    if (again != in.substr(0, *used)) __builtin_trap();
    floe::server::BodyReader reader(body);
    while (reader.CString().ok()) {
    }
    in.remove_prefix(*used);
  }
  return 0;
}
