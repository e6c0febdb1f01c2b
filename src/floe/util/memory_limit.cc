#include "floe/util/memory_limit.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace floe {

namespace {

// A cgroup's memory limit, or 0 when there is none (v2 first, then v1).
int64_t CgroupMemoryLimit() {
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max") continue;
    try {
      const long long bytes = std::stoll(text);
      // v1 says "no limit" with a number near 2^63.
      if (bytes > 0 && bytes < (int64_t{1} << 60)) return bytes;
    } catch (...) {
    }
  }
  return 0;
}

thread_local arrow::MemoryPool* statement_pool = nullptr;

}  // namespace

int64_t DefaultMemoryLimit() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  int64_t total = pages > 0 && page_size > 0 ? int64_t{pages} * page_size : int64_t{8} << 30;
  const int64_t cgroup = CgroupMemoryLimit();
  if (cgroup > 0) total = std::min(total, cgroup);
  return total / 10 * 8;
}

std::string FormatMemorySize(int64_t bytes) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return text;
}

MemoryBudget& MemoryBudget::Process() {
  // Never destroyed: buffers freed while the process exits still account here.
  static MemoryBudget* budget = new MemoryBudget(DefaultMemoryLimit());
  return *budget;
}

bool MemoryBudget::TryReserve(int64_t bytes) {
  const int64_t limit = this->limit();
  int64_t used = used_.load(std::memory_order_relaxed);
  do {
    if (limit > 0 && used + bytes > limit) return false;
  } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  return true;
}

void MemoryBudget::Release(int64_t bytes) { used_.fetch_sub(bytes, std::memory_order_relaxed); }

std::shared_ptr<SessionMemoryPool> SessionMemoryPool::Make(int64_t limit) {
  return std::shared_ptr<SessionMemoryPool>(new SessionMemoryPool(limit),
                                            [](SessionMemoryPool* pool) { pool->Unref(); });
}

SessionMemoryPool::SessionMemoryPool(int64_t limit) : base_(arrow::default_memory_pool()), limit_(limit) {}

void SessionMemoryPool::Unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

arrow::Status SessionMemoryPool::Reserve(int64_t bytes) {
  MemoryBudget& process = MemoryBudget::Process();
  const int64_t own = this->limit();
  const int64_t limit = own > 0 ? own : process.session_default();
  int64_t used = used_.load(std::memory_order_relaxed);
  do {
    if (limit > 0 && used + bytes > limit) {
      if (own > 0) {
        return arrow::Status::OutOfMemory("Out of memory: the query needs more than the ", FormatMemorySize(limit),
                                          " memory limit (floe.memory_limit); raise it with SET floe.memory_limit "
                                          "or make the query hold less at once");
      }
      return arrow::Status::OutOfMemory(
          "Out of memory: the query needs more than ", FormatMemorySize(limit),
          ", the most one session may hold of this server's ", FormatMemorySize(process.limit()),
          " memory limit (--memory-limit); a session may set its own with SET floe.memory_limit");
    }
  } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  if (!process.TryReserve(bytes)) {
    used_.fetch_sub(bytes, std::memory_order_relaxed);
    const int64_t others = process.used() - used;
    if (others < process.limit() / 10) {
      return arrow::Status::OutOfMemory("Out of memory: the query needs more than the ",
                                        FormatMemorySize(process.limit()),
                                        " memory limit (--memory-limit of this floe process)");
    }
    return arrow::Status::OutOfMemory(
        "Out of memory: the query needs more than it may have of the ", FormatMemorySize(process.limit()),
        " memory limit (--memory-limit of this floe process): other statements hold ", FormatMemorySize(others),
        " of it; this statement stopped, the others go on");
  }
  int64_t peak = peak_.load(std::memory_order_relaxed);
  const int64_t now = used + bytes;
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return arrow::Status::OK();
}

void SessionMemoryPool::Unreserve(int64_t bytes) {
  used_.fetch_sub(bytes, std::memory_order_relaxed);
  MemoryBudget::Process().Release(bytes);
}

arrow::Status SessionMemoryPool::Allocate(int64_t size, int64_t alignment, uint8_t** out) {
  ARROW_RETURN_NOT_OK(Reserve(size));
  arrow::Status st = base_->Allocate(size, alignment, out);
  if (!st.ok()) {
    Unreserve(size);
    return st;
  }
  refs_.fetch_add(1, std::memory_order_relaxed);
  total_.fetch_add(size, std::memory_order_relaxed);
  allocations_.fetch_add(1, std::memory_order_relaxed);
  return st;
}

arrow::Status SessionMemoryPool::Reallocate(int64_t old_size, int64_t new_size, int64_t alignment, uint8_t** ptr) {
  const int64_t grow = new_size - old_size;
  if (grow > 0) ARROW_RETURN_NOT_OK(Reserve(grow));
  arrow::Status st = base_->Reallocate(old_size, new_size, alignment, ptr);
  if (!st.ok()) {
    if (grow > 0) Unreserve(grow);
    return st;
  }
  if (grow < 0) Unreserve(-grow);
  if (grow > 0) total_.fetch_add(grow, std::memory_order_relaxed);
  return st;
}

void SessionMemoryPool::Free(uint8_t* buffer, int64_t size, int64_t alignment) {
  base_->Free(buffer, size, alignment);
  Unreserve(size);
  Unref();
}

int64_t MemoryAllowance(const arrow::MemoryPool* pool) {
  const MemoryBudget& process = MemoryBudget::Process();
  int64_t limit = process.limit() > 0 ? process.limit() : DefaultMemoryLimit();
  if (const auto* session = dynamic_cast<const SessionMemoryPool*>(pool)) {
    const int64_t own = session->limit() > 0 ? session->limit() : process.session_default();
    if (own > 0) limit = std::min(limit, own);
  }
  return limit;
}

arrow::MemoryPool* StatementMemoryPool() {
  return statement_pool ? statement_pool : arrow::default_memory_pool();
}

ScopedStatementMemoryPool::ScopedStatementMemoryPool(arrow::MemoryPool* pool) : previous_(statement_pool) {
  statement_pool = pool;
}

ScopedStatementMemoryPool::~ScopedStatementMemoryPool() { statement_pool = previous_; }

}  // namespace floe
