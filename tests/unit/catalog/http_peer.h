#pragma once

// A loopback HTTP/1.1 peer for the tests of floe's REST catalog client: it stands in for the
// misbehaving servers (and the exact answers) no real catalog can be made to give.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace floe::testing {

// One request as the server below read it.
struct Seen {
  std::string head;  // request line and headers
  std::string body;
};

// Reads each request (head, then Content-Length bytes) and lets `answer` write what it likes
// (or nothing, and close).
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
    // Clients may still hold kept-alive connections open.
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (int client : clients_) shutdown(client, SHUT_RDWR);
    }
    for (auto& t : served_) t.join();
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
  // Each connection on a thread of its own: a client may open another (a change goes on a
  // new one) while it keeps the first.
  void Run() {
    for (;;) {
      const int client = accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      ++connections_;
      std::lock_guard<std::mutex> lock(mu_);
      clients_.push_back(client);
      served_.emplace_back([this, client] {
        Serve(client);
        std::lock_guard<std::mutex> done(mu_);
        clients_.erase(std::find(clients_.begin(), clients_.end(), client));
        close(client);
      });
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
  std::vector<int> clients_;  // the connections being served
  std::vector<Seen> seen_;
  std::thread thread_;
  std::vector<std::thread> served_;
};

// An HTTP/1.1 answer with a JSON body.
inline std::string Reply(int status, const std::string& reason, const std::string& body,
                         const std::string& extra = "") {
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nContent-Type: application/json\r\n" + extra + "\r\n" + body;
}

}  // namespace floe::testing
