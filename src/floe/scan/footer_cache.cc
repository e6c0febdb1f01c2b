#include "floe/scan/footer_cache.h"

#include <algorithm>
#include <cstring>

namespace floe::scan {

LruCache& FooterCache() {
  static LruCache* cache = new LruCache(CacheBudgetFromEnvironment("FLOE_FOOTER_CACHE_BYTES", int64_t{64} << 20));
  return *cache;
}

std::shared_ptr<const CachedFooter> FindFooter(const std::string& location, int64_t size) {
  return std::static_pointer_cast<const CachedFooter>(FooterCache().Lookup(location, size));
}

void KeepFooter(const std::string& location, int64_t size, std::shared_ptr<parquet::FileMetaData> metadata,
                arrow::io::RandomAccessFile& input, ByteRange held) {
  auto footer = std::make_shared<CachedFooter>();
  int64_t begin = INT64_MAX, end = 0;
  for (int rg = 0; rg < metadata->num_row_groups(); ++rg) {
    auto group = metadata->RowGroup(rg);
    for (int c = 0; c < group->num_columns(); ++c) {
      auto chunk = group->ColumnChunk(c);
      for (const auto& location_of : {chunk->GetColumnIndexLocation(), chunk->GetOffsetIndexLocation()}) {
        if (!location_of || location_of->offset < 0 || location_of->length <= 0) continue;
        begin = std::min(begin, location_of->offset);
        end = std::max(end, location_of->offset + location_of->length);
      }
    }
  }
  if (begin < end && begin >= held.offset && end <= held.offset + held.length) {
    // A copy: a slice would keep the whole of what was held alive.
    auto bytes = input.ReadAt(begin, end - begin);
    if (bytes.ok() && (*bytes)->size() == end - begin) {
      auto copy = arrow::AllocateBuffer(end - begin);
      if (copy.ok()) {
        std::memcpy((*copy)->mutable_data(), (*bytes)->data(), static_cast<size_t>(end - begin));
        footer->index_range = {begin, end - begin};
        footer->index_bytes = std::shared_ptr<arrow::Buffer>(std::move(*copy));
      }
    }
  }
  // The parsed footer takes a few times its encoded size.
  const int64_t bytes = 4 * static_cast<int64_t>(metadata->size()) + footer->index_range.length;
  footer->metadata = std::move(metadata);
  FooterCache().Insert(location, size, bytes, std::move(footer));
}

}  // namespace floe::scan
