#include "floe/catalog/rest_http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe_test.h"

namespace floe {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// One request as the server below read it.
struct Seen {
  std::string head;  // request line and headers
  std::string body;
};

// A loopback HTTP/1.1 peer that reads each request (head, then Content-Length bytes) and lets
// `answer` write what it likes (or nothing, and close): it stands in for the misbehaving
// servers no real catalog can be made to be.
class Peer {
 public:
  using Answer = std::function<std::string(const Seen&)>;  // empty: close without answering

  explicit Peer(Answer answer) : answer_(std::move(answer)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(listen(fd_, 8), 0);
    socklen_t size = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &size);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Run(); });
  }
  ~Peer() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }

  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  int connections() const { return connections_; }
  std::vector<Seen> seen() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }

 private:
  void Run() {
    for (;;) {
      const int client = accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      ++connections_;
      Serve(client);
      close(client);
    }
  }

  void Serve(int client) {
    std::string buffer;
    char chunk[4096];
    for (;;) {
      size_t end;
      while ((end = buffer.find("\r\n\r\n")) == std::string::npos) {
        const ssize_t n = recv(client, chunk, sizeof(chunk), 0);
        if (n <= 0) return;
        buffer.append(chunk, static_cast<size_t>(n));
      }
      Seen seen{buffer.substr(0, end), ""};
      size_t length = 0;
      if (auto at = seen.head.find("Content-Length: "); at != std::string::npos) {
        length = std::stoul(seen.head.substr(at + 16));
      }
      buffer.erase(0, end + 4);
      while (buffer.size() < length) {
        const ssize_t n = recv(client, chunk, sizeof(chunk), 0);
        if (n <= 0) return;
        buffer.append(chunk, static_cast<size_t>(n));
      }
      seen.body = buffer.substr(0, length);
      buffer.erase(0, length);
      {
        std::lock_guard<std::mutex> lock(mu_);
        seen_.push_back(seen);
      }
      const std::string reply = answer_(seen);
      if (reply.empty()) return;
      if (send(client, reply.data(), reply.size(), MSG_NOSIGNAL) < 0) return;
    }
  }

  Answer answer_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> connections_{0};
  std::mutex mu_;
  std::vector<Seen> seen_;
  std::thread thread_;
};

std::string Reply(int status, const std::string& reason, const std::string& body,
                  const std::string& extra = "") {
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nContent-Type: application/json\r\n" + extra + "\r\n" + body;
}

TEST(RestHttpClientTest, SendsRequestsAndReadsRepliesOnOneConnection) {
  Peer peer([](const Seen& seen) {
    if (seen.head.rfind("POST ", 0) == 0) {
      return Reply(409, "Conflict", R"({"error":{"code":409}})");
    }
    return Reply(200, "OK", R"({"defaults":{}})", "ETag: \"abc\"\r\n");
  });
  RestHttpOptions options;
  options.headers = {{"X-Client-Version", "floe"}};
  ASSERT_OK_AND_ASSIGN(auto client, RestHttpClient::Make(options));
  bool maybe_sent = false;
  ASSERT_OK_AND_ASSIGN(auto config,
                       client->Send("GET", peer.url("/v1/config?warehouse=w"),
                                    {{"Authorization", "Bearer t0k"}}, "", &maybe_sent));
  EXPECT_TRUE(maybe_sent);
  EXPECT_EQ(config.status, 200);
  EXPECT_EQ(config.body, R"({"defaults":{}})");
  EXPECT_EQ(config.headers.at("etag"), "\"abc\"");
  EXPECT_EQ(config.headers.at("content-type"), "application/json");
  // Any status is a reply.
  ASSERT_OK_AND_ASSIGN(auto commit, client->Send("POST", peer.url("/v1/namespaces/db/tables/t"),
                                                 {{"Content-Type", "application/json"}},
                                                 R"({"requirements":[],"updates":[]})"));
  EXPECT_EQ(commit.status, 409);
  EXPECT_EQ(commit.body, R"({"error":{"code":409}})");
  ASSERT_OK_AND_ASSIGN(auto head, client->Send("HEAD", peer.url("/v1/namespaces/db"), {}, ""));
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());

  const std::vector<Seen> seen = peer.seen();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_THAT(seen[0].head, StartsWith("GET /v1/config?warehouse=w HTTP/1.1\r\n"));
  EXPECT_THAT(seen[0].head, HasSubstr("\r\nAuthorization: Bearer t0k"));
  EXPECT_THAT(seen[0].head, HasSubstr("\r\nX-Client-Version: floe"));
  EXPECT_THAT(seen[1].head, StartsWith("POST /v1/namespaces/db/tables/t HTTP/1.1\r\n"));
  EXPECT_THAT(seen[1].head, HasSubstr("\r\nContent-Type: application/json"));
  EXPECT_THAT(seen[1].head, ::testing::Not(HasSubstr("Expect:")));
  EXPECT_THAT(seen[1].head, ::testing::Not(HasSubstr("Bearer")));  // only where given
  EXPECT_EQ(seen[1].body, R"({"requirements":[],"updates":[]})");
  EXPECT_THAT(seen[2].head, StartsWith("HEAD /v1/namespaces/db HTTP/1.1\r\n"));
  EXPECT_EQ(peer.connections(), 1);
}

TEST(RestHttpClientTest, FailuresNameTheRequestAndWhetherItMayHaveArrived) {
  ASSERT_OK_AND_ASSIGN(auto client, RestHttpClient::Make({}));
  std::string closed_url;
  {
    Peer gone([](const Seen&) { return std::string(); });
    closed_url = gone.url("/v1/config");
  }
  bool maybe_sent = true;
  auto refused = client->Send("GET", closed_url, {}, "", &maybe_sent);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), StartsWith("Cannot GET " + closed_url + ": "));
  EXPECT_FALSE(maybe_sent);

  // Read, then closed without an answer: the commit may have happened.
  Peer mute([](const Seen&) { return std::string(); });
  auto lost = client->Send("POST", mute.url("/v1/namespaces/db/tables/t"), {}, "{}", &maybe_sent);
  ASSERT_FALSE(lost.ok());
  EXPECT_THAT(lost.status().message(),
              StartsWith("Cannot POST " + mute.url("/v1/namespaces/db/tables/t") + ": "));
  EXPECT_TRUE(maybe_sent);
  EXPECT_EQ(mute.seen().size(), 1u);

  auto bad = client->Send("GET", "ftp://127.0.0.1/x", {}, "", &maybe_sent);
  ASSERT_FALSE(bad.ok());
  EXPECT_FALSE(maybe_sent);
}

}  // namespace
}  // namespace floe
