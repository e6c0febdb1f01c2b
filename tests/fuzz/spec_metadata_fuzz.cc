// libFuzzer target: table metadata parsing must return errors, never crash.
#include "floe/spec/table_metadata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)floe::spec::ParseTableMetadata(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
