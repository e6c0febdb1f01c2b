#include "floe/server/pg_message.h"

#include <cstring>

namespace floe::server {

namespace {

Status Violation(std::string_view what) { return Status::Invalid("protocol violation: ", what); }

uint32_t ReadBigEndian32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | u[3];
}

}  // namespace

Result<int16_t> BodyReader::Int16() {
  if (remaining() < 2) return Violation("message ends inside an int16");
  const auto* u = reinterpret_cast<const unsigned char*>(body_.data() + pos_);
  pos_ += 2;
  return static_cast<int16_t>((u[0] << 8) | u[1]);
}

Result<int32_t> BodyReader::Int32() {
  if (remaining() < 4) return Violation("message ends inside an int32");
  uint32_t v = ReadBigEndian32(body_.data() + pos_);
  pos_ += 4;
  return static_cast<int32_t>(v);
}

Result<std::string> BodyReader::CString() {
  size_t nul = body_.find('\0', pos_);
  if (nul == std::string_view::npos) return Violation("string without its terminating NUL");
  std::string s(body_.substr(pos_, nul - pos_));
  pos_ = nul + 1;
  return s;
}

Result<std::string_view> BodyReader::Bytes(size_t n) {
  if (remaining() < n) return Violation("message ends inside a value");
  std::string_view s = body_.substr(pos_, n);
  pos_ += n;
  return s;
}

void AppendInt16(std::string* out, int16_t v) {
  auto u = static_cast<uint16_t>(v);
  out->push_back(static_cast<char>(u >> 8));
  out->push_back(static_cast<char>(u & 0xff));
}

void AppendInt32(std::string* out, int32_t v) {
  auto u = static_cast<uint32_t>(v);
  for (int shift = 24; shift >= 0; shift -= 8)
    out->push_back(static_cast<char>((u >> shift) & 0xff));
}

void AppendInt64(std::string* out, int64_t v) {
  auto u = static_cast<uint64_t>(v);
  for (int shift = 56; shift >= 0; shift -= 8)
    out->push_back(static_cast<char>((u >> shift) & 0xff));
}

MessageBuilder::MessageBuilder(std::string* out, char type) : out_(out) {
  out_->push_back(type);
  start_ = out_->size();
  out_->append(4, '\0');
}

MessageBuilder& MessageBuilder::Int16(int16_t v) {
  AppendInt16(out_, v);
  return *this;
}
MessageBuilder& MessageBuilder::Int32(int32_t v) {
  AppendInt32(out_, v);
  return *this;
}
MessageBuilder& MessageBuilder::Int64(int64_t v) {
  AppendInt64(out_, v);
  return *this;
}
MessageBuilder& MessageBuilder::Byte(char v) {
  out_->push_back(v);
  return *this;
}
MessageBuilder& MessageBuilder::CString(std::string_view s) {
  // A NUL inside would end the field early on the client; cut it there instead.
  out_->append(s.substr(0, s.find('\0')));
  out_->push_back('\0');
  return *this;
}
MessageBuilder& MessageBuilder::Bytes(std::string_view s) {
  out_->append(s);
  return *this;
}

void MessageBuilder::Finish() {
  auto length = static_cast<uint32_t>(out_->size() - start_);
  for (int i = 0; i < 4; ++i) {
    (*out_)[start_ + i] = static_cast<char>((length >> (24 - 8 * i)) & 0xff);
  }
}

Result<StartupPacket> ParseStartupPacket(std::string_view body) {
  BodyReader reader(body);
  StartupPacket packet;
  ARROW_ASSIGN_OR_RAISE(packet.protocol, reader.Int32());
  switch (packet.protocol) {
    case kSslRequestCode:
    case kGssEncRequestCode:
      if (!reader.at_end()) return Violation("SSL/GSS request with a body");
      packet.kind = packet.protocol == kSslRequestCode ? StartupPacket::Kind::kSsl
                                                       : StartupPacket::Kind::kGssEnc;
      return packet;
    case kCancelRequestCode: {
      packet.kind = StartupPacket::Kind::kCancel;
      ARROW_ASSIGN_OR_RAISE(packet.cancel_pid, reader.Int32());
      ARROW_ASSIGN_OR_RAISE(packet.cancel_secret, reader.Int32());
      if (!reader.at_end()) return Violation("cancel request of the wrong length");
      return packet;
    }
    default:
      break;
  }
  if ((packet.protocol >> 16) != 3) {
    return Status::Invalid("unsupported frontend protocol ", packet.protocol >> 16, ".",
                           packet.protocol & 0xffff, ": server supports 3.0 to 3.0");
  }
  // name\0value\0 pairs, then a lone \0.
  while (true) {
    ARROW_ASSIGN_OR_RAISE(std::string name, reader.CString());
    if (name.empty()) break;
    ARROW_ASSIGN_OR_RAISE(std::string value, reader.CString());
    packet.parameters[name] = value;
  }
  if (!reader.at_end()) return Violation("bytes after the startup packet's parameters");
  if (packet.parameters.count("user") == 0) {
    return Status::Invalid("no PostgreSQL user name specified in startup packet");
  }
  return packet;
}

Result<size_t> SplitMessage(std::string_view buffer, char* type, std::string_view* body) {
  if (buffer.size() < 5) return 0;
  uint32_t length = ReadBigEndian32(buffer.data() + 1);
  if (length < 4) return Violation("message length below 4");
  if (length > kMaxMessageLength) return Violation("message length above the limit");
  if (buffer.size() < size_t{length} + 1) return 0;
  *type = buffer[0];
  *body = buffer.substr(5, length - 4);
  return size_t{length} + 1;
}

}  // namespace floe::server
