#pragma once

// Bounds how many statements run in the engine at once across all connections. A query
// blocks Arrow I/O-pool threads while it waits for its own reads; with every client's query
// in flight at once the pool runs out and all of them wait forever, so the server admits a
// few at a time (the rest queue here) and sizes the I/O pool for them.

#include <condition_variable>
#include <mutex>

namespace floe::server {

class ExecutionGate {
 public:
  explicit ExecutionGate(int slots) : free_(slots) {}

  void Enter() {
    std::unique_lock<std::mutex> lock(mutex_);
    available_.wait(lock, [&] { return free_ > 0; });
    --free_;
  }
  void Leave() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++free_;
    }
    available_.notify_one();
  }

  // Holds a slot for one engine call.
  class Slot {
   public:
    explicit Slot(ExecutionGate* gate) : gate_(gate) {
      if (gate_ != nullptr) gate_->Enter();
    }
    ~Slot() {
      if (gate_ != nullptr) gate_->Leave();
    }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;

   private:
    ExecutionGate* gate_;
  };

 private:
  std::mutex mutex_;
  std::condition_variable available_;
  int free_;
};

}  // namespace floe::server
