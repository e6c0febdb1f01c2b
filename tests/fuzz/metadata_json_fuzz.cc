// libFuzzer target: table metadata JSON parses or fails with an error, never crashes; what
// parses writes back to JSON that parses to the same metadata.
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  floe::fuzz::CheckMetadataRoundTrip(floe::fuzz::Text(data, size));
  return 0;
}
