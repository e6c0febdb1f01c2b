#include "floe/manifest/deletion_vector.h"

#include <libdeflate.h>

#include <algorithm>
#include <random>

#include "floe/manifest/puffin_file.h"
#include "floe_test.h"

namespace floe::manifest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const char* const kFile = "s3://bucket/db/t/data/dv.puffin";

// Byte helpers for blobs written by hand.
std::string LittleEndian(uint64_t v, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out += static_cast<char>(v >> (8 * i));
  return out;
}
std::string BigEndian32(uint32_t v) {
  std::string out;
  for (int i = 3; i >= 0; --i) out += static_cast<char>(v >> (8 * i));
  return out;
}

// A blob around `bitmaps` (the 32-bit bitmaps with their keys) with the right length and CRC,
// so that only what is wrong inside the bitmap is wrong.
std::string Blob(uint64_t count, const std::string& bitmaps) {
  std::string body = "\xD1\xD3\x39\x64" + LittleEndian(count, 8) + bitmaps;
  return BigEndian32(static_cast<uint32_t>(body.size())) + body +
         BigEndian32(static_cast<uint32_t>(libdeflate_crc32(0, body.data(), body.size())));
}

// A 32-bit bitmap in the portable format without run containers: array containers.
std::string ArrayBitmap(const std::vector<std::pair<uint16_t, std::vector<uint16_t>>>& containers) {
  std::string out = LittleEndian(12346, 4) + LittleEndian(containers.size(), 4);
  uint32_t offset = 8 + 8 * static_cast<uint32_t>(containers.size());
  std::string offsets;
  std::string values;
  for (const auto& [key, array] : containers) {
    out += LittleEndian(key, 2) + LittleEndian(array.size() - 1, 2);
    offsets += LittleEndian(offset, 4);
    for (uint16_t v : array) values += LittleEndian(v, 2);
    offset += 2 * static_cast<uint32_t>(array.size());
  }
  return out + offsets + values;
}

// One run container (fewer than four containers: no offsets), its header's cardinality given.
std::string RunBitmap(uint16_t key, uint32_t cardinality,
                      const std::vector<std::pair<uint16_t, uint16_t>>& runs) {
  std::string out = LittleEndian(12347, 4) + "\x01" + LittleEndian(key, 2) +
                    LittleEndian(cardinality - 1, 2) + LittleEndian(runs.size(), 2);
  for (const auto& [start, length_minus_one] : runs) {
    out += LittleEndian(start, 2) + LittleEndian(length_minus_one, 2);
  }
  return out;
}

// One bitset container (its header's cardinality above 4096) with the given words.
std::string BitsetBitmap(uint32_t cardinality, const std::vector<uint64_t>& words) {
  std::string out = LittleEndian(12346, 4) + LittleEndian(1, 4) + LittleEndian(0, 2) +
                    LittleEndian(cardinality - 1, 2) + LittleEndian(16, 4);
  for (size_t i = 0; i < 1024; ++i) out += LittleEndian(i < words.size() ? words[i] : 0, 8);
  return out;
}

std::vector<int64_t> RoundTrip(const std::vector<int64_t>& positions) {
  auto decoded = DecodeDeletionVector(EncodeDeletionVector(positions), kFile);
  EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
  return decoded.ok() ? *decoded : std::vector<int64_t>{};
}

TEST(DeletionVectorTest, EmptyVectorRoundTrips) {
  std::string blob = EncodeDeletionVector({});
  EXPECT_EQ(blob.size(), 20u);  // length, magic, a count of zero, CRC
  ASSERT_OK_AND_ASSIGN(auto positions, DecodeDeletionVector(blob, kFile));
  EXPECT_TRUE(positions.empty());
}

TEST(DeletionVectorTest, PositionsAcrossSeveralKeysRoundTrip) {
  const std::vector<int64_t> positions = {0,
                                          5,
                                          70000,
                                          (int64_t{1} << 32) - 1,
                                          (int64_t{1} << 32) + 3,
                                          (int64_t{7} << 32) + 65536,
                                          std::numeric_limits<int64_t>::max()};
  EXPECT_EQ(RoundTrip(positions), positions);
}

