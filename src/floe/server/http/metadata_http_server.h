#pragma once

// `floe serve --http`: the read-only metadata pages of a catalog (see metadata_site.h) over
// floe's HTTP server (http_server.h), one request per connection. Each request borrows a
// session from a pool that `open_session` fills.

#include <functional>
#include <memory>
#include <string>

#include "floe/sql/session.h"
#include "floe/util/status.h"

namespace floe::server {

class MetadataHttpServer {
 public:
  using SessionFactory = std::function<Result<std::unique_ptr<sql::Session>>()>;

  static constexpr int kMaxConnections = 32;  // HttpServer::kMaxConnections

  // Listens on `listen`, "HOST:PORT" ("[::1]:8080" for IPv6; port 0 picks a free one), and
  // serves until Stop() or destruction. Opens one session first, so a catalog that cannot be
  // opened fails here. Errors: `Invalid listen address '...': expected HOST:PORT`, `Cannot
  // listen on HOST:PORT: <reason>`.
  static Result<std::unique_ptr<MetadataHttpServer>> Start(const std::string& listen,
                                                           SessionFactory open_session);
  ~MetadataHttpServer();
  MetadataHttpServer(const MetadataHttpServer&) = delete;
  MetadataHttpServer& operator=(const MetadataHttpServer&) = delete;

  int port() const;  // the bound port

  // Stops accepting, ends idle connections and waits for requests being answered.
  void Stop();

  class Impl;

 private:
  explicit MetadataHttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::server
