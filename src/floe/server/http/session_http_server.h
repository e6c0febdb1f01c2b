#pragma once

// An HTTP server (http_server.h) whose requests each borrow a sql::Session from a pool
// (session_pool.h): what the metadata pages and the REST catalog are served on.

#include <functional>
#include <memory>

#include "floe/server/http/http_request.h"
#include "floe/server/http/http_server.h"
#include "floe/server/http/session_pool.h"
#include "floe/sql/session.h"
#include "floe/util/status.h"

namespace floe::server::http {

class SessionHttpServer {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&, sql::Session&)>;
  // The answer when no session can be opened for a request.
  using Unavailable = std::function<HttpResponse(const Status&)>;

  // Opens one session first, so a catalog that cannot be opened fails here; then serves as
  // HttpServer::Start does until Stop() or destruction.
  static Result<std::unique_ptr<SessionHttpServer>> Start(const HttpServerOptions& options,
                                                          SessionPool::Factory open_session,
                                                          Handler handle, Unavailable unavailable);
  ~SessionHttpServer();
  SessionHttpServer(const SessionHttpServer&) = delete;
  SessionHttpServer& operator=(const SessionHttpServer&) = delete;

  int port() const { return server_->port(); }

  // Stops accepting, ends idle connections, waits for requests being answered, then closes
  // the idle sessions.
  void Stop();

 private:
  SessionHttpServer(SessionPool::Factory open_session, Handler handle, Unavailable unavailable);
  HttpResponse Answer(const HttpRequest& request);

  SessionPool sessions_;
  Handler handle_;
  Unavailable unavailable_;
  std::unique_ptr<HttpServer> server_;
};

}  // namespace floe::server::http