TEST(DeletionVectorTest, DenseRangesRoundTripAsRunAndBitsetContainers) {
  std::vector<int64_t> run(200000);
  for (int64_t i = 0; i < 200000; ++i) run[i] = 1000 + i;
  const std::string runs = EncodeDeletionVector(run);
  EXPECT_LT(runs.size(), 100u);  // four run containers of one run each
  EXPECT_EQ(RoundTrip(run), run);

  std::vector<int64_t> every_other;
  for (int64_t i = 0; i < 140000; i += 2) every_other.push_back((int64_t{3} << 32) + i);
  const std::string bitsets = EncodeDeletionVector(every_other);
  EXPECT_GT(bitsets.size(), 2 * 8192u);  // 8 KiB bitset containers
  EXPECT_EQ(RoundTrip(every_other), every_other);
}

std::string Hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) out += std::string{digits[c >> 4], digits[c & 15]};
  return out;
}

// Iceberg Java's bytes for these positions (from a table Spark wrote): runs replace an array
// only when strictly smaller, so three positions in a row stay an array and four become a run.
TEST(DeletionVectorTest, ContainersAreChosenAsJavaChoosesThem) {
  EXPECT_EQ(Hex(EncodeDeletionVector({0, 1, 2})),
            "00000026d1d339640100000000000000000000003a300000010000000000020010000000000001000200748ad0d0");
  EXPECT_EQ(Hex(EncodeDeletionVector({0, 1, 2, 3})),
            "0000001fd1d339640100000000000000000000003b30000001000003000100000003003d2a1e35");
  EXPECT_EQ(Hex(EncodeDeletionVector({1})),
            "00000022d1d339640100000000000000000000003a3000000100000000000000100000000100eebd85f4");
  EXPECT_EQ(Hex(EncodeDeletionVector({0, 3})),
            "00000024d1d339640100000000000000000000003a30000001000000000001001000000000000300d088f0cc");
}

TEST(DeletionVectorTest, RandomPositionsRoundTrip) {
  std::mt19937_64 random(20260101);
  std::uniform_int_distribution<int64_t> dist(0, int64_t{1} << 36);
  std::vector<int64_t> positions(100000);
  for (auto& p : positions) p = dist(random);
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  EXPECT_EQ(RoundTrip(positions), positions);
}

TEST(DeletionVectorTest, EncoderSortsDropsRepeatsAndNegativePositions) {
  EXPECT_THAT(RoundTrip({9, -4, 3, 9, (int64_t{1} << 32), 3, 0}),
              ElementsAre(0, 3, 9, int64_t{1} << 32));
}

TEST(DeletionVectorTest, EveryTruncationIsAnError) {
  const std::string blob = EncodeDeletionVector({1, 2, 3, 70000, (int64_t{2} << 32) + 9});
  for (size_t n = 0; n < blob.size(); ++n) {
    auto decoded = DecodeDeletionVector(std::string_view(blob).substr(0, n), kFile);
    ASSERT_FALSE(decoded.ok()) << n;
    EXPECT_TRUE(decoded.status().IsIOError());
    EXPECT_THAT(decoded.status().message(),
                HasSubstr(std::string("Invalid deletion vector in ") + kFile));
  }
}

TEST(DeletionVectorTest, ABlobWithBytesAddedFailsOnItsLength) {
  std::string blob = EncodeDeletionVector({1, 2, 3});
  ASSERT_RAISES_WITH_MESSAGE("its length field says " + std::to_string(blob.size() - 8) +
                                 " bytes of magic and bitmap, but the blob has " +
                                 std::to_string(blob.size() - 7),
                             DecodeDeletionVector(blob + '\0', kFile));
}

TEST(DeletionVectorTest, EveryFlippedByteIsAnError) {
  const std::string blob = EncodeDeletionVector({1, 2, 3, 70000, (int64_t{2} << 32) + 9});
  for (size_t i = 0; i < blob.size(); ++i) {
    std::string damaged = blob;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x10);
    auto decoded = DecodeDeletionVector(damaged, kFile);
    ASSERT_FALSE(decoded.ok()) << i;
    const std::string message = decoded.status().message();
    if (i < 4) {
      EXPECT_THAT(message, HasSubstr("its length field says")) << i;
    } else if (i < 8) {
      EXPECT_THAT(message, HasSubstr("wrong magic bytes")) << i;
    } else {
      EXPECT_THAT(message, HasSubstr("CRC-32 mismatch")) << i;
    }
  }
}

