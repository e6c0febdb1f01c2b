#include "floe/table/row_level_writes.h"

namespace floe::table {

bool CarriesRowLineage(const spec::TableMetadata& metadata) { return metadata.format_version >= 3; }

Result<std::unique_ptr<RollingDataWriter>> MakeRowLevelWriter(const Table& table) {
  auto md = table.metadata();
  ARROW_ASSIGN_OR_RAISE(auto options, RollingWriterOptions::FromProperties(md->properties));
  options.row_lineage = CarriesRowLineage(*md);
  return RollingDataWriter::Make(table, options);
}

}  // namespace floe::table
