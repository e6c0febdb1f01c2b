#include "floe/io/prefetched_file.h"

#include <atomic>
#include <string>

#include <arrow/buffer.h>
#include <arrow/io/memory.h>

#include "floe_test.h"

namespace floe {
namespace {

// Bytes 0, 1, 2, ... (mod 251) in a file that counts the reads it serves and can fail them.
class CountingFile : public arrow::io::RandomAccessFile {
 public:
  explicit CountingFile(int64_t size) : bytes_(MakeBytes(size)), reader_(bytes_) {}
  arrow::Status Close() override { return reader_.Close(); }
  bool closed() const override { return reader_.closed(); }
  arrow::Result<int64_t> Tell() const override { return reader_.Tell(); }
  arrow::Status Seek(int64_t position) override { return reader_.Seek(position); }
  arrow::Result<int64_t> GetSize() override { return reader_.GetSize(); }
  arrow::Result<int64_t> Read(int64_t nbytes, void* out) override { return reader_.Read(nbytes, out); }
  arrow::Result<std::shared_ptr<arrow::Buffer>> Read(int64_t nbytes) override { return reader_.Read(nbytes); }
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadAt(int64_t position, int64_t nbytes) override {
    ++reads;
    if (fail) return arrow::Status::IOError("read of s3://b/f.parquet failed");
    return reader_.ReadAt(position, nbytes);
  }
  std::atomic<int> reads{0};
  std::atomic<bool> fail{false};

 private:
  static std::shared_ptr<arrow::Buffer> MakeBytes(int64_t size) {
    std::string bytes(static_cast<size_t>(size), '\0');
    for (int64_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(i % 251);
    return arrow::Buffer::FromString(std::move(bytes));
  }
  std::shared_ptr<arrow::Buffer> bytes_;
  arrow::io::BufferReader reader_;
};

std::string Expected(int64_t position, int64_t nbytes) {
  std::string out;
  for (int64_t i = position; i < position + nbytes; ++i) out.push_back(static_cast<char>(i % 251));
  return out;
}

TEST(CoalesceRangesTest, MergesNearRangesAndCutsLongOnes) {
  auto out = CoalesceRanges({{100, 10}, {0, 50}, {60, 10}, {1000, 0}, {500, 25}}, 10, 40);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].offset, 0);
  EXPECT_EQ(out[0].length, 40);
  EXPECT_EQ(out[1].offset, 40);
  EXPECT_EQ(out[1].length, 30);  // 0..70: 60 is within 10 of 50
  EXPECT_EQ(out[2].offset, 100);
  EXPECT_EQ(out[2].length, 10);  // 30 bytes from 70: apart
  EXPECT_EQ(out[3].offset, 500);
  EXPECT_EQ(out[3].length, 25);  // the empty range is dropped
}

TEST(PrefetchedFileTest, ReadsInsideThePiecesAskTheFileNothingMore) {
  auto file = std::make_shared<CountingFile>(10000);
  PrefetchedFile prefetched(file, {{1000, 500}, {1500, 500}, {5000, 100}});
  // One piece, two adjacent pieces joined, a piece's end.
  ASSERT_OK_AND_ASSIGN(auto a, prefetched.ReadAt(1100, 200));
  ASSERT_OK_AND_ASSIGN(auto b, prefetched.ReadAt(1400, 300));
  ASSERT_OK_AND_ASSIGN(auto c, prefetched.ReadAt(5090, 10));
  EXPECT_EQ(a->ToString(), Expected(1100, 200));
  EXPECT_EQ(b->ToString(), Expected(1400, 300));
  EXPECT_EQ(c->ToString(), Expected(5090, 10));
  EXPECT_EQ(file->reads.load(), 3);  // the three pieces, once each
  // Outside the pieces, or past one's end into a gap: the file is read.
  ASSERT_OK_AND_ASSIGN(auto d, prefetched.ReadAt(1900, 200));
  ASSERT_OK_AND_ASSIGN(auto e, prefetched.ReadAt(10, 5));
  EXPECT_EQ(d->ToString(), Expected(1900, 200));
  EXPECT_EQ(e->ToString(), Expected(10, 5));
  EXPECT_EQ(file->reads.load(), 5);
  // Sequential reads go through the same path.
  ASSERT_OK(prefetched.Seek(1000));
  char out[8];
  ASSERT_OK_AND_ASSIGN(int64_t n, prefetched.Read(8, out));
  EXPECT_EQ(n, 8);
  EXPECT_EQ(std::string(out, 8), Expected(1000, 8));
  ASSERT_OK_AND_ASSIGN(int64_t at, prefetched.Tell());
  EXPECT_EQ(at, 1008);
  EXPECT_EQ(file->reads.load(), 5);
}

// Bytes the caller read itself (on a read pool thread, which must not wait for its pool).
TEST(PrefetchedFileTest, HeldBytesAnswerReadsInsideThemWithoutTheFile) {
  auto file = std::make_shared<CountingFile>(10000);
  ASSERT_OK_AND_ASSIGN(auto tail, file->ReadAt(9000, 1000));
  PrefetchedFile held(file, ByteRange{9000, 1000}, tail);
  ASSERT_OK_AND_ASSIGN(auto footer, held.ReadAt(9992, 8));
  ASSERT_OK_AND_ASSIGN(auto index, held.ReadAt(9100, 300));
  EXPECT_EQ(footer->ToString(), Expected(9992, 8));
  EXPECT_EQ(index->ToString(), Expected(9100, 300));
  EXPECT_EQ(file->reads.load(), 1);  // the caller's own read
  ASSERT_OK_AND_ASSIGN(auto before, held.ReadAt(8990, 20));  // starts before the bytes held
  EXPECT_EQ(before->ToString(), Expected(8990, 20));
  EXPECT_EQ(file->reads.load(), 2);
}

TEST(PrefetchedFileTest, APieceThatFailedIsReadAgainAndItsErrorReported) {
  auto file = std::make_shared<CountingFile>(4000);
  file->fail = true;
  PrefetchedFile prefetched(file, {{0, 1000}});
  auto read = prefetched.ReadAt(10, 10);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().message(), "read of s3://b/f.parquet failed");
  file->fail = false;
  ASSERT_OK_AND_ASSIGN(auto again, prefetched.ReadAt(10, 10));
  EXPECT_EQ(again->ToString(), Expected(10, 10));
}

}  // namespace
}  // namespace floe
