// FileIO on s3:// locations, against the S3 server tests/support/s3_server.py starts (the
// ctest fixture `s3`: FLOE_TEST_S3 names the directory whose file `endpoint` holds its
// address; its bucket `floe-test` exists).

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "floe/io/file_io.h"
#include "floe/io/object_store.h"
#include "floe/io/text_file.h"
#include "floe/util/ids.h"
#include "floe_test.h"
#include "test_values.h"

namespace floe {
namespace {

using floe::testing::AsString;

using ::testing::HasSubstr;
using ::testing::StartsWith;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Bytes that differ from part to part, so a misplaced part would show.
std::string Pattern(size_t n) {
  std::string out(n, '\0');
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<char>((i * 7919 + i / 4096) % 251);
  return out;
}

class S3FileIOTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* dir = std::getenv("FLOE_TEST_S3");
    ASSERT_NE(dir, nullptr) << "FLOE_TEST_S3 is not set: run through ctest (fixture s3)";
    std::ifstream in(std::string(dir) + "/endpoint");
    std::getline(in, endpoint_);
    ASSERT_FALSE(endpoint_.empty());
    ObjectStoreOptions options;
    options.endpoint = endpoint_;
    options.region = "us-east-1";
    options.access_key_id = "floe";
    options.secret_access_key = "floe-secret";
    ASSERT_OK_AND_ASSIGN(io_, FileIO::Make(options));
    // Each test under its own prefix of the shared bucket.
    prefix_ = "s3://floe-test/io-" + NewUuid();
  }

  std::string At(const std::string& rel) const { return prefix_ + "/" + rel; }

  std::vector<std::string> Listed(const std::string& location) {
    std::vector<std::string> out;
    auto files = io_->ListFiles(location);
    EXPECT_TRUE(files.ok()) << files.status().ToString();
    if (files.ok()) {
      for (const auto& f : *files) out.push_back(f.path);
    }
    return out;
  }

  std::string endpoint_;
  std::string prefix_;
  std::shared_ptr<FileIO> io_;
};

TEST(ObjectStoreLocationTest, ParsesSchemesBucketsAndKeys) {
  EXPECT_TRUE(IsObjectStoreLocation("s3://b/k"));
  EXPECT_TRUE(IsObjectStoreLocation("S3A://b/k"));
  EXPECT_TRUE(IsObjectStoreLocation("s3n://b"));
  EXPECT_FALSE(IsObjectStoreLocation("/s3/x"));
  EXPECT_FALSE(IsObjectStoreLocation("file:///s3://x"));
  EXPECT_FALSE(IsObjectStoreLocation("gs://b/k"));
  ASSERT_OK_AND_ASSIGN(auto a, ParseObjectStoreLocation("S3A://bucket/wh/db/t/"));
  EXPECT_EQ(a.scheme, "s3a");
  EXPECT_EQ(a.bucket, "bucket");
  EXPECT_EQ(a.key, "wh/db/t");
  EXPECT_EQ(a.ToString(), "s3a://bucket/wh/db/t");
  ASSERT_OK_AND_ASSIGN(auto b, ParseObjectStoreLocation("s3://bucket"));
  EXPECT_EQ(b.key, "");
  EXPECT_EQ(b.ToString(), "s3://bucket");
  EXPECT_EQ(ParseObjectStoreLocation("s3:/bucket/k").status().message(),
            "Object location must look like s3://bucket/key: s3:/bucket/k");
  EXPECT_EQ(ParseObjectStoreLocation("s3:///k").status().message(),
            "Object location has no bucket: s3:///k");
}

