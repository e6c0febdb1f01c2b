#pragma once

// Setting and removing table properties (ALTER TABLE ... SET/UNSET TBLPROPERTIES).

#include <map>
#include <optional>
#include <set>
#include <string>

#include "floe/table/table.h"

namespace floe::table {

struct PropertyUpdates {
  std::map<std::string, std::string> set;
  std::set<std::string> remove;
  // Removing a property the table does not have is an error unless this is set:
  // `[UNSET_NONEXISTENT_PROPERTIES] Attempted to unset non-existent properties [`<key>`] in
  // table <table>.` (Spark's message).
  bool ignore_missing = false;
  // 'format-version' is the table's own, not a stored property: set, it upgrades the table in
  // the same commit (never downgrades).
  std::optional<int32_t> format_version = std::nullopt;
};

// One commit; a key both set and removed is refused (`Cannot remove and update the same
// key: <key>`, as Iceberg). The check for missing keys is made against the base the commit
// swaps in; `missing_key`, when given, says whether that check is what failed.
Status UpdateProperties(Table& table, const PropertyUpdates& updates, bool* missing_key = nullptr);

}  // namespace floe::table
