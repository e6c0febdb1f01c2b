#pragma once

// PostgreSQL's run-time parameters that clients set on connect or read back (SET, SHOW,
// current_setting(), pg_settings): client_encoding, DateStyle, TimeZone, search_path,
// extra_float_digits, application_name, ... TimeZone is the session time zone and
// search_path's first namespace the current one; the others are kept as the session's
// settings and change nothing else, as floe always speaks UTF-8 and ISO dates.

#include <string>
#include <vector>

#include "floe/sql/session/session_state.h"
#include "floe/util/status.h"

namespace floe::sql {

struct PgParameter {
  const char* name;  // as PostgreSQL spells it ("DateStyle")
  const char* default_value;
  const char* vartype;  // bool, integer, string, enum, real
  const char* category;
  const char* description;
  bool read_only = false;
};

const std::vector<PgParameter>& PgParameters();
// The parameter of a name in any case; null when PostgreSQL has none floe knows.
const PgParameter* FindPgParameter(const std::string& name);

// The value `SHOW name` prints: a parameter's current value, else a session setting's;
// `unrecognized configuration parameter "name"` otherwise.
Result<std::string> PgShowValue(const SessionState& state, const std::string& name);
// The current value of a known parameter.
std::string PgParameterValue(const SessionState& state, const std::string& name);
// SET name = value for a known parameter; read-only ones refuse, as PostgreSQL does.
Status PgSetParameter(SessionState& state, const std::string& name, const std::string& value);

// The version() text: PostgreSQL's form, so that drivers read a server version from it.
std::string PgVersionString();

}  // namespace floe::sql
