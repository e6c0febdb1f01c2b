#pragma once

// The Iceberg REST catalog's routes (open-api/rest-catalog-open-api.yaml, Iceberg 1.10) over
// floe's catalog, from a parsed request to a response. No prefix: paths start at /v1.
//
//   GET    /v1/config                                 ConfigResponse: the endpoints below
//   GET    /v1/namespaces?parent=&pageToken=&pageSize=  ListNamespacesResponse
//   POST   /v1/namespaces                             CreateNamespaceResponse
//   GET    /v1/namespaces/{ns}                        GetNamespaceResponse
//   HEAD   /v1/namespaces/{ns}                        204, or 404
//   DELETE /v1/namespaces/{ns}                        204; 409 while it holds tables or namespaces
//   POST   /v1/namespaces/{ns}/properties             UpdateNamespacePropertiesResponse
//   GET    /v1/namespaces/{ns}/tables?pageToken=&pageSize=  ListTablesResponse
//   and the table routes of rest_tables.h (create, load, HEAD, commit, drop, register, rename,
//   metrics, transactions).
//
// {ns} is the namespace's levels joined by 0x1F, percent-encoded ("a%1Fb"). Errors are the
// spec's ErrorModel, {"error": {"message", "type", "code"}}, with the type names of Iceberg's
// exceptions (NoSuchNamespaceException, NoSuchTableException, AlreadyExistsException,
// NamespaceNotEmptyException, BadRequestException, ...) and their messages.

#include <string>
#include <vector>

#include "floe/server/http/http_request.h"
#include "floe/server/http/http_response.h"
#include "floe/sql/session.h"

namespace floe::server::rest {

// The routes the config advertises, as the spec's "endpoints" names them.
const std::vector<std::string>& ServedEndpoints();

class RestCatalog {
 public:
  // With `vend_credentials`, a loadTable (or create, register) that asks for them with
  // X-Iceberg-Access-Delegation: vended-credentials gets the server's own S3 settings for an
  // s3:// table in its `config` (s3.access-key-id, s3.secret-access-key, s3.session-token,
  // s3.endpoint, s3.path-style-access, client.region).
  explicit RestCatalog(bool vend_credentials = false) : vend_credentials_(vend_credentials) {}

  // `user` is who the request comes from (rest_auth.h); commits record it.
  http::HttpResponse Handle(const http::HttpRequest& request, sql::Session& session,
                            const std::string& user);

 private:
  bool vend_credentials_;
};

}  // namespace floe::server::rest
