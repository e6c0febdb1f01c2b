#pragma once

// The catalog's audit log: one row per change of a table's metadata pointer, by any engine,
// written in the same database transaction as the change (see audit_log_sql.h for the table
// and the trigger that records other engines' changes).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/catalog/table_identifier.h"
#include "floe/util/status.h"

namespace floe {

// Kinds of change. A row written by the trigger for another engine's change has kind
// kExternal until floe reads the two metadata files and names what moved.
namespace audit_kind {
inline constexpr char kCreate[] = "create";
inline constexpr char kRegister[] = "register";
inline constexpr char kCommit[] = "commit";  // a new snapshot; `operation` says which
inline constexpr char kRewrite[] = "rewrite";
inline constexpr char kCherryPick[] = "cherry-pick";
inline constexpr char kRollback[] = "rollback";
inline constexpr char kSetCurrent[] = "set-current";
inline constexpr char kFastForward[] = "fast-forward";
inline constexpr char kRefCreate[] = "ref-create";
inline constexpr char kRefReplace[] = "ref-replace";
inline constexpr char kRefDrop[] = "ref-drop";
inline constexpr char kSchema[] = "schema";
inline constexpr char kSpec[] = "spec";
inline constexpr char kSortOrder[] = "sort-order";
inline constexpr char kProperties[] = "properties";
inline constexpr char kExpire[] = "expire";
inline constexpr char kMetadata[] = "metadata";  // nothing above: statistics, format version
inline constexpr char kDrop[] = "drop";
inline constexpr char kUndrop[] = "undrop";
inline constexpr char kRename[] = "rename";
inline constexpr char kRestore[] = "restore";
inline constexpr char kProtection[] = "protection";  // a protection rule set or lifted
// A change floe refused (a protection rule forbade it): nothing moved; `detail` says why.
inline constexpr char kRefused[] = "refused";
inline constexpr char kExternal[] = "external";
}  // namespace audit_kind

// A branch or tag that a change created (from empty), moved, or dropped (to empty).
struct AuditRefMove {
  std::string name;
  std::optional<int64_t> from_snapshot_id;
  std::optional<int64_t> to_snapshot_id;
  bool operator==(const AuditRefMove&) const = default;
};

// What a change was, and who made it from where.
struct AuditRecord {
  std::string kind;
  std::string operation;  // of a commit's snapshot (append, overwrite, delete, replace)
  std::optional<int64_t> previous_snapshot_id;  // main's, before and after
  std::optional<int64_t> snapshot_id;
  std::vector<AuditRefMove> refs;
  std::string user;
  std::string client;          // "floe sql", "floe serve", "spark", ...
  std::string client_address;  // the remote address, when known
  std::string application_name;
  std::string statement;
  std::string detail;  // "renamed from db.a", ...
  // The client's Idempotency-Key of the request that made the change (REST catalog); the
  // catalog keeps it with the change, in the same transaction, so a retry can be answered.
  std::string idempotency_key;
  // Shared by the rows of one change of several tables (a multi-table transaction, a catalog
  // tag, the rollback of a run); empty for a change of one table.
  std::string transaction_id;
  // False for a row nobody has classified yet (the trigger's); floe classifies it when the
  // log is read.
  bool classified = true;
};

// A row of the log.
struct AuditEntry : AuditRecord {
  int64_t seq = 0;    // the catalog database's order of changes
  int64_t at_ms = 0;  // UTC milliseconds
  TableIdentifier ident;
  std::optional<std::string> previous_metadata_location;  // none: the table was created
  std::optional<std::string> metadata_location;           // none: the table was dropped
};

// Which rows to read: newest first, at most `limit` (all when 0).
struct AuditQuery {
  std::optional<TableIdentifier> table;
  std::optional<int64_t> since_ms;   // at_ms >= since_ms
  std::optional<int64_t> before_seq;  // seq < before_seq: the next page
  std::optional<int64_t> seq;         // exactly this row
  int64_t limit = 0;
};

// Whether other engines' changes reach the log.
struct AuditTriggerState {
  bool installed = false;
  bool refused = false;  // the database refused to create it when floe first opened it
  // Why not, when not: the database refused the trigger ("permission denied ..."), or it
  // was removed on purpose ("removed by floe audit --remove-trigger").
  std::string reason;
};

// The refs column's text: [{"name":"main","from":1,"to":2}, ...], and back.
std::string EncodeRefMoves(const std::vector<AuditRefMove>& refs);
Result<std::vector<AuditRefMove>> DecodeRefMoves(std::string_view text);

}  // namespace floe