TEST(ObjectStoreOptionsTest, EnvironmentFillsWhatIsNotGiven) {
  ::setenv("AWS_ENDPOINT_URL", "http://generic:1", 1);
  ::setenv("AWS_ENDPOINT_URL_S3", "http://s3-specific:2", 1);
  ::setenv("AWS_REGION", "eu-west-3", 1);
  ::setenv("AWS_DEFAULT_REGION", "us-west-2", 1);
  ::setenv("AWS_ACCESS_KEY_ID", "env-key", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", "env-secret", 1);
  ::setenv("AWS_SESSION_TOKEN", "env-token", 1);
  ObjectStoreOptions from_env = WithEnvironment({});
  EXPECT_EQ(from_env.endpoint, "http://s3-specific:2");
  EXPECT_EQ(from_env.region, "eu-west-3");
  EXPECT_EQ(from_env.access_key_id, "env-key");
  EXPECT_EQ(from_env.secret_access_key, "env-secret");
  EXPECT_EQ(from_env.session_token, "env-token");

  ObjectStoreOptions given;
  given.endpoint = "http://given:3";
  given.region = "ap-south-1";
  given.access_key_id = "given-key";
  given.secret_access_key = "given-secret";
  ObjectStoreOptions kept = WithEnvironment(given);
  EXPECT_EQ(kept.endpoint, "http://given:3");
  EXPECT_EQ(kept.region, "ap-south-1");
  EXPECT_EQ(kept.access_key_id, "given-key");
  EXPECT_EQ(kept.secret_access_key, "given-secret");
  EXPECT_EQ(kept.session_token, "");  // never a token of other credentials

  ::unsetenv("AWS_ENDPOINT_URL_S3");
  ::unsetenv("AWS_REGION");
  ObjectStoreOptions fallback = WithEnvironment({});
  EXPECT_EQ(fallback.endpoint, "http://generic:1");
  EXPECT_EQ(fallback.region, "us-west-2");
  for (const char* name : {"AWS_ENDPOINT_URL", "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID",
                           "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"}) {
    ::unsetenv(name);
  }
  ObjectStoreOptions none = WithEnvironment({});
  EXPECT_EQ(none.endpoint, "");
  EXPECT_EQ(none.access_key_id, "");
}

TEST_F(S3FileIOTest, WriteReadSizeExistsDelete) {
  const std::string loc = At("t/metadata/00000-a.metadata.json");
  ASSERT_OK(io_->WriteFile(loc, FileKind::kMetadata, "{\"format-version\":2}"));
  ASSERT_OK_AND_ASSIGN(auto buf, io_->ReadFile(loc, FileKind::kMetadata));
  EXPECT_EQ(AsString(*buf), "{\"format-version\":2}");
  ASSERT_OK_AND_ASSIGN(auto size, io_->FileSize(loc));
  EXPECT_EQ(size, 20);
  ASSERT_OK_AND_ASSIGN(bool exists, io_->Exists(loc));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(auto file, io_->OpenInputFile(loc, FileKind::kMetadata));
  ASSERT_OK_AND_ASSIGN(auto part, file->ReadAt(2, 14));
  EXPECT_EQ(AsString(*part), "format-version");

  auto c = io_->counters();
  EXPECT_EQ(c.creates(FileKind::kMetadata), 1);
  EXPECT_EQ(c.reads(FileKind::kMetadata), 2);

  ASSERT_OK(io_->DeleteFile(loc, FileKind::kMetadata));
  ASSERT_OK_AND_ASSIGN(exists, io_->Exists(loc));
  EXPECT_FALSE(exists);
  ASSERT_OK(io_->DeleteFile(loc, FileKind::kMetadata));  // missing: not an error
  EXPECT_EQ(io_->counters().deletes(FileKind::kMetadata), 1);
  EXPECT_EQ(io_->ReadFile(loc, FileKind::kMetadata).status().message(),
            "Cannot read file " + loc + ": file does not exist");
  EXPECT_TRUE(IsNotFound(io_->ReadFile(loc, FileKind::kMetadata).status()));
  EXPECT_EQ(io_->FileSize(loc).status().message(),
            "Cannot get size of file " + loc + ": file does not exist");
}

// A text file's bytes in one GET past its end, or, when it fills the first read, as any file.
TEST_F(S3FileIOTest, ReadsATextFileOfUnknownSize) {
  const std::string loc = At("t/metadata/00001-b.metadata.json");
  const std::string text = "{\"format-version\":2,\"location\":\"" + loc + "\"}";
  ASSERT_OK(io_->WriteFile(loc, FileKind::kMetadata, text));
  for (int64_t first_read : {kTextFileFirstRead, int64_t{1} << 10, static_cast<int64_t>(text.size()),
                             static_cast<int64_t>(text.size()) - 1, int64_t{4}}) {
    ASSERT_OK_AND_ASSIGN(auto buf, ReadTextFile(*io_, loc, FileKind::kMetadata, first_read));
    EXPECT_EQ(AsString(*buf), text) << "first read of " << first_read << " bytes";
  }
  // A missing file: ReadFile's error.
  const std::string gone = At("t/metadata/00002-c.metadata.json");
  auto missing = ReadTextFile(*io_, gone, FileKind::kMetadata);
  EXPECT_TRUE(IsNotFound(missing.status())) << missing.status().ToString();
  EXPECT_EQ(missing.status().message(), "Cannot read file " + gone + ": file does not exist");
  // A failing read is not retried as something else: the injected fault is the error.
  io_->SetFaultInjector([&](FileOp op, const std::string&, FileKind) {
    return op == FileOp::kRead ? Status::IOError("injected") : Status::OK();
  });
  EXPECT_THAT(ReadTextFile(*io_, loc, FileKind::kMetadata).status().message(), HasSubstr("injected"));
  io_->SetFaultInjector({});
}

TEST_F(S3FileIOTest, NeverReplacesAnObject) {
  const std::string loc = At("v1.metadata.json");
  ASSERT_OK(io_->WriteFile(loc, FileKind::kMetadata, "first"));
  Status again = io_->WriteFile(loc, FileKind::kMetadata, "second");
  EXPECT_TRUE(IsAlreadyExists(again));
  EXPECT_EQ(again.message(), "Cannot write file " + loc + ": file already exists");
  auto stream = io_->OpenOutputStream(loc, FileKind::kData);
  EXPECT_TRUE(IsAlreadyExists(stream.status()));
  EXPECT_EQ(stream.status().message(), "Cannot create file " + loc + ": file already exists");
  ASSERT_OK_AND_ASSIGN(auto buf, io_->ReadFile(loc, FileKind::kMetadata));
  EXPECT_EQ(AsString(*buf), "first");
  EXPECT_EQ(io_->counters().creates(FileKind::kMetadata), 1);
}

TEST_F(S3FileIOTest, ListsRecursivelyWithSizesAndTimes) {
  const int64_t before = NowMs();
  ASSERT_OK(io_->WriteFile(At("t/data/b.parquet"), FileKind::kData, "bb"));
  ASSERT_OK(io_->WriteFile(At("t/data/a/x.parquet"), FileKind::kData, "a"));
  ASSERT_OK(io_->WriteFile(At("t/metadata/v1.metadata.json"), FileKind::kMetadata, "mmm"));
  ASSERT_OK(io_->WriteFile(At("t2/other"), FileKind::kOther, "o"));  // a sibling prefix
  const int64_t after = NowMs();

  ASSERT_OK_AND_ASSIGN(auto files, io_->ListFiles(At("t")));
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].path, At("t/data/a/x.parquet"));
  EXPECT_EQ(files[0].size, 1);
  EXPECT_EQ(files[1].path, At("t/data/b.parquet"));
  EXPECT_EQ(files[1].size, 2);
  EXPECT_EQ(files[2].path, At("t/metadata/v1.metadata.json"));
  EXPECT_EQ(files[2].size, 3);
  for (const auto& f : files) {
    // S3 keeps modification times in whole seconds.
    EXPECT_GE(f.last_modified_ms, before - 1000) << f.path;
    EXPECT_LE(f.last_modified_ms, after + 1000) << f.path;
  }
  // Listed in the scheme the location used.
  std::string s3a = At("t/data");
  s3a.replace(0, 2, "s3a");
  EXPECT_EQ(Listed(s3a), (std::vector<std::string>{s3a + "/a/x.parquet", s3a + "/b.parquet"}));
  EXPECT_EQ(Listed(At("missing")), std::vector<std::string>{});
  EXPECT_EQ(Listed(prefix_),
            (std::vector<std::string>{At("t/data/a/x.parquet"), At("t/data/b.parquet"),
                                      At("t/metadata/v1.metadata.json"), At("t2/other")}));

  // Deleting leaves no file behind in the listing (directory markers are not files).
  ASSERT_OK(io_->DeleteFile(At("t/data/a/x.parquet"), FileKind::kData));
  ASSERT_OK(io_->DeleteDirectory(At("t/metadata")));
  EXPECT_EQ(Listed(At("t")), std::vector<std::string>{At("t/data/b.parquet")});
  ASSERT_OK(io_->DeleteDirectory(At("t")));
  ASSERT_OK(io_->DeleteDirectory(At("t")));  // missing: not an error
  EXPECT_EQ(Listed(prefix_), std::vector<std::string>{At("t2/other")});
}

