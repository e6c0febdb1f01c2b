#include "floe/io/file_io.h"

#include <atomic>
#include <fstream>
#include <sstream>
#include <thread>

#include "floe_test.h"
#include "test_values.h"

namespace floe {
namespace {

using floe::testing::AsString;

namespace fs = std::filesystem;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class FileIOTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK_AND_ASSIGN(io_, FileIO::MakeLocal()); }
  std::string Path(const std::string& rel) const { return dir_.str() + "/" + rel; }

  testing::TempDir dir_;
  std::shared_ptr<FileIO> io_;
};

TEST(ToLocalPathTest, AcceptsPathsAndFileUris) {
  ASSERT_OK_AND_ASSIGN(auto a, ToLocalPath("/tmp/x/y.json"));
  EXPECT_EQ(a, "/tmp/x/y.json");
  ASSERT_OK_AND_ASSIGN(auto b, ToLocalPath("file:/tmp/x/y.json"));
  EXPECT_EQ(b, "/tmp/x/y.json");
  ASSERT_OK_AND_ASSIGN(auto c, ToLocalPath("file:///tmp/x/y.json"));
  EXPECT_EQ(c, "/tmp/x/y.json");
  ASSERT_OK_AND_ASSIGN(auto d, ToLocalPath("file://localhost/tmp/x/y.json"));
  EXPECT_EQ(d, "/tmp/x/y.json");
  ASSERT_OK_AND_ASSIGN(auto e, ToLocalPath("/tmp//x/"));
  EXPECT_EQ(e, "/tmp/x");
  // Hadoop writes spaces unescaped; they must survive as-is.
  ASSERT_OK_AND_ASSIGN(auto f, ToLocalPath("file:/tmp/my dir/a%20b"));
  EXPECT_EQ(f, "/tmp/my dir/a%20b");
}

TEST(ToLocalPathTest, RejectsOtherForms) {
  ASSERT_RAISES_WITH_MESSAGE("must be an absolute path", ToLocalPath("relative/x"));
  ASSERT_RAISES_WITH_MESSAGE("remote host 'server'", ToLocalPath("file://server/x"));
  ASSERT_RAISES_WITH_MESSAGE("No FileIO for scheme 's3'", ToLocalPath("s3://bucket/x"));
  ASSERT_RAISES_WITH_MESSAGE("empty", ToLocalPath(""));
}

TEST_F(FileIOTest, WriteThenReadCreatesParents) {
  const std::string loc = Path("a/b/metadata/v1.metadata.json");
  ASSERT_OK(io_->WriteFile(loc, FileKind::kMetadata, "{\"x\":1}"));
  ASSERT_OK_AND_ASSIGN(auto buf, io_->ReadFile(loc, FileKind::kMetadata));
  EXPECT_EQ(AsString(*buf), "{\"x\":1}");
  ASSERT_OK_AND_ASSIGN(auto size, io_->FileSize(loc));
  EXPECT_EQ(size, 7);
  ASSERT_OK_AND_ASSIGN(bool exists, io_->Exists(loc));
  EXPECT_TRUE(exists);
  // No temporary file is left next to it.
  ASSERT_OK_AND_ASSIGN(auto files, io_->ListFiles(Path("a")));
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path, loc);
}

TEST_F(FileIOTest, ListFilesGivesModificationTimes) {
  ASSERT_OK(io_->WriteFile(Path("m/new.bin"), FileKind::kOther, "new"));
  ASSERT_OK(io_->WriteFile(Path("m/deep/old.bin"), FileKind::kOther, "old!"));
  // 2001-09-09 01:46:40.250 UTC.
  const auto old_time = fs::file_time_type::clock::now() +
                        std::chrono::duration_cast<fs::file_time_type::duration>(
                            std::chrono::milliseconds(1000000000250) -
                            std::chrono::system_clock::now().time_since_epoch());
  fs::last_write_time(Path("m/deep/old.bin"), old_time);
  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  ASSERT_OK_AND_ASSIGN(auto files, io_->ListFiles(Path("m")));
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, Path("m/deep/old.bin"));
  EXPECT_EQ(files[0].size, 4);
  EXPECT_NEAR(static_cast<double>(files[0].last_modified_ms), 1000000000250.0, 5.0);
  EXPECT_EQ(files[1].path, Path("m/new.bin"));
  EXPECT_NEAR(static_cast<double>(files[1].last_modified_ms), static_cast<double>(now_ms), 60000.0);
}

