#include "floe/server/http/metadata_http_server.h"

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe_test.h"
#include "unit/server/http/loopback_socket.h"

namespace floe::server {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class MetadataHttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.catalog_uri = dir_.str() + "/catalog.db";
    options_.warehouse = dir_.str() + "/warehouse";
    ASSERT_OK_AND_ASSIGN(auto session, sql::Session::Make(options_));
    ASSERT_OK(session->Execute("CREATE NAMESPACE db").status());
    ASSERT_OK(session->Execute("CREATE TABLE db.t (id BIGINT) USING iceberg").status());
    ASSERT_OK_AND_ASSIGN(server_, MetadataHttpServer::Start("127.0.0.1:0", [this] {
                           return sql::Session::Make(options_);
                         }));
  }

  int Connect() { return floe::testing::ConnectToLoopback(server_->port()); }

  // Sends `bytes` on a new connection and returns everything the server answers.
  std::string Exchange(const std::string& bytes) {
    const int fd = Connect();
    floe::testing::SendAll(fd, bytes);
    std::string answer;
    char buffer[4096];
    ssize_t n;
    while ((n = recv(fd, buffer, sizeof(buffer), 0)) > 0) answer.append(buffer, n);
    close(fd);
    return answer;
  }

  floe::testing::TempDir dir_;
  sql::SessionOptions options_;
  std::unique_ptr<MetadataHttpServer> server_;
};

TEST_F(MetadataHttpServerTest, ServesPagesAndJson) {
  EXPECT_GT(server_->port(), 0);
  const std::string index = Exchange("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
  EXPECT_THAT(index, StartsWith("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"));
  EXPECT_THAT(index, HasSubstr("\r\nConnection: close\r\n"));
  EXPECT_THAT(index, HasSubstr("<a href=\"/table/db/t\">t</a>"));
  const std::string json = Exchange("GET /api/tables HTTP/1.0\r\n\r\n");
  EXPECT_THAT(json, StartsWith("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"));
  EXPECT_THAT(json, HasSubstr("\r\n\r\n{\"catalog\": \"lakehouse\", \"namespaces\": [\"db\"]"));
}

TEST_F(MetadataHttpServerTest, AnswersBadRequestsAndKeepsServing) {
  EXPECT_THAT(Exchange("GARBAGE\r\n\r\n"), StartsWith("HTTP/1.1 400 Bad Request\r\n"));
  EXPECT_THAT(Exchange("GET / HTTP/1.1\r\n\r\n"),
              HasSubstr("400 Bad Request: Missing Host header\n"));
  EXPECT_THAT(
      Exchange("POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello"),
      AllOf(StartsWith("HTTP/1.1 405 Method Not Allowed\r\n"), HasSubstr("Allow: GET\r\n")));
  EXPECT_THAT(Exchange("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + std::string(20000, 'a')),
              StartsWith("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
  static constexpr char kNul[] = "GET /\0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  EXPECT_THAT(Exchange(std::string(kNul, sizeof(kNul) - 1)),
              StartsWith("HTTP/1.1 400 Bad Request\r\n"));
  // Bound to loopback, it answers only requests that name it (no DNS rebinding).
  EXPECT_THAT(Exchange("GET /api/tables HTTP/1.1\r\nHost: evil.example:8080\r\n\r\n"),
              HasSubstr("403 Forbidden: This server answers only requests for localhost, "
                        "127.0.0.1 or [::1], not for 'evil.example:8080'\n"));
  EXPECT_THAT(Exchange("GET /api/tables HTTP/1.1\r\nHost: LOCALHOST:1\r\n\r\n"),
              StartsWith("HTTP/1.1 200 OK\r\n"));
  // A client that connects and leaves gets nothing, and breaks nothing.
  close(Connect());
  EXPECT_THAT(Exchange("GET /api/table/db/t HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
              StartsWith("HTTP/1.1 200 OK\r\n"));
}

TEST_F(MetadataHttpServerTest, ManyClientsAtOnce) {
  std::vector<std::thread> clients;
  std::vector<std::string> answers(16);
  for (size_t i = 0; i < answers.size(); ++i) {
    clients.emplace_back([&, i] {
      answers[i] = Exchange("GET /api/table/db/t HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    });
  }
  for (auto& c : clients) c.join();
  for (const auto& answer : answers) {
    // Either served, or (beyond kMaxConnections) told to come back; never dropped.
    EXPECT_THAT(answer, AnyOf(StartsWith("HTTP/1.1 200 OK\r\n"),
                              StartsWith("HTTP/1.1 503 Service Unavailable\r\n")));
  }
}

TEST_F(MetadataHttpServerTest, StopEndsIdleConnections) {
  const int idle = Connect();  // sends nothing
  const auto start = std::chrono::steady_clock::now();
  server_->Stop();
  // At once, not after the idle client's read timeout.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  char byte;
  // Closed without an answer (reset instead when it was still waiting to be accepted).
  EXPECT_LE(recv(idle, &byte, 1, 0), 0);
  close(idle);
  server_->Stop();  // again: nothing to do
}

TEST(MetadataHttpServerStartTest, RefusesBadAddressesAndCatalogs) {
  auto never = []() -> Result<std::unique_ptr<sql::Session>> {
    return Status::Invalid("no catalog here");
  };
  floe::testing::TempDir dir;
  sql::SessionOptions options;
  options.catalog_uri = dir.str() + "/catalog.db";
  options.warehouse = dir.str() + "/warehouse";
  auto open = [&] { return sql::Session::Make(options); };
  for (const char* listen :
       {"8080", ":8080", "127.0.0.1:", "127.0.0.1:x", "127.0.0.1:65536", "::1:80", "[::1:80"}) {
    ASSERT_RAISES_WITH_MESSAGE(
        std::string("Invalid listen address '") + listen + "': expected HOST:PORT",
        MetadataHttpServer::Start(listen, open));
  }
  ASSERT_RAISES_WITH_MESSAGE("no catalog here", MetadataHttpServer::Start("127.0.0.1:0", never));
  ASSERT_OK_AND_ASSIGN(auto first, MetadataHttpServer::Start("127.0.0.1:0", open));
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot listen on 127.0.0.1:" + std::to_string(first->port()) + ": Address already in use",
      MetadataHttpServer::Start("127.0.0.1:" + std::to_string(first->port()), open));
}

}  // namespace
}  // namespace floe::server