TEST_F(S3FileIOTest, LargeStreamsAreMultipartUploads) {
  const std::string loc = At("data/big.parquet");
  const std::string bytes = Pattern(size_t{23} << 20);  // three 10 MiB parts
  ASSERT_OK_AND_ASSIGN(auto out, io_->OpenOutputStream(loc, FileKind::kData));
  for (size_t at = 0; at < bytes.size(); at += size_t{1} << 20) {
    ASSERT_OK(out->Write(bytes.data() + at, std::min(size_t{1} << 20, bytes.size() - at)));
  }
  ASSERT_OK_AND_ASSIGN(auto tell, out->Tell());
  EXPECT_EQ(tell, static_cast<int64_t>(bytes.size()));
  ASSERT_OK_AND_ASSIGN(bool exists, io_->Exists(loc));
  EXPECT_FALSE(exists);  // nothing is visible before Close()
  ASSERT_OK(out->Close());
  ASSERT_OK(out->Close());
  ASSERT_OK_AND_ASSIGN(auto size, io_->FileSize(loc));
  EXPECT_EQ(size, static_cast<int64_t>(bytes.size()));
  ASSERT_OK_AND_ASSIGN(auto buf, io_->ReadFile(loc, FileKind::kData));
  EXPECT_TRUE(AsString(*buf) == bytes);
  EXPECT_EQ(io_->counters().creates(FileKind::kData), 1);
}

