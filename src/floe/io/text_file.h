#pragma once

// Reading a whole text file whose size nothing records (a table metadata file) without asking
// for the size first: on object storage that question is a HEAD, one round trip before the GET.

#include <cstdint>
#include <memory>
#include <string>

#include <arrow/buffer.h>

#include "floe/io/file_io.h"

namespace floe {

// The most a text file on object storage is read by one GET with no HEAD before it.
inline constexpr int64_t kTextFileFirstRead = int64_t{64} << 20;

// The bytes of the text file at `location` (text: it holds no NUL byte). On object storage,
// one GET of its first `first_read` bytes, past its end if it is shorter: the store answers
// with the bytes there are. A file that fills them, or a failed read, is read as any file is
// (its size asked first), so its errors are ReadFile's. Elsewhere, FileIO::ReadFile.
Result<std::shared_ptr<arrow::Buffer>> ReadTextFile(FileIO& io, const std::string& location, FileKind kind,
                                                    int64_t first_read = kTextFileFirstRead);

}  // namespace floe
