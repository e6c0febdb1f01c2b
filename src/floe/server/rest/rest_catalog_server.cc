#include "floe/server/rest/rest_catalog_server.h"

#include "floe/server/http/session_http_server.h"
#include "floe/server/rest/rest_auth.h"
#include "floe/server/rest/rest_catalog.h"
#include "floe/server/rest/rest_errors.h"

namespace floe::server {

class RestCatalogServer::Impl {
 public:
  Impl(std::optional<UserVerifiers> users, std::shared_ptr<TlsContext> tls, bool vend_credentials)
      : auth_(std::move(users)), tls_(std::move(tls)), catalog_(vend_credentials) {}

  Status Start(const std::string& listen, SessionFactory open_session) {
    http::HttpServerOptions options;
    options.listen = listen;
    options.keep_alive = true;
    options.max_body_bytes = kMaxBodyBytes;
    if (!auth_.required()) {
      options.loopback_only_reason =
          "the REST catalog runs without authentication (--auth password), so it serves only "
          "loopback addresses (127.0.0.1, [::1])";
    } else if (!tls_) {
      options.loopback_only_reason =
          "the REST catalog serves no TLS without --tls-cert and --tls-key, and tokens and "
          "secrets must not cross the network in clear; it serves only loopback addresses "
          "(127.0.0.1, [::1])";
    }
    if (tls_) options.tls_context = tls_->get();
    ARROW_ASSIGN_OR_RAISE(
        server_, http::SessionHttpServer::Start(
                     options, std::move(open_session),
                     [this](const http::HttpRequest& request, sql::Session& session) {
                       return Answer(request, session);
                     },
                     [](const Status& status) {
                       return rest::ErrorResponse(503, "ServiceUnavailableException",
                                                  "Cannot open the catalog: " + status.message());
                     }));
    return Status::OK();
  }

  int port() const { return server_->port(); }

  http::HttpResponse Answer(const http::HttpRequest& request, sql::Session& session) {
    if (request.path == rest::kTokenPath) {
      if (request.method != "POST") {
        http::HttpResponse refused = rest::ErrorResponse(
            405, "MethodNotAllowedException",
            "Method " + request.method + " is not allowed on " + request.path + "; allowed: POST");
        refused.headers.emplace_back("Allow", "POST");
        return refused;
      }
      return auth_.IssueToken(request);
    }
    rest::RestAuthenticator::Who who = auth_.Authenticate(request);
    if (who.refused) return *who.refused;
    return catalog_.Handle(request, session, who.user);
  }

  void Stop() {
    if (server_) server_->Stop();
  }

 private:
  rest::RestAuthenticator auth_;
  std::shared_ptr<TlsContext> tls_;
  rest::RestCatalog catalog_;
  std::unique_ptr<http::SessionHttpServer> server_;
};

Result<std::unique_ptr<RestCatalogServer>> RestCatalogServer::Start(
    const std::string& listen, SessionFactory open_session, std::optional<UserVerifiers> users,
    std::shared_ptr<TlsContext> tls, bool vend_credentials) {
  auto impl = std::make_unique<Impl>(std::move(users), std::move(tls), vend_credentials);
  ARROW_RETURN_NOT_OK(impl->Start(listen, std::move(open_session)));
  return std::unique_ptr<RestCatalogServer>(new RestCatalogServer(std::move(impl)));
}

RestCatalogServer::RestCatalogServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

RestCatalogServer::~RestCatalogServer() { Stop(); }

int RestCatalogServer::port() const { return impl_->port(); }

void RestCatalogServer::Stop() { impl_->Stop(); }

}  // namespace floe::server
