#include "floe/table/row_level_writes.h"

namespace floe::table {

Status CheckRowLevelWrites(const Table& table, std::string_view statement) {
  const int32_t version = table.metadata()->format_version;
  if (version < 3) return Status::OK();
  return Status::NotImplemented("Cannot ", statement, " ", table.name(), ": it is a format-version ", version,
                                " table, and floe does not yet write row-level changes to v3 tables (deletion "
                                "vectors, row lineage); appends, overwrites and deletes of whole files work");
}

}  // namespace floe::table
