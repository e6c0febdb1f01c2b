#include "floe/server/http/http_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe_test.h"
#include "unit/server/http/loopback_socket.h"

namespace floe::server::http {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// Echoes the method, path and body: "POST /a 5 hello".
HttpResponse Echo(const HttpRequest& request) {
  HttpResponse response;
  if (request.method != "GET" && request.method != "HEAD" && request.method != "POST" &&
      request.method != "DELETE") {
    response = TextResponse(405, "Not here");
    response.headers.emplace_back("Allow", "GET, HEAD, POST, DELETE");
    return response;
  }
  if (request.path == "/empty") {
    response.status = 204;
    return response;
  }
  response.body = request.method + " " + request.path + " " + std::to_string(request.body.size()) +
                  " " + request.body;
  return response;
}

class HttpServerTest : public ::testing::Test {
 protected:
  void StartServer(bool keep_alive, int idle_timeout_seconds = 30) {
    HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    options.keep_alive = keep_alive;
    options.max_body_bytes = 1024;
    options.idle_timeout_seconds = idle_timeout_seconds;
    ASSERT_OK_AND_ASSIGN(server_, HttpServer::Start(options, Echo));
  }

  int Connect() { return floe::testing::ConnectToLoopback(server_->port()); }

  static void Send(int fd, const std::string& bytes) { floe::testing::SendAll(fd, bytes); }

  // Reads one response (head and Content-Length body) without waiting for the close.
  static std::string ReadResponse(int fd) {
    std::string answer;
    char buffer[4096];
    while (true) {
      const size_t end = answer.find("\r\n\r\n");
      if (end != std::string::npos) {
        size_t length = 0;
        const size_t at = answer.find("Content-Length: ");
        if (at != std::string::npos && at < end) length = std::stoul(answer.substr(at + 16));
        if (answer.size() >= end + 4 + length) return answer;
      }
      const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
      if (n <= 0) return answer;
      answer.append(buffer, static_cast<size_t>(n));
    }
  }

