// libFuzzer target: any bytes, read as a Puffin file (its footer, then every blob the footer
// lists as a deletion vector) and, whole, as one deletion-vector blob. A vector that decodes
// must encode and decode again to the same positions.
#include <cstdio>
#include <cstdlib>

#include "floe/manifest/deletion_vector.h"
#include "floe/manifest/puffin_file.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace floe::manifest;
  const std::string path = floe::fuzz::WriteInput(data, size, "f.puffin");
  auto footer = ReadPuffinFooter(floe::fuzz::LocalIO(), path);
  if (footer.ok()) {
    for (const PuffinBlobMetadata& blob : footer->blobs) {
      (void)ReadDeletionVector(floe::fuzz::LocalIO(), path, blob.offset, blob.length);
    }
  }
  auto positions = DecodeDeletionVector(floe::fuzz::Text(data, size), path);
  // Large vectors (a few bytes of run containers make millions) are not re-encoded: slow.
  if (positions.ok() && positions->size() <= (1 << 20)) {
    auto again = DecodeDeletionVector(EncodeDeletionVector(*positions), "re-encoded");
    if (!again.ok() || *again != *positions) {
      std::fprintf(stderr, "a deletion vector changed in an encode/decode round trip\n");
      std::abort();
    }
  }
  return 0;
}