TEST(DeletionVectorTest, WrongMagicIsNamed) {
  std::string blob = EncodeDeletionVector({4});
  blob[4] = 'P';
  ASSERT_RAISES_WITH_MESSAGE(std::string("Invalid deletion vector in ") + kFile +
                                 ": wrong magic bytes 50d33964, expected d1d33964",
                             DecodeDeletionVector(blob, kFile));
}

TEST(DeletionVectorTest, CrcMismatchSaysBothValues) {
  std::string blob = EncodeDeletionVector({4});
  blob.back() = static_cast<char>(blob.back() ^ 1);
  ASSERT_RAISES_WITH_MESSAGE("CRC-32 mismatch: the blob says 0x",
                             DecodeDeletionVector(blob, kFile));
}

TEST(DeletionVectorTest, HandWrittenBlobsDecode) {
  ASSERT_OK_AND_ASSIGN(
      auto positions,
      DecodeDeletionVector(Blob(2, LittleEndian(0, 4) + ArrayBitmap({{0, {2, 5}}, {1, {0}}}) +
                                       LittleEndian(4, 4) + RunBitmap(0, 3, {{7, 2}})),
                           kFile));
  EXPECT_THAT(positions, ElementsAre(2, 5, 65536, (int64_t{4} << 32) + 7, (int64_t{4} << 32) + 8,
                                     (int64_t{4} << 32) + 9));
  // Java writes an empty bitmap for every key below the largest.
  ASSERT_OK_AND_ASSIGN(
      positions, DecodeDeletionVector(Blob(2, LittleEndian(0, 4) + ArrayBitmap({}) +
                                                  LittleEndian(1, 4) + ArrayBitmap({{0, {1}}})),
                                      kFile));
  EXPECT_THAT(positions, ElementsAre((int64_t{1} << 32) + 1));
}

// Bitmaps with a correct length and CRC whose contents are wrong.
TEST(DeletionVectorTest, DamagedBitmapsAreErrors) {
  const std::string one = ArrayBitmap({{0, {1}}});
  struct Case {
    std::string blob;
    std::string message;
  };
  const std::vector<Case> cases = {
      {Blob(2, LittleEndian(1, 4) + one + LittleEndian(1, 4) + one),
       "bitmap keys are not in ascending order (1 after 1)"},
      {Blob(2, LittleEndian(3, 4) + one + LittleEndian(1, 4) + one),
       "bitmap keys are not in ascending order (1 after 3)"},
      {Blob(1, LittleEndian(0x80000000u, 4) + one),
       "bitmap key 2147483648 makes its positions negative"},
      {Blob(1, LittleEndian(0, 4) + one + "x"), "1 bytes follow the last bitmap"},
      {Blob(2, LittleEndian(0, 4) + one), "it says it holds 2 bitmaps, more than its 22 bytes can"},
      {Blob(3, LittleEndian(0, 4) + one + LittleEndian(1, 4) + one),
       "cut short before bitmap 3 of 3"},
      {Blob(1, LittleEndian(0, 4) + ArrayBitmap({{0, {5, 3}}})),
       "its positions are not strictly ascending"},
      {Blob(1, LittleEndian(0, 4) + ArrayBitmap({{0, {5, 5}}})),
       "its positions are not strictly ascending"},
      {Blob(1, LittleEndian(0, 4) + ArrayBitmap({{2, {1}}, {1, {1}}})),
       "its containers are not in ascending order"},
      {Blob(1, LittleEndian(0, 4) + RunBitmap(0, 6, {{65534, 5}})),
       "a container holds a value outside its range"},
      {Blob(1, LittleEndian(0, 4) + RunBitmap(0, 3, {{10, 0}, {5, 1}})),
       "its positions are not strictly ascending"},
      {Blob(1, LittleEndian(0, 4) + RunBitmap(0, 5, {{10, 1}})),
       "its containers hold fewer values than its header lists"},
      {Blob(1, LittleEndian(0, 4) + RunBitmap(0, 1, {{10, 1}})),
       "its containers hold more values than its header lists"},
      {Blob(1, LittleEndian(0, 4) + RunBitmap(0, 1, {})),
       "its containers hold fewer values than its header lists"},
      {Blob(1, LittleEndian(0, 4) + BitsetBitmap(5000, std::vector<uint64_t>(1024, 0))),
       "its containers hold fewer values than its header lists"},
      {Blob(1, LittleEndian(0, 4) + BitsetBitmap(5000, std::vector<uint64_t>(1024, ~uint64_t{0}))),
       "its containers hold more values than its header lists"},
      {Blob(1, LittleEndian(0, 4) + LittleEndian(999, 4) + LittleEndian(0, 4)),
       "it starts with 0x000003e7, not a Roaring bitmap's cookie"},
      {Blob(1, LittleEndian(0, 4) + LittleEndian(12346, 4) + LittleEndian(70000, 4)),
       "its header lists 70000 containers, more than 65536"},
      {Blob(1, LittleEndian(0, 4) + LittleEndian(12346, 4) + LittleEndian(0xFFFFFFFFu, 4)),
       "its header lists 4294967295 containers"},
      {Blob(1, LittleEndian(0, 4) + LittleEndian(12346, 4) + LittleEndian(2, 4)),
       "its header is cut short"},
      {Blob(1, LittleEndian(0, 4) + one.substr(0, one.size() - 1)),
       "is not a valid Roaring bitmap"},
  };
  for (const Case& c : cases) {
    auto decoded = DecodeDeletionVector(c.blob, kFile);
    ASSERT_FALSE(decoded.ok()) << c.message;
    EXPECT_TRUE(decoded.status().IsIOError());
    EXPECT_THAT(decoded.status().message(), HasSubstr(c.message));
    EXPECT_THAT(decoded.status().message(), HasSubstr(kFile));
  }
}

