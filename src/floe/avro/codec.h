#pragma once

// Block compression codecs of Avro object container files (spec, "Required Codecs" and
// "Optional Codecs"): deflate with libdeflate (whole blocks at once, several times zlib's
// speed; planning inflates every manifest block), snappy and zstandard with Arrow's.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "floe/util/status.h"

namespace arrow::util {
class Codec;
class Decompressor;
}  // namespace arrow::util

struct libdeflate_compressor;
struct libdeflate_decompressor;

namespace floe::avro {

enum class Codec : uint8_t { kNull, kDeflate, kSnappy, kZstandard };

// The avro.codec name: "null", "deflate", "snappy", "zstandard".
const char* CodecName(Codec codec);
// Fails with "unsupported codec '<name>'".
Result<Codec> CodecFromName(std::string_view name);

// CRC-32 (IEEE 802.3, as in zlib), which the snappy codec appends to each block.
uint32_t Crc32(const void* data, size_t size, uint32_t crc = 0);

class BlockCodec {
 public:
  // `level` is the codec's compression level; nullopt means its default.
  static Result<std::unique_ptr<BlockCodec>> Make(Codec codec,
                                                  std::optional<int> level = std::nullopt);
  ~BlockCodec();

  Codec codec() const { return codec_; }

  // Appends the compressed form of `input` to `out` (for snappy, with its CRC).
  Status Compress(std::string_view input, std::string* out);

  // Replaces `out` with the decompressed form of `input`. Deflate and zstandard do not
  // record the decompressed size, so the output grows as needed, up to `max_size` bytes.
  Status Decompress(std::string_view input, int64_t max_size, std::string* out);

 private:
  BlockCodec() = default;
  Status Stream(std::string_view input, int64_t max_size, std::string* out);
  Status Snappy(std::string_view input, int64_t max_size, std::string* out);
  Status Inflate(std::string_view input, int64_t max_size, std::string* out);
  Status Deflate(std::string_view input, std::string* out);

  struct FreeDeflate {
    void operator()(libdeflate_compressor* c) const;
    void operator()(libdeflate_decompressor* d) const;
  };

  Codec codec_ = Codec::kNull;
  std::unique_ptr<arrow::util::Codec> arrow_codec_;
  std::shared_ptr<arrow::util::Decompressor> decompressor_;
  int deflate_level_ = 6;
  std::unique_ptr<libdeflate_compressor, FreeDeflate> deflater_;  // made on first use
  std::unique_ptr<libdeflate_decompressor, FreeDeflate> inflater_;
  size_t inflated_max_ = 0;
};

}  // namespace floe::avro
