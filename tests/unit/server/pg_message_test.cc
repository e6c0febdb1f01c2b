#include "floe/server/pg_message.h"

#include "floe_test.h"

namespace floe::server {
namespace {

std::string Startup(const std::string& body_after_length) { return body_after_length; }

TEST(PgMessage, BuilderWritesTypeLengthAndFields) {
  std::string out;
  MessageBuilder(&out, 'Z').Byte('I').Finish();
  EXPECT_EQ(out, std::string("Z\0\0\0\5I", 6));
  out.clear();
  MessageBuilder(&out, 'K').Int32(1000).Int16(-2).CString("ab").Finish();
  EXPECT_EQ(out, std::string("K\0\0\0\x0d\0\0\x03\xe8\xff\xfe"
                             "ab\0",
                             14));
}

TEST(PgMessage, ReaderStopsAtTheEnd) {
  std::string body("\0\0\0\7x\0\1", 7);
  BodyReader r(body);
  EXPECT_EQ(*r.Int32(), 7);
  EXPECT_EQ(*r.CString(), "x");
  ASSERT_RAISES_WITH_MESSAGE("ends inside an int16", r.Int16().status());
  BodyReader no_nul(std::string_view("abc"));
  ASSERT_RAISES_WITH_MESSAGE("terminating NUL", no_nul.CString().status());
  BodyReader short_bytes(std::string_view("ab"));
  ASSERT_RAISES_WITH_MESSAGE("ends inside a value", short_bytes.Bytes(3).status());
}

TEST(PgMessage, StartupPacket) {
  std::string body;
  AppendInt32(&body, kProtocolV3);
  body += std::string("user\0alice\0database\0lakehouse\0\0", 31);
  ASSERT_OK_AND_ASSIGN(StartupPacket p, ParseStartupPacket(Startup(body)));
  EXPECT_EQ(p.kind, StartupPacket::Kind::kStartup);
  EXPECT_EQ(p.parameters.at("user"), "alice");
  EXPECT_EQ(p.parameters.at("database"), "lakehouse");
}

TEST(PgMessage, SslGssAndCancelRequests) {
  std::string ssl;
  AppendInt32(&ssl, kSslRequestCode);
  ASSERT_OK_AND_ASSIGN(StartupPacket p, ParseStartupPacket(ssl));
  EXPECT_EQ(p.kind, StartupPacket::Kind::kSsl);
  std::string gss;
  AppendInt32(&gss, kGssEncRequestCode);
  ASSERT_OK_AND_ASSIGN(p, ParseStartupPacket(gss));
  EXPECT_EQ(p.kind, StartupPacket::Kind::kGssEnc);
  std::string cancel;
  AppendInt32(&cancel, kCancelRequestCode);
  AppendInt32(&cancel, 1001);
  AppendInt32(&cancel, -5);
  ASSERT_OK_AND_ASSIGN(p, ParseStartupPacket(cancel));
  EXPECT_EQ(p.kind, StartupPacket::Kind::kCancel);
  EXPECT_EQ(p.cancel_pid, 1001);
  EXPECT_EQ(p.cancel_secret, -5);
}

TEST(PgMessage, BadStartupPackets) {
  std::string v2;
  AppendInt32(&v2, 2 << 16);
  ASSERT_RAISES_WITH_MESSAGE("unsupported frontend protocol 2.0", ParseStartupPacket(v2).status());
  std::string no_user;
  AppendInt32(&no_user, kProtocolV3);
  no_user += std::string("database\0x\0\0", 12);
  ASSERT_RAISES_WITH_MESSAGE("no PostgreSQL user name", ParseStartupPacket(no_user).status());
  std::string unterminated;
  AppendInt32(&unterminated, kProtocolV3);
  unterminated += "user";
  ASSERT_RAISES_WITH_MESSAGE("protocol violation", ParseStartupPacket(unterminated).status());
  ASSERT_RAISES_WITH_MESSAGE("protocol violation", ParseStartupPacket("ab").status());
}

TEST(PgMessage, SplitMessage) {
  char type = 0;
  std::string_view body;
  std::string framed("Q\0\0\0\x0bSELECT\0Sx", 14);
  ASSERT_OK_AND_ASSIGN(size_t used, SplitMessage(framed, &type, &body));
  EXPECT_EQ(used, 12u);
  EXPECT_EQ(type, 'Q');
  EXPECT_EQ(body, std::string_view("SELECT\0", 7));
  ASSERT_OK_AND_ASSIGN(used, SplitMessage(std::string_view(framed).substr(0, 8), &type, &body));
  EXPECT_EQ(used, 0u);
  ASSERT_RAISES_WITH_MESSAGE("below 4",
                             SplitMessage(std::string("Q\0\0\0\3", 5), &type, &body).status());
  ASSERT_RAISES_WITH_MESSAGE(
      "above the limit", SplitMessage(std::string("Q\x7f\xff\xff\xff", 5), &type, &body).status());
}

}  // namespace
}  // namespace floe::server
