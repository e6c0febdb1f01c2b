#pragma once

// An Executor over a real floe::sql::Session, for the `floe` binary and floe_sqltest. Only
// those binaries call it, so the cli library and its tests need no Session.

#include <exception>
#include <string>

#include "floe/cli/shell.h"
#include "floe/sql/session.h"

namespace floe::cli {

inline Executor SessionExecutor(sql::Session& session) {
  Executor executor;
  // An exception that escapes a statement fails that statement alone, like any error, so
  // a script run with --continue goes on.
  executor.execute = [&session](const std::string& statement) -> Result<sql::StatementResult> {
    try {
      return session.Execute(statement);
    } catch (const std::exception& e) {
      return Status::UnknownError("Internal error: ", e.what());
    } catch (...) {
      return Status::UnknownError("Internal error: unknown exception");
    }
  };
  executor.time_zone = [&session]() {
    return session.Setting("spark.sql.session.timeZone", "UTC");
  };
  return executor;
}

}  // namespace floe::cli
