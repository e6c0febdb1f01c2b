// libFuzzer target: any bytes are a startup packet or fail with a reason; any stream splits
// into messages that rebuild to the same bytes, or stops at a bad length; any message body
// is a Bind parameter value of every type a client may name, in text and in binary form,
// that decodes or fails with a reason, and a statement that is a COPY floe serves or not.
#include <array>

#include "floe/server/copy_command.h"
#include "floe/server/parameter_decoding.h"
#include "floe/server/pg_message.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static constexpr std::array<int32_t, 24> kOids = {
      0,    16,   17,   20,   21,   23,   25,   700,  701,  1043, 1082, 1083,
      1114, 1184, 1700, 2950, 1002, 1003, 1005, 1007, 1009, 1015, 1016, 1028};
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
    (void)floe::server::ParseCopyOut(std::string(body));
    for (int32_t oid : kOids) {
      (void)floe::server::DecodeParameter(oid, false, body);
      (void)floe::server::DecodeParameter(oid, true, body);
    }
    in.remove_prefix(*used);
  }
  return 0;
}
