#pragma once

// The PostgreSQL v3 wire protocol's framing: reading the fields of a message body with
// bounds checks, building backend messages, and reading the startup packet. No I/O here;
// connection.cc moves the bytes.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "floe/util/status.h"

namespace floe::server {

// A message larger than this (its length word included) closes the connection: nothing a
// client legitimately sends comes close, and it bounds what one connection may buffer.
inline constexpr uint32_t kMaxMessageLength = 64u << 20;
// Startup packets are small; PostgreSQL itself caps them at 10000 bytes.
inline constexpr uint32_t kMaxStartupLength = 10000;

inline constexpr int32_t kProtocolV3 = 196608;  // 3.0
inline constexpr int32_t kSslRequestCode = 80877103;
inline constexpr int32_t kGssEncRequestCode = 80877104;
inline constexpr int32_t kCancelRequestCode = 80877102;

// Reads big-endian fields from one message body; every read fails (a protocol violation)
// rather than run past the end.
class BodyReader {
 public:
  explicit BodyReader(std::string_view body) : body_(body) {}

  Result<int16_t> Int16();
  Result<int32_t> Int32();
  // A NUL-terminated string, without its NUL.
  Result<std::string> CString();
  Result<std::string_view> Bytes(size_t n);

  size_t remaining() const { return body_.size() - pos_; }
  bool at_end() const { return pos_ == body_.size(); }

 private:
  std::string_view body_;
  size_t pos_ = 0;
};

// Appends one backend message (type byte, length, body) to a buffer.
class MessageBuilder {
 public:
  MessageBuilder(std::string* out, char type);
  MessageBuilder& Int16(int16_t v);
  MessageBuilder& Int32(int32_t v);
  MessageBuilder& Int64(int64_t v);
  MessageBuilder& Byte(char v);
  MessageBuilder& CString(std::string_view s);
  MessageBuilder& Bytes(std::string_view s);
  // Writes the length word; the builder must not be used after.
  void Finish();

 private:
  std::string* out_;
  size_t start_;
};

// Writes big-endian integers into `out`.
void AppendInt16(std::string* out, int16_t v);
void AppendInt32(std::string* out, int32_t v);
void AppendInt64(std::string* out, int64_t v);

// What a client sends first (its body after the length word).
struct StartupPacket {
  enum class Kind { kStartup, kSsl, kGssEnc, kCancel };
  Kind kind = Kind::kStartup;
  int32_t protocol = 0;
  std::map<std::string, std::string> parameters;  // user, database, options, ...
  int32_t cancel_pid = 0;
  int32_t cancel_secret = 0;
};

// Parses a startup packet's body (the bytes after its length word). Fails with the reason
// on a malformed packet or an unsupported protocol version.
Result<StartupPacket> ParseStartupPacket(std::string_view body);

// A frontend message split off the front of `buffer` (type byte, then length): returns the
// number of bytes it takes, 0 when more bytes are needed, or an error for a length word
// below 4 or above kMaxMessageLength. `type` and `body` are set when complete.
Result<size_t> SplitMessage(std::string_view buffer, char* type, std::string_view* body);

}  // namespace floe::server
