#pragma once

// Avro binary decoding over a byte span. Every read is bounds-checked: truncated input,
// over-long varints, and lengths that are negative or exceed the remaining bytes are errors,
// never out-of-bounds reads or huge allocations.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "floe/util/status.h"

namespace floe::avro {

class Decoder {
 public:
  Decoder() = default;
  Decoder(const uint8_t* data, size_t size) : pos_(data), end_(data + size), begin_(data) {}
  explicit Decoder(std::string_view bytes)
      : Decoder(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()) {}

  size_t remaining() const { return static_cast<size_t>(end_ - pos_); }
  size_t position() const { return static_cast<size_t>(pos_ - begin_); }
  bool AtEnd() const { return pos_ == end_; }
  const uint8_t* current() const { return pos_; }

  Status ReadLong(int64_t* out) {
    // Fast paths, inlined: one- and two-byte values are most of what manifests hold (counts,
    // field ids, lengths, union indexes).
    if (end_ - pos_ >= 2) {
      uint64_t n = pos_[0];
      if (n < 0x80) {
        ++pos_;
        *out = static_cast<int64_t>((n >> 1) ^ (~(n & 1) + 1));
        return Status::OK();
      }
      if (pos_[1] < 0x80) {
        n = (n & 0x7f) | (static_cast<uint64_t>(pos_[1]) << 7);
        pos_ += 2;
        *out = static_cast<int64_t>((n >> 1) ^ (~(n & 1) + 1));
        return Status::OK();
      }
    }
    return ReadLongSlow(out);
  }

  Status ReadInt(int32_t* out) {
    int64_t v;
    ARROW_RETURN_NOT_OK(ReadLong(&v));
    if (v < INT32_MIN || v > INT32_MAX) {
      return Status::Invalid("Avro int out of range: ", v);
    }
    *out = static_cast<int32_t>(v);
    return Status::OK();
  }

  Status ReadBool(bool* out) {
    if (pos_ == end_) return Truncated("boolean");
    uint8_t b = *pos_++;
    if (b > 1) return Status::Invalid("Avro boolean byte is ", static_cast<int>(b));
    *out = b == 1;
    return Status::OK();
  }

  Status ReadFloat(float* out) {
    uint32_t bits = 0;
    ARROW_RETURN_NOT_OK(ReadLittleEndian(&bits, "float"));
    std::memcpy(out, &bits, sizeof bits);
    return Status::OK();
  }

  Status ReadDouble(double* out) {
    uint64_t bits = 0;
    ARROW_RETURN_NOT_OK(ReadLittleEndian(&bits, "double"));
    std::memcpy(out, &bits, sizeof bits);
    return Status::OK();
  }

  // Bytes and strings: a long length, then that many bytes. The view points into the input.
  Status ReadBytesView(std::string_view* out) {
    int64_t len;
    ARROW_RETURN_NOT_OK(ReadLong(&len));
    if (len < 0) return Status::Invalid("Avro length is negative: ", len);
    if (static_cast<uint64_t>(len) > remaining()) {
      return Status::Invalid("Avro length ", len, " exceeds the ", remaining(),
                             " remaining bytes");
    }
    *out = std::string_view(reinterpret_cast<const char*>(pos_), static_cast<size_t>(len));
    pos_ += len;
    return Status::OK();
  }
  Status ReadBytes(std::string* out) {
    std::string_view v;
    ARROW_RETURN_NOT_OK(ReadBytesView(&v));
    out->assign(v);
    return Status::OK();
  }
  Status ReadString(std::string* out) { return ReadBytes(out); }

  Status ReadFixedView(size_t size, std::string_view* out) {
    if (size > remaining()) return Truncated("fixed");
    *out = std::string_view(reinterpret_cast<const char*>(pos_), size);
    pos_ += size;
    return Status::OK();
  }
  Status ReadFixed(size_t size, std::string* out) {
    std::string_view v;
    ARROW_RETURN_NOT_OK(ReadFixedView(size, &v));
    out->assign(v);
    return Status::OK();
  }

  // Enum symbol and union branch indexes; the caller checks the upper bound.
  Status ReadIndex(int32_t* out) {
    int64_t v;
    ARROW_RETURN_NOT_OK(ReadLong(&v));
    if (v < 0 || v > INT32_MAX) return Status::Invalid("Avro index out of range: ", v);
    *out = static_cast<int32_t>(v);
    return Status::OK();
  }

  // The count that starts each array or map block; 0 ends the array or map. A negative count
  // is followed by the block's size in bytes, which must fit in the remaining input.
  Status ReadBlockCount(int64_t* count) {
    ARROW_RETURN_NOT_OK(ReadLong(count));
    if (*count < 0) {
      if (*count == INT64_MIN) return Status::Invalid("Avro block count out of range");
      *count = -*count;
      int64_t size;
      ARROW_RETURN_NOT_OK(ReadLong(&size));
      if (size < 0 || static_cast<uint64_t>(size) > remaining()) {
        return Status::Invalid("Avro block size ", size, " is invalid with ", remaining(),
                               " bytes remaining");
      }
    }
    return Status::OK();
  }

  Status Skip(size_t n) {
    if (n > remaining()) return Truncated("data");
    pos_ += n;
    return Status::OK();
  }

 private:
  [[gnu::noinline]] Status ReadLongSlow(int64_t* out) {
    // With ten bytes left (the longest varint) no byte needs its own bounds check.
    const bool room = end_ - pos_ >= 10;
    uint64_t n = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (!room && pos_ == end_) return Truncated("varint");
      uint8_t b = *pos_++;
      if (shift == 63 && b > 1) return Status::Invalid("Avro varint overflows 64 bits");
      n |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        *out = static_cast<int64_t>((n >> 1) ^ (~(n & 1) + 1));
        return Status::OK();
      }
    }
    return Status::Invalid("Avro varint longer than 10 bytes");
  }

  template <typename T>
  Status ReadLittleEndian(T* out, const char* what) {
    if (remaining() < sizeof(T)) return Truncated(what);
    T v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(pos_[i]) << (8 * i);
    pos_ += sizeof(T);
    *out = v;
    return Status::OK();
  }

  static Status Truncated(const char* what) {
    return Status::Invalid("Avro data truncated while reading a ", what);
  }

  const uint8_t* pos_ = nullptr;
  const uint8_t* end_ = nullptr;
  const uint8_t* begin_ = nullptr;
};

}  // namespace floe::avro
