#pragma once

// Sessions lent to HTTP requests: a request takes an idle one (or opens a new one) and gives
// it back when answered, so concurrent requests never share a session.

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "floe/sql/session.h"
#include "floe/util/status.h"

namespace floe::server::http {

class SessionPool {
 public:
  using Factory = std::function<Result<std::unique_ptr<sql::Session>>()>;

  explicit SessionPool(Factory open) : open_(std::move(open)) {}

  // Opens one session, so that a catalog that cannot be opened fails before serving.
  Status Prime() {
    ARROW_ASSIGN_OR_RAISE(auto session, open_());
    Return(std::move(session));
    return Status::OK();
  }

  Result<std::unique_ptr<sql::Session>> Take() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!idle_.empty()) {
        auto session = std::move(idle_.back());
        idle_.pop_back();
        return session;
      }
    }
    return open_();
  }

  void Return(std::unique_ptr<sql::Session> session) {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.push_back(std::move(session));
  }

  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.clear();
  }

 private:
  Factory open_;
  std::mutex mu_;
  std::vector<std::unique_ptr<sql::Session>> idle_;
};

}  // namespace floe::server::http
