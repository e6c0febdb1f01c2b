#include "floe/util/lru_cache.h"

#include <cstdlib>

#include "floe/util/number_parse.h"

namespace floe {

std::shared_ptr<const void> LruCache::Lookup(const std::string& key, int64_t file_size) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end() || it->second->file_size != file_size) {
    ++misses_;
    return nullptr;
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  ++hits_;
  return it->second->value;
}

void LruCache::Insert(std::string key, int64_t file_size, int64_t bytes, std::shared_ptr<const void> value) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes > capacity_) return;  // would evict everything and still not fit
  auto it = index_.find(key);
  if (it != index_.end()) {
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    index_.erase(it);
  }
  lru_.push_front(Item{key, file_size, bytes, std::move(value)});
  index_[std::move(key)] = lru_.begin();
  bytes_ += bytes;
  EvictLocked();
}

void LruCache::EvictLocked() {
  while (bytes_ > capacity_ && !lru_.empty()) {
    bytes_ -= lru_.back().bytes;
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
}

LruCache::Stats LruCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {hits_, misses_, bytes_, static_cast<int64_t>(lru_.size())};
}

void LruCache::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  lru_.clear();
  index_.clear();
  bytes_ = 0;
}

void LruCache::SetCapacity(int64_t capacity_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  capacity_ = capacity_bytes;
  EvictLocked();
}

int64_t CacheBudgetFromEnvironment(const char* variable, int64_t fallback) {
  if (const char* env = std::getenv(variable)) {
    if (auto parsed = ParseInt64(env)) return *parsed;
  }
  return fallback;
}

}  // namespace floe
