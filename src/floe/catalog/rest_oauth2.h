#pragma once

// OAuth2 client credentials (RFC 6749, 4.4) for the REST catalogs floe opens, as Iceberg's
// clients use them: a token from the catalog's token endpoint, sent as a bearer token, fetched
// anew before it expires. Secrets appear in no error text.

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "floe/catalog/rest_http_client.h"
#include "floe/util/status.h"

namespace floe {

struct OAuth2Credential {
  std::string client_id;
  std::string client_secret;
  std::string scope = "catalog";
  std::string token_uri;  // e.g. <base>/v1/oauth/tokens
};

// "CLIENT_ID:SECRET", or a secret alone (an empty client id), as Iceberg's `credential`.
OAuth2Credential ParseOAuth2Credential(std::string_view text);

// A token endpoint's answer: the token and its lifetime (an hour when the answer gives none);
// a refusal names `uri` with the status and the answer's error and error_description.
struct OAuth2Token {
  std::string access_token;
  int64_t lifetime_ms = 0;
};
Result<OAuth2Token> ParseOAuth2TokenAnswer(int status, std::string_view body, std::string_view uri);

class OAuth2Session {
 public:
  using Clock = std::function<int64_t()>;  // milliseconds
  OAuth2Session(RestHttpClient& http, OAuth2Credential credential, Clock now);

  // The bearer token to send: the one held, unless none is or it expires within a minute (or
  // within a tenth of its lifetime, when that is shorter); then a new one. A refused request:
  // `Cannot get a token from <uri>: 401 invalid_client: Invalid client_id or client_secret`.
  Result<std::string> Token();
  // Drops the held token (after a 401), so the next Token() fetches one.
  void Invalidate();

 private:
  Result<std::string> Fetch();

  RestHttpClient& http_;
  const OAuth2Credential credential_;
  const Clock now_;
  std::mutex mu_;
  std::string token_;
  int64_t refresh_at_ms_ = 0;
};

}  // namespace floe
