#include "floe/catalog/rest_catalog_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe_test.h"

namespace floe {
namespace {

TEST(RestCatalogConfigTest, BaseUris) {
  auto base = [](std::string_view uri) { return RestCatalogBaseUri(uri).ValueOrDie(); };
  EXPECT_EQ(base("rest+http://127.0.0.1:8181"), "http://127.0.0.1:8181");
  EXPECT_EQ(base("rest+http://127.0.0.1:8181/"), "http://127.0.0.1:8181");
  EXPECT_EQ(base("rest+https://lake.example.com/api/catalog/"),
            "https://lake.example.com/api/catalog");
  for (const char* bad : {"http://h:1", "rest+http://", "rest+ftp://h", "rest+http:///x",
                          "rest+http://h/x?warehouse=w", "rest://h"}) {
    EXPECT_EQ(RestCatalogBaseUri(bad).status().message(),
              std::string("Invalid REST catalog URI ") + bad +
                  ": expected rest+http://HOST[:PORT][/PATH] or rest+https://...");
  }
}

// The server's defaults, then the client's properties, then the server's overrides.
TEST(RestCatalogConfigTest, MergesDefaultsClientAndOverrides) {
  ASSERT_OK_AND_ASSIGN(auto config,
                       ParseRestCatalogConfig(
                           R"({"defaults": {"a": "server", "b": "server", "clients": "4"},
              "overrides": {"b": "forced", "prefix": "lake1"},
              "endpoints": ["GET /v1/{prefix}/namespaces",
                            "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}"]})",
                           {{"a", "client"}, {"b", "client"}, {"warehouse", "w"}}));
  EXPECT_EQ(config.properties, (std::map<std::string, std::string>{{"a", "client"},
                                                                   {"b", "forced"},
                                                                   {"clients", "4"},
                                                                   {"prefix", "lake1"},
                                                                   {"warehouse", "w"}}));
  EXPECT_EQ(config.prefix, "lake1");
  EXPECT_TRUE(config.Serves(kRestLoadTable));
  EXPECT_FALSE(config.Serves(kRestUpdateTable));
  EXPECT_OK(config.Require(kRestListNamespaces, "http://h:1"));
  EXPECT_EQ(config.Require(kRestCommitTransaction, "http://h:1").message(),
            "The REST catalog at http://h:1 does not serve POST /v1/{prefix}/transactions/commit");
}

// A server that lists no endpoints serves what Iceberg's clients assume: the namespace and
// table routes and multi-table commits, no views.
TEST(RestCatalogConfigTest, NoEndpointsMeansIcebergsDefaultSet) {
  ASSERT_OK_AND_ASSIGN(auto config, ParseRestCatalogConfig(R"({"defaults": {}})", {}));
  EXPECT_TRUE(config.prefix.empty());
  EXPECT_EQ(config.endpoints.size(), 14u);
  EXPECT_TRUE(config.Serves(kRestUpdateTable));
  EXPECT_TRUE(config.Serves(kRestCommitTransaction));
  EXPECT_FALSE(config.Serves("GET /v1/{prefix}/namespaces/{namespace}/views"));
}

TEST(RestCatalogConfigTest, MalformedAnswersAreNamed) {
  ASSERT_RAISES_WITH_MESSAGE("Invalid REST catalog config: not an object",
                             ParseRestCatalogConfig("[]", {}));
  ASSERT_RAISES_WITH_MESSAGE("Invalid REST catalog config: defaults.a is not a string",
                             ParseRestCatalogConfig(R"({"defaults": {"a": 1}})", {}));
  ASSERT_RAISES_WITH_MESSAGE("Invalid REST catalog config: overrides is not an object",
                             ParseRestCatalogConfig(R"({"overrides": []})", {}));
  ASSERT_RAISES_WITH_MESSAGE("Invalid REST catalog config: endpoints is not a list",
                             ParseRestCatalogConfig(R"({"endpoints": "GET /v1/x"})", {}));
  ASSERT_RAISES_WITH_MESSAGE("Invalid REST catalog config: an endpoint is not a string",
                             ParseRestCatalogConfig(R"({"endpoints": [1]})", {}));
  auto truncated = ParseRestCatalogConfig(R"({"defaults": )", {});
  ASSERT_FALSE(truncated.ok());
  EXPECT_THAT(truncated.status().message(), ::testing::StartsWith("Invalid REST catalog config: "));
}

}  // namespace
}  // namespace floe
