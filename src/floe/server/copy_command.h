#pragma once

// COPY (query) TO STDOUT and COPY table TO STDOUT, as clients read a query's rows in bulk
// (DuckDB's postgres extension reads every table so, in PostgreSQL's binary format). The
// server runs the query and sends its rows in the COPY protocol (CopyOutResponse, CopyData,
// CopyDone). COPY ... FROM and files are not served.

#include <optional>
#include <string>

#include "floe/util/status.h"

namespace floe::server {

enum class CopyFormat { kText, kBinary };

struct CopyOut {
  std::string query;  // the query whose rows are copied
  CopyFormat format = CopyFormat::kText;
};

// nullopt when `sql` is not a COPY statement; an error for a COPY floe does not serve.
Result<std::optional<CopyOut>> ParseCopyOut(const std::string& sql);

// PostgreSQL's text COPY form of a value: backslash, tab, newline and carriage return escaped.
std::string CopyTextEscape(const std::string& value);

}  // namespace floe::server
