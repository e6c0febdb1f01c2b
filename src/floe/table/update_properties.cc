#include "floe/table/update_properties.h"

#include "floe/table/commit.h"
#include "floe/table/metadata_update.h"
#include "floe/table/table_metadata_builder.h"

namespace floe::table {

namespace {

Status Apply(const Table& table, const PropertyUpdates& updates, TableMetadataBuilder& builder,
             bool* missing_key) {
  for (const auto& key : updates.remove) {
    if (!updates.ignore_missing && !builder.current().properties.count(key)) {
      if (missing_key) *missing_key = true;
      return ValidationError("[UNSET_NONEXISTENT_PROPERTIES] Attempted to unset non-existent properties [`",
                             key, "`] in table ", table.name(), ".");
    }
  }
  if (updates.format_version) {
    ARROW_RETURN_NOT_OK(builder.UpgradeFormatVersion(*updates.format_version, kMaxWritableFormatVersion));
  }
  builder.SetProperties(updates.set);
  builder.RemoveProperties(updates.remove);
  return Status::OK();
}

}  // namespace

Status UpdateProperties(Table& table, const PropertyUpdates& updates, bool* missing_key) {
  if (missing_key) *missing_key = false;
  for (const auto& key : updates.remove) {
    if (updates.set.count(key)) return ValidationError("Cannot remove and update the same key: ", key);
  }
  return CommitUpdate(table, [&](TableMetadataBuilder& builder, std::vector<std::string>*) {
    return Apply(table, updates, builder, missing_key);
  });
}

}  // namespace floe::table
