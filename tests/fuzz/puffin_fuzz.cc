// libFuzzer target: any bytes, read as a Puffin file (its footer, then every blob the footer
// lists as a deletion vector), whole as one deletion-vector blob, and as the 64-bit bitmap of
// a blob framed with the right length, magic and CRC-32, so that mutations reach the
// bitmaps instead of stopping at the checksum. A vector that decodes must encode and decode
// again to the same positions.
#include <libdeflate.h>

#include <cstdio>
#include <cstdlib>

#include "floe/manifest/deletion_vector.h"
#include "floe/manifest/puffin_file.h"
#include "fuzz_support.h"

namespace {

using floe::manifest::DecodeDeletionVector;

std::string BigEndian32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

void DecodeAndCheck(std::string_view blob, const std::string& path) {
  auto positions = DecodeDeletionVector(blob, path);
  // Large vectors (a few bytes of run containers make millions) are not re-encoded: slow.
  if (!positions.ok() || positions->size() > (1 << 20)) return;
  auto again = DecodeDeletionVector(floe::manifest::EncodeDeletionVector(*positions), "again");
  if (!again.ok() || *again != *positions) {
    std::fprintf(stderr, "a deletion vector changed in an encode/decode round trip\n");
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace floe::manifest;
  const std::string path = floe::fuzz::WriteInput(data, size, "f.puffin");
  auto footer = ReadPuffinFooter(floe::fuzz::LocalIO(), path);
  if (footer.ok()) {
    for (const PuffinBlobMetadata& blob : footer->blobs) {
      (void)ReadDeletionVector(floe::fuzz::LocalIO(), path, blob.offset, blob.length);
    }
  }
  DecodeAndCheck(floe::fuzz::Text(data, size), path);
  const std::string body = "\xD1\xD3\x39\x64" + std::string(floe::fuzz::Text(data, size));
  const auto crc = static_cast<uint32_t>(libdeflate_crc32(0, body.data(), body.size()));
  DecodeAndCheck(BigEndian32(static_cast<uint32_t>(body.size())) + body + BigEndian32(crc), path);
  return 0;
}
