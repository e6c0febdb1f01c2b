#include "floe/avro/codec.h"

#include <algorithm>
#include <array>

#include <arrow/util/compression.h>
#include <libdeflate.h>

namespace floe::avro {

const char* CodecName(Codec codec) {
  switch (codec) {
    case Codec::kNull:
      return "null";
    case Codec::kDeflate:
      return "deflate";
    case Codec::kSnappy:
      return "snappy";
    case Codec::kZstandard:
      return "zstandard";
  }
  return "unknown";
}

Result<Codec> CodecFromName(std::string_view name) {
  for (Codec c : {Codec::kNull, Codec::kDeflate, Codec::kSnappy, Codec::kZstandard}) {
    if (name == CodecName(c)) return c;
  }
  return Status::NotImplemented("unsupported codec '", name, "'");
}

namespace {

// Slicing-by-8: eight derived tables let the loop fold in eight bytes per step.
using CrcTables = std::array<std::array<uint32_t, 256>, 8>;

constexpr CrcTables MakeCrcTables() {
  CrcTables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[0][i] = c;
  }
  for (size_t k = 1; k < 8; ++k) {
    for (uint32_t i = 0; i < 256; ++i) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
  }
  return t;
}

constexpr CrcTables kCrc = MakeCrcTables();

inline uint32_t Load32LE(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}

}  // namespace

uint32_t Crc32(const void* data, size_t size, uint32_t crc) {
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
  for (; size >= 8; size -= 8, p += 8) {
    const uint32_t one = Load32LE(p) ^ crc;
    const uint32_t two = Load32LE(p + 4);
    crc = kCrc[7][one & 0xff] ^ kCrc[6][(one >> 8) & 0xff] ^ kCrc[5][(one >> 16) & 0xff] ^
          kCrc[4][one >> 24] ^ kCrc[3][two & 0xff] ^ kCrc[2][(two >> 8) & 0xff] ^
          kCrc[1][(two >> 16) & 0xff] ^ kCrc[0][two >> 24];
  }
  for (; size > 0; --size, ++p) crc = kCrc[0][(crc ^ *p) & 0xff] ^ (crc >> 8);
  return ~crc;
}

BlockCodec::~BlockCodec() = default;

Result<std::unique_ptr<BlockCodec>> BlockCodec::Make(Codec codec, std::optional<int> level) {
  std::unique_ptr<BlockCodec> out(new BlockCodec());
  out->codec_ = codec;
  const int arrow_level = level.value_or(arrow::util::kUseDefaultCompressionLevel);
  arrow::Compression::type type;
  switch (codec) {
    case Codec::kNull:
      return out;
    case Codec::kDeflate:
      // Avro's deflate is raw RFC 1951 data, without zlib or gzip framing. Levels are
      // zlib's (0-9, default 6), which libdeflate reads the same way.
      if (level && (*level < 0 || *level > 9)) {
        return Status::Invalid("deflate compression level ", *level, " is not between 0 and 9");
      }
      out->deflate_level_ = level.value_or(6);
      out->inflater_.reset(libdeflate_alloc_decompressor());
      if (!out->inflater_) return Status::OutOfMemory("cannot allocate a deflate decompressor");
      return out;
    case Codec::kSnappy:
      type = arrow::Compression::SNAPPY;
      break;
    case Codec::kZstandard:
      type = arrow::Compression::ZSTD;
      break;
    default:
      return Status::NotImplemented("unsupported codec ", static_cast<int>(codec));
  }
  if (!arrow::util::Codec::IsAvailable(type)) {
    return Status::NotImplemented("codec '", CodecName(codec), "' is not built into Arrow");
  }
  arrow::util::CodecOptions options(arrow_level);
  ARROW_ASSIGN_OR_RAISE(out->arrow_codec_, arrow::util::Codec::Create(type, options));
  if (codec == Codec::kZstandard) {
    ARROW_ASSIGN_OR_RAISE(out->decompressor_, out->arrow_codec_->MakeDecompressor());
  }
  return out;
}

Status BlockCodec::Compress(std::string_view input, std::string* out) {
  if (codec_ == Codec::kNull) {
    out->append(input);
    return Status::OK();
  }
  if (codec_ == Codec::kDeflate) return Deflate(input, out);
  const auto* in = reinterpret_cast<const uint8_t*>(input.data());
  const auto in_len = static_cast<int64_t>(input.size());
  const size_t start = out->size();
  const int64_t max_len = arrow_codec_->MaxCompressedLen(in_len, in);
  out->resize(start + static_cast<size_t>(max_len));
  auto written = arrow_codec_->Compress(in_len, in, max_len,
                                        reinterpret_cast<uint8_t*>(out->data() + start));
  if (!written.ok()) {
    out->resize(start);
    return written.status();
  }
  out->resize(start + static_cast<size_t>(*written));
  if (codec_ == Codec::kSnappy) {
    const uint32_t crc = Crc32(input.data(), input.size());
    const char be[4] = {static_cast<char>(crc >> 24), static_cast<char>(crc >> 16),
                        static_cast<char>(crc >> 8), static_cast<char>(crc)};
    out->append(be, 4);
  }
  return Status::OK();
}

Status BlockCodec::Decompress(std::string_view input, int64_t max_size, std::string* out) {
  switch (codec_) {
    case Codec::kNull:
      if (static_cast<int64_t>(input.size()) > max_size) {
        return Status::Invalid("block of ", input.size(), " bytes exceeds the limit of ",
                               max_size);
      }
      out->assign(input);
      return Status::OK();
    case Codec::kSnappy:
      return Snappy(input, max_size, out);
    case Codec::kDeflate:
      return Inflate(input, max_size, out);
    default:
      return Stream(input, max_size, out);
  }
}

