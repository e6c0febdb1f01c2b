#pragma once

// One thread that runs a callback when a deadline passes unless it was disarmed first:
// statement timeouts for every connection.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace floe::server {

class DeadlineTimer {
 public:
  using Clock = std::chrono::steady_clock;

  DeadlineTimer();
  ~DeadlineTimer();

  // Arms (or re-arms) the deadline for `key`; `fire` runs on the timer's thread.
  void Arm(uint64_t key, Clock::time_point deadline, std::function<void()> fire);
  // After Disarm returns, the callback for `key` is not running and will not run.
  void Disarm(uint64_t key);

 private:
  void Loop();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<uint64_t, std::pair<Clock::time_point, std::function<void()>>> armed_;
  uint64_t firing_ = 0;  // the key whose callback runs now; 0: none
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace floe::server
