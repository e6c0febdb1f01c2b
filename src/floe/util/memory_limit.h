#pragma once

// How much memory statements may take. Two limits hold at once: one for the whole process
// (`--memory-limit` of `floe serve` and `floe sql`; 80% of the machine's memory, or of the
// cgroup's limit, by default) and one per session (`SET floe.memory_limit`). Each session
// allocates through its own pool; every Arrow plan it runs (hash tables of aggregates and
// joins, the rows a sort holds, decoded batches) takes its memory from that pool, so a
// statement that outgrows either limit fails alone with OutOfMemory while the process and
// every other session go on.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include <arrow/memory_pool.h>

#include "floe/util/status.h"

namespace floe {

// The process's limit, shared by every session's pool.
class MemoryBudget {
 public:
  static MemoryBudget& Process();

  int64_t limit() const { return limit_.load(std::memory_order_relaxed); }
  void set_limit(int64_t bytes) { limit_.store(bytes, std::memory_order_relaxed); }
  int64_t used() const { return used_.load(std::memory_order_relaxed); }
  // What one session may hold when it sets no floe.memory_limit of its own; 0: the whole
  // limit. A server keeps part of its limit back this way, so one runaway query leaves room
  // for every other session's statements.
  int64_t session_default() const { return session_default_.load(std::memory_order_relaxed); }
  void set_session_default(int64_t bytes) { session_default_.store(bytes, std::memory_order_relaxed); }

  // Takes `bytes` if they fit under the limit.
  bool TryReserve(int64_t bytes);
  void Release(int64_t bytes);

 private:
  explicit MemoryBudget(int64_t limit) : limit_(limit) {}
  std::atomic<int64_t> limit_;
  std::atomic<int64_t> used_{0};
  std::atomic<int64_t> session_default_{0};
};

// 80% of the memory this process may use: the machine's, or its cgroup's limit when lower.
int64_t DefaultMemoryLimit();

// "4.0 GiB", "256.0 MiB", "512 bytes".
std::string FormatMemorySize(int64_t bytes);

// A session's pool. It lives while its session holds it or any buffer it allocated is alive
// (a query's result may outlive the session that made it), then deletes itself.
class SessionMemoryPool final : public arrow::MemoryPool {
 public:
  // `limit` 0: only the process's limit applies.
  static std::shared_ptr<SessionMemoryPool> Make(int64_t limit = 0);

  int64_t limit() const { return limit_.load(std::memory_order_relaxed); }
  void set_limit(int64_t bytes) { limit_.store(bytes, std::memory_order_relaxed); }

  arrow::Status Allocate(int64_t size, int64_t alignment, uint8_t** out) override;
  arrow::Status Reallocate(int64_t old_size, int64_t new_size, int64_t alignment, uint8_t** ptr) override;
  void Free(uint8_t* buffer, int64_t size, int64_t alignment) override;
  void ReleaseUnused() override { base_->ReleaseUnused(); }
  int64_t bytes_allocated() const override { return used_.load(std::memory_order_relaxed); }
  int64_t max_memory() const override { return peak_.load(std::memory_order_relaxed); }
  int64_t total_bytes_allocated() const override { return total_.load(std::memory_order_relaxed); }
  int64_t num_allocations() const override { return allocations_.load(std::memory_order_relaxed); }
  std::string backend_name() const override { return base_->backend_name(); }

 private:
  explicit SessionMemoryPool(int64_t limit);
  ~SessionMemoryPool() override = default;
  // The owner's reference, or a live buffer's, dropped.
  void Unref();
  arrow::Status Reserve(int64_t bytes);
  void Unreserve(int64_t bytes);

  arrow::MemoryPool* base_;
  std::atomic<int64_t> limit_;
  std::atomic<int64_t> used_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> total_{0};
  std::atomic<int64_t> allocations_{0};
  // One for the owner plus one per live allocation.
  std::atomic<int64_t> refs_{1};
};

// The pool of the statement running on this thread (Arrow's default pool when none): plans
// and readers made for a statement take it when they are made, so their worker threads
// allocate from it too.
arrow::MemoryPool* StatementMemoryPool();

// The most a statement allocating from `pool` may hold: its session's floe.memory_limit, or
// the server's share for one session, and never more than the process's limit. Operators
// that spill size their work from it.
int64_t MemoryAllowance(const arrow::MemoryPool* pool);

// Sets StatementMemoryPool() for this thread while it lives.
class ScopedStatementMemoryPool {
 public:
  explicit ScopedStatementMemoryPool(arrow::MemoryPool* pool);
  ~ScopedStatementMemoryPool();
  ScopedStatementMemoryPool(const ScopedStatementMemoryPool&) = delete;
  ScopedStatementMemoryPool& operator=(const ScopedStatementMemoryPool&) = delete;

 private:
  arrow::MemoryPool* previous_;
};

}  // namespace floe
