#pragma once

// One client socket, plain or TLS after an SSLRequest: exact reads with an optional idle
// timeout, and whole writes.

#include <cstddef>
#include <string_view>

#include "floe/util/status.h"

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;

namespace floe::server {

class SocketStream {
 public:
  explicit SocketStream(int fd) : fd_(fd) {}
  ~SocketStream();
  SocketStream(const SocketStream&) = delete;
  SocketStream& operator=(const SocketStream&) = delete;

  // The server side of a TLS handshake on this socket.
  Status StartTls(SSL_CTX* ctx);
  bool tls() const { return ssl_ != nullptr; }

  enum class ReadResult { kOk, kClosed, kTimeout, kError };
  // Reads exactly `n` bytes. `timeout_ms` > 0 bounds the wait for the first byte only.
  ReadResult ReadExact(char* buffer, size_t n, int timeout_ms = 0);
  Status WriteAll(std::string_view bytes);

  // Wakes a reader blocked on this socket (the server stopping) while writes still go out,
  // so the client hears why; thread-safe.
  void ShutdownRead();

 private:
  // Waits until the socket is readable; false on timeout.
  bool WaitReadable(int timeout_ms);

  int fd_;
  SSL* ssl_ = nullptr;
};

}  // namespace floe::server
