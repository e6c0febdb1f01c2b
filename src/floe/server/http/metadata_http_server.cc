#include "floe/server/http/metadata_http_server.h"

#include "floe/server/http/metadata_site.h"
#include "floe/server/http/session_http_server.h"

namespace floe::server {

class MetadataHttpServer::Impl {
 public:
  Status Start(const std::string& listen, SessionFactory open_session) {
    http::HttpServerOptions options;
    options.listen = listen;
    // One request per connection: a page is one document plus a few JSON requests.
    options.keep_alive = false;
    ARROW_ASSIGN_OR_RAISE(server_,
                          http::SessionHttpServer::Start(
                              options, std::move(open_session),
                              [this](const http::HttpRequest& request, sql::Session& session) {
                                return site_.Handle(request, session);
                              },
                              [](const Status& status) {
                                return http::TextResponse(
                                    503, "Cannot open the catalog: " + status.message());
                              }));
    return Status::OK();
  }

  int port() const { return server_->port(); }

  void Stop() {
    if (server_) server_->Stop();
  }

 private:
  http::MetadataSite site_;
  std::unique_ptr<http::SessionHttpServer> server_;
};

Result<std::unique_ptr<MetadataHttpServer>> MetadataHttpServer::Start(const std::string& listen,
                                                                      SessionFactory open_session) {
  auto impl = std::make_unique<Impl>();
  ARROW_RETURN_NOT_OK(impl->Start(listen, std::move(open_session)));
  return std::unique_ptr<MetadataHttpServer>(new MetadataHttpServer(std::move(impl)));
}

MetadataHttpServer::MetadataHttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

MetadataHttpServer::~MetadataHttpServer() { Stop(); }

int MetadataHttpServer::port() const { return impl_->port(); }

void MetadataHttpServer::Stop() { impl_->Stop(); }

}  // namespace floe::server
