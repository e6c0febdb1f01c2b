#include "floe/server/http/http_request.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace floe::server::http {
namespace {

HttpRequest ParseOk(const std::string& head) {
  ParsedRequest parsed = ParseRequestHead(head);
  EXPECT_FALSE(parsed.error) << parsed.error->reason;
  return parsed.request.value_or(HttpRequest{});
}

HttpRequestError ParseError(const std::string& head) {
  ParsedRequest parsed = ParseRequestHead(head);
  EXPECT_FALSE(parsed.request) << "parsed: " << head;
  return parsed.error.value_or(HttpRequestError{0, ""});
}

TEST(HttpRequestTest, ParsesRequestLineAndFields) {
  HttpRequest r = ParseOk(
      "GET /api/table/db/t/diff?from=1&to=2 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
      "Accept:  application/json \r\nX-Thing: a\r\nx-thing: b\r\n\r\n");
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.target, "/api/table/db/t/diff?from=1&to=2");
  EXPECT_EQ(r.path, "/api/table/db/t/diff");
  EXPECT_EQ(r.query, "from=1&to=2");
  EXPECT_EQ(r.version, "HTTP/1.1");
  EXPECT_EQ(r.Header("host"), "127.0.0.1:8080");
  EXPECT_EQ(r.Header("accept"), "application/json");
  EXPECT_EQ(r.Header("x-thing"), "a, b");
  EXPECT_EQ(r.Header("missing"), std::nullopt);
}

TEST(HttpRequestTest, AcceptsBareLineFeedsLeadingBlankLinesAndHttp10WithoutHost) {
  HttpRequest r = ParseOk("\r\n\nGET / HTTP/1.0\nUser-Agent: x\n\n");
  EXPECT_EQ(r.path, "/");
  EXPECT_EQ(r.query, "");
  EXPECT_EQ(r.version, "HTTP/1.0");
  EXPECT_EQ(r.Header("user-agent"), "x");
}

TEST(HttpRequestTest, KeepsOtherMethodsForTheRouterToRefuse) {
  EXPECT_EQ(ParseOk("POST /api/tables HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\n").method,
            "POST");
  EXPECT_EQ(ParseOk("get / HTTP/1.1\r\nHost: h\r\n\r\n").method, "get");
}

TEST(HttpRequestTest, RefusesMalformedRequestLines) {
  EXPECT_EQ(ParseError("GET /\r\nHost: h\r\n\r\n").status, 400);
  EXPECT_EQ(ParseError("GET  / HTTP/1.1\r\nHost: h\r\n\r\n").status, 400);
  EXPECT_EQ(ParseError("GET / HTTP/1.1 x\r\nHost: h\r\n\r\n").status, 400);
  EXPECT_EQ(ParseError("G(T / HTTP/1.1\r\nHost: h\r\n\r\n").reason, "Malformed request method");
  EXPECT_EQ(ParseError("GET / HTTP/1.10\r\nHost: h\r\n\r\n").reason, "Malformed HTTP version");
  EXPECT_EQ(ParseError("GET / http/1.1\r\nHost: h\r\n\r\n").status, 400);
  EXPECT_EQ(ParseError("\r\n\r\n").reason, "Empty request");
  HttpRequestError v2 = ParseError("GET / HTTP/2.0\r\nHost: h\r\n\r\n");
  EXPECT_EQ(v2.status, 505);
  EXPECT_EQ(v2.reason, "HTTP version not supported");
}

TEST(HttpRequestTest, RefusesTargetsThatAreNotPlainPaths) {
  EXPECT_EQ(ParseError("GET http://h/ HTTP/1.1\r\nHost: h\r\n\r\n").reason,
            "The request target must be a path");
  EXPECT_EQ(ParseError("GET * HTTP/1.1\r\nHost: h\r\n\r\n").status, 400);
  EXPECT_EQ(ParseError("GET /a\x01 HTTP/1.1\r\nHost: h\r\n\r\n").reason,
            "Malformed request target");
  EXPECT_EQ(ParseError("GET /\xC3\xA9 HTTP/1.1\r\nHost: h\r\n\r\n").reason,
            "Malformed request target");
}

TEST(HttpRequestTest, RefusesMalformedFields) {
  EXPECT_EQ(ParseError("GET / HTTP/1.1\r\n\r\n").reason, "Missing Host header");
  EXPECT_EQ(ParseError("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n").reason,
            "Malformed header field");
  EXPECT_EQ(ParseError("GET / HTTP/1.1\r\nHost : h\r\n\r\n").reason, "Malformed header field name");
  EXPECT_EQ(ParseError("GET / HTTP/1.1\r\nHost: h\r\nA: b\r\n c\r\n\r\n").reason,
            "Folded header field");
  EXPECT_EQ(ParseError("GET / HTTP/1.1\r\nHost: h\r\nA: b\x7F\r\n\r\n").reason,
            "Malformed header field value");
  EXPECT_EQ(ParseError("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n").reason, "Repeated host");
  EXPECT_EQ(ParseError("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n"
                       "Content-Length: 2\r\n\r\n")
                .reason,
            "Repeated content-length");
}

