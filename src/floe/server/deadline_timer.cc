#include "floe/server/deadline_timer.h"

namespace floe::server {

DeadlineTimer::DeadlineTimer() : thread_([this] { Loop(); }) {}

DeadlineTimer::~DeadlineTimer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void DeadlineTimer::Arm(uint64_t key, Clock::time_point deadline, std::function<void()> fire) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_[key] = {deadline, std::move(fire)};
  }
  changed_.notify_all();
}

void DeadlineTimer::Disarm(uint64_t key) {
  std::unique_lock<std::mutex> lock(mutex_);
  armed_.erase(key);
  changed_.wait(lock, [&] { return firing_ != key; });
}

void DeadlineTimer::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    auto next = armed_.end();
    for (auto it = armed_.begin(); it != armed_.end(); ++it) {
      if (next == armed_.end() || it->second.first < next->second.first) next = it;
    }
    if (next == armed_.end()) {
      changed_.wait(lock);
      continue;
    }
    if (Clock::now() < next->second.first) {
      changed_.wait_until(lock, next->second.first);
      continue;
    }
    uint64_t key = next->first;
    std::function<void()> fire = std::move(next->second.second);
    armed_.erase(next);
    firing_ = key;
    lock.unlock();
    fire();
    lock.lock();
    firing_ = 0;
    changed_.notify_all();
  }
}

}  // namespace floe::server
