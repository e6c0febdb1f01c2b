#include "floe/io/prefetched_file.h"

#include <algorithm>
#include <cstring>

#include <arrow/buffer.h>

#include "floe/io/read_pool.h"

namespace floe {

std::vector<ByteRange> CoalesceRanges(std::vector<ByteRange> ranges, int64_t hole, int64_t piece) {
  std::sort(ranges.begin(), ranges.end(), [](const ByteRange& a, const ByteRange& b) { return a.offset < b.offset; });
  std::vector<ByteRange> merged;
  for (const auto& r : ranges) {
    if (r.length <= 0) continue;
    if (!merged.empty() && r.offset <= merged.back().offset + merged.back().length + hole) {
      auto& last = merged.back();
      last.length = std::max(last.length, r.offset + r.length - last.offset);
    } else {
      merged.push_back(r);
    }
  }
  std::vector<ByteRange> out;
  for (const auto& r : merged) {
    for (int64_t at = 0; at < r.length; at += piece) out.push_back({r.offset + at, std::min(piece, r.length - at)});
  }
  return out;
}

PrefetchedFile::PrefetchedFile(std::shared_ptr<arrow::io::RandomAccessFile> file, const std::vector<ByteRange>& ranges)
    : file_(std::move(file)) {
  for (const auto& r : ranges) {
    auto task = [file = file_, r]() { return file->ReadAt(r.offset, r.length); };
    auto submitted = ReadPool()->Submit(std::move(task));
    pieces_.push_back({r, submitted.ok() ? std::move(*submitted)
                                         : arrow::Future<std::shared_ptr<arrow::Buffer>>::MakeFinished(
                                               submitted.status())});
  }
}

PrefetchedFile::PrefetchedFile(std::shared_ptr<arrow::io::RandomAccessFile> file, ByteRange range,
                               std::shared_ptr<arrow::Buffer> bytes)
    : file_(std::move(file)) {
  pieces_.push_back({range, arrow::Future<std::shared_ptr<arrow::Buffer>>::MakeFinished(std::move(bytes))});
}

PrefetchedFile::~PrefetchedFile() = default;

arrow::Status PrefetchedFile::Close() {
  closed_ = true;
  return arrow::Status::OK();
}

arrow::Status PrefetchedFile::Seek(int64_t position) {
  position_ = position;
  return arrow::Status::OK();
}

arrow::Result<int64_t> PrefetchedFile::Read(int64_t nbytes, void* out) {
  ARROW_ASSIGN_OR_RAISE(int64_t n, ReadAt(position_, nbytes, out));
  position_ += n;
  return n;
}

arrow::Result<std::shared_ptr<arrow::Buffer>> PrefetchedFile::Read(int64_t nbytes) {
  ARROW_ASSIGN_OR_RAISE(auto buffer, ReadAt(position_, nbytes));
  position_ += buffer->size();
  return buffer;
}

arrow::Result<int64_t> PrefetchedFile::ReadAt(int64_t position, int64_t nbytes, void* out) {
  ARROW_ASSIGN_OR_RAISE(auto buffer, ReadAt(position, nbytes));
  std::memcpy(out, buffer->data(), static_cast<size_t>(buffer->size()));
  return buffer->size();
}

arrow::Result<std::shared_ptr<arrow::Buffer>> PrefetchedFile::ReadAt(int64_t position, int64_t nbytes) {
  // The pieces that together hold [position, position + nbytes), one after another.
  auto first = std::upper_bound(pieces_.begin(), pieces_.end(), position,
                                [](int64_t p, const Piece& piece) { return p < piece.range.offset; });
  if (first != pieces_.begin() && nbytes > 0) {
    --first;
    std::vector<std::shared_ptr<arrow::Buffer>> parts;
    int64_t at = position;
    const int64_t end = position + nbytes;
    for (auto it = first; it != pieces_.end() && at < end; ++it) {
      if (it->range.offset != at && it != first) break;
      const auto& fetched = it->bytes.result();
      // A piece that failed or came back short is read again directly, where its error
      // (naming the file) is the one reported.
      if (!fetched.ok() || (*fetched)->size() != it->range.length) break;
      const int64_t from = at - it->range.offset;
      if (from < 0 || from >= it->range.length) break;
      const int64_t take = std::min(end, it->range.offset + it->range.length) - at;
      parts.push_back(arrow::SliceBuffer(*fetched, from, take));
      at += take;
    }
    if (at == end) {
      if (parts.size() == 1) return parts[0];
      ARROW_ASSIGN_OR_RAISE(auto joined, arrow::AllocateBuffer(nbytes));
      int64_t filled = 0;
      for (const auto& part : parts) {
        std::memcpy(joined->mutable_data() + filled, part->data(), static_cast<size_t>(part->size()));
        filled += part->size();
      }
      return std::shared_ptr<arrow::Buffer>(std::move(joined));
    }
  }
  return file_->ReadAt(position, nbytes);
}

}  // namespace floe
