#include "floe/server/http/metadata_site.h"

#include <arrow/api.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe_test.h"

namespace floe::server::http {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class MetadataSiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sql::SessionOptions options;
    options.catalog_uri = dir_.str() + "/catalog.db";
    options.warehouse = dir_.str() + "/warehouse";
    ASSERT_OK_AND_ASSIGN(session_, sql::Session::Make(options));
    for (const char* statement :
         {"CREATE NAMESPACE db", "CREATE TABLE db.t (id BIGINT, name STRING) USING iceberg",
          "INSERT INTO db.t VALUES (1, 'a'), (2, 'b')", "INSERT INTO db.t VALUES (3, 'c')",
          "DELETE FROM db.t WHERE id = 1", "CREATE NAMESPACE `x<y>`",
          "CREATE TABLE `x<y>`.`t\"&'` (id INT) USING iceberg"}) {
      ASSERT_OK(session_->Execute(statement).status());
    }
  }

  HttpResponse Get(const std::string& target, const std::string& method = "GET") {
    HttpRequest request;
    request.method = method;
    request.target = target;
    const size_t question = target.find('?');
    request.path = target.substr(0, question);
    if (question != std::string::npos) request.query = target.substr(question + 1);
    request.version = "HTTP/1.1";
    return site_.Handle(request, *session_);
  }

  // Snapshot ids of db.t, oldest first.
  std::vector<int64_t> SnapshotIds() {
    auto result = session_->Execute(
        "SELECT snapshot_id FROM db.t.snapshots ORDER BY committed_at, snapshot_id");
    EXPECT_TRUE(result.ok());
    std::vector<int64_t> ids;
    auto column = std::static_pointer_cast<arrow::Int64Array>(
        result->rows->CombineChunks().ValueOrDie()->column(0)->chunk(0));
    for (int64_t i = 0; i < column->length(); ++i) ids.push_back(column->Value(i));
    return ids;
  }

  static std::string HeaderOf(const HttpResponse& response, const std::string& name) {
    for (const auto& [key, value] : response.headers) {
      if (key == name) return value;
    }
    return "";
  }

  floe::testing::TempDir dir_;
  std::unique_ptr<sql::Session> session_;
  MetadataSite site_;
};

TEST_F(MetadataSiteTest, IndexListsNamespacesAndTablesEscaped) {
  HttpResponse r = Get("/");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
  EXPECT_THAT(r.body, HasSubstr("<a href=\"/table/db/t\">t</a>"));
  EXPECT_THAT(r.body, HasSubstr("data-namespace=\"x&lt;y&gt;\"><span>x&lt;y&gt;</span>"));
  EXPECT_THAT(r.body, HasSubstr("<a href=\"/table/x%3Cy%3E/t%22%26%27\">t&quot;&amp;&#39;</a>"));
  EXPECT_THAT(r.body, Not(HasSubstr("x<y>")));
  // The only style and script run with the response's nonce.
  const std::string policy = HeaderOf(r, "Content-Security-Policy");
  EXPECT_THAT(policy, HasSubstr("default-src 'none'; script-src 'nonce-"));
  const std::string nonce = policy.substr(policy.find("nonce-") + 6, 32);
  EXPECT_THAT(r.body, HasSubstr("<style nonce=\"" + nonce + "\">"));
}

TEST_F(MetadataSiteTest, TablesAsJson) {
  HttpResponse r = Get("/api/tables");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body,
            "{\"catalog\": \"lakehouse\", \"namespaces\": [\"db\", \"x<y>\"], \"tables\": ["
            "{\"namespace\": \"db\", \"name\": \"t\", \"table\": \"lakehouse.db.t\", "
            "\"path\": \"/table/db/t\"}, "
            "{\"namespace\": \"x<y>\", \"name\": \"t\\\"&'\", \"table\": "
            "\"lakehouse.x<y>.t\\\"&'\", \"path\": \"/table/x%3Cy%3E/t%22%26%27\"}]}");
}

TEST_F(MetadataSiteTest, TablePageNamesTheTableEscaped) {
  HttpResponse r = Get("/table/x%3Cy%3E/t%22%26%27");
  EXPECT_EQ(r.status, 200);
  EXPECT_THAT(r.body,
              HasSubstr("<h1 id=\"table-name\">lakehouse.x&lt;y&gt;.t&quot;&amp;&#39;</h1>"));
  EXPECT_THAT(r.body, HasSubstr("<title>lakehouse.x&lt;y&gt;.t&quot;&amp;&#39; · floe</title>"));
}

