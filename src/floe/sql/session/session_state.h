#pragma once

// What a session remembers between statements: its catalog, the tables it loaded, the current
// namespace and the settings made with SET.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/io/file_io.h"
#include "floe/sql/execute/statement_cancel.h"
#include "floe/sql/session/transaction_block.h"
#include "floe/table/table_catalog.h"
#include "floe/util/memory_limit.h"

namespace floe::sql {

inline constexpr char kTimeZoneKey[] = "spark.sql.session.timeZone";
inline constexpr char kOverwriteModeKey[] = "spark.sql.sources.partitionOverwriteMode";
inline constexpr char kWapBranchKey[] = "spark.wap.branch";
// The most memory one statement of the session may hold (a size such as 4GB); the process's
// own limit holds besides.
inline constexpr char kMemoryLimitKey[] = "floe.memory_limit";

// A view create_changelog_view made: the changes of a table, read afresh at each query (a
// range without an end reaches later commits too).
struct ChangelogView {
  TableIdentifier table;
  std::vector<std::pair<std::string, std::string>> read_options;
  std::vector<std::string> identifier_columns;
  bool compute_updates = false;
  bool net_changes = false;
};

struct SessionState {
  SessionState(std::shared_ptr<Catalog> catalog, std::shared_ptr<FileIO> io);

  std::string Setting(const std::string& key, const std::string& fallback) const;
  // Checks the values it knows (a time zone must exist) before storing.
  Status SetSetting(const std::string& key, const std::string& value);
  // Forgets one setting, or all; the time zone falls back to UTC.
  void ResetSetting(const std::optional<std::string>& key);
  std::string TimeZone() const;

  std::shared_ptr<Catalog> catalog;
  std::shared_ptr<FileIO> io;
  table::TableCatalog tables;
  // Recorded in every snapshot the session commits; the statement is set as each runs.
  std::shared_ptr<table::CommitProvenance> provenance;
  Namespace current_namespace;
  std::map<std::string, std::string> settings;
  // By lower-case name; a query names one as it names a table, without a namespace.
  std::map<std::string, ChangelogView> changelog_views;
  // Set by Session::Cancel; scans and result readers stop when it is.
  std::shared_ptr<StatementCancel> cancel = std::make_shared<StatementCancel>();
  // Where the session's statements allocate; its limit is floe.memory_limit.
  std::shared_ptr<SessionMemoryPool> memory = SessionMemoryPool::Make();
  // BEGIN ... COMMIT. Last, so that it ends (rolls back) before the tables it holds go.
  TransactionBlock transaction{tables};
};

}  // namespace floe::sql
