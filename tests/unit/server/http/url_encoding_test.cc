#include "floe/server/http/url_encoding.h"

#include <gtest/gtest.h>

#include "floe/server/http/html_escape.h"
#include "floe/server/http/loopback_host.h"
#include "floe/server/http/table_path.h"

namespace floe::server::http {
namespace {

TEST(UrlEncodingTest, EncodesAllButUnreservedBytes) {
  EXPECT_EQ(PercentEncode("a b/c.d~e-f_g"), "a%20b%2Fc%2Ed~e-f_g");
  EXPECT_EQ(PercentEncode("\xC3\xA9?#%&"), "%C3%A9%3F%23%25%26");
  EXPECT_EQ(PercentEncode(""), "");
}

TEST(UrlEncodingTest, DecodesAndRoundTrips) {
  EXPECT_EQ(PercentDecode("a%20b%2fc"), "a b/c");
  EXPECT_EQ(PercentDecode("a+b"), "a+b");
  EXPECT_EQ(PercentDecode("a+b", true), "a b");
  const std::string odd = "x <y> \"z\" 'w' & %41 +.";
  EXPECT_EQ(PercentDecode(PercentEncode(odd)), odd);
}

TEST(UrlEncodingTest, RefusesBrokenEscapesAndNul) {
  EXPECT_EQ(PercentDecode("%"), std::nullopt);
  EXPECT_EQ(PercentDecode("a%4"), std::nullopt);
  EXPECT_EQ(PercentDecode("%zz"), std::nullopt);
  EXPECT_EQ(PercentDecode("%00"), std::nullopt);
}

TEST(UrlEncodingTest, ParsesQueries) {
  auto q = ParseQuery("from=12&to=-3&x=a+b%21&flag&from=99&&");
  ASSERT_TRUE(q);
  EXPECT_EQ(*q, (std::map<std::string, std::string>{
                    {"from", "12"}, {"to", "-3"}, {"x", "a b!"}, {"flag", ""}}));
  EXPECT_TRUE(ParseQuery("")->empty());
  EXPECT_EQ(ParseQuery("a=%zz"), std::nullopt);
}

TEST(HtmlEscapeTest, EscapesMarkupAndQuotes) {
  EXPECT_EQ(HtmlEscape("<script>alert(\"x\")</script> & 'q'"),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;");
  EXPECT_EQ(HtmlEscape("plain \xC3\xA9"), "plain \xC3\xA9");
}

TEST(TablePathTest, EncodesLevelsAndNameAndReadsThemBack) {
  TableIdentifier ident(Namespace({"db", "a b"}), "t<1>.x");
  EXPECT_EQ(TablePath(ident), "db.a%20b/t%3C1%3E%2Ex");
  EXPECT_EQ(ParseTablePath("db.a%20b", "t%3C1%3E%2Ex"), ident);
  EXPECT_EQ(ParseTablePath("db", "t"), TableIdentifier(Namespace({"db"}), "t"));
}

TEST(TablePathTest, RefusesEmptyOrUndecodableParts) {
  EXPECT_EQ(ParseTablePath("", "t"), std::nullopt);
  EXPECT_EQ(ParseTablePath("db..x", "t"), std::nullopt);
  EXPECT_EQ(ParseTablePath("db", ""), std::nullopt);
  EXPECT_EQ(ParseTablePath("db", "%zz"), std::nullopt);
  EXPECT_EQ(ParseTablePath("db", "a%00"), std::nullopt);
}

TEST(LoopbackHostTest, NamesOfTheLoopbackInterfaceOnly) {
  for (const char* host : {"localhost", "LocalHost:8080", "127.0.0.1", "127.0.0.1:80",
                           "127.1.2.3:65535", "[::1]", "[::1]:8080"}) {
    EXPECT_TRUE(IsLoopbackHost(host)) << host;
  }
  for (const char* host : {"", "evil.example", "localhost.evil.example", "127.0.0.1.evil.example",
                           "128.0.0.1", "127.0.0.256", "127.0.0", "10.0.0.1:80", "[::2]", "[::1]x",
                           "localhost:", "localhost:80x", "0x7f.0.0.1"}) {
    EXPECT_FALSE(IsLoopbackHost(host)) << host;
  }
}

}  // namespace
}  // namespace floe::server::http
