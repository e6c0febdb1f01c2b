#pragma once

// Session::Impl: the session's state, and the dispatch of each statement to the executor of
// its kind (executors.h).

#include <memory>
#include <string>

#include "floe/sql/ast.h"
#include "floe/sql/session.h"
#include "floe/sql/session_state.h"

namespace floe::sql {

class Session::Impl {
 public:
  Impl(std::shared_ptr<Catalog> catalog, std::shared_ptr<FileIO> io) : state_(std::move(catalog), std::move(io)) {}

  Result<StatementResult> Execute(const Statement& statement, const std::string& sql);

  std::string Setting(const std::string& key, const std::string& fallback) const {
    return state_.Setting(key, fallback);
  }
  Status SetSetting(const std::string& key, const std::string& value) { return state_.SetSetting(key, value); }
  void SetClient(const std::string& client) { state_.provenance->client = client; }
  const std::shared_ptr<Catalog>& catalog() const { return state_.catalog; }
  const std::shared_ptr<FileIO>& io() const { return state_.io; }

 private:
  SessionState state_;
};

}  // namespace floe::sql
