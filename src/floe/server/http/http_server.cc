#include "floe/server/http/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "floe/server/http/loopback_host.h"

namespace floe::server::http {

namespace {

// A client has this long to send a request once it began, and each read or write this long.
constexpr auto kRequestDeadline = std::chrono::seconds(30);
constexpr int kSocketTimeoutSeconds = 10;

struct ListenAddress {
  std::string host, port;
};

Result<ListenAddress> ParseListenAddress(const std::string& listen) {
  auto invalid = [&] {
    return Status::Invalid("Invalid listen address '", listen, "': expected HOST:PORT");
  };
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) return invalid();
  ListenAddress address{listen.substr(0, colon), listen.substr(colon + 1)};
  if (address.host.front() == '[') {
    if (address.host.size() < 3 || address.host.back() != ']') return invalid();
    address.host = address.host.substr(1, address.host.size() - 2);
  } else if (address.host.find(':') != std::string::npos) {
    return invalid();  // an IPv6 address needs brackets
  }
  if (address.port.empty() || address.port.size() > 5) return invalid();
  for (char c : address.port) {
    if (c < '0' || c > '9') return invalid();
  }
  if (std::stoi(address.port) > 65535) return invalid();
  return address;
}

std::string PeerAddress(const sockaddr_storage& peer) {
  char host[INET6_ADDRSTRLEN] = {};
  if (peer.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&peer);
    inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(in6->sin6_port));
  }
  if (peer.ss_family == AF_INET) {
    const auto* in4 = reinterpret_cast<const sockaddr_in*>(&peer);
    inet_ntop(AF_INET, &in4->sin_addr, host, sizeof(host));
    return std::string(host) + ":" + std::to_string(ntohs(in4->sin_port));
  }
  return "";
}

void SetTimeouts(int fd, int seconds) {
  timeval tv{};
  tv.tv_sec = seconds;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

// Whether every byte went out.
bool SendAll(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // the client left or stalled: nothing more to do
    sent += static_cast<size_t>(n);
  }
  return true;
}

// After the last response, reads what the client still sends (a body this server did not
// read) for a moment, so that closing does not reset the connection before the client read
// the response.
void DrainAndClose(int fd) {
  shutdown(fd, SHUT_WR);
  timeval tv{};
  tv.tv_usec = 200 * 1000;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  char buffer[4096];
  for (size_t total = 0; total < 64 * 1024;) {
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    total += static_cast<size_t>(n);
  }
}

// One client connection's bytes, in the clear or through TLS (with a tls_context).
class Link {
 public:
  Link(int fd, SSL* ssl) : fd_(fd), ssl_(ssl) {}

  int fd() const { return fd_; }

  // As recv: bytes read, 0 when the client closed, -1 with errno (EAGAIN on a timeout).
  ssize_t Recv(char* buffer, size_t size) {
    if (ssl_ == nullptr) return recv(fd_, buffer, size, 0);
    const int n = SSL_read(ssl_, buffer, static_cast<int>(size));
    if (n > 0) return n;
    const int error = SSL_get_error(ssl_, n);
    ERR_clear_error();
    if (error == SSL_ERROR_ZERO_RETURN) return 0;
    // The socket's receive timeout surfaces as a read to retry.
    errno = error == SSL_ERROR_WANT_READ ? EAGAIN : (errno ? errno : ECONNRESET);
    return -1;
  }

  // Whether TLS holds bytes already read from the socket, which poll cannot see.
  bool Pending() const { return ssl_ != nullptr && SSL_pending(ssl_) > 0; }

  bool SendAll(const std::string& bytes) {
    if (ssl_ == nullptr) return http::SendAll(fd_, bytes);
    size_t sent = 0;
    while (sent < bytes.size()) {
      const int n = SSL_write(ssl_, bytes.data() + sent, static_cast<int>(bytes.size() - sent));
      if (n <= 0) {
        ERR_clear_error();
        return false;
      }
      sent += static_cast<size_t>(n);
    }
    return true;
  }

  void DrainAndClose() {
    if (ssl_ != nullptr) {
      (void)SSL_shutdown(ssl_);  // close_notify; the client's answer is not awaited
      ERR_clear_error();
    }
    http::DrainAndClose(fd_);
  }

 private:
  int fd_;
  SSL* ssl_;
};

}  // namespace

class HttpServer::Impl {
 public:
  Impl(HttpServerOptions options, Handler handler)
      : options_(std::move(options)), handler_(std::move(handler)) {}
  ~Impl() { Stop(); }

