#pragma once

// Who a REST catalog request comes from. With users (`floe serve --auth password --users FILE`)
// every route needs "Authorization: Bearer <token>", a token from the OAuth2 client-credentials
// endpoint POST /v1/oauth/tokens (client_id: a user of the file, client_secret: its password,
// checked against the stored SCRAM-SHA-256 verifier). Tokens live in memory for an hour; a
// restart or an expiry answers 401 and clients fetch a new one. Without users nobody
// authenticates and requests are the anonymous user's (the server then serves loopback only).

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "floe/server/http/http_request.h"
#include "floe/server/http/http_response.h"
#include "floe/server/user_file.h"

namespace floe::server::rest {

inline constexpr char kTokenPath[] = "/v1/oauth/tokens";
inline constexpr char kAnonymousUser[] = "anonymous";

class RestAuthenticator {
 public:
  static constexpr std::chrono::seconds kTokenLifetime{3600};

  // No users: nobody authenticates.
  explicit RestAuthenticator(std::optional<UserVerifiers> users) : users_(std::move(users)) {}

  bool required() const { return users_.has_value(); }

  // POST /v1/oauth/tokens: the spec's OAuthTokenResponse, or its OAuthError
  // ({"error": "invalid_client", "error_description": ...}) with 400 or 401.
  http::HttpResponse IssueToken(const http::HttpRequest& request);

  // The request's user, or the 401 NotAuthorizedException to send (with WWW-Authenticate).
  struct Who {
    std::string user;
    std::optional<http::HttpResponse> refused;
  };
  Who Authenticate(const http::HttpRequest& request);

 private:
  struct Grant {
    std::string user;
    std::chrono::steady_clock::time_point expires;
  };

  std::optional<UserVerifiers> users_;
  std::mutex mu_;
  std::map<std::string, Grant> tokens_;
};

}  // namespace floe::server::rest
