#pragma once

// Avro binary encoding (spec, "Binary Encoding") into a growing in-memory buffer.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace floe::avro {

class Encoder {
 public:
  void WriteNull() {}
  void WriteBool(bool v) { buffer_.push_back(v ? '\x01' : '\x00'); }
  void WriteInt(int32_t v) { WriteLong(v); }
  void WriteLong(int64_t v) {
    // Zig-zag, then base-128 varint, low groups first.
    uint64_t n = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    char tmp[10];
    size_t len = 0;
    while (n >= 0x80) {
      tmp[len++] = static_cast<char>((n & 0x7f) | 0x80);
      n >>= 7;
    }
    tmp[len++] = static_cast<char>(n);
    buffer_.append(tmp, len);
  }
  void WriteFloat(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    WriteLittleEndian(bits, 4);
  }
  void WriteDouble(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    WriteLittleEndian(bits, 8);
  }
  void WriteBytes(std::string_view v) {
    WriteLong(static_cast<int64_t>(v.size()));
    buffer_.append(v);
  }
  void WriteString(std::string_view v) { WriteBytes(v); }
  // Fixed values carry no length; the schema gives it.
  void WriteFixed(std::string_view v) { buffer_.append(v); }
  void WriteEnum(int32_t index) { WriteLong(index); }
  void WriteUnionIndex(int32_t index) { WriteLong(index); }
  // Arrays and maps: WriteBlockCount(n) then n items, repeated, then WriteBlockCount(0).
  void WriteBlockCount(int64_t count) { WriteLong(count); }
  void WriteRaw(std::string_view bytes) { buffer_.append(bytes); }

  const std::string& buffer() const { return buffer_; }
  std::string* mutable_buffer() { return &buffer_; }
  size_t size() const { return buffer_.size(); }
  void Clear() { buffer_.clear(); }

 private:
  void WriteLittleEndian(uint64_t bits, size_t n) {
    char tmp[8];
    for (size_t i = 0; i < n; ++i) tmp[i] = static_cast<char>((bits >> (8 * i)) & 0xff);
    buffer_.append(tmp, n);
  }

  std::string buffer_;
};

}  // namespace floe::avro
