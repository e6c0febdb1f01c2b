#pragma once

// `floe serve --rest`: the Iceberg REST catalog (rest_catalog.h) on floe's HTTP server, with
// persistent connections and request bodies up to kMaxBodyBytes, OAuth2 bearer tokens when it
// has users (rest_auth.h), and TLS when given a certificate. Tokens and secrets never cross the
// network in clear: without both, it serves loopback addresses only. Each
// request borrows a session from a pool that `open_session` fills.

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "floe/server/tls_context.h"
#include "floe/server/user_file.h"
#include "floe/sql/session.h"
#include "floe/util/status.h"

namespace floe::server {

class RestCatalogServer {
 public:
  using SessionFactory = std::function<Result<std::unique_ptr<sql::Session>>()>;

  static constexpr size_t kMaxBodyBytes = 16 * 1024 * 1024;

  // Listens on `listen`, "HOST:PORT" (port 0 picks a free one). Opens one session first, so a
  // catalog that cannot be opened fails here. Errors: those of HttpServer::Start, and `Cannot
  // listen on HOST:PORT: ...` for an address that is not loopback.
  // With `users`, every request needs a bearer token (rest_auth.h); with `tls`, it serves
  // HTTPS. Only with both may it listen on an address that is not loopback. With
  // `vend_credentials`, clients that ask get the server's S3 settings (rest::RestCatalog).
  static Result<std::unique_ptr<RestCatalogServer>> Start(
      const std::string& listen, SessionFactory open_session,
      std::optional<UserVerifiers> users = std::nullopt,
      std::shared_ptr<TlsContext> tls = nullptr, bool vend_credentials = false);
  ~RestCatalogServer();
  RestCatalogServer(const RestCatalogServer&) = delete;
  RestCatalogServer& operator=(const RestCatalogServer&) = delete;

  int port() const;
  void Stop();

  class Impl;

 private:
  explicit RestCatalogServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::server
