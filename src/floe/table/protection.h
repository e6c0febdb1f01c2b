#pragma once

// Protected branches and tags. A rule lives in a table property, so it travels with the table:
//   floe.protected.branch.<name> = none | fast-forward,cherry-pick,rollback (what it allows)
//   floe.protected.tag.<name>    = locked
// `ALTER TABLE t SET PROTECTION ON BRANCH main [ALLOW FAST_FORWARD] [ALLOW CHERRYPICK]
// [ALLOW ROLLBACK]`, `... ON TAG v1` and `UNSET PROTECTION ON ...` write and remove them.
//
// Every floe commit is checked against the rules of the metadata it starts from: a protected
// branch moves only as its rule allows (never by a direct write, never dropped), a locked tag
// never moves nor goes, and expiry keeps whatever a locked tag reaches. Another engine writing
// to the catalog directly is not stopped; `floe verify` reports a protected ref that moved
// against its rule.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/spec/table_metadata.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::table {

inline constexpr char kProtectedBranchPrefix[] = "floe.protected.branch.";
inline constexpr char kProtectedTagPrefix[] = "floe.protected.tag.";

bool IsProtectionProperty(std::string_view key);

struct ProtectionRule {
  bool branch = true;
  std::string ref;
  bool allow_fast_forward = false;
  bool allow_cherry_pick = false;
  bool allow_rollback = false;

  // "branch 'main' is protected (allows fast-forward)", "tag 'v1' is locked".
  std::string Describe() const;
  std::string PropertyKey() const;
  std::string PropertyValue() const;
};

// The rules `metadata`'s properties state; a malformed value protects the ref with nothing
// allowed (the safe reading).
std::vector<ProtectionRule> ProtectionRules(const spec::TableMetadata& metadata);
std::optional<ProtectionRule> FindProtectionRule(const spec::TableMetadata& metadata, bool branch,
                                                 const std::string& ref);

// The first change from `base` to `updated` that a rule of `base` forbids, as an error that
// names the table, the ref, the move and the rule; OK when every rule allows the change.
Status CheckProtection(const std::string& table_name, const spec::TableMetadata& base,
                       const spec::TableMetadata& updated);

// Whether a ref moved against its rule between two metadata files (for changes made by other
// engines, which floe cannot stop): the same words as CheckProtection.
std::vector<std::string> ProtectionViolations(const std::string& table_name,
                                              const spec::TableMetadata& base,
                                              const spec::TableMetadata& updated);

// Snapshots an expiry is asked for by id that a locked tag reaches: `Cannot expire snapshot
// <id>: tag '<name>' is locked and reaches it (...)`.
Status CheckExpiryProtection(const spec::TableMetadata& metadata,
                             const std::vector<int64_t>& snapshot_ids);

// Records in the audit log that a change of `table` (at its current metadata) was refused
// for `why`: a row of kind `refused` that moves nothing. The refusal stands whether or not the
// row could be written.
void RecordRefusal(Table& table, const Status& why);

// Changes in the audit log that moved a protected ref against the rule it had then: those of
// engines that commit to the catalog directly, which floe cannot stop. One line each, oldest
// first: "audit log entry <seq> (<client>): Cannot ...". Empty without an audit log. The log
// is read `page_size` rows at a time.
Result<std::vector<std::string>> AuditedProtectionViolations(Table& table,
                                                             int64_t page_size = 500);

// Writes or removes a rule (an audit-log row of kind `protection`). The ref must exist to be
// protected: `Cannot protect branch 'x' of <table>: it does not exist`.
Status SetProtection(Table& table, const ProtectionRule& rule);
Status RemoveProtection(Table& table, bool branch, const std::string& ref, bool if_exists = false);

}  // namespace floe::table
