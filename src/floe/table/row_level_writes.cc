#include "floe/table/row_level_writes.h"

namespace floe::table {

bool CarriesRowLineage(const spec::TableMetadata& metadata) { return metadata.format_version >= 3; }

Status CheckRowLevelWrites(const Table& table, std::string_view statement, bool merge_on_read) {
  const int32_t version = table.metadata()->format_version;
  if (version < 3 || !merge_on_read) return Status::OK();
  return Status::NotImplemented("Cannot ", statement, " ", table.name(), ": it is a format-version ", version,
                                " table, and floe does not yet write merge-on-read changes to v3 tables (deletion "
                                "vectors); copy-on-write changes, appends and overwrites work");
}

Result<std::unique_ptr<RollingDataWriter>> MakeRowLevelWriter(const Table& table) {
  auto md = table.metadata();
  ARROW_ASSIGN_OR_RAISE(auto options, RollingWriterOptions::FromProperties(md->properties));
  options.row_lineage = CarriesRowLineage(*md);
  return RollingDataWriter::Make(table, options);
}

}  // namespace floe::table
