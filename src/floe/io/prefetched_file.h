#pragma once

// A file some of whose byte ranges are being fetched ahead, several at once on the read pool
// (read_pool.h): reads inside them wait for those bytes instead of asking storage again; any
// other read goes to the file itself. On object storage this turns a reader's one-request-
// at-a-time reads into requests already answered, or in flight, when it gets to them.

#include <cstdint>
#include <memory>
#include <vector>

#include <arrow/io/interfaces.h>
#include <arrow/util/future.h>

namespace floe {

struct ByteRange {
  int64_t offset = 0;
  int64_t length = 0;

  bool Contains(const ByteRange& other) const {
    return other.offset >= offset && other.offset + other.length <= offset + length;
  }
};

// `ranges` merged where less than `hole` bytes apart, then cut into pieces of at most
// `piece` bytes, so that large ranges are fetched as several requests side by side.
std::vector<ByteRange> CoalesceRanges(std::vector<ByteRange> ranges, int64_t hole, int64_t piece);

class PrefetchedFile : public arrow::io::RandomAccessFile {
 public:
  // Starts reading each of `ranges` from `file` on the read pool.
  PrefetchedFile(std::shared_ptr<arrow::io::RandomAccessFile> file, const std::vector<ByteRange>& ranges);
  // Holds `bytes`, already read from `file` at `range`: for a caller on the read pool, which
  // must not wait for a task of its own pool.
  PrefetchedFile(std::shared_ptr<arrow::io::RandomAccessFile> file, ByteRange range,
                 std::shared_ptr<arrow::Buffer> bytes);
  ~PrefetchedFile() override;

  arrow::Status Close() override;
  bool closed() const override { return closed_; }
  arrow::Result<int64_t> Tell() const override { return position_; }
  arrow::Status Seek(int64_t position) override;
  arrow::Result<int64_t> GetSize() override { return file_->GetSize(); }
  arrow::Result<int64_t> Read(int64_t nbytes, void* out) override;
  arrow::Result<std::shared_ptr<arrow::Buffer>> Read(int64_t nbytes) override;
  arrow::Result<int64_t> ReadAt(int64_t position, int64_t nbytes, void* out) override;
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadAt(int64_t position, int64_t nbytes) override;

 private:
  struct Piece {
    ByteRange range;
    arrow::Future<std::shared_ptr<arrow::Buffer>> bytes;
  };
  std::shared_ptr<arrow::io::RandomAccessFile> file_;
  std::vector<Piece> pieces_;  // by offset, not overlapping
  int64_t position_ = 0;
  bool closed_ = false;
};

}  // namespace floe
