#pragma once

// An Executor over a real floe::sql::Session, for the `floe` binary and floe_sqltest. Only
// those binaries call it, so the cli library and its tests need no Session.

#include <string>

#include "floe/cli/shell.h"
#include "floe/sql/session.h"

namespace floe::cli {

inline Executor SessionExecutor(sql::Session& session) {
  Executor executor;
  executor.execute = [&session](const std::string& statement) {
    return session.Execute(statement);
  };
  executor.time_zone = [&session]() {
    return session.Setting("spark.sql.session.timeZone", "UTC");
  };
  return executor;
}

}  // namespace floe::cli
