#include "floe/server/rest/rest_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe_test.h"

namespace floe::server::rest {
namespace {

TEST(RestJsonTest, ReadsCreateNamespaceRequests) {
  ASSERT_OK_AND_ASSIGN(auto request, ParseCreateNamespaceRequest(
                                         R"({"namespace": ["a", "b"], "properties": {"k": "v"}})"));
  EXPECT_EQ(request.ns.levels, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(request.properties, (NamespaceProperties{{"k", "v"}}));
  ASSERT_OK_AND_ASSIGN(request, ParseCreateNamespaceRequest(R"({"namespace": ["a"]})"));
  EXPECT_TRUE(request.properties.empty());
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse missing field: namespace",
                             ParseCreateNamespaceRequest("{}"));
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse namespace: expected a list of strings",
                             ParseCreateNamespaceRequest(R"({"namespace": "a"})"));
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot parse properties: the value of 'k' is not a string",
      ParseCreateNamespaceRequest(R"({"namespace": [], "properties": {"k": 1}})"));
  ASSERT_RAISES_WITH_MESSAGE("Malformed request body", ParseCreateNamespaceRequest("{"));
  ASSERT_RAISES_WITH_MESSAGE("expected a JSON object", ParseCreateNamespaceRequest("[]"));
}

TEST(RestJsonTest, ReadsUpdatePropertiesRequests) {
  ASSERT_OK_AND_ASSIGN(auto request, ParseUpdateNamespacePropertiesRequest(
                                         R"({"removals": ["x"], "updates": {"k": "v"}})"));
  EXPECT_EQ(request.removals, (std::vector<std::string>{"x"}));
  EXPECT_EQ(request.updates, (NamespaceProperties{{"k", "v"}}));
  ASSERT_OK_AND_ASSIGN(request, ParseUpdateNamespacePropertiesRequest("{}"));
  EXPECT_TRUE(request.removals.empty() && request.updates.empty());
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse removals: expected a list of strings",
                             ParseUpdateNamespacePropertiesRequest(R"({"removals": [1]})"));
}

TEST(RestJsonTest, SplitsNamespacePathPartsAtTheUnitSeparator) {
  EXPECT_TRUE(NamespaceFromPathPart("").empty());
  EXPECT_EQ(NamespaceFromPathPart("a").levels, (std::vector<std::string>{"a"}));
  EXPECT_EQ(NamespaceFromPathPart("a\x1f"
                                  "b.c")
                .levels,
            (std::vector<std::string>{"a", "b.c"}));
  EXPECT_EQ(NamespaceFromPathPart("a\x1f").levels, (std::vector<std::string>{"a", ""}));
}

}  // namespace
}  // namespace floe::server::rest
