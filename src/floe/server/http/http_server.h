#pragma once

// floe's HTTP/1.1 server on POSIX sockets, under both the metadata pages and the Iceberg REST
// catalog. One thread per connection, at most kMaxConnections at once (a further client gets
// 503). Persistent connections when asked for: a connection serves requests one after another
// until the client sends "Connection: close", stays idle for idle_timeout_seconds, or the
// server stops. Request heads are bounded in size (http_request.h) and time; bodies are read
// by Content-Length up to max_body_bytes (413 beyond, 411 for chunked ones). A server bound to
// a loopback address answers only requests whose Host names loopback (loopback_host.h).

#include <functional>
#include <memory>
#include <string>

#include "floe/server/http/http_request.h"
#include "floe/server/http/http_response.h"
#include "floe/util/status.h"

typedef struct ssl_ctx_st SSL_CTX;

namespace floe::server::http {

struct HttpServerOptions {
  // "HOST:PORT" ("[::1]:8080" for IPv6; port 0 picks a free one).
  std::string listen;
  size_t max_body_bytes = 64 * 1024;
  // Whether connections may serve more than one request.
  bool keep_alive = false;
  // How long a kept-alive connection may wait for its next request.
  int idle_timeout_seconds = 30;
  // Refuse to start unless `listen` is a loopback address; the message says why.
  std::string loopback_only_reason;
  // Serve HTTPS: every connection starts with a TLS handshake (its owner keeps it alive).
  SSL_CTX* tls_context = nullptr;
};

class HttpServer {
 public:
  // Answers one request; may run on several connection threads at once. Responses to HEAD
  // lose their body on the way out.
  using Handler = std::function<HttpResponse(const HttpRequest&)>;

  static constexpr int kMaxConnections = 32;

  // Listens and serves until Stop() or destruction. Errors: `Invalid listen address '...':
  // expected HOST:PORT`, `Cannot listen on HOST:PORT: <reason>`.
  static Result<std::unique_ptr<HttpServer>> Start(HttpServerOptions options, Handler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const;  // the bound port

  // Stops accepting, ends idle connections and waits for requests being answered.
  void Stop();

  class Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::server::http
