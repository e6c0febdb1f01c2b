#include "floe/manifest/puffin_file.h"

#include "floe/manifest/deletion_vector.h"
#include "floe_test.h"

namespace floe::manifest {
namespace {

using ::testing::HasSubstr;

std::string LittleEndian32(uint32_t v) {
  std::string out;
  for (int i = 0; i < 4; ++i) out += static_cast<char>(v >> (8 * i));
  return out;
}

// A Puffin file by hand: the magic, ten bytes of blobs, then a footer around `payload`.
std::string PuffinBytes(const std::string& payload, uint32_t flags = 0) {
  return "PFA1" + std::string("0123456789") + "PFA1" + payload +
         LittleEndian32(static_cast<uint32_t>(payload.size())) + LittleEndian32(flags) + "PFA1";
}

class PuffinFileTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK_AND_ASSIGN(io_, FileIO::MakeLocal()); }

  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = dir_.str() + "/" + name;
    floe::testing::WriteFileBytes(path, bytes);
    return path;
  }

  floe::testing::TempDir dir_;
  std::shared_ptr<FileIO> io_;
};

TEST_F(PuffinFileTest, WritesDeletionVectorsInTheShapeJavaWrites) {
  const std::string path = dir_.str() + "/data/dv.puffin";
  const std::string dv = EncodeDeletionVector({1, 2, 3});
  ASSERT_OK_AND_ASSIGN(auto writer, PuffinWriter::Make(*io_, path));
  ASSERT_OK_AND_ASSIGN(
      auto placement,
      writer->Add(DeletionVectorBlobMetadata("file:/w/db/t/data/a.parquet", 3), dv));
  EXPECT_EQ(placement.offset, 4);
  EXPECT_EQ(placement.length, static_cast<int64_t>(dv.size()));
  ASSERT_OK_AND_ASSIGN(auto size, writer->Finish());

  const std::string payload =
      R"({"blobs":[{"type":"deletion-vector-v1","fields":[2147483645],"snapshot-id":-1,)"
      R"("sequence-number":-1,"offset":4,"length":)" +
      std::to_string(dv.size()) +
      R"(,"properties":{"cardinality":"3","referenced-data-file":"file:/w/db/t/data/a.parquet"}}],)"
      R"("properties":{"created-by":"floe"}})";
  const std::string footer = "PFA1" + payload +
                             LittleEndian32(static_cast<uint32_t>(payload.size())) +
                             LittleEndian32(0) + "PFA1";
  EXPECT_EQ(floe::testing::ReadFileBytes(path), "PFA1" + dv + footer);
  EXPECT_EQ(size.file_size, static_cast<int64_t>(4 + dv.size() + footer.size()));
  EXPECT_EQ(size.footer_size, static_cast<int64_t>(footer.size()));
}

