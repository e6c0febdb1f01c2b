#pragma once

// Provenance of a commit: who made a snapshot and how. Iceberg records none; floe adds it
// to the summary of every snapshot it commits, under `floe.*` keys that other engines keep
// and ignore (Spark and PyIceberg carry unknown summary keys through untouched).

#include <cstddef>
#include <string>
#include <string_view>

#include "floe/spec/table_metadata.h"

namespace floe::table {

inline constexpr char kStatementKey[] = "floe.statement";  // the SQL that made it, truncated
inline constexpr char kUserKey[] = "floe.user";            // the operating-system user
inline constexpr char kClientKey[] = "floe.client";        // "floe sql", "floe python", ...

// Statements longer than this many bytes are cut at a character boundary and end in "...".
inline constexpr size_t kMaxStatementBytes = 500;

struct CommitProvenance {
  std::string client = "c++ api";
  std::string user;       // empty: the user running the process
  std::string statement;  // empty: not recorded
  // The remote address of the client floe serve runs the statement for; empty in-process.
  std::string client_address;
  // The Idempotency-Key of the REST request the change serves; empty otherwise.
  std::string idempotency_key;
};

// The login name of the user running the process ($USER, else the password database,
// else the numeric uid).
std::string OperatingSystemUser();

// `statement` with its whitespace runs collapsed, trimmed and cut to kMaxStatementBytes.
std::string TruncateStatement(std::string_view statement);

// Adds the provenance keys to every snapshot of `updated` that `base` does not have and that
// carries no floe.client yet (a cherry-pick or a replayed commit keeps the original's).
void StampProvenance(const CommitProvenance& provenance, const spec::TableMetadata& base,
                     spec::TableMetadata* updated);

}  // namespace floe::table