TEST_F(FileIOTest, UriFormsReachTheSameFile) {
  const std::string path = Path("t/data.bin");
  ASSERT_OK(io_->WriteFile("file://" + path, FileKind::kData, "abc"));
  ASSERT_OK_AND_ASSIGN(auto b1, io_->ReadFile("file:" + path, FileKind::kData));
  ASSERT_OK_AND_ASSIGN(auto b2, io_->ReadFile(path, FileKind::kData));
  EXPECT_EQ(AsString(*b1), "abc");
  EXPECT_EQ(AsString(*b2), "abc");
  EXPECT_EQ(Slurp(path), "abc");
}

TEST_F(FileIOTest, WriteFileNeverOverwrites) {
  const std::string loc = Path("m/v1.metadata.json");
  ASSERT_OK(io_->WriteFile(loc, FileKind::kMetadata, "first"));
  Status st = io_->WriteFile(loc, FileKind::kMetadata, "second");
  ASSERT_TRUE(IsAlreadyExists(st)) << st.ToString();
  EXPECT_EQ(st.message(), "Cannot write file " + loc + ": file already exists");
  EXPECT_EQ(Slurp(loc), "first");
  // Same file through a URI form is still the same file.
  EXPECT_TRUE(IsAlreadyExists(io_->WriteFile("file:" + loc, FileKind::kMetadata, "x")));
  ASSERT_OK_AND_ASSIGN(auto files, io_->ListFiles(Path("m")));
  EXPECT_EQ(files.size(), 1u);
}

TEST_F(FileIOTest, ConcurrentWritersOfOneNameExactlyOneWins) {
  const std::string loc = Path("race/v2.metadata.json");
  std::atomic<int> wins{0}, exists{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      Status st = io_->WriteFile(loc, FileKind::kMetadata, "writer" + std::to_string(i));
      if (st.ok()) ++wins;
      if (IsAlreadyExists(st)) ++exists;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wins.load(), 1);
  EXPECT_EQ(exists.load(), 7);
  EXPECT_EQ(Slurp(loc).rfind("writer", 0), 0u);
}

TEST_F(FileIOTest, OutputStreamCreatesAndRefusesExisting) {
  const std::string loc = Path("d/x/part-0.parquet");
  ASSERT_OK_AND_ASSIGN(auto out, io_->OpenOutputStream(loc, FileKind::kData));
  ASSERT_OK(out->Write("hello ", 6));
  ASSERT_OK(out->Write(std::make_shared<arrow::Buffer>("world")));
  ASSERT_OK_AND_ASSIGN(auto pos, out->Tell());
  EXPECT_EQ(pos, 11);
  ASSERT_OK(out->Close());
  EXPECT_EQ(Slurp(loc), "hello world");
  Status st = io_->OpenOutputStream(loc, FileKind::kData).status();
  ASSERT_TRUE(IsAlreadyExists(st)) << st.ToString();
  EXPECT_EQ(st.message(), "Cannot create file " + loc + ": file already exists");
}

TEST_F(FileIOTest, OpenInputFileReadsRanges) {
  const std::string loc = Path("f.bin");
  ASSERT_OK(io_->WriteFile(loc, FileKind::kManifest, "0123456789"));
  ASSERT_OK_AND_ASSIGN(auto in, io_->OpenInputFile(loc, FileKind::kManifest));
  ASSERT_OK_AND_ASSIGN(auto size, in->GetSize());
  EXPECT_EQ(size, 10);
  ASSERT_OK_AND_ASSIGN(auto part, in->ReadAt(3, 4));
  EXPECT_EQ(AsString(*part), "3456");
}