  Status Listen() {
    const std::string& listen = options_.listen;
    ARROW_ASSIGN_OR_RAISE(ListenAddress address, ParseListenAddress(listen));
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const int rc = getaddrinfo(address.host.c_str(), address.port.c_str(), &hints, &found);
    if (rc != 0) return Status::IOError("Cannot listen on ", listen, ": ", gai_strerror(rc));
    std::string error = "no address";
    for (addrinfo* ai = found; ai && listen_fd_ < 0; ai = ai->ai_next) {
      const int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
      if (fd < 0) {
        error = std::strerror(errno);
        continue;
      }
      const int one = 1;
      setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
      if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd, 64) != 0) {
        error = std::strerror(errno);
        close(fd);
        continue;
      }
      listen_fd_ = fd;
    }
    freeaddrinfo(found);
    if (listen_fd_ < 0) return Status::IOError("Cannot listen on ", listen, ": ", error);
    sockaddr_storage bound{};
    socklen_t size = sizeof(bound);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &size);
    if (bound.ss_family == AF_INET6) {
      const auto* in6 = reinterpret_cast<sockaddr_in6*>(&bound);
      port_ = ntohs(in6->sin6_port);
      loopback_only_ = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
    } else {
      const auto* in4 = reinterpret_cast<sockaddr_in*>(&bound);
      port_ = ntohs(in4->sin_port);
      loopback_only_ = (ntohl(in4->sin_addr.s_addr) >> 24) == 127;
    }
    if (!loopback_only_ && !options_.loopback_only_reason.empty()) {
      close(listen_fd_);
      listen_fd_ = -1;
      return Status::Invalid("Cannot listen on ", listen, ": ", options_.loopback_only_reason);
    }
    if (pipe2(wake_, O_CLOEXEC) != 0) {
      return Status::IOError("Cannot listen on ", listen, ": ", std::strerror(errno));
    }
    return Status::OK();
  }

  void StartAccepting() {
    accept_thread_ = std::thread([this] { AcceptLoop(); });
  }

  int port() const { return port_; }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      stopping_ = true;
    }
    if (wake_[1] >= 0) {
      const char byte = 0;
      while (write(wake_[1], &byte, 1) < 0 && errno == EINTR) {
      }
    }
    if (accept_thread_.joinable()) accept_thread_.join();
    if (listen_fd_ >= 0) close(listen_fd_);
    {
      std::unique_lock<std::mutex> lock(mu_);
      // Wakes connections waiting for a request; those answering one finish first.
      for (int fd : connections_) shutdown(fd, SHUT_RD);
      done_.wait(lock, [&] { return connections_.empty(); });
    }
    for (int fd : wake_) {
      if (fd >= 0) close(fd);
    }
  }

 private:
  void AcceptLoop() {
    while (true) {
      pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      if (poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents != 0) return;
      if ((fds[0].revents & POLLIN) == 0) continue;
      sockaddr_storage peer{};
      socklen_t peer_size = sizeof(peer);
      const int fd =
          accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &peer_size, SOCK_CLOEXEC);
      if (fd < 0) {
        // Out of file descriptors: wait a little instead of spinning.
        if (errno == EMFILE || errno == ENFILE)
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        continue;
      }
      SetTimeouts(fd, kSocketTimeoutSeconds);
      bool busy = false;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (connections_.size() >= static_cast<size_t>(kMaxConnections)) {
          busy = true;
        } else {
          connections_.insert(fd);
        }
      }
      if (busy) {
        // Told in clear to come back; a TLS port says nothing rather than speak in clear (a
        // handshake here would hold up every other client's accept).
        if (options_.tls_context == nullptr) {
          SetTimeouts(fd, 1);
          SendAll(fd, SerializeResponse(TextResponse(503, "Too many connections; try again")));
          DrainAndClose(fd);
        }
        close(fd);
        continue;
      }
      try {
        std::thread([this, fd, address = PeerAddress(peer)] {
          Serve(fd, address);
          Finish(fd);
        }).detach();
      } catch (const std::exception&) {  // no thread to be had: drop this client
        Finish(fd);
      }
    }
  }

  bool stopping() {
    std::lock_guard<std::mutex> lock(mu_);
    return stopping_;
  }

  // Serves the requests of one connection until it closes; with TLS, after the handshake.
  void Serve(int fd, const std::string& remote_address) {
    SSL* ssl = nullptr;
    if (options_.tls_context != nullptr) {
      ssl = SSL_new(options_.tls_context);
      if (ssl == nullptr || SSL_set_fd(ssl, fd) != 1 || SSL_accept(ssl) != 1) {
        ERR_clear_error();
        if (ssl != nullptr) SSL_free(ssl);
        return;  // not TLS, or a failed handshake: nothing to answer in
      }
    }
    Link link(fd, ssl);
    ServeRequests(link, remote_address);
    if (ssl != nullptr) SSL_free(ssl);
  }

  void ServeRequests(Link& link, const std::string& remote_address) {
    HttpRequestReader reader(options_.max_body_bytes);
    for (int served = 0;; ++served) {
      HttpRequestReader::Step step = ReadRequest(link, reader, served == 0);
      if (step.state == HttpRequestReader::State::kNeedMore) return;  // closed or idle
      if (step.state == HttpRequestReader::State::kError) {
        link.SendAll(SerializeResponse(TextResponse(step.error->status, step.error->reason)));
        link.DrainAndClose();
        return;
      }
      HttpRequest& request = *step.request;
      request.remote_address = remote_address;
      HttpResponse response = Respond(request);
      const bool keep_alive = options_.keep_alive && request.KeepAlive() && !stopping();
      const bool sent =
          link.SendAll(SerializeResponse(response, {keep_alive, request.method == "HEAD"}));
      if (!keep_alive || !sent) {
        if (sent) link.DrainAndClose();
        return;
      }
    }
  }

  // The next request on `link`. kNeedMore when the client closed the connection or, between
  // requests, stayed idle for the idle timeout; kError (408) when a request took too long.
  HttpRequestReader::Step ReadRequest(Link& link, HttpRequestReader& reader, bool first) {
    std::optional<std::chrono::steady_clock::time_point> deadline;
    if (first) deadline = std::chrono::steady_clock::now() + kRequestDeadline;
    char buffer[16 * 1024];
    auto timed_out = [] {
      HttpRequestReader::Step step;
      step.state = HttpRequestReader::State::kError;
      step.error = HttpRequestError{408, "The request took too long"};
      return step;
    };
    while (true) {
      HttpRequestReader::Step step = reader.Next();
      if (step.state != HttpRequestReader::State::kNeedMore) return step;
      if (!first && !reader.InRequest() && !link.Pending()) {
        // Between requests: wait for the next one as long as the idle timeout allows.
        pollfd pfd{link.fd(), POLLIN, 0};
        int rc;
        do {
          rc = poll(&pfd, 1, options_.idle_timeout_seconds * 1000);
        } while (rc < 0 && errno == EINTR);
        if (rc <= 0) return HttpRequestReader::Step{};
      } else if (!deadline) {
        deadline = std::chrono::steady_clock::now() + kRequestDeadline;
      }
      if (deadline && std::chrono::steady_clock::now() > *deadline) return timed_out();
      const ssize_t n = link.Recv(buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        if (!first && !reader.InRequest()) return HttpRequestReader::Step{};
        return timed_out();
      }
      if (n <= 0) return HttpRequestReader::Step{};
      reader.Append(std::string_view(buffer, static_cast<size_t>(n)));
    }
  }

  HttpResponse Respond(const HttpRequest& request) {
    const std::optional<std::string> host = request.Header("host");
    if (loopback_only_ && host && !IsLoopbackHost(*host)) {
      return TextResponse(403,
                          "This server answers only requests for localhost, "
                          "127.0.0.1 or [::1], not for '" +
                              *host + "'");
    }
    try {
      return handler_(request);
    } catch (const std::exception& e) {
      return TextResponse(500, e.what());
    } catch (...) {
      return TextResponse(500, "unknown exception");
    }
  }

  // The connection is over. Closed under the lock, so Stop never shuts down a descriptor
  // number that was reused; notified under it, so Stop cannot return (and the server go
  // away) before this thread is done with it.
  void Finish(int fd) {
    std::lock_guard<std::mutex> lock(mu_);
    connections_.erase(fd);
    close(fd);
    done_.notify_all();
  }

  HttpServerOptions options_;
  Handler handler_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  int port_ = 0;
  // Bound to a loopback address: requests must name it (see loopback_host.h).
  bool loopback_only_ = false;
  std::thread accept_thread_;

  std::mutex mu_;
  std::condition_variable done_;
  bool stopping_ = false;
  std::set<int> connections_;
};

Result<std::unique_ptr<HttpServer>> HttpServer::Start(HttpServerOptions options, Handler handler) {
  auto impl = std::make_unique<Impl>(std::move(options), std::move(handler));
  ARROW_RETURN_NOT_OK(impl->Listen());
  impl->StartAccepting();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Stop(); }

int HttpServer::port() const { return impl_->port(); }

void HttpServer::Stop() { impl_->Stop(); }

}  // namespace floe::server::http
