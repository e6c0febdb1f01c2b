#include "floe/server/server.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include <arrow/io/interfaces.h>
#include <cstring>

namespace floe::server {

namespace {
// Statements in the engine at once, and the Arrow I/O pool sized so that many can block
// on their reads with threads to spare for the reads themselves.
constexpr int kActiveStatements = 8;
constexpr int kIoThreads = 64;
}  // namespace

Result<std::unique_ptr<Server>> Server::Make(ServerOptions options) {
  if (arrow::io::GetIOThreadPoolCapacity() < kIoThreads) {
    ARROW_RETURN_NOT_OK(arrow::io::SetIOThreadPoolCapacity(kIoThreads));
  }
  std::shared_ptr<TlsContext> tls;
  if (!options.tls_cert_file.empty() || !options.tls_key_file.empty()) {
    if (options.tls_cert_file.empty() || options.tls_key_file.empty()) {
      return Status::Invalid("TLS needs both --tls-cert and --tls-key");
    }
    ARROW_ASSIGN_OR_RAISE(tls, TlsContext::Make(options.tls_cert_file, options.tls_key_file));
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string port_text = std::to_string(options.port);
  int rc = ::getaddrinfo(options.host.empty() ? nullptr : options.host.c_str(), port_text.c_str(),
                         &hints, &found);
  if (rc != 0) {
    return Status::IOError("Cannot resolve listen address ", options.host, ": ", gai_strerror(rc));
  }
  int fd = -1;
  std::string why;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 128) != 0) {
      why = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0) {
    return Status::IOError("Cannot listen on ", options.host, ":", options.port, ": ", why);
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof(bound);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  int port = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6&>(bound).sin6_port)
                                         : ntohs(reinterpret_cast<sockaddr_in&>(bound).sin_port);
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    ::close(fd);
    return Status::IOError("Cannot create a pipe: ", std::strerror(errno));
  }
  return std::unique_ptr<Server>(
      new Server(std::move(options), fd, port, pipe_fds[0], pipe_fds[1], std::move(tls)));
}

Server::Server(ServerOptions options, int listen_fd, int port, int wake_read, int wake_write,
               std::shared_ptr<TlsContext> tls)
    : options_(std::move(options)),
      listen_fd_(listen_fd),
      port_(port),
      wake_read_(wake_read),
      wake_write_(wake_write),
      tls_(std::move(tls)),
      gate_(kActiveStatements) {}

Server::~Server() {
  Reap(true);
  ::close(listen_fd_);
  ::close(wake_read_);
  ::close(wake_write_);
}

void Server::Stop() {
  char byte = 1;
  ssize_t ignored = ::write(wake_write_, &byte, 1);
  (void)ignored;
}

void Server::Reap(bool all) {
  if (all) {
    for (Live& live : live_) live.connection->Shutdown();
  }
  for (auto it = live_.begin(); it != live_.end();) {
    if (all || *it->done) {
      it->thread.join();
      it = live_.erase(it);
    } else {
      ++it;
    }
  }
}

void Server::Run() {
  ConnectionContext context;
  context.options = &options_;
  context.tls = tls_;
  context.cancels = &cancels_;
  context.timer = &timer_;
  context.gate = &gate_;
  while (true) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    // A periodic wake-up reaps finished connections even when no client arrives.
    int r = ::poll(fds, 2, 1000);
    Reap(false);
    if (r < 0 && errno != EINTR) break;
    if (fds[1].revents != 0) break;
    if (r <= 0 || (fds[0].revents & POLLIN) == 0) continue;
    sockaddr_storage peer{};
    socklen_t len = sizeof(peer);
    int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    Live live;
    live.connection = std::make_shared<Connection>(fd, peer, context);
    live.done = std::make_shared<std::atomic<bool>>(false);
    live.thread = std::thread([connection = live.connection, done = live.done] {
      connection->Run();
      *done = true;
    });
    live_.push_back(std::move(live));
  }
  Reap(true);
}

}  // namespace floe::server