TEST_F(PuffinFileTest, FooterRoundTrips) {
  const std::string path = dir_.str() + "/stats.puffin";
  ASSERT_OK_AND_ASSIGN(
      auto writer,
      PuffinWriter::Make(*io_, path, {{"created-by", "test 1.0"}, {"note", "é \"q\""}}));
  PuffinBlobMetadata sketch;
  sketch.type = "apache-datasketches-theta-v1";
  sketch.fields = {1, 7, -3};
  sketch.snapshot_id = 3051729675574597004;
  sketch.sequence_number = 12;
  sketch.compression_codec = "zstd";
  sketch.properties = {{"ndv", "42"}};
  PuffinBlobMetadata plain;
  plain.type = "x";
  ASSERT_OK(writer->Add(sketch, "sketch bytes").status());
  ASSERT_OK(writer->Add(plain, "").status());
  ASSERT_OK(
      writer->Add(DeletionVectorBlobMetadata("d.parquet", 1), EncodeDeletionVector({0})).status());
  ASSERT_OK_AND_ASSIGN(auto size, writer->Finish());
  EXPECT_EQ(size.file_size, static_cast<int64_t>(floe::testing::ReadFileBytes(path).size()));

  ASSERT_OK_AND_ASSIGN(PuffinFooter footer, ReadPuffinFooter(*io_, path));
  EXPECT_EQ(footer.properties,
            (std::map<std::string, std::string>{{"created-by", "test 1.0"}, {"note", "é \"q\""}}));
  ASSERT_EQ(footer.blobs.size(), 3u);
  sketch.offset = 4;
  sketch.length = 12;
  plain.offset = 16;
  plain.length = 0;
  for (const auto& [got, want] :
       {std::pair{footer.blobs[0], sketch}, std::pair{footer.blobs[1], plain}}) {
    EXPECT_EQ(got.type, want.type);
    EXPECT_EQ(got.fields, want.fields);
    EXPECT_EQ(got.snapshot_id, want.snapshot_id);
    EXPECT_EQ(got.sequence_number, want.sequence_number);
    EXPECT_EQ(got.offset, want.offset);
    EXPECT_EQ(got.length, want.length);
    EXPECT_EQ(got.compression_codec, want.compression_codec);
    EXPECT_EQ(got.properties, want.properties);
  }
  const PuffinBlobMetadata& dv = footer.blobs[2];
  ASSERT_OK_AND_ASSIGN(auto positions, ReadDeletionVector(*io_, path, dv.offset, dv.length));
  EXPECT_EQ(positions, std::vector<int64_t>{0});
}

TEST_F(PuffinFileTest, AFileWithoutBlobs) {
  const std::string path = dir_.str() + "/empty.puffin";
  ASSERT_OK_AND_ASSIGN(auto writer, PuffinWriter::Make(*io_, path));
  ASSERT_OK_AND_ASSIGN(auto size, writer->Finish());
  const std::string payload = R"({"blobs":[],"properties":{"created-by":"floe"}})";
  EXPECT_EQ(size.footer_size, static_cast<int64_t>(payload.size() + 16));
  EXPECT_EQ(size.file_size, size.footer_size + 4);
  ASSERT_OK_AND_ASSIGN(PuffinFooter footer, ReadPuffinFooter(*io_, path));
  EXPECT_TRUE(footer.blobs.empty());
}

TEST_F(PuffinFileTest, AWriterLeavesNoFileUnlessFinished) {
  const std::string path = dir_.str() + "/dropped.puffin";
  {
    ASSERT_OK_AND_ASSIGN(auto writer, PuffinWriter::Make(*io_, path));
    ASSERT_OK(writer->Add(DeletionVectorBlobMetadata("a", 1), EncodeDeletionVector({1})).status());
  }
  ASSERT_OK_AND_ASSIGN(bool exists, io_->Exists(path));
  EXPECT_FALSE(exists);

  ASSERT_OK_AND_ASSIGN(auto writer, PuffinWriter::Make(*io_, path));
  ASSERT_OK(writer->Finish().status());
  ASSERT_RAISES_WITH_MESSAGE("is already finished",
                             writer->Add(PuffinBlobMetadata{}, "x").status());
  ASSERT_RAISES_WITH_MESSAGE("is already finished", writer->Finish().status());
  auto again = PuffinWriter::Make(*io_, path);
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(IsAlreadyExists(again.status()));
}

TEST_F(PuffinFileTest, AWriteThatFailedEndsTheWriter) {
  const std::string path = dir_.str() + "/failing.puffin";
  // The second write (the first blob, after the magic) fails.
  auto writes = std::make_shared<int>(0);
  io_->SetFaultInjector([writes](FileOp op, const std::string&, FileKind) {
    return op == FileOp::kStreamWrite && ++*writes == 2 ? Status::IOError("disk full")
                                                        : Status::OK();
  });
  ASSERT_OK_AND_ASSIGN(auto writer, PuffinWriter::Make(*io_, path));
  ASSERT_RAISES_WITH_MESSAGE("disk full", writer->Add(PuffinBlobMetadata{}, "x").status());
  ASSERT_RAISES_WITH_MESSAGE("failed to write earlier",
                             writer->Add(PuffinBlobMetadata{}, "y").status());
  ASSERT_RAISES_WITH_MESSAGE("failed to write earlier", writer->Finish().status());
  writer.reset();
  ASSERT_OK_AND_ASSIGN(bool exists, io_->Exists(path));
  EXPECT_FALSE(exists);
}

