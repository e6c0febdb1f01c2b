#include "floe/catalog/rest_http_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe_test.h"
#include "unit/catalog/http_peer.h"

namespace floe {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using floe::testing::Peer;
using floe::testing::Reply;
using floe::testing::Seen;

TEST(RestHttpClientTest, SendsRequestsReadsOnOneConnectionChangesOnTheirOwn) {
  Peer peer([](const Seen& seen) {
    if (seen.head.rfind("POST ", 0) == 0) {
      return Reply(409, "Conflict", R"({"error":{"code":409}})");
    }
    return Reply(200, "OK", R"({"defaults":{}})", "ETag: \"abc\"\r\n");
  });
  RestHttpOptions options;
  options.headers = {{"X-Client-Version", "floe"}};
  ASSERT_OK_AND_ASSIGN(auto client, RestHttpClient::Make(options));
  bool maybe_sent = false;
  ASSERT_OK_AND_ASSIGN(auto config,
                       client->Send("GET", peer.url("/v1/config?warehouse=w"),
                                    {{"Authorization", "Bearer t0k"}}, "", &maybe_sent));
  EXPECT_TRUE(maybe_sent);
  EXPECT_EQ(config.status, 200);
  EXPECT_EQ(config.body, R"({"defaults":{}})");
  EXPECT_EQ(config.headers.at("etag"), "\"abc\"");
  EXPECT_EQ(config.headers.at("content-type"), "application/json");
  // Any status is a reply.
  ASSERT_OK_AND_ASSIGN(auto commit, client->Send("POST", peer.url("/v1/namespaces/db/tables/t"),
                                                 {{"Content-Type", "application/json"}},
                                                 R"({"requirements":[],"updates":[]})"));
  EXPECT_EQ(commit.status, 409);
  EXPECT_EQ(commit.body, R"({"error":{"code":409}})");
  ASSERT_OK_AND_ASSIGN(auto head, client->Send("HEAD", peer.url("/v1/namespaces/db"), {}, ""));
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());

  const std::vector<Seen> seen = peer.seen();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_THAT(seen[0].head, StartsWith("GET /v1/config?warehouse=w HTTP/1.1\r\n"));
  EXPECT_THAT(seen[0].head, HasSubstr("\r\nAuthorization: Bearer t0k"));
  EXPECT_THAT(seen[0].head, HasSubstr("\r\nX-Client-Version: floe"));
  EXPECT_THAT(seen[1].head, StartsWith("POST /v1/namespaces/db/tables/t HTTP/1.1\r\n"));
  EXPECT_THAT(seen[1].head, HasSubstr("\r\nContent-Type: application/json"));
  EXPECT_THAT(seen[1].head, ::testing::Not(HasSubstr("Expect:")));
  EXPECT_THAT(seen[1].head, ::testing::Not(HasSubstr("Bearer")));  // only where given
  EXPECT_EQ(seen[1].body, R"({"requirements":[],"updates":[]})");
  EXPECT_THAT(seen[2].head, StartsWith("HEAD /v1/namespaces/db HTTP/1.1\r\n"));
  // Reads share one kept-alive connection; the change had one of its own, so that nothing
  // can send it twice.
  EXPECT_EQ(peer.connections(), 2);
}

TEST(RestHttpClientTest, FailuresNameTheRequestAndWhetherItMayHaveArrived) {
  ASSERT_OK_AND_ASSIGN(auto client, RestHttpClient::Make({}));
  std::string closed_url;
  {
    Peer gone([](const Seen&) { return std::string(); });
    closed_url = gone.url("/v1/config");
  }
  bool maybe_sent = true;
  auto refused = client->Send("GET", closed_url, {}, "", &maybe_sent);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), StartsWith("Cannot GET " + closed_url + ": "));
  EXPECT_FALSE(maybe_sent);

  // Read, then closed without an answer: the commit may have happened.
  Peer mute([](const Seen&) { return std::string(); });
  auto lost = client->Send("POST", mute.url("/v1/namespaces/db/tables/t"), {}, "{}", &maybe_sent);
  ASSERT_FALSE(lost.ok());
  EXPECT_THAT(lost.status().message(),
              StartsWith("Cannot POST " + mute.url("/v1/namespaces/db/tables/t") + ": "));
  EXPECT_TRUE(maybe_sent);
  EXPECT_EQ(mute.seen().size(), 1u);

  auto bad = client->Send("GET", "ftp://127.0.0.1/x", {}, "", &maybe_sent);
  ASSERT_FALSE(bad.ok());
  EXPECT_FALSE(maybe_sent);
}

}  // namespace
}  // namespace floe
