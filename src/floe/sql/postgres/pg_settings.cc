#include "floe/sql/postgres/pg_settings.h"

#include "floe/sql/plan/relation.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

namespace {

const char* const kSearchPath = "search_path";

}  // namespace

const std::vector<PgParameter>& PgParameters() {
  static const std::vector<PgParameter> kParameters = {
      {"application_name", "", "string", "Reporting and Logging",
       "Sets the application name to be reported."},
      {"bytea_output", "hex", "enum", "Client Connection Defaults",
       "Sets the output format for bytea."},
      {"client_encoding", "UTF8", "string", "Client Connection Defaults",
       "Sets the client's character set encoding."},
      {"client_min_messages", "notice", "enum", "Client Connection Defaults",
       "Sets the message levels that are sent to the client."},
      {"DateStyle", "ISO, MDY", "string", "Client Connection Defaults",
       "Sets the display format for date and time values."},
      {"default_transaction_isolation", "read committed", "enum", "Client Connection Defaults",
       "Sets the transaction isolation level of each new transaction."},
      {"default_transaction_read_only", "off", "bool", "Client Connection Defaults",
       "Sets the default read-only status of new transactions."},
      {"extra_float_digits", "1", "integer", "Client Connection Defaults",
       "Sets the number of digits displayed for floating-point values."},
      {"idle_in_transaction_session_timeout", "0", "integer", "Client Connection Defaults",
       "Sets the maximum allowed idle time between queries, when in a transaction."},
      {"integer_datetimes", "on", "bool", "Preset Options",
       "Shows whether datetimes are integer based.", true},
      {"IntervalStyle", "postgres", "enum", "Client Connection Defaults",
       "Sets the display format for interval values."},
      {"is_superuser", "on", "bool", "Preset Options",
       "Shows whether the current user is a superuser.", true},
      {"lc_collate", "C.UTF-8", "string", "Preset Options", "Shows the collation order locale.",
       true},
      {"lc_ctype", "C.UTF-8", "string", "Preset Options",
       "Shows the character classification and case conversion locale.", true},
      {"lc_messages", "C.UTF-8", "string", "Client Connection Defaults",
       "Sets the language in which messages are displayed."},
      {"lc_monetary", "C.UTF-8", "string", "Client Connection Defaults",
       "Sets the locale for formatting monetary amounts."},
      {"lc_numeric", "C.UTF-8", "string", "Client Connection Defaults",
       "Sets the locale for formatting numbers."},
      {"lc_time", "C.UTF-8", "string", "Client Connection Defaults",
       "Sets the locale for formatting date and time values."},
      {"lock_timeout", "0", "integer", "Client Connection Defaults",
       "Sets the maximum allowed duration of any wait for a lock."},
      {"max_identifier_length", "63", "integer", "Preset Options",
       "Shows the maximum identifier length.", true},
      {"max_index_keys", "32", "integer", "Preset Options",
       "Shows the maximum number of index keys.", true},
      {"search_path", "\"$user\", public", "string", "Client Connection Defaults",
       "Sets the schema search order for names that are not schema-qualified."},
      {"server_encoding", "UTF8", "string", "Preset Options",
       "Shows the server (database) character set encoding.", true},
      {"server_version", "15.0", "string", "Preset Options", "Shows the server version.", true},
      {"server_version_num", "150000", "integer", "Preset Options",
       "Shows the server version as an integer.", true},
      {"standard_conforming_strings", "on", "bool", "Version and Platform Compatibility",
       "Causes '...' strings to treat backslashes literally."},
      {"statement_timeout", "0", "integer", "Client Connection Defaults",
       "Sets the maximum allowed duration of any statement."},
      {"TimeZone", "UTC", "string", "Client Connection Defaults",
       "Sets the time zone for displaying and interpreting time stamps."},
      {"transaction_isolation", "read committed", "string", "Client Connection Defaults",
       "Sets the current transaction's isolation level."},
      {"transaction_read_only", "off", "bool", "Client Connection Defaults",
       "Sets the current transaction's read-only status."},
  };
  return kParameters;
}

const PgParameter* FindPgParameter(const std::string& name) {
  std::string lower = Lower(name);
  for (const auto& p : PgParameters()) {
    if (Lower(p.name) == lower) return &p;
  }
  return nullptr;
}

std::string PgParameterValue(const SessionState& state, const std::string& name) {
  std::string lower = Lower(name);
  if (lower == "timezone") return state.TimeZone();
  if (lower == kSearchPath) return state.current_namespace.ToString();
  const PgParameter* p = FindPgParameter(lower);
  std::string fallback = p ? p->default_value : "";
  return state.Setting(lower, fallback);
}

Result<std::string> PgShowValue(const SessionState& state, const std::string& name) {
  if (FindPgParameter(name)) return PgParameterValue(state, name);
  auto it = state.settings.find(name);
  if (it != state.settings.end()) return it->second;
  return Status::Invalid("unrecognized configuration parameter \"", name, "\"");
}

Status PgSetParameter(SessionState& state, const std::string& name, const std::string& value) {
  const PgParameter* p = FindPgParameter(name);
  if (!p) return Status::Invalid("unrecognized configuration parameter \"", name, "\"");
  if (p->read_only) return Status::Invalid("parameter \"", p->name, "\" cannot be changed");
  std::string lower = Lower(name);
  if (lower == "timezone") return state.SetSetting(kTimeZoneKey, value);
  if (lower == kSearchPath) {
    // The first namespace of the path that exists becomes the current one.
    size_t start = 0;
    while (start <= value.size()) {
      size_t comma = value.find(',', start);
      std::string item(
          value.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      while (!item.empty() && (item.front() == ' ' || item.front() == '"' || item.front() == '\''))
        item.erase(0, 1);
      while (!item.empty() && (item.back() == ' ' || item.back() == '"' || item.back() == '\''))
        item.pop_back();
      if (!item.empty() && item != "$user" && item != "pg_catalog") {
        auto ns = Namespace::Parse(item);
        if (ns.ok()) {
          ARROW_ASSIGN_OR_RAISE(bool exists, state.catalog->NamespaceExists(*ns));
          if (exists) {
            state.current_namespace = *ns;
            break;
          }
        }
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return Status::OK();
  }
  state.settings[lower] = value;
  return Status::OK();
}

std::string PgVersionString() {
  return StrCat("PostgreSQL 15.0 (floe ", FLOE_VERSION,
                ") on x86_64-pc-linux-gnu, compiled by floe, 64-bit");
}

}  // namespace floe::sql
