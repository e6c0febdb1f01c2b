#pragma once

// Threads that read files whose bytes a query needs next (manifests, data file footers),
// many at once: on object storage each read is mostly waiting for a round trip, so far more
// can be in flight than there are cores. Apart from Arrow's CPU pool, which decodes, and its
// IO pool, whose reads these threads may wait for, so no task here waits for its own pool.

#include <arrow/util/thread_pool.h>

namespace floe {

// The process's pool (kReadPoolThreads threads), made on first use and never destroyed.
arrow::internal::ThreadPool* ReadPool();

inline constexpr int kReadPoolThreads = 64;

}  // namespace floe
