#pragma once

// `floe retention <table> [--require 90d] [--json]`: how far back a table can be read, what
// history costs, and whether the table's expiry settings keep a required horizon. Exit 2 when
// the requirement is at risk, so a scheduler can alert.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "floe/sql/session.h"
#include "floe/util/status.h"

namespace floe::cli {

// "90d", "12h", "30m", "45s", "1500ms", "2w" -> milliseconds.
Result<int64_t> ParseDuration(const std::string& text);

// Prints the report (text or JSON) to `out`; returns the exit status (0, 1 on a user error
// written to `err`, 2 when the requirement is at risk).
int RunRetention(sql::Session& session, const std::string& table, const std::string& require,
                 bool json, std::ostream& out, std::ostream& err);

}  // namespace floe::cli