TEST_F(FileIOTest, MissingFileErrorsNameTheFile) {
  const std::string loc = Path("nope/y.avro");
  auto r = io_->ReadFile(loc, FileKind::kManifest);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsNotFound(r.status()));
  EXPECT_EQ(r.status().message(), "Cannot read file " + loc + ": file does not exist");
  ASSERT_RAISES_WITH_MESSAGE("Cannot read file " + loc, io_->OpenInputFile(loc, FileKind::kData));
  auto size = io_->FileSize(loc);
  EXPECT_TRUE(IsNotFound(size.status()));
  ASSERT_RAISES_WITH_MESSAGE("Cannot get size of file " + loc, size);
  ASSERT_OK_AND_ASSIGN(bool exists, io_->Exists(loc));
  EXPECT_FALSE(exists);
  ASSERT_RAISES_WITH_MESSAGE("Cannot read file gs://b/k: No FileIO for scheme 'gs'",
                             io_->ReadFile("gs://b/k", FileKind::kData));
}

TEST_F(FileIOTest, DeleteFileToleratesMissing) {
  const std::string loc = Path("del/x.avro");
  ASSERT_OK(io_->WriteFile(loc, FileKind::kManifest, "x"));
  ASSERT_OK(io_->DeleteFile(loc, FileKind::kManifest));
  ASSERT_OK_AND_ASSIGN(bool exists, io_->Exists(loc));
  EXPECT_FALSE(exists);
  ASSERT_OK(io_->DeleteFile(loc, FileKind::kManifest));
  ASSERT_OK(io_->DeleteFile(Path("never/existed"), FileKind::kData));
  EXPECT_EQ(io_->counters().deletes(FileKind::kManifest), 1);
}

TEST_F(FileIOTest, ListAndDeleteDirectoryRecursively) {
  const std::string table = Path("wh/db/t");
  ASSERT_OK(io_->WriteFile(table + "/metadata/v1.metadata.json", FileKind::kMetadata, "1"));
  ASSERT_OK(io_->WriteFile(table + "/metadata/snap-1.avro", FileKind::kManifestList, "22"));
  ASSERT_OK(io_->WriteFile(table + "/data/a=1/f.parquet", FileKind::kData, "333"));
  ASSERT_OK(io_->WriteFile(Path("wh/db/other/keep"), FileKind::kOther, "k"));

  ASSERT_OK_AND_ASSIGN(auto files, io_->ListFiles("file://" + table));
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].path, table + "/data/a=1/f.parquet");
  EXPECT_EQ(files[0].size, 3);
  EXPECT_EQ(files[1].path, table + "/metadata/snap-1.avro");
  EXPECT_EQ(files[2].path, table + "/metadata/v1.metadata.json");

  ASSERT_OK(io_->DeleteDirectory(table));
  EXPECT_FALSE(fs::exists(table));
  EXPECT_TRUE(fs::exists(Path("wh/db/other/keep")));
  ASSERT_OK(io_->DeleteDirectory(table));  // already gone
  ASSERT_OK_AND_ASSIGN(auto none, io_->ListFiles(table));
  EXPECT_TRUE(none.empty());
}

TEST_F(FileIOTest, CountersPerKind) {
  ASSERT_OK(io_->WriteFile(Path("m.json"), FileKind::kMetadata, "m"));
  ASSERT_OK(io_->WriteFile(Path("l.avro"), FileKind::kManifestList, "l"));
  ASSERT_OK_AND_ASSIGN(auto out, io_->OpenOutputStream(Path("d.parquet"), FileKind::kData));
  ASSERT_OK(out->Close());
  ASSERT_OK(io_->ReadFile(Path("m.json"), FileKind::kMetadata));
  ASSERT_OK(io_->ReadFile(Path("m.json"), FileKind::kMetadata));
  ASSERT_OK(io_->OpenInputFile(Path("d.parquet"), FileKind::kData));
  EXPECT_FALSE(io_->ReadFile(Path("missing"), FileKind::kManifest).ok());

  FileIOCounters c = io_->counters();
  EXPECT_EQ(c.creates(FileKind::kMetadata), 1);
  EXPECT_EQ(c.creates(FileKind::kManifestList), 1);
  EXPECT_EQ(c.creates(FileKind::kData), 1);
  EXPECT_EQ(c.creates(FileKind::kManifest), 0);
  EXPECT_EQ(c.reads(FileKind::kMetadata), 2);
  EXPECT_EQ(c.reads(FileKind::kData), 1);
  EXPECT_EQ(c.reads(FileKind::kManifest), 0);  // failed opens are not counted
  EXPECT_EQ(c.total_reads(), 3);
  EXPECT_EQ(c.total_creates(), 3);

  io_->ResetCounters();
  EXPECT_EQ(io_->counters().total_reads(), 0);
  EXPECT_EQ(io_->counters().total_creates(), 0);
}

