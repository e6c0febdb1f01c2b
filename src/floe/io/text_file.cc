#include "floe/io/text_file.h"

#include <cstdlib>
#include <cstring>

#include "floe/io/object_store.h"

namespace floe {

namespace {

// Memory from calloc: zeroed, and the pages a read does not reach are never touched, so a
// large first read costs only the bytes that arrive.
class ZeroedBuffer : public arrow::MutableBuffer {
 public:
  static Result<std::shared_ptr<ZeroedBuffer>> Make(int64_t size) {
    void* data = std::calloc(static_cast<size_t>(size), 1);
    if (data == nullptr) return Status::OutOfMemory("Cannot allocate ", size, " bytes to read a file");
    return std::shared_ptr<ZeroedBuffer>(new ZeroedBuffer(static_cast<uint8_t*>(data), size));
  }
  ~ZeroedBuffer() override { std::free(const_cast<uint8_t*>(data_)); }

 private:
  ZeroedBuffer(uint8_t* data, int64_t size) : arrow::MutableBuffer(data, size) {}
};

}  // namespace

Result<std::shared_ptr<arrow::Buffer>> ReadTextFile(FileIO& io, const std::string& location, FileKind kind,
                                                    int64_t first_read) {
  if (first_read <= 0 || !IsObjectStoreLocation(location)) return io.ReadFile(location, kind);
  // Opened as if it had `first_read` bytes, so nothing asks for its size.
  ARROW_ASSIGN_OR_RAISE(auto file, io.OpenInputFile(location, kind, first_read));
  ARROW_ASSIGN_OR_RAISE(auto buffer, ZeroedBuffer::Make(first_read));
  // Arrow's S3 file reports the length asked for, not the length received: the text ends at
  // the first NUL byte, where the answer stopped writing into the zeroed buffer.
  if (file->ReadAt(0, first_read, buffer->mutable_data()).ok()) {
    const void* end = std::memchr(buffer->data(), 0, static_cast<size_t>(first_read));
    if (end != nullptr) {
      return arrow::SliceBuffer(buffer, 0, static_cast<const uint8_t*>(end) - buffer->data());
    }
  }
  return io.ReadFile(location, kind);
}

}  // namespace floe