TEST_F(MetadataSiteTest, UnknownTablesAndPagesAre404sNamingThem) {
  HttpResponse page = Get("/table/db/nope");
  EXPECT_EQ(page.status, 404);
  EXPECT_THAT(page.body,
              HasSubstr("<p id=\"error-message\">Table lakehouse.db.nope not found</p>"));
  HttpResponse api = Get("/api/table/db/n%3Cope");
  EXPECT_EQ(api.status, 404);
  EXPECT_EQ(api.body, "{\"error\": \"Table lakehouse.db.n<ope not found\"}");
  HttpResponse other = Get("/etc/<passwd>");
  EXPECT_EQ(other.status, 404);
  EXPECT_THAT(other.body, HasSubstr("No page at /etc/&lt;passwd&gt;"));
  EXPECT_EQ(Get("/table/db/t/extra").status, 404);
  EXPECT_EQ(Get("/api/table/db/t/diffs").status, 404);
  EXPECT_EQ(Get("/table/db/%zz").status, 400);
}

TEST_F(MetadataSiteTest, OnlyGetIsServed) {
  for (const char* method : {"POST", "PUT", "DELETE", "HEAD", "get"}) {
    HttpResponse r = Get("/api/tables", method);
    EXPECT_EQ(r.status, 405) << method;
    EXPECT_EQ(HeaderOf(r, "Allow"), "GET");
  }
}

TEST_F(MetadataSiteTest, TableJsonListsSnapshotsNewestFirst) {
  const std::vector<int64_t> ids = SnapshotIds();
  ASSERT_EQ(ids.size(), 3u);
  HttpResponse r = Get("/api/table/db/t");
  EXPECT_EQ(r.status, 200);
  const std::string current = "\"current_snapshot_id\": \"" + std::to_string(ids[2]) + "\"";
  EXPECT_THAT(r.body, HasSubstr(current));
  const size_t newest = r.body.find("{\"snapshot_id\": \"" + std::to_string(ids[2]) + "\"");
  const size_t oldest = r.body.find("{\"snapshot_id\": \"" + std::to_string(ids[0]) + "\"");
  ASSERT_NE(newest, std::string::npos);
  ASSERT_NE(oldest, std::string::npos);
  EXPECT_LT(newest, oldest);
  EXPECT_THAT(r.body, HasSubstr("\"refs\": [{\"name\": \"main\", \"type\": \"branch\"}]"));
  EXPECT_THAT(r.body, HasSubstr("\"jumps\": []"));
}

TEST_F(MetadataSiteTest, DiffCountsAndRows) {
  const std::vector<int64_t> ids = SnapshotIds();
  ASSERT_EQ(ids.size(), 3u);
  HttpResponse r =
      Get("/api/table/db/t/diff?from=" + std::to_string(ids[0]) + "&to=" + std::to_string(ids[2]));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_THAT(r.body, HasSubstr("\"columns\": [\"id\", \"name\"]"));
  EXPECT_THAT(r.body, HasSubstr("\"added\": 1, \"removed\": 1"));
  EXPECT_THAT(r.body, HasSubstr("\"added_rows\": [[\"3\", \"c\"]], "
                                "\"removed_rows\": [[\"1\", \"a\"]]}"));
}

TEST_F(MetadataSiteTest, DiffShowsBoundedRowsWithExactCounts) {
  const std::vector<int64_t> before = SnapshotIds();
  std::string insert = "INSERT INTO db.t VALUES ";
  for (int i = 0; i < 150; ++i) insert += (i ? ", (" : "(") + std::to_string(100 + i) + ", 'n')";
  ASSERT_OK(session_->Execute(insert).status());
  const std::vector<int64_t> after = SnapshotIds();
  HttpResponse r = Get("/api/table/db/t/diff?from=" + std::to_string(before.back()) +
                       "&to=" + std::to_string(after.back()));
  EXPECT_EQ(r.status, 200);
  EXPECT_THAT(r.body, HasSubstr("\"added\": 150, \"removed\": 0"));
  EXPECT_THAT(r.body, HasSubstr("\"rows_limit\": 100"));
  size_t rows = 0;
  for (size_t at = r.body.find("\", \"n\"]"); at != std::string::npos;
       at = r.body.find("\", \"n\"]", at + 1)) {
    ++rows;
  }
  EXPECT_EQ(rows, 100u);
}

TEST_F(MetadataSiteTest, DiffParametersAreChecked) {
  HttpResponse missing = Get("/api/table/db/t/diff?from=1");
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(missing.body, "{\"error\": \"Missing parameter 'to': a snapshot id\"}");
  HttpResponse bad = Get("/api/table/db/t/diff?from=1&to=x%3C");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body, "{\"error\": \"Invalid parameter 'to': 'x<' is not a snapshot id\"}");
  const std::vector<int64_t> ids = SnapshotIds();
  HttpResponse unknown = Get("/api/table/db/t/diff?from=42&to=" + std::to_string(ids[0]));
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.body,
            "{\"error\": \"Cannot find snapshot with ID 42 in table lakehouse.db.t\"}");
}

}  // namespace
}  // namespace floe::server::http