TEST_F(S3FileIOTest, AbortedOrAbandonedStreamsLeaveNothing) {
  {
    // Past one part: a multipart upload is under way when it is aborted.
    ASSERT_OK_AND_ASSIGN(auto out, io_->OpenOutputStream(At("aborted-big"), FileKind::kData));
    const std::string bytes = Pattern(size_t{12} << 20);
    ASSERT_OK(out->Write(bytes.data(), static_cast<int64_t>(bytes.size())));
    ASSERT_OK(out->Abort());
    EXPECT_TRUE(out->closed());
    EXPECT_EQ(out->Close().message(),
              "Cannot write file " + At("aborted-big") + ": stream was aborted");
  }
  {
    ASSERT_OK_AND_ASSIGN(auto out, io_->OpenOutputStream(At("aborted-small"), FileKind::kData));
    ASSERT_OK(out->Write("abc", 3));
    ASSERT_OK(out->Abort());
  }
  {
    // Released without Close(): Arrow's own stream would complete the upload; ours does not.
    ASSERT_OK_AND_ASSIGN(auto out, io_->OpenOutputStream(At("abandoned-big"), FileKind::kData));
    const std::string bytes = Pattern(size_t{11} << 20);
    ASSERT_OK(out->Write(bytes.data(), static_cast<int64_t>(bytes.size())));
  }
  {
    ASSERT_OK_AND_ASSIGN(auto out, io_->OpenOutputStream(At("abandoned"), FileKind::kData));
    ASSERT_OK(out->Write("abc", 3));
  }
  EXPECT_EQ(Listed(prefix_), std::vector<std::string>{});
  for (const char* name : {"aborted-big", "aborted-small", "abandoned-big", "abandoned"}) {
    ASSERT_OK_AND_ASSIGN(bool exists, io_->Exists(At(name)));
    EXPECT_FALSE(exists) << name;
  }
}

