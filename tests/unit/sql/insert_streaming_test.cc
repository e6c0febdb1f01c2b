// Streamed INSERT and CTAS that fail part way: what is left on disk and in the catalog.

#include <filesystem>

#include "session_fixture.h"

namespace floe::sql {
namespace {

using StreamingWriteTest = testing::SessionFixture;

// Parquet files under `dir`, recursively.
int ParquetFilesUnder(const std::string& dir) {
  int n = 0;
  if (!std::filesystem::exists(dir)) return 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.path().extension() == ".parquet") ++n;
  }
  return n;
}

// Fails the `n`th data file the session creates from now on.
void FailNthDataFile(Session& session, int n) {
  auto count = std::make_shared<int>(0);
  session.io()->SetFaultInjector([count, n](FileOp op, const std::string&, FileKind kind) -> Status {
    if (op == FileOp::kCreate && kind == FileKind::kData && ++*count == n) return Status::IOError("disk full");
    return Status::OK();
  });
}

TEST_F(StreamingWriteTest, AFailedInsertLeavesNoFilesAndNoSnapshot) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.t (id BIGINT, half DOUBLE) USING iceberg TBLPROPERTIES ('write.target-file-size-bytes' = '65536')");
  Ok("INSERT INTO db.t VALUES (1, 0.5)");
  const std::string data = dir_.str() + "/warehouse/db/t/data";
  ASSERT_EQ(ParquetFilesUnder(data), 1);
  FailNthDataFile(*session_, 3);
  std::string error = Error("INSERT INTO db.t SELECT id, id * 0.5 FROM range(1000000)");
  EXPECT_NE(error.find("Cannot write to lakehouse.db.t"), std::string::npos) << error;
  EXPECT_NE(error.find("disk full"), std::string::npos) << error;
  session_->io()->SetFaultInjector(nullptr);
  EXPECT_EQ(ParquetFilesUnder(data), 1);
  EXPECT_EQ(Value("SELECT count(*) FROM db.t.snapshots"), "1");
  EXPECT_EQ(Value("SELECT count(*) FROM db.t"), "1");
  // The same insert then writes several files and every row.
  Ok("INSERT INTO db.t SELECT id, id * 0.5 FROM range(1000000)");
  EXPECT_GT(ParquetFilesUnder(data), 3);
  EXPECT_EQ(Value("SELECT count(*) FROM db.t"), "1000001");
}

TEST_F(StreamingWriteTest, AFailedCtasLeavesNoTable) {
  Ok("CREATE NAMESPACE db");
  FailNthDataFile(*session_, 2);
  std::string error = Error(
      "CREATE TABLE db.copy USING iceberg TBLPROPERTIES ('write.target-file-size-bytes' = '65536') "
      "AS SELECT id, id * 0.5 AS half FROM range(1000000)");
  EXPECT_NE(error.find("disk full"), std::string::npos) << error;
  session_->io()->SetFaultInjector(nullptr);
  EXPECT_EQ(ParquetFilesUnder(dir_.str() + "/warehouse/db/copy"), 0);
  EXPECT_TRUE(Rows("SHOW TABLES IN db").empty());
  Ok("CREATE TABLE db.copy USING iceberg AS SELECT id FROM range(3)");
  EXPECT_EQ(Value("SELECT sum(id) FROM db.copy"), "3");
}

}  // namespace
}  // namespace floe::sql