Status BlockCodec::Snappy(std::string_view input, int64_t max_size, std::string* out) {
  if (input.size() < 4) return Status::Invalid("snappy block shorter than its CRC");
  const auto* in = reinterpret_cast<const uint8_t*>(input.data());
  const size_t data_len = input.size() - 4;
  // Snappy data starts with the uncompressed length as a varint of at most 5 bytes.
  uint64_t length = 0;
  size_t i = 0;
  for (int shift = 0;; shift += 7, ++i) {
    if (i >= data_len || i >= 5) return Status::Invalid("snappy block has a corrupt length");
    length |= static_cast<uint64_t>(in[i] & 0x7f) << shift;
    if ((in[i] & 0x80) == 0) break;
  }
  if (length > static_cast<uint64_t>(max_size)) {
    return Status::Invalid("snappy block of ", length, " bytes exceeds the limit of ",
                           max_size);
  }
  out->resize(static_cast<size_t>(length));
  ARROW_ASSIGN_OR_RAISE(
      int64_t n, arrow_codec_->Decompress(static_cast<int64_t>(data_len), in,
                                          static_cast<int64_t>(length),
                                          reinterpret_cast<uint8_t*>(out->data())));
  if (static_cast<uint64_t>(n) != length) {
    return Status::Invalid("snappy block decompressed to ", n, " bytes, expected ", length);
  }
  const uint8_t* c = in + data_len;
  const uint32_t expected = (uint32_t{c[0]} << 24) | (uint32_t{c[1]} << 16) |
                            (uint32_t{c[2]} << 8) | uint32_t{c[3]};
  if (Crc32(out->data(), out->size()) != expected) return Status::Invalid("snappy CRC mismatch");
  return Status::OK();
}

void BlockCodec::FreeDeflate::operator()(libdeflate_compressor* c) const {
  libdeflate_free_compressor(c);
}
void BlockCodec::FreeDeflate::operator()(libdeflate_decompressor* d) const {
  libdeflate_free_decompressor(d);
}

Status BlockCodec::Deflate(std::string_view input, std::string* out) {
  if (!deflater_) {
    deflater_.reset(libdeflate_alloc_compressor(deflate_level_));
    if (!deflater_) return Status::OutOfMemory("cannot allocate a deflate compressor");
  }
  const size_t start = out->size();
  out->resize(start + libdeflate_deflate_compress_bound(deflater_.get(), input.size()));
  const size_t written = libdeflate_deflate_compress(deflater_.get(), input.data(), input.size(),
                                                     out->data() + start, out->size() - start);
  out->resize(start + written);
  // The bound always fits; nothing written means libdeflate failed.
  if (written == 0) return Status::UnknownError("deflate compression failed");
  return Status::OK();
}

// The decompressed size is not recorded: start from the largest block seen so far (a file's
// blocks are alike) and double while the output does not fit, up to `max_size`.
Status BlockCodec::Inflate(std::string_view input, int64_t max_size, std::string* out) {
  out->clear();
  if (input.empty()) return Status::OK();
  const auto limit = static_cast<size_t>(max_size);
  size_t room = std::min(limit, std::max({size_t{64} << 10, 4 * input.size(), inflated_max_}));
  while (true) {
    out->resize(room);
    size_t written = 0;
    const libdeflate_result r = libdeflate_deflate_decompress(
        inflater_.get(), input.data(), input.size(), out->data(), out->size(), &written);
    if (r == LIBDEFLATE_SUCCESS) {
      out->resize(written);
      inflated_max_ = std::max(inflated_max_, written);
      return Status::OK();
    }
    if (r != LIBDEFLATE_INSUFFICIENT_SPACE) {
      out->clear();
      return Status::Invalid("deflate data is truncated or corrupt");
    }
    if (room >= limit) {
      out->clear();
      return Status::Invalid("decompressed block exceeds the limit of ", max_size, " bytes");
    }
    room = std::min(limit, room * 2);
  }
}

Status BlockCodec::Stream(std::string_view input, int64_t max_size, std::string* out) {
  const auto* in = reinterpret_cast<const uint8_t*>(input.data());
  const auto in_len = static_cast<int64_t>(input.size());
  out->clear();
  if (in_len == 0) return Status::OK();
  ARROW_RETURN_NOT_OK(decompressor_->Reset());
  const auto limit = static_cast<size_t>(max_size);
  out->resize(std::min(limit, std::max<size_t>(size_t{64} << 10, 4 * input.size())));
  int64_t in_pos = 0;
  size_t out_pos = 0;
  while (true) {
    if (out_pos == out->size()) {
      if (out->size() >= limit) {
        return Status::Invalid("decompressed block exceeds the limit of ", max_size, " bytes");
      }
      out->resize(std::min(limit, std::max<size_t>(out->size() * 2, 1)));
    }
    ARROW_ASSIGN_OR_RAISE(
        auto r, decompressor_->Decompress(in_len - in_pos, in + in_pos,
                                          static_cast<int64_t>(out->size() - out_pos),
                                          reinterpret_cast<uint8_t*>(out->data() + out_pos)));
    in_pos += r.bytes_read;
    out_pos += static_cast<size_t>(r.bytes_written);
    if (decompressor_->IsFinished()) {
      if (in_pos == in_len) break;
      // Zstandard data may hold several frames, one after the other.
      ARROW_RETURN_NOT_OK(decompressor_->Reset());
      continue;
    }
    // No progress with room left to write: the compressed data is cut short or corrupt.
    if (r.bytes_read == 0 && r.bytes_written == 0 && out_pos < out->size()) {
      return Status::Invalid(CodecName(codec_), " data is truncated or corrupt");
    }
  }
  out->resize(out_pos);
  return Status::OK();
}

}  // namespace floe::avro
