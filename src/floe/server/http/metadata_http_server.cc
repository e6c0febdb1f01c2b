#include "floe/server/http/metadata_http_server.h"

#include "floe/server/http/http_server.h"
#include "floe/server/http/metadata_site.h"
#include "floe/server/http/session_pool.h"

namespace floe::server {

class MetadataHttpServer::Impl {
 public:
  explicit Impl(SessionFactory open_session) : sessions_(std::move(open_session)) {}

  Status Start(const std::string& listen) {
    ARROW_RETURN_NOT_OK(sessions_.Prime());
    http::HttpServerOptions options;
    options.listen = listen;
    // One request per connection: a page is one document plus a few JSON requests.
    options.keep_alive = false;
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
      return http::TextResponse(503, "Cannot open the catalog: " + session.status().message());
    }
    http::HttpResponse response = site_.Handle(request, **session);
    sessions_.Return(std::move(*session));
    return response;
  }

  http::SessionPool sessions_;
  http::MetadataSite site_;
  std::unique_ptr<http::HttpServer> server_;
};

Result<std::unique_ptr<MetadataHttpServer>> MetadataHttpServer::Start(const std::string& listen,
                                                                      SessionFactory open_session) {
  auto impl = std::make_unique<Impl>(std::move(open_session));
  ARROW_RETURN_NOT_OK(impl->Start(listen));
  return std::unique_ptr<MetadataHttpServer>(new MetadataHttpServer(std::move(impl)));
}

MetadataHttpServer::MetadataHttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

MetadataHttpServer::~MetadataHttpServer() { Stop(); }

int MetadataHttpServer::port() const { return impl_->port(); }

void MetadataHttpServer::Stop() { impl_->Stop(); }

}  // namespace floe::server
