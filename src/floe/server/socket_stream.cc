#include "floe/server/socket_stream.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "floe/server/tls_context.h"

namespace floe::server {

SocketStream::~SocketStream() {
  if (ssl_ != nullptr) {
    SSL_shutdown(ssl_);
    SSL_free(ssl_);
  }
  ::close(fd_);
}

Status SocketStream::StartTls(SSL_CTX* ctx) {
  ssl_ = SSL_new(ctx);
  if (ssl_ == nullptr) return Status::IOError("Cannot start TLS: ", OpenSslError());
  SSL_set_fd(ssl_, fd_);
  if (SSL_accept(ssl_) != 1) {
    std::string why = OpenSslError();
    SSL_free(ssl_);
    ssl_ = nullptr;
    return Status::IOError("TLS handshake failed: ", why);
  }
  return Status::OK();
}

bool SocketStream::WaitReadable(int timeout_ms) {
  if (ssl_ != nullptr && SSL_pending(ssl_) > 0) return true;
  pollfd p{fd_, POLLIN, 0};
  while (true) {
    int r = ::poll(&p, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    return r != 0;
  }
}

SocketStream::ReadResult SocketStream::ReadExact(char* buffer, size_t n, int timeout_ms) {
  if (timeout_ms > 0 && n > 0 && !WaitReadable(timeout_ms)) return ReadResult::kTimeout;
  size_t done = 0;
  while (done < n) {
    if (ssl_ != nullptr) {
      int r = SSL_read(ssl_, buffer + done, static_cast<int>(n - done));
      if (r <= 0) {
        int err = SSL_get_error(ssl_, r);
        ERR_clear_error();
        return err == SSL_ERROR_ZERO_RETURN ? ReadResult::kClosed : ReadResult::kError;
      }
      done += static_cast<size_t>(r);
    } else {
      ssize_t r = ::recv(fd_, buffer + done, n - done, 0);
      if (r < 0 && errno == EINTR) continue;
      if (r == 0) return ReadResult::kClosed;
      if (r < 0) return ReadResult::kError;
      done += static_cast<size_t>(r);
    }
  }
  return ReadResult::kOk;
}

Status SocketStream::WriteAll(std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    if (ssl_ != nullptr) {
      int r = SSL_write(ssl_, bytes.data() + done, static_cast<int>(bytes.size() - done));
      if (r <= 0) return Status::IOError("TLS write failed: ", OpenSslError());
      done += static_cast<size_t>(r);
    } else {
      ssize_t r = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return Status::IOError("write to client failed: ", std::strerror(errno));
      done += static_cast<size_t>(r);
    }
  }
  return Status::OK();
}

void SocketStream::ShutdownRead() { ::shutdown(fd_, SHUT_RD); }

}  // namespace floe::server
