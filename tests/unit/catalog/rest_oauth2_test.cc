#include "floe/catalog/rest_oauth2.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe_test.h"
#include "unit/catalog/http_peer.h"

namespace floe {
namespace {

using floe::testing::Peer;
using floe::testing::Reply;
using floe::testing::Seen;

TEST(OAuth2Test, CredentialsAsIcebergWritesThem) {
  OAuth2Credential both = ParseOAuth2Credential("ana:s3:cret");
  EXPECT_EQ(both.client_id, "ana");
  EXPECT_EQ(both.client_secret, "s3:cret");
  OAuth2Credential secret = ParseOAuth2Credential("s3cret");
  EXPECT_EQ(secret.client_id, "");
  EXPECT_EQ(secret.client_secret, "s3cret");
}

// A token is fetched once, kept until a minute before it expires, and fetched anew then or
// after Invalidate().
TEST(OAuth2Test, TokensAreFetchedOnceAndRefreshedBeforeTheyExpire) {
  int issued = 0;
  Peer peer([&](const Seen&) {
    ++issued;
    return Reply(200, "OK",
                 R"({"access_token": "t)" + std::to_string(issued) +
                     R"(", "token_type": "bearer", "expires_in": 3600})");
  });
  ASSERT_OK_AND_ASSIGN(auto http, RestHttpClient::Make({}));
  OAuth2Credential credential = ParseOAuth2Credential("ana:s3cr&t=+");
  credential.token_uri = peer.url("/v1/oauth/tokens");
  int64_t now = 1000;
  OAuth2Session session(*http, credential, [&] { return now; });
  EXPECT_EQ(session.Token().ValueOrDie(), "t1");
  now += 3540 * 1000 - 1;
  EXPECT_EQ(session.Token().ValueOrDie(), "t1");
  now += 1;
  EXPECT_EQ(session.Token().ValueOrDie(), "t2");
  session.Invalidate();
  EXPECT_EQ(session.Token().ValueOrDie(), "t3");
  const std::vector<Seen> seen = peer.seen();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_THAT(seen[0].head, ::testing::StartsWith("POST /v1/oauth/tokens HTTP/1.1\r\n"));
  EXPECT_THAT(seen[0].head,
              ::testing::HasSubstr("\r\nContent-Type: application/x-www-form-urlencoded"));
  EXPECT_EQ(
      seen[0].body,
      "grant_type=client_credentials&client_id=ana&client_secret=s3cr%26t%3D%2B&scope=catalog");
}

TEST(OAuth2Test, RefusalsNameTheEndpointNeverTheSecret) {
  Peer peer([](const Seen&) {
    return Reply(
        401, "Unauthorized",
        R"({"error": "invalid_client", "error_description": "Invalid client_id or client_secret"})");
  });
  ASSERT_OK_AND_ASSIGN(auto http, RestHttpClient::Make({}));
  OAuth2Credential credential = ParseOAuth2Credential("ana:wrong-secret");
  credential.token_uri = peer.url("/v1/oauth/tokens");
  OAuth2Session session(*http, credential, [] { return int64_t{0}; });
  auto token = session.Token();
  ASSERT_FALSE(token.ok());
  EXPECT_EQ(token.status().message(),
            "Cannot get a token from " + credential.token_uri +
                ": 401 invalid_client: Invalid client_id or client_secret");
  EXPECT_THAT(token.status().ToString(), ::testing::Not(::testing::HasSubstr("wrong-secret")));

  Peer empty([](const Seen&) { return Reply(200, "OK", R"({"token_type": "bearer"})"); });
  credential.token_uri = empty.url("/v1/oauth/tokens");
  OAuth2Session no_token(*http, credential, [] { return int64_t{0}; });
  EXPECT_EQ(no_token.Token().status().message(),
            "Cannot get a token from " + credential.token_uri + ": the answer has no access_token");
}

}  // namespace
}  // namespace floe