  // Whether the server closed `fd` within `seconds`.
  static bool ClosedWithin(int fd, int seconds) {
    pollfd pfd{fd, POLLIN, 0};
    if (poll(&pfd, 1, seconds * 1000) <= 0) return false;
    char byte;
    return recv(fd, &byte, 1, 0) <= 0;
  }

  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerTest, ServesTwoRequestsOnOneConnection) {
  StartServer(/*keep_alive=*/true);
  const int fd = Connect();
  Send(fd, "GET /one HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const std::string first = ReadResponse(fd);
  EXPECT_THAT(first, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(first, HasSubstr("\r\nConnection: keep-alive\r\n"));
  EXPECT_THAT(first, EndsWith("GET /one 0 "));
  Send(fd, "POST /two HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello");
  EXPECT_THAT(ReadResponse(fd), EndsWith("POST /two 5 hello"));
  // "Connection: close" is honoured: the answer says so and the connection ends.
  Send(fd, "DELETE /three HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  const std::string last = ReadResponse(fd);
  EXPECT_THAT(last, HasSubstr("\r\nConnection: close\r\n"));
  EXPECT_THAT(last, EndsWith("DELETE /three 0 "));
  EXPECT_TRUE(ClosedWithin(fd, 5));
  close(fd);
}

TEST_F(HttpServerTest, AnswersPipelinedRequestsInOrder) {
  StartServer(/*keep_alive=*/true);
  const int fd = Connect();
  Send(fd,
       "POST /a HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\nhi"
       "GET /b HTTP/1.1\r\nHost: localhost\r\n\r\n");
  std::string answers;
  char buffer[4096];
  while (answers.find("GET /b 0 ") == std::string::npos) {
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    ASSERT_GT(n, 0) << answers;
    answers.append(buffer, static_cast<size_t>(n));
  }
  const size_t first = answers.find("\r\n\r\nPOST /a 2 hiHTTP/1.1 200 OK\r\n");
  EXPECT_NE(first, std::string::npos) << answers;
  EXPECT_THAT(answers, EndsWith("\r\n\r\nGET /b 0 "));
  close(fd);
}

TEST_F(HttpServerTest, ClosesIdleConnectionsAfterTheIdleTimeout) {
  StartServer(/*keep_alive=*/true, /*idle_timeout_seconds=*/1);
  const int fd = Connect();
  Send(fd, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_THAT(ReadResponse(fd), StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_TRUE(ClosedWithin(fd, 5));
  close(fd);
}

TEST_F(HttpServerTest, WithoutKeepAliveEveryResponseCloses) {
  StartServer(/*keep_alive=*/false);
  const int fd = Connect();
  Send(fd, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_THAT(ReadResponse(fd), HasSubstr("\r\nConnection: close\r\n"));
  EXPECT_TRUE(ClosedWithin(fd, 5));
  close(fd);
}

TEST_F(HttpServerTest, LimitsAndFramesBodies) {
  StartServer(/*keep_alive=*/true);
  int fd = Connect();
  Send(fd, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1025\r\n\r\n");
  std::string answer = ReadResponse(fd);
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 413 Content Too Large\r\n"));
  EXPECT_THAT(answer, HasSubstr("The request body of 1025 bytes exceeds the limit of 1024 bytes"));
  EXPECT_THAT(answer, HasSubstr("\r\nConnection: close\r\n"));
  close(fd);

  fd = Connect();
  Send(fd,
       "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0"
       "\r\n\r\n");
  EXPECT_THAT(ReadResponse(fd), StartsWith("HTTP/1.1 411 Length Required\r\n"));
  close(fd);

  fd = Connect();
  const std::string body(1024, 'x');
  Send(fd, "POST /full HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1024\r\n\r\n" + body);
  EXPECT_THAT(ReadResponse(fd), EndsWith("POST /full 1024 " + body));
  close(fd);
}

TEST_F(HttpServerTest, HeadAnswersWithoutBodyAndNoContentHasNoLength) {
  StartServer(/*keep_alive=*/true);
  const int fd = Connect();
  Send(fd, "HEAD /x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  // The Content-Length of the GET answer, and no body: the next response follows at once.
  Send(fd, "GET /empty HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  std::string answers;
  char buffer[4096];
  auto complete = [&] {
    const size_t at = answers.find("204 No Content");
    return at != std::string::npos && answers.find("\r\n\r\n", at) != std::string::npos;
  };
  while (!complete()) {
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    ASSERT_GT(n, 0);
    answers.append(buffer, static_cast<size_t>(n));
  }
  const size_t second = answers.find("HTTP/1.1 204 No Content\r\n");
  EXPECT_THAT(answers.substr(0, second), StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(answers.substr(0, second), HasSubstr("Content-Length: 10\r\n"));
  EXPECT_THAT(answers.substr(0, second), EndsWith("\r\n\r\n"));
  EXPECT_THAT(answers.substr(second), Not(HasSubstr("Content-Length")));
  close(fd);
}

TEST_F(HttpServerTest, RoutesMethodsAndRefusesOthers) {
  StartServer(/*keep_alive=*/true);
  const int fd = Connect();
  Send(fd, "PUT /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n");
  const std::string put = ReadResponse(fd);
  EXPECT_THAT(put, StartsWith("HTTP/1.1 405 Method Not Allowed\r\n"));
  EXPECT_THAT(put, HasSubstr("Allow: GET, HEAD, POST, DELETE\r\n"));
  Send(fd, "DELETE /x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_THAT(ReadResponse(fd), EndsWith("DELETE /x 0 "));
  close(fd);
}

TEST_F(HttpServerTest, StopEndsKeptAliveConnections) {
  StartServer(/*keep_alive=*/true);
  const int fd = Connect();
  Send(fd, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_THAT(ReadResponse(fd), StartsWith("HTTP/1.1 200 OK\r\n"));
  const auto start = std::chrono::steady_clock::now();
  server_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_TRUE(ClosedWithin(fd, 5));
  close(fd);
}

TEST(HttpServerStartTest, RefusesNonLoopbackWhenAskedTo) {
  HttpServerOptions options;
  options.listen = "0.0.0.0:0";
  options.loopback_only_reason = "needs authentication";
  ASSERT_RAISES_WITH_MESSAGE("Cannot listen on 0.0.0.0:0: needs authentication",
                             HttpServer::Start(options, Echo));
  options.listen = "127.0.0.1:0";
  ASSERT_OK_AND_ASSIGN(auto server, HttpServer::Start(options, Echo));
  EXPECT_GT(server->port(), 0);
}

}  // namespace
}  // namespace floe::server::http
