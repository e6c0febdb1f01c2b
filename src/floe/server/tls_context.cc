#include "floe/server/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace floe::server {

std::string OpenSslError() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown TLS error";
  char buf[256];
  ERR_error_string_n(code, buf, sizeof(buf));
  return buf;
}

Result<std::shared_ptr<TlsContext>> TlsContext::Make(const std::string& cert_file,
                                                     const std::string& key_file) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return Status::IOError("Cannot create a TLS context: ", OpenSslError());
  std::shared_ptr<TlsContext> context(new TlsContext(ctx));
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1) {
    return Status::IOError("Cannot load TLS certificate ", cert_file, ": ", OpenSslError());
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return Status::IOError("Cannot load TLS key ", key_file, ": ", OpenSslError());
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return Status::IOError("TLS key ", key_file, " does not match certificate ", cert_file);
  }
  return context;
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

}  // namespace floe::server
