// libFuzzer target: any bytes, read as a data manifest of the corpus table through floe's
// manifest reader (Avro container, entry decoding, partition typing, inheritance).
#include "floe/manifest/manifest_reader.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto manifest = floe::fuzz::ManifestEntryFor(floe::fuzz::WriteInput(data, size, "m0.avro"));
  (void)floe::manifest::ReadManifest(floe::fuzz::LocalIO(), manifest,
                                     floe::fuzz::CorpusTableMetadata());
  return 0;
}
