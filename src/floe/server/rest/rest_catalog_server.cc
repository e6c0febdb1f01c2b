#include "floe/server/rest/rest_catalog_server.h"

#include "floe/server/http/session_http_server.h"
#include "floe/server/rest/rest_catalog.h"
#include "floe/server/rest/rest_errors.h"

namespace floe::server {

class RestCatalogServer::Impl {
 public:
  Status Start(const std::string& listen, SessionFactory open_session) {
    http::HttpServerOptions options;
    options.listen = listen;
    options.keep_alive = true;
    options.max_body_bytes = kMaxBodyBytes;
    options.loopback_only_reason =
        "the REST catalog has no authentication yet, so it serves only loopback addresses "
        "(127.0.0.1, [::1])";
    ARROW_ASSIGN_OR_RAISE(
        server_, http::SessionHttpServer::Start(
                     options, std::move(open_session),
                     [this](const http::HttpRequest& request, sql::Session& session) {
                       return catalog_.Handle(request, session);
                     },
                     [](const Status& status) {
                       return rest::ErrorResponse(503, "ServiceUnavailableException",
                                                  "Cannot open the catalog: " + status.message());
                     }));
    return Status::OK();
  }

  int port() const { return server_->port(); }

  void Stop() {
    if (server_) server_->Stop();
  }

 private:
  rest::RestCatalog catalog_;
  std::unique_ptr<http::SessionHttpServer> server_;
};

Result<std::unique_ptr<RestCatalogServer>> RestCatalogServer::Start(const std::string& listen,
                                                                    SessionFactory open_session) {
  auto impl = std::make_unique<Impl>();
  ARROW_RETURN_NOT_OK(impl->Start(listen, std::move(open_session)));
  return std::unique_ptr<RestCatalogServer>(new RestCatalogServer(std::move(impl)));
}

RestCatalogServer::RestCatalogServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

RestCatalogServer::~RestCatalogServer() { Stop(); }

int RestCatalogServer::port() const { return impl_->port(); }

void RestCatalogServer::Stop() { impl_->Stop(); }

}  // namespace floe::server
