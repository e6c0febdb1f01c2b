#pragma once

// Parsed Parquet footers of data files on object storage, with the bytes of their page
// indexes, by location and size: a file is never rewritten in place, so a query that reads a
// data file again (in the same session, Python connection or `floe serve`) asks storage for
// its column chunks only. Process-wide, 64 MB, or FLOE_FOOTER_CACHE_BYTES (0 turns it off).

#include <cstdint>
#include <memory>
#include <string>

#include <arrow/buffer.h>
#include <parquet/metadata.h>

#include "floe/io/prefetched_file.h"
#include "floe/util/lru_cache.h"

namespace floe::scan {

struct CachedFooter {
  std::shared_ptr<parquet::FileMetaData> metadata;
  // Every column's page indexes of every row group, when the footer's read held them all.
  ByteRange index_range;
  std::shared_ptr<arrow::Buffer> index_bytes;
};

LruCache& FooterCache();

// The cached footer of the file at `location` of `size` bytes, or null.
std::shared_ptr<const CachedFooter> FindFooter(const std::string& location, int64_t size);
// Caches `metadata`, with the page indexes when `input` holds them in memory (reading them
// from it asks storage nothing more).
void KeepFooter(const std::string& location, int64_t size, std::shared_ptr<parquet::FileMetaData> metadata,
                arrow::io::RandomAccessFile& input, ByteRange held);

}  // namespace floe::scan