TEST(DeletionVectorTest, TooManyPositionsAreRefusedBeforeDecoding) {
  // One 32-bit bitmap of 32769 full run containers: 2^31 + 65536 positions in 459 KiB.
  const uint32_t n = 32769;
  std::string bitmap = LittleEndian(12347 | (n - 1) << 16, 4) + std::string((n + 7) / 8, '\xFF');
  for (uint32_t k = 0; k < n; ++k) bitmap += LittleEndian(k, 2) + LittleEndian(65535, 2);
  for (uint32_t k = 0; k < n; ++k) bitmap += LittleEndian(0, 4);  // offsets, not read
  for (uint32_t k = 0; k < n; ++k)
    bitmap += LittleEndian(1, 2) + LittleEndian(0, 2) + LittleEndian(65535, 2);
  ASSERT_RAISES_WITH_MESSAGE(std::string("Deletion vector in ") + kFile +
                                 " holds more positions than floe reads (2147483648)",
                             DecodeDeletionVector(Blob(1, LittleEndian(0, 4) + bitmap), kFile));
}

class DeletionVectorFileTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK_AND_ASSIGN(io_, FileIO::MakeLocal()); }

  floe::testing::TempDir dir_;
  std::shared_ptr<FileIO> io_;
};

TEST_F(DeletionVectorFileTest, ReadsEachVectorOfAPuffinFileByItsRange) {
  const std::string path = dir_.str() + "/dvs.puffin";
  const std::vector<int64_t> first = {0, 3, 4, 5, 99};
  const std::vector<int64_t> second = {7, (int64_t{1} << 32) + 1};
  ASSERT_OK_AND_ASSIGN(auto writer, PuffinWriter::Make(*io_, path));
  ASSERT_OK_AND_ASSIGN(
      auto a, writer->Add(DeletionVectorBlobMetadata("a.parquet", 5), EncodeDeletionVector(first)));
  ASSERT_OK_AND_ASSIGN(auto b, writer->Add(DeletionVectorBlobMetadata("b.parquet", 2),
                                           EncodeDeletionVector(second)));
  ASSERT_OK_AND_ASSIGN(auto size, writer->Finish());
  io_->ResetCounters();
  ASSERT_OK_AND_ASSIGN(auto positions, ReadDeletionVector(*io_, path, a.offset, a.length));
  EXPECT_EQ(positions, first);
  ASSERT_OK_AND_ASSIGN(positions, ReadDeletionVector(*io_, path, b.offset, b.length));
  EXPECT_EQ(positions, second);
  EXPECT_EQ(io_->counters().reads(FileKind::kDelete), 2);

  // The range of one vector, but a byte off: a length error or a damaged magic.
  ASSERT_RAISES_WITH_MESSAGE("Invalid deletion vector in " + path,
                             ReadDeletionVector(*io_, path, a.offset + 1, a.length));
  ASSERT_RAISES_WITH_MESSAGE("Invalid deletion vector in " + path,
                             ReadDeletionVector(*io_, path, a.offset, a.length - 1));
  ASSERT_RAISES_WITH_MESSAGE("Invalid deletion vector in " + path + ": 10 bytes at offset " +
                                 std::to_string(size.file_size - 5) +
                                 " reach past the end of the file (" +
                                 std::to_string(size.file_size) + " bytes)",
                             ReadDeletionVector(*io_, path, size.file_size - 5, 10));
  ASSERT_RAISES_WITH_MESSAGE("reach past the end of the file",
                             ReadDeletionVector(*io_, path, size.file_size + 1, 0));
  ASSERT_RAISES_WITH_MESSAGE(
      "reach past the end of the file",
      ReadDeletionVector(*io_, path, 4, std::numeric_limits<int64_t>::max()));
  ASSERT_RAISES_WITH_MESSAGE("Invalid deletion vector in " + path + ": offset -1 and length 20",
                             ReadDeletionVector(*io_, path, -1, 20));
  ASSERT_RAISES_WITH_MESSAGE("offset 4 and length -20", ReadDeletionVector(*io_, path, 4, -20));
  auto missing = ReadDeletionVector(*io_, dir_.str() + "/none.puffin", 4, 20);
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(IsNotFound(missing.status()));
  EXPECT_THAT(missing.status().message(), HasSubstr(dir_.str() + "/none.puffin"));
}