TEST_F(S3FileIOTest, FaultInjectorFailsWritesAndNothingIsLeft) {
  std::vector<std::string> seen;
  io_->SetFaultInjector([&](FileOp op, const std::string& location, FileKind kind) -> Status {
    seen.push_back(
        StrCat(FileOpName(op), " ", FileKindName(kind), " ", location.substr(prefix_.size() + 1)));
    if (op == FileOp::kSync && location.find("fail-at-close") != std::string::npos) {
      return Status::IOError("injected at close");
    }
    if (op == FileOp::kStreamWrite && location.find("fail-at-write") != std::string::npos) {
      return Status::IOError("injected at write");
    }
    if (op == FileOp::kWriteFile && location.find("fail-whole") != std::string::npos) {
      return Status::IOError("injected whole");
    }
    return Status::OK();
  });
  {
    ASSERT_OK_AND_ASSIGN(auto out, io_->OpenOutputStream(At("fail-at-close"), FileKind::kData));
    ASSERT_OK(out->Write("abc", 3));
    EXPECT_EQ(out->Close().message(),
              "Cannot write file " + At("fail-at-close") + ": injected at close");
  }
  {
    ASSERT_OK_AND_ASSIGN(auto out, io_->OpenOutputStream(At("fail-at-write"), FileKind::kDelete));
    EXPECT_EQ(out->Write("abc", 3).message(),
              "Cannot write file " + At("fail-at-write") + ": injected at write");
  }
  EXPECT_EQ(io_->WriteFile(At("fail-whole"), FileKind::kManifest, "x").message(),
            "Cannot write file " + At("fail-whole") + ": injected whole");
  ASSERT_OK(io_->WriteFile(At("ok"), FileKind::kManifestList, "x"));
  ASSERT_OK(io_->DeleteFile(At("ok"), FileKind::kManifestList));
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "create data fail-at-close", "stream-write data fail-at-close",
                      "sync data fail-at-close", "create delete fail-at-write",
                      "stream-write delete fail-at-write", "write-file manifest fail-whole",
                      "write-file manifest-list ok", "delete manifest-list ok"}));
  io_->SetFaultInjector({});
  EXPECT_EQ(Listed(prefix_), std::vector<std::string>{});
}

TEST_F(S3FileIOTest, ErrorsNameTheLocation) {
  EXPECT_EQ(io_->WriteFile("s3://floe-test", FileKind::kOther, "x").message(),
            "Cannot write file s3://floe-test: Object location names a bucket, not an object: "
            "s3://floe-test");
  EXPECT_EQ(io_->DeleteDirectory("s3://floe-test/").message(),
            "Cannot delete directory s3://floe-test/: Object location names a bucket, not an "
            "object: s3://floe-test/");
  EXPECT_EQ(io_->ReadFile("s3:/floe-test/x", FileKind::kOther).status().message(),
            "Cannot read file s3:/floe-test/x: Object location must look like "
            "s3://bucket/key: s3:/floe-test/x");
  // A bucket that does not exist: the store's own error, after the location.
  const std::string nowhere = "s3://floe-no-such-bucket/t/v1.metadata.json";
  auto read = io_->ReadFile(nowhere, FileKind::kMetadata);
  EXPECT_THAT(read.status().message(), StartsWith("Cannot read file " + nowhere + ": "));
  auto write = io_->WriteFile(nowhere, FileKind::kMetadata, "x");
  EXPECT_THAT(write.message(), StartsWith("Cannot write file " + nowhere + ": "));
  EXPECT_THAT(write.message(), HasSubstr("floe-no-such-bucket"));
  auto list = io_->ListFiles("s3://floe-no-such-bucket/t");
  EXPECT_TRUE(IsNotFound(list.status()));
  EXPECT_EQ(list.status().message(),
            "Cannot list files under s3://floe-no-such-bucket/t: bucket floe-no-such-bucket "
            "does not exist");
}

TEST_F(S3FileIOTest, OneFileIOServesLocalFilesAndTheObjectStore) {
  testing::TempDir dir;
  const std::string local = dir.str() + "/t/v1.metadata.json";
  ASSERT_OK(io_->WriteFile(local, FileKind::kMetadata, "local"));
  ASSERT_OK(io_->WriteFile(At("t/v1.metadata.json"), FileKind::kMetadata, "remote"));
  ASSERT_OK_AND_ASSIGN(auto a, io_->ReadFile("file://" + local, FileKind::kMetadata));
  ASSERT_OK_AND_ASSIGN(auto b, io_->ReadFile(At("t/v1.metadata.json"), FileKind::kMetadata));
  EXPECT_EQ(AsString(*a), "local");
  EXPECT_EQ(AsString(*b), "remote");
  ASSERT_OK_AND_ASSIGN(auto listed, io_->ListFiles(dir.str()));
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].path, local);
  EXPECT_EQ(io_->counters().creates(FileKind::kMetadata), 2);
}

// After the last test, before static destructors: shut the AWS SDK down (object_store.h).
class ObjectStoreEnvironment : public ::testing::Environment {
 public:
  void TearDown() override { ASSERT_OK(FinalizeObjectStore()); }
};
const auto* const kObjectStoreEnvironment =
    ::testing::AddGlobalTestEnvironment(new ObjectStoreEnvironment);

}  // namespace
}  // namespace floe
