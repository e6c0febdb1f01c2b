#include "floe/spec/table_metadata.h"

#include <charconv>

namespace floe::spec {

SchemaPtr TableMetadata::SchemaById(int32_t schema_id) const {
  for (const auto& s : schemas) {
    if (s && s->schema_id() == schema_id) return s;
  }
  return nullptr;
}

const PartitionSpec* TableMetadata::SpecById(int32_t spec_id) const {
  for (const auto& s : partition_specs) {
    if (s.spec_id() == spec_id) return &s;
  }
  return nullptr;
}

const SortOrder* TableMetadata::SortOrderById(int32_t order_id) const {
  for (const auto& o : sort_orders) {
    if (o.order_id == order_id) return &o;
  }
  return nullptr;
}

void TableMetadata::IndexSnapshots() {
  snapshot_index.clear();
  snapshot_index.reserve(snapshots.size());
  for (size_t i = 0; i < snapshots.size(); ++i) {
    snapshot_index.emplace(snapshots[i].snapshot_id, i);
  }
}

const Snapshot* TableMetadata::SnapshotById(int64_t snapshot_id) const {
  auto found = snapshot_index.find(snapshot_id);
  if (found != snapshot_index.end() && found->second < snapshots.size() &&
      snapshots[found->second].snapshot_id == snapshot_id) {
    return &snapshots[found->second];
  }
  // Recent snapshots are looked up most, so scan from the back.
  for (auto it = snapshots.rbegin(); it != snapshots.rend(); ++it) {
    if (it->snapshot_id == snapshot_id) return &*it;
  }
  return nullptr;
}

const Snapshot* TableMetadata::current_snapshot() const {
  if (!current_snapshot_id) return nullptr;
  return SnapshotById(*current_snapshot_id);
}

std::string TableMetadata::Property(const std::string& key, const std::string& fallback) const {
  auto it = properties.find(key);
  return it == properties.end() ? fallback : it->second;
}

int64_t TableMetadata::PropertyAsInt(const std::string& key, int64_t fallback) const {
  auto it = properties.find(key);
  if (it == properties.end()) return fallback;
  const std::string& text = it->second;
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  // An unparsable value behaves as unset rather than failing every reader of the table.
  if (ec != std::errc() || ptr != text.data() + text.size()) return fallback;
  return value;
}

bool TableMetadata::operator==(const TableMetadata& other) const {
  if (schemas.size() != other.schemas.size()) return false;
  for (size_t i = 0; i < schemas.size(); ++i) {
    const auto& a = schemas[i];
    const auto& b = other.schemas[i];
    if (a == b) continue;
    if (!a || !b || !a->Equals(*b)) return false;
  }
  return format_version == other.format_version && table_uuid == other.table_uuid &&
         location == other.location && last_sequence_number == other.last_sequence_number &&
         last_updated_ms == other.last_updated_ms && last_column_id == other.last_column_id &&
         current_schema_id == other.current_schema_id && partition_specs == other.partition_specs &&
         default_spec_id == other.default_spec_id && last_partition_id == other.last_partition_id &&
         properties == other.properties && current_snapshot_id == other.current_snapshot_id &&
         snapshots == other.snapshots && snapshot_log == other.snapshot_log &&
         metadata_log == other.metadata_log && sort_orders == other.sort_orders &&
         default_sort_order_id == other.default_sort_order_id && refs == other.refs &&
         statistics == other.statistics && partition_statistics == other.partition_statistics &&
         next_row_id == other.next_row_id && encryption_keys_json == other.encryption_keys_json;
}

}  // namespace floe::spec
