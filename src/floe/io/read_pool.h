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

// The executor of the object store's IO context, as many threads as the read pool: the S3
// client keeps as many connections as that executor has threads (Arrow's IO pool has 8, and
// the client at least 25), so every read the read pool sends can be in flight at once. Its
// own pool, since the read pool's tasks wait for the reads the client runs on it.
arrow::internal::ThreadPool* ObjectStorePool();

}  // namespace floe
