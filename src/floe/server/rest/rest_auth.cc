#include "floe/server/rest/rest_auth.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "floe/server/http/url_encoding.h"
#include "floe/server/rest/rest_errors.h"
#include "floe/server/scram.h"
#include "floe/util/json_writer.h"

namespace floe::server::rest {

namespace {

http::HttpResponse OAuthError(int status, const std::string& error,
                              const std::string& description) {
  JsonWriter json;
  json.StartObject();
  json.Key("error").String(error);
  json.Key("error_description").String(description);
  json.EndObject();
  http::HttpResponse response = http::JsonResponse(status, json.Take());
  if (status == 401) response.headers.emplace_back("WWW-Authenticate", "Basic");
  return response;
}

http::HttpResponse NotAuthorized(const std::string& why) {
  http::HttpResponse response =
      ErrorResponse(401, "NotAuthorizedException", "Not authorized: " + why);
  response.headers.emplace_back("WWW-Authenticate", "Bearer");
  return response;
}

std::string NewToken() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return "";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  return token;
}

bool SameBytes(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

http::HttpResponse RestAuthenticator::IssueToken(const http::HttpRequest& request) {
  if (!users_) {
    return OAuthError(400, "unsupported_grant_type",
                      "This catalog does not authenticate (floe serve runs without --auth "
                      "password): send requests without a token");
  }
  // RFC 6749: a form body; clients may also send the credentials as HTTP Basic.
  std::string body = request.body;
  for (char& c : body) {
    if (c == '+') c = ' ';  // a form's space; a real plus arrives as %2B
  }
  auto form = http::ParseQuery(body);
  if (!form) return OAuthError(400, "invalid_request", "Malformed form body");
  auto field = [&](const char* name) -> std::string {
    auto it = form->find(name);
    return it == form->end() ? "" : it->second;
  };
  const std::string grant = field("grant_type");
  if (grant != "client_credentials") {
    return OAuthError(400, "unsupported_grant_type",
                      "Unsupported grant_type '" + grant + "': expected client_credentials");
  }
  std::string client = field("client_id"), secret = field("client_secret");
  if (auto basic = request.Header("authorization"); basic && basic->rfind("Basic ", 0) == 0) {
    auto decoded = Base64Decode(basic->substr(6));
    if (decoded.ok()) {
      const size_t colon = decoded->find(':');
      if (colon != std::string::npos) {
        client = decoded->substr(0, colon);
        secret = decoded->substr(colon + 1);
      }
    }
  }
  // An unknown client and a wrong secret get the same answer and cost the same work.
  auto known = users_->find(client);
  const ScramVerifier stored = known != users_->end() ? known->second : ScramVerifier{};
  auto derived = ScramVerifier::FromPassword(secret, stored.salt.empty() ? "x" : stored.salt,
                                             stored.iterations);
  if (known == users_->end() || !derived.ok() ||
      !SameBytes(derived->stored_key, stored.stored_key)) {
    return OAuthError(401, "invalid_client", "Invalid client_id or client_secret");
  }
  const std::string token = NewToken();
  if (token.empty()) return ErrorResponse(500, "ServiceFailureException", "No random bytes");
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    std::erase_if(tokens_, [&](const auto& entry) { return entry.second.expires <= now; });
    tokens_[token] = Grant{client, now + kTokenLifetime};
  }
  JsonWriter json;
  json.StartObject();
  json.Key("access_token").String(token);
  json.Key("token_type").String("bearer");
  json.Key("expires_in").Int64(kTokenLifetime.count());
  json.Key("issued_token_type").String("urn:ietf:params:oauth:token-type:access_token");
  json.EndObject();
  http::HttpResponse response = http::JsonResponse(200, json.Take());
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

RestAuthenticator::Who RestAuthenticator::Authenticate(const http::HttpRequest& request) {
  if (!users_) return {kAnonymousUser, std::nullopt};
  const auto header = request.Header("authorization");
  if (!header)
    return {"", NotAuthorized("this catalog needs a bearer token from " + std::string(kTokenPath))};
  if (header->rfind("Bearer ", 0) != 0) {
    return {"", NotAuthorized("expected an Authorization: Bearer token")};
  }
  const std::string token = header->substr(7);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tokens_.find(token);
  if (it == tokens_.end() || it->second.expires <= std::chrono::steady_clock::now()) {
    return {"", NotAuthorized("the bearer token is unknown or expired")};
  }
  return {it->second.user, std::nullopt};
}

}  // namespace floe::server::rest
