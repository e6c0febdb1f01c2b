#include "floe/server/rest/rest_catalog_server.h"

#include "floe/server/http/http_server.h"
#include "floe/server/http/session_pool.h"
#include "floe/server/rest/rest_catalog.h"

namespace floe::server {

class RestCatalogServer::Impl {
 public:
  explicit Impl(SessionFactory open_session) : sessions_(std::move(open_session)) {}

  Status Start(const std::string& listen) {
    ARROW_RETURN_NOT_OK(sessions_.Prime());
    http::HttpServerOptions options;
    options.listen = listen;
    options.keep_alive = true;
    options.max_body_bytes = kMaxBodyBytes;
    options.loopback_only_reason =
        "the REST catalog has no authentication yet, so it serves only loopback addresses "
        "(127.0.0.1, [::1])";
    ARROW_ASSIGN_OR_RAISE(
        server_, http::HttpServer::Start(options, [this](const http::HttpRequest& request) {
          return Handle(request);
        }));
    return Status::OK();
  }

  int port() const { return server_->port(); }

  void Stop() {
    if (server_) server_->Stop();
    sessions_.Clear();
  }

 private:
  http::HttpResponse Handle(const http::HttpRequest& request) {
    auto session = sessions_.Take();
    if (!session.ok()) {
      return rest::ErrorResponse(503, "ServiceUnavailableException",
                                 "Cannot open the catalog: " + session.status().message());
    }
    http::HttpResponse response = catalog_.Handle(request, **session);
    sessions_.Return(std::move(*session));
    return response;
  }

  http::SessionPool sessions_;
  rest::RestCatalog catalog_;
  std::unique_ptr<http::HttpServer> server_;
};

Result<std::unique_ptr<RestCatalogServer>> RestCatalogServer::Start(const std::string& listen,
                                                                    SessionFactory open_session) {
  auto impl = std::make_unique<Impl>(std::move(open_session));
  ARROW_RETURN_NOT_OK(impl->Start(listen));
  return std::unique_ptr<RestCatalogServer>(new RestCatalogServer(std::move(impl)));
}

RestCatalogServer::RestCatalogServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

RestCatalogServer::~RestCatalogServer() { Stop(); }

int RestCatalogServer::port() const { return impl_->port(); }

void RestCatalogServer::Stop() { impl_->Stop(); }

}  // namespace floe::server