TEST(HttpRequestTest, BoundsTheHead) {
  std::string many = "GET / HTTP/1.1\r\nHost: h\r\n";
  for (size_t i = 0; i < kMaxHeaderFields; ++i) many += "X-" + std::to_string(i) + ": v\r\n";
  HttpRequestError too_many = ParseError(many + "\r\n");
  EXPECT_EQ(too_many.status, 431);
  EXPECT_EQ(too_many.reason, "Too many header fields");

  std::string big = "GET / HTTP/1.1\r\nHost: h\r\nX: " + std::string(kMaxRequestHeadBytes, 'a');
  EXPECT_EQ(ParseError(big + "\r\n\r\n").status, 431);
}

TEST(HttpRequestTest, FindsTheEndOfTheHead) {
  EXPECT_EQ(FindRequestHeadEnd("GET / HTTP/1.1\r\nHost: h\r\n"), std::nullopt);
  EXPECT_EQ(FindRequestHeadEnd("GET / HTTP/1.1\r\nHost: h\r\n\r"), std::nullopt);
  EXPECT_EQ(FindRequestHeadEnd("GET / HTTP/1.1\r\n\r\nbody"), 18u);
  EXPECT_EQ(FindRequestHeadEnd("GET / HTTP/1.1\n\nbody"), 16u);
  EXPECT_EQ(FindRequestHeadEnd(""), std::nullopt);
}

TEST(HttpRequestTest, KeepAliveFollowsVersionAndConnection) {
  EXPECT_TRUE(ParseOk("GET / HTTP/1.1\r\nHost: h\r\n\r\n").KeepAlive());
  EXPECT_FALSE(ParseOk("GET / HTTP/1.1\r\nHost: h\r\nConnection: Close\r\n\r\n").KeepAlive());
  EXPECT_FALSE(ParseOk("GET / HTTP/1.1\r\nHost: h\r\nConnection: te, close\r\n\r\n").KeepAlive());
  EXPECT_FALSE(ParseOk("GET / HTTP/1.0\r\n\r\n").KeepAlive());
  EXPECT_TRUE(ParseOk("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").KeepAlive());
}

TEST(HttpRequestTest, FramesBodiesByContentLength) {
  auto length = [](const std::string& head, size_t limit = 10) {
    return RequestBodyLength(ParseOk(head), limit);
  };
  EXPECT_EQ(length("POST / HTTP/1.1\r\nHost: h\r\n\r\n").length, 0u);
  EXPECT_EQ(length("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n").length, 10u);
  BodyLength big = length("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n");
  ASSERT_TRUE(big.error);
  EXPECT_EQ(big.error->status, 413);
  EXPECT_EQ(big.error->reason, "The request body of 11 bytes exceeds the limit of 10 bytes");
  EXPECT_EQ(length("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\n\r\n")
                .error->status,
            413);
  EXPECT_EQ(length("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n").error->status, 400);
  EXPECT_EQ(length("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1, 1\r\n\r\n").error->status,
            400);
  EXPECT_EQ(
      length("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n").error->status,
      411);
}

TEST(HttpRequestTest, ReaderCutsPipelinedRequestsFromPieces) {
  HttpRequestReader reader(100);
  const std::string bytes =
      "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhelloGET /b HTTP/1.1\r\n"
      "Host: h\r\n\r\n";
  EXPECT_FALSE(reader.InRequest());
  // One byte at a time: a request comes out exactly when its last byte arrived.
  std::vector<HttpRequest> requests;
  for (char c : bytes) {
    reader.Append(std::string_view(&c, 1));
    HttpRequestReader::Step step = reader.Next();
    ASSERT_NE(step.state, HttpRequestReader::State::kError);
    if (step.request) requests.push_back(*step.request);
  }
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].path, "/a");
  EXPECT_EQ(requests[0].body, "hello");
  EXPECT_EQ(requests[1].path, "/b");
  EXPECT_EQ(requests[1].body, "");
  EXPECT_FALSE(reader.InRequest());
  EXPECT_EQ(reader.Next().state, HttpRequestReader::State::kNeedMore);
}

TEST(HttpRequestTest, ReaderStopsAtTheFirstError) {
  HttpRequestReader reader(4);
  reader.Append("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello");
  HttpRequestReader::Step step = reader.Next();
  ASSERT_EQ(step.state, HttpRequestReader::State::kError);
  EXPECT_EQ(step.error->status, 413);
  reader.Append("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_EQ(reader.Next().state, HttpRequestReader::State::kError);
  HttpRequestReader heads(4);
  heads.Append(std::string(kMaxRequestHeadBytes + 1, 'a'));
  EXPECT_EQ(heads.Next().error->status, 431);
}

}  // namespace
}  // namespace floe::server::http
