#include "floe/scan/footer_cache.h"

#include "floe/scan/row_group_filter.h"

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
  const ByteRange span = PageIndexSpan(*metadata);
  if (span.length > 0 && held.Contains(span)) {
    // A copy: a slice would keep the whole of what was held alive.
    auto bytes = input.ReadAt(span.offset, span.length);
    if (bytes.ok() && (*bytes)->size() == span.length) {
      auto copy = (*bytes)->CopySlice(0, span.length);
      if (copy.ok()) {
        footer->index_range = span;
        footer->index_bytes = std::move(*copy);
      }
    }
  }
  // The parsed footer takes a few times its encoded size.
  const int64_t bytes = 4 * static_cast<int64_t>(metadata->size()) + footer->index_range.length;
  footer->metadata = std::move(metadata);
  FooterCache().Insert(location, size, bytes, std::move(footer));
}

}  // namespace floe::scan
