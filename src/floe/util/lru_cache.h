#pragma once

// A thread-safe cache of immutable values by key, each with the size of the file it was read
// from (a lookup with another size misses) and the bytes it holds; least recently used first
// out once the bytes pass the budget. What floe reads from files that are never rewritten in
// place (manifests, Parquet footers) is kept in one of these.

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace floe {

class LruCache {
 public:
  explicit LruCache(int64_t capacity_bytes) : capacity_(capacity_bytes) {}

  struct Stats {
    int64_t hits = 0, misses = 0, bytes = 0, items = 0;
  };

  // The value under `key` read from a file of `file_size` bytes, or null.
  std::shared_ptr<const void> Lookup(const std::string& key, int64_t file_size);
  // Replaces what `key` held. A value larger than the whole budget is not kept.
  void Insert(std::string key, int64_t file_size, int64_t bytes, std::shared_ptr<const void> value);

  Stats stats() const;
  void Clear();
  void SetCapacity(int64_t capacity_bytes);

 private:
  struct Item {
    std::string key;
    int64_t file_size = 0;
    int64_t bytes = 0;
    std::shared_ptr<const void> value;
  };
  void EvictLocked();

  mutable std::mutex mutex_;
  int64_t capacity_;
  int64_t bytes_ = 0;
  int64_t hits_ = 0, misses_ = 0;
  std::list<Item> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Item>::iterator> index_;
};

// The budget in bytes the environment variable `variable` sets, else `fallback` (0 turns
// a cache off).
int64_t CacheBudgetFromEnvironment(const char* variable, int64_t fallback);

}  // namespace floe