TEST_F(PuffinFileTest, DamagedFilesAreErrorsNamingThem) {
  const std::string blob = R"({"type":"t","fields":[1],"snapshot-id":-1,"sequence-number":-1,)";
  auto footer = [&](const std::string& rest) {
    return PuffinBytes(R"({"blobs":[)" + blob + rest + "}]}");
  };
  struct Case {
    std::string bytes;
    std::string message;
  };
  const std::string good = footer(R"("offset":4,"length":10)");
  std::string bad_head = good;
  bad_head[0] = 'X';
  std::string bad_tail = good;
  bad_tail.back() = 'X';
  std::string bad_footer_magic = good;
  bad_footer_magic[14] = 'X';
  std::string long_payload = good;
  long_payload[long_payload.size() - 12] += 1;
  std::string huge_payload = good;
  huge_payload.replace(huge_payload.size() - 12, 4, LittleEndian32(0x7FFFFFFF));
  std::string negative_payload = good;
  negative_payload.replace(negative_payload.size() - 12, 4, LittleEndian32(0xFFFFFFFF));
  const std::vector<Case> cases = {
      {"", "it has 0 bytes, fewer than the 20 of a Puffin file without blobs"},
      {"PFA1PFA1{}", "it has 10 bytes"},
      {bad_head, "it does not start with the magic PFA1"},
      {bad_tail, "it does not end with the magic PFA1"},
      {bad_footer_magic, "its footer does not start with the magic PFA1"},
      {long_payload, "its footer does not start with the magic PFA1"},
      {huge_payload, "its footer payload size 2147483647 does not fit in its"},
      {negative_payload, "its footer payload size -1 does not fit"},
      {PuffinBytes(R"({"blobs":[]})", 2), "its footer sets flags floe does not know (2)"},
      {PuffinBytes(R"({"blobs":[]})", 0x100), "its footer sets flags floe does not know (256)"},
      {PuffinBytes("{", 0), "its footer is not JSON: Invalid JSON at byte offset 1"},
      {PuffinBytes("[]"), "its footer is not a JSON object"},
      {PuffinBytes("{}"), "its footer has no \"blobs\""},
      {PuffinBytes(R"({"blobs":{}})"), "its footer's \"blobs\" is not a list"},
      {PuffinBytes(R"({"blobs":[1]})"), "blobs[0] is not a JSON object"},
      {PuffinBytes(R"({"blobs":[{}]})"), "blobs[0] has no \"type\""},
      {PuffinBytes(R"({"blobs":[{"type":1}]})"), "blobs[0] \"type\" is not a string"},
      {PuffinBytes(R"({"blobs":[{"type":"t"}]})"), "blobs[0] has no \"fields\""},
      {PuffinBytes(R"({"blobs":[{"type":"t","fields":1}]})"), "blobs[0] \"fields\" is not a list"},
      {PuffinBytes(R"({"blobs":[{"type":"t","fields":[2147483648]}]})"),
       "blobs[0] \"fields\" holds a value that is not an int"},
      {PuffinBytes(R"({"blobs":[{"type":"t","fields":[1.5]}]})"), "not an int"},
      {PuffinBytes(R"({"blobs":[{"type":"t","fields":[]}]})"), "blobs[0] has no \"snapshot-id\""},
      {PuffinBytes(R"({"blobs":[{"type":"t","fields":[],"snapshot-id":"1"}]})"),
       "blobs[0] \"snapshot-id\" is not a long"},
      {PuffinBytes(R"({"blobs":[{"type":"t","fields":[],"snapshot-id":1}]})"),
       "blobs[0] has no \"sequence-number\""},
      {footer(R"("length":10)"), "blobs[0] has no \"offset\""},
      {footer(R"("offset":4)"), "blobs[0] has no \"length\""},
      {footer(R"("offset":4,"length":1e3)"), "blobs[0] \"length\" is not a long"},
      {footer(R"("offset":4,"length":10,"compression-codec":3)"),
       "blobs[0] \"compression-codec\" is not a string"},
      {footer(R"("offset":4,"length":10,"properties":[])"),
       "blobs[0] \"properties\" is not a JSON object"},
      {footer(R"("offset":4,"length":10,"properties":{"a":1})"),
       "blobs[0] \"properties\" value of \"a\" is not a string"},
      {footer(R"("offset":4,"length":10,"properties":{"a":"1","a":"2"})"),
       "blobs[0] \"properties\" names \"a\" twice"},
      {PuffinBytes(R"({"blobs":[],"properties":{"created-by":null}})"),
       "its footer's \"properties\" value of \"created-by\" is not a string"},
      {footer(R"("offset":0,"length":4)"),
       "blobs[0] has offset 0 and length 4, outside the file's blobs (bytes 4 to 14)"},
      {footer(R"("offset":4,"length":11)"), "blobs[0] has offset 4 and length 11"},
      {footer(R"("offset":15,"length":0)"), "blobs[0] has offset 15 and length 0"},
      {footer(R"("offset":5,"length":-1)"), "blobs[0] has offset 5 and length -1"},
      {footer(R"("offset":9223372036854775807,"length":9223372036854775807)"),
       "outside the file's blobs"},
      {footer(R"("offset":4,"length":9223372036854775807)"), "outside the file's blobs"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string path = Write("case" + std::to_string(i) + ".puffin", cases[i].bytes);
    auto read = ReadPuffinFooter(*io_, path);
    ASSERT_FALSE(read.ok()) << cases[i].message;
    EXPECT_TRUE(read.status().IsIOError()) << read.status().ToString();
    EXPECT_THAT(read.status().message(), HasSubstr("Invalid Puffin file " + path + ": "));
    EXPECT_THAT(read.status().message(), HasSubstr(cases[i].message));
  }
  // The good one, and the smallest, read.
  ASSERT_OK(ReadPuffinFooter(*io_, Write("good.puffin", good)).status());
  ASSERT_OK(
      ReadPuffinFooter(*io_, Write("smallest.puffin", PuffinBytes(R"({"blobs":[]})"))).status());
}

TEST_F(PuffinFileTest, ACompressedFooterIsRefused) {
  const std::string path = Write("lz4.puffin", PuffinBytes("\x04\x22\x4d\x18", 1));
  ASSERT_RAISES_WITH_MESSAGE("Cannot read Puffin file " + path +
                                 ": its footer is LZ4-compressed, which floe does not read",
                             ReadPuffinFooter(*io_, path));
}

TEST_F(PuffinFileTest, EveryTruncationOfJavasFileIsAnError) {
  const std::string bytes = floe::testing::ReadFileBytes(std::string(FLOE_TEST_DATA_DIR) +
                                                         "/manifest/spark_deletion_vectors.puffin");
  ASSERT_GT(bytes.size(), 700u);
  const std::string path = dir_.str() + "/cut.puffin";
  for (size_t n = 0; n < bytes.size(); ++n) {
    floe::testing::WriteFileBytes(path, bytes.substr(0, n));
    auto read = ReadPuffinFooter(*io_, path);
    ASSERT_FALSE(read.ok()) << n;
    EXPECT_THAT(read.status().message(), HasSubstr("Invalid Puffin file " + path)) << n;
  }
  floe::testing::WriteFileBytes(path, bytes);
  ASSERT_OK(ReadPuffinFooter(*io_, path).status());
}

TEST_F(PuffinFileTest, AMissingFileIsNotFound) {
  auto read = ReadPuffinFooter(*io_, dir_.str() + "/none.puffin");
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(IsNotFound(read.status()));
}

}  // namespace
}  // namespace floe::manifest
