#pragma once

// The server's TLS configuration (OpenSSL): a certificate chain and its private key, loaded
// once and shared by every connection that asks for SSL.

#include <memory>
#include <string>

#include "floe/util/status.h"

typedef struct ssl_ctx_st SSL_CTX;

namespace floe::server {

class TlsContext {
 public:
  // Fails naming the file that cannot be read or the key that does not match.
  static Result<std::shared_ptr<TlsContext>> Make(const std::string& cert_file,
                                                  const std::string& key_file);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  SSL_CTX* get() const { return ctx_; }

 private:
  explicit TlsContext(SSL_CTX* ctx) : ctx_(ctx) {}
  SSL_CTX* ctx_;
};

// The last OpenSSL error as text (and the queue cleared).
std::string OpenSslError();

}  // namespace floe::server
