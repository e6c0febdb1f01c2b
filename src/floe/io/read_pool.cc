#include "floe/io/read_pool.h"

namespace floe {

arrow::internal::ThreadPool* ReadPool() {
  // Never destroyed: threads still reading at exit must not be joined then.
  static auto* pool = new std::shared_ptr<arrow::internal::ThreadPool>(
      arrow::internal::ThreadPool::Make(kReadPoolThreads).ValueOrDie());
  return pool->get();
}

arrow::internal::ThreadPool* ObjectStorePool() {
  static auto* pool = new std::shared_ptr<arrow::internal::ThreadPool>(
      arrow::internal::ThreadPool::Make(kReadPoolThreads).ValueOrDie());
  return pool->get();
}

}  // namespace floe
