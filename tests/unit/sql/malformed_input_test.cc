// A catalogue of damaged tables, each read and written through SQL: every one gives its
// exact error, names the file or row at fault, and commits nothing.

#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "floe/manifest/manifest_reader.h"
#include "floe/scan/table_scan.h"
#include "floe/table/table_catalog.h"
#include "session_fixture.h"

namespace floe::sql::testing {
namespace {

using floe::testing::ReadFileBytes;
using floe::testing::WriteFileBytes;

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

class MalformedInputTest : public SessionFixture {
 protected:
  void SetUp() override {
    SessionFixture::SetUp();
    Ok("CREATE NAMESPACE db");
    Ok("CREATE TABLE db.t (id BIGINT, name STRING) USING iceberg");
    Ok("INSERT INTO db.t VALUES (1, 'a'), (2, 'b')");
    Ok("INSERT INTO db.t VALUES (3, 'c')");
    pointer_ = Pointer();
    auto io = FileIO::MakeLocal().ValueOrDie();
    auto md = Metadata();
    manifest_list_ = md->current_snapshot()->manifest_list;
    auto manifests = manifest::ReadManifestList(*io, manifest_list_).ValueOrDie();
    manifest_ = manifests.at(0).manifest_path;
    auto entries = manifest::ReadManifest(*io, manifests.at(0), *md).ValueOrDie();
    data_file_ = entries.at(0).data_file.file_path;
  }

  std::string Pointer() {
    auto location = session_->catalog()->LoadMetadataLocation(TableIdentifier{Namespace({"db"}), "t"});
    return location.ok() ? *location : "";
  }

  spec::TableMetadataPtr Metadata() {
    auto text = ReadFileBytes(Pointer());
    return spec::ParseTableMetadata(text).ValueOrDie();
  }

  void SetPointer(const std::string& location) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir_.str() + "/catalog.db").c_str(), &db), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "UPDATE iceberg_tables SET metadata_location = ? WHERE table_name = 't'", -1,
                                 &stmt, nullptr),
              SQLITE_OK);
    sqlite3_bind_text(stmt, 1, location.c_str(), -1, SQLITE_TRANSIENT);
    ASSERT_EQ(sqlite3_step(stmt), SQLITE_DONE);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
  }

  // Reading fails with `read_error`, writing fails too, and the table pointer is unchanged.
  void ExpectRefused(const std::string& read_error, const std::string& write_error = "") {
    const std::string before = Pointer();
    EXPECT_THAT(Error("SELECT * FROM db.t"), ::testing::HasSubstr(read_error));
    EXPECT_THAT(Error("INSERT INTO db.t VALUES (9, 'z')"),
                ::testing::HasSubstr(write_error.empty() ? read_error : write_error));
    EXPECT_EQ(Pointer(), before) << "a statement over a damaged table committed";
  }

  std::string pointer_, manifest_list_, manifest_, data_file_;
};

// Catalog rows.

TEST_F(MalformedInputTest, RowNamingAMissingMetadataFile) {
  SetPointer(dir_.str() + "/warehouse/db/t/metadata/00009-gone.metadata.json");
  ExpectRefused("Failed to read table metadata " + dir_.str() + "/warehouse/db/t/metadata/00009-gone.metadata.json: file not found");
}

TEST_F(MalformedInputTest, RowWithAnEmptyLocation) {
  SetPointer("");
  ExpectRefused("Table db.t has no metadata location in catalog lakehouse");
}

TEST_F(MalformedInputTest, RowWithARelativeLocation) {
  SetPointer("db/t/metadata/00001.metadata.json");
  ExpectRefused("File location must be an absolute path or a file: URI: db/t/metadata/00001.metadata.json");
}

TEST_F(MalformedInputTest, RowWithAnUnsupportedScheme) {
  SetPointer("gs://bucket/db/t/metadata/00001.metadata.json");
  ExpectRefused("No FileIO for scheme 'gs' in location gs://bucket/db/t/metadata/00001.metadata.json");
}

TEST_F(MalformedInputTest, RowNamingADataFile) {
  SetPointer(data_file_);
  ExpectRefused(data_file_);
}

// Metadata files.

TEST_F(MalformedInputTest, MetadataThatIsNotJson) {
  WriteFileBytes(pointer_, "not json at all");
  ExpectRefused(pointer_);
}

TEST_F(MalformedInputTest, MetadataOfAnUnknownFormatVersion) {
  WriteFileBytes(pointer_, Replace(ReadFileBytes(pointer_), "\"format-version\":2", "\"format-version\":7"));
  ExpectRefused("Cannot parse table metadata " + pointer_ + ": Cannot read unsupported version 7");
}

TEST_F(MalformedInputTest, MetadataWithAnUnknownType) {
  WriteFileBytes(pointer_, Replace(ReadFileBytes(pointer_), "\"type\":\"string\"", "\"type\":\"varchar\""));
  ExpectRefused("varchar");
}

TEST_F(MalformedInputTest, MetadataWhoseCurrentSnapshotIsMissing) {
  auto md = Metadata();
  WriteFileBytes(pointer_, Replace(ReadFileBytes(pointer_), "\"current-snapshot-id\":" + std::to_string(*md->current_snapshot_id),
                         "\"current-snapshot-id\":42"));
  ExpectRefused("42");
}

TEST_F(MalformedInputTest, MetadataWhoseCurrentSchemaIsMissing) {
  WriteFileBytes(pointer_, Replace(ReadFileBytes(pointer_), "\"current-schema-id\":0", "\"current-schema-id\":5"));
  ExpectRefused("5");
}

// Manifest lists, manifests and data files.

TEST_F(MalformedInputTest, MissingManifestList) {
  std::filesystem::remove(manifest_list_);
  ExpectRefused(manifest_list_);
}

TEST_F(MalformedInputTest, TruncatedManifestList) {
  WriteFileBytes(manifest_list_, ReadFileBytes(manifest_list_).substr(0, 20));
  ExpectRefused(manifest_list_);
}

TEST_F(MalformedInputTest, ManifestThatIsNotAvro) {
  WriteFileBytes(manifest_, "PAR1 not an avro file");
  EXPECT_THAT(Error("SELECT * FROM db.t"), ::testing::HasSubstr(manifest_));
  EXPECT_EQ(Pointer(), pointer_);
}

TEST_F(MalformedInputTest, MissingDataFile) {
  std::filesystem::remove(data_file_);
  EXPECT_THAT(Error("SELECT * FROM db.t"), ::testing::HasSubstr(data_file_));
  EXPECT_EQ(Pointer(), pointer_);
}

TEST_F(MalformedInputTest, DataFileThatIsNotParquet) {
  WriteFileBytes(data_file_, "id,name\n1,a\n");
  EXPECT_THAT(Error("SELECT * FROM db.t"), ::testing::HasSubstr(data_file_));
  EXPECT_THAT(Error("INSERT OVERWRITE db.t SELECT * FROM db.t"), ::testing::HasSubstr(data_file_));
  EXPECT_EQ(Pointer(), pointer_);
}

}  // namespace
}  // namespace floe::sql::testing
