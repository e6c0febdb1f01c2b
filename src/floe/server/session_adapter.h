#pragma once

// The server's view of a sql::Session: statements run with parameters, streamed batch by
// batch, described before they run, and cancelled from another thread.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/sql/session.h"
#include "floe/util/status.h"

namespace floe::server {

using sql::Parameter;
using sql::StatementShape;
using sql::StatementStream;

class SessionAdapter {
 public:
  explicit SessionAdapter(std::unique_ptr<sql::Session> session);

  Result<StatementShape> Describe(const std::string& sql, const std::vector<Parameter>& params);
  Result<std::unique_ptr<StatementStream>> ExecuteStreaming(const std::string& sql,
                                                            const std::vector<Parameter>& params);
  // Thread-safe: the running statement fails with Status::Cancelled.
  void Cancel();

  sql::Session& session() { return *session_; }

 private:
  std::unique_ptr<sql::Session> session_;
};

// The command word of a statement's text ("SELECT", "INSERT", "CREATE TABLE", ...).
std::string CommandOf(const std::string& sql);

}  // namespace floe::server
