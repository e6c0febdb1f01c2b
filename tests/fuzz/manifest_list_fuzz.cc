// libFuzzer target: any bytes, read as a snapshot's manifest list through floe's reader.
#include "floe/manifest/manifest_reader.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = floe::fuzz::WriteInput(data, size, "snap-1.avro");
  (void)floe::manifest::ReadManifestList(floe::fuzz::LocalIO(), path);
  return 0;
}