TEST_F(FileIOTest, CountersAreThreadSafe) {
  ASSERT_OK(io_->WriteFile(Path("shared.avro"), FileKind::kManifest, "x"));
  io_->ResetCounters();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        EXPECT_TRUE(io_->ReadFile(Path("shared.avro"), FileKind::kManifest).ok());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(io_->counters().reads(FileKind::kManifest), 200);
}

TEST_F(FileIOTest, FaultInjectorFailsTheNthCreate) {
  std::atomic<int> creates{0};
  io_->SetFaultInjector([&](FileOp op, const std::string&, FileKind) -> Status {
    if (op == FileOp::kWriteFile || op == FileOp::kCreate) {
      if (++creates == 3) return Status::IOError("injected crash");
    }
    return Status::OK();
  });
  ASSERT_OK(io_->WriteFile(Path("1"), FileKind::kManifest, "1"));
  ASSERT_OK(io_->WriteFile(Path("2"), FileKind::kManifestList, "2"));
  Status st = io_->WriteFile(Path("3"), FileKind::kMetadata, "3");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "Cannot write file " + Path("3") + ": injected crash");
  EXPECT_FALSE(fs::exists(Path("3")));
  ASSERT_OK(io_->WriteFile(Path("4"), FileKind::kMetadata, "4"));
  EXPECT_EQ(io_->counters().creates(FileKind::kMetadata), 1);

  io_->SetFaultInjector(nullptr);
  ASSERT_OK(io_->WriteFile(Path("3"), FileKind::kMetadata, "3"));
}

TEST_F(FileIOTest, FaultInjectorSeesOpLocationAndKind) {
  std::vector<std::string> seen;
  std::mutex mu;
  io_->SetFaultInjector([&](FileOp op, const std::string& loc, FileKind kind) -> Status {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back(
        StrCat(FileOpName(op), " ", FileKindName(kind), " ", loc.substr(loc.rfind('/') + 1)));
    if (op == FileOp::kDelete) return Status::IOError("no deletes today");
    return Status::OK();
  });
  ASSERT_OK(io_->WriteFile(Path("a.json"), FileKind::kMetadata, "a"));
  ASSERT_OK(io_->ReadFile(Path("a.json"), FileKind::kMetadata));
  ASSERT_RAISES_WITH_MESSAGE("Cannot delete file " + Path("a.json") + ": no deletes today",
                             io_->DeleteFile(Path("a.json"), FileKind::kMetadata));
  EXPECT_TRUE(fs::exists(Path("a.json")));
  ASSERT_OK(io_->DeleteDirectory(Path("gone")));
  EXPECT_THAT(seen,
              ::testing::ElementsAre("write-file metadata a.json", "read metadata a.json",
                                     "delete metadata a.json", "delete-directory other gone"));
}

TEST_F(FileIOTest, FaultInjectorFailsMidStream) {
  int writes = 0;
  io_->SetFaultInjector([&](FileOp op, const std::string&, FileKind) -> Status {
    if (op == FileOp::kStreamWrite && ++writes == 2) return Status::IOError("disk full");
    return Status::OK();
  });
  const std::string loc = Path("partial.parquet");
  ASSERT_OK_AND_ASSIGN(auto out, io_->OpenOutputStream(loc, FileKind::kData));
  ASSERT_OK(out->Write("abc", 3));
  ASSERT_RAISES_WITH_MESSAGE("Cannot write file " + loc + ": disk full", out->Write("def", 3));
  ASSERT_OK(out->Close());
  EXPECT_EQ(Slurp(loc), "abc");
}

}  // namespace
}  // namespace floe
