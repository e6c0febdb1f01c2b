#include "floe/catalog/rest_oauth2.h"

#include <rapidjson/document.h>

#include <algorithm>

namespace floe {

namespace {

std::string StringMember(const rapidjson::Value& v, const char* name) {
  auto it = v.FindMember(name);
  if (it == v.MemberEnd() || !it->value.IsString()) return "";
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

}  // namespace

Result<OAuth2Token> ParseOAuth2TokenAnswer(int status, std::string_view body, std::string_view uri) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  const bool object = !doc.HasParseError() && doc.IsObject();
  if (status != 200) {
    std::string why = object ? StringMember(doc, "error") : "";
    const std::string description = object ? StringMember(doc, "error_description") : "";
    if (!description.empty()) why += (why.empty() ? "" : ": ") + description;
    return Status::IOError("Cannot get a token from ", uri, ": ", status,
                           why.empty() ? "" : " " + why);
  }
  OAuth2Token token;
  token.access_token = object ? StringMember(doc, "access_token") : "";
  if (token.access_token.empty()) {
    return Status::IOError("Cannot get a token from ", uri, ": the answer has no access_token");
  }
  // Without expires_in the token is taken to last an hour, as Iceberg's clients assume.
  token.lifetime_ms = 3600 * 1000;
  if (auto it = doc.FindMember("expires_in"); it != doc.MemberEnd() && it->value.IsInt64()) {
    token.lifetime_ms = std::clamp<int64_t>(it->value.GetInt64(), 0, int64_t{1} << 40) * 1000;
  }
  return token;
}

OAuth2Credential ParseOAuth2Credential(std::string_view text) {
  OAuth2Credential credential;
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    credential.client_secret = std::string(text);
  } else {
    credential.client_id = std::string(text.substr(0, colon));
    credential.client_secret = std::string(text.substr(colon + 1));
  }
  return credential;
}

OAuth2Session::OAuth2Session(RestHttpClient& http, OAuth2Credential credential, Clock now)
    : http_(http), credential_(std::move(credential)), now_(std::move(now)) {}

Result<std::string> OAuth2Session::Token() {
  std::lock_guard<std::mutex> lock(mu_);
  if (token_.empty() || now_() >= refresh_at_ms_) {
    ARROW_ASSIGN_OR_RAISE(token_, Fetch());
  }
  return token_;
}

void OAuth2Session::Invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  token_.clear();
}

Result<std::string> OAuth2Session::Fetch() {
  const std::string& uri = credential_.token_uri;
  std::string form = "grant_type=client_credentials";
  if (!credential_.client_id.empty()) form += "&client_id=" + PercentEncodeComponent(credential_.client_id);
  form += "&client_secret=" + PercentEncodeComponent(credential_.client_secret);
  if (!credential_.scope.empty()) form += "&scope=" + PercentEncodeComponent(credential_.scope);
  const int64_t asked_at = now_();
  ARROW_ASSIGN_OR_RAISE(
      auto reply,
      http_.Send("POST", uri, {{"Content-Type", "application/x-www-form-urlencoded"}}, form));
  ARROW_ASSIGN_OR_RAISE(OAuth2Token token, ParseOAuth2TokenAnswer(reply.status, reply.body, uri));
  const int64_t lifetime_ms = token.lifetime_ms;
  refresh_at_ms_ = asked_at + lifetime_ms - std::min<int64_t>(60 * 1000, lifetime_ms / 10);
  return token.access_token;
}

}  // namespace floe
