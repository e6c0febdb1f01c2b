#include "floe/server/http/session_http_server.h"

namespace floe::server::http {

SessionHttpServer::SessionHttpServer(SessionPool::Factory open_session, Handler handle,
                                     Unavailable unavailable)
    : sessions_(std::move(open_session)),
      handle_(std::move(handle)),
      unavailable_(std::move(unavailable)) {}

Result<std::unique_ptr<SessionHttpServer>> SessionHttpServer::Start(
    const HttpServerOptions& options, SessionPool::Factory open_session, Handler handle,
    Unavailable unavailable) {
  std::unique_ptr<SessionHttpServer> server(
      new SessionHttpServer(std::move(open_session), std::move(handle), std::move(unavailable)));
  ARROW_RETURN_NOT_OK(server->sessions_.Prime());
  SessionHttpServer* self = server.get();
  ARROW_ASSIGN_OR_RAISE(server->server_,
                        HttpServer::Start(options, [self](const HttpRequest& request) {
                          return self->Answer(request);
                        }));
  return server;
}

SessionHttpServer::~SessionHttpServer() { Stop(); }

void SessionHttpServer::Stop() {
  if (server_) server_->Stop();
  sessions_.Clear();
}

HttpResponse SessionHttpServer::Answer(const HttpRequest& request) {
  auto session = sessions_.Take();
  if (!session.ok()) return unavailable_(session.status());
  HttpResponse response = handle_(request, **session);
  sessions_.Return(std::move(*session));
  return response;
}

}  // namespace floe::server::http