// A merge-on-read DELETE by Spark 3.5 with Iceberg 1.10 on a format-version 3 table of two
// data files (tests/data/manifest/make_spark_deletion_vectors.py).
TEST_F(DeletionVectorFileTest, ReadsTheDeletionVectorsIcebergJavaWrote) {
  const std::string path =
      std::string(FLOE_TEST_DATA_DIR) + "/manifest/spark_deletion_vectors.puffin";
  const std::string data = "file:/tmp/floe-dv-fixture/warehouse/db/t/data/";
  ASSERT_OK_AND_ASSIGN(PuffinFooter footer, ReadPuffinFooter(*io_, path));
  ASSERT_EQ(footer.blobs.size(), 2u);
  EXPECT_EQ(footer.properties,
            (std::map<std::string, std::string>{
                {"created-by",
                 "Apache Iceberg 1.10.0 (commit 2114bf631e49af532d66e2ce148ee49dd1dd1f1f)"}}));
  struct Expected {
    std::string data_file;
    std::vector<int64_t> positions;  // _pos of the rows the DELETE matched
    int64_t offset;
    int64_t length;
  };
  const std::vector<Expected> expected = {
      {data + "00000-0-a47d36a7-fa61-4c24-9f29-2eaebac7a93d-0-00001.parquet",
       {1, 4, 5, 6, 7, 8, 9, 17},
       4,
       47},
      {data + "00000-1-b5417c3e-4467-47d5-a0fc-d2c00c39b6fb-0-00001.parquet", {2, 5, 11}, 51, 46},
  };
  const std::string bytes = floe::testing::ReadFileBytes(path);
  for (size_t i = 0; i < expected.size(); ++i) {
    const PuffinBlobMetadata& blob = footer.blobs[i];
    EXPECT_EQ(blob.type, "deletion-vector-v1");
    EXPECT_THAT(blob.fields, ElementsAre(2147483645));
    EXPECT_EQ(blob.snapshot_id, -1);
    EXPECT_EQ(blob.sequence_number, -1);
    EXPECT_EQ(blob.offset, expected[i].offset);
    EXPECT_EQ(blob.length, expected[i].length);
    EXPECT_FALSE(blob.compression_codec.has_value());
    EXPECT_EQ(blob.properties, (std::map<std::string, std::string>{
                                   {"referenced-data-file", expected[i].data_file},
                                   {"cardinality", std::to_string(expected[i].positions.size())}}));
    ASSERT_OK_AND_ASSIGN(auto positions, ReadDeletionVector(*io_, path, blob.offset, blob.length));
    EXPECT_EQ(positions, expected[i].positions);
    // floe encodes the same positions to the very bytes Java wrote (the first as a run
    // container, the second as an array container).
    EXPECT_EQ(EncodeDeletionVector(positions), bytes.substr(blob.offset, blob.length));
  }
}

}  // namespace
}  // namespace floe::manifest
