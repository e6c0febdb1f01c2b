#pragma once

// Progress of long work (scanning many files, a diff, an expiry, a compaction). The engine
// reports steps through ProgressTask; whoever drives the process (the floe command on a
// terminal) installs one sink that shows them. Without a sink, reporting costs an atomic
// load. The sink is process-wide because work runs on thread pools.

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace floe {

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  // One task at a time is shown; a task started inside another replaces it until it ends.
  // `total` is the number of steps, or 0 when unknown.
  virtual void Start(std::string_view what, int64_t total) = 0;
  // Called from any thread with the running count of steps done.
  virtual void Update(int64_t done) = 0;
  virtual void Finish() = 0;
};

// Installs `sink` (not owned; null removes it) and returns the one it replaces.
ProgressSink* SetProgressSink(ProgressSink* sink);
ProgressSink* CurrentProgressSink();

// One piece of work with a known number of steps: Advance from any thread.
class ProgressTask {
 public:
  ProgressTask(std::string_view what, int64_t total);
  ~ProgressTask();
  ProgressTask(const ProgressTask&) = delete;
  ProgressTask& operator=(const ProgressTask&) = delete;

  void Advance(int64_t steps = 1);

 private:
  ProgressSink* sink_;
  std::atomic<int64_t> done_{0};
};

}  // namespace floe
