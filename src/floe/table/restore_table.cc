#include "floe/table/restore_table.h"

#include <algorithm>
#include <map>
#include <set>

#include "floe/catalog/audit_log.h"
#include "floe/table/commit.h"
#include "floe/table/metadata_files.h"
#include "floe/table/protection.h"
#include "floe/table/table_metadata_builder.h"
#include "floe/table/time_travel.h"
#include "floe/util/clock.h"

namespace floe::table {

namespace {

std::string SnapshotText(const std::optional<int64_t>& id) {
  return id ? std::to_string(*id) : "none";
}

std::string ColumnList(const spec::SchemaPtr& schema) {
  std::string out = "(";
  if (schema) {
    for (const auto& f : schema->fields()) out += (out.size() > 1 ? ", " : "") + f.name;
  }
  return out + ")";
}

// The table's metadata files, oldest first, ending with the current one.
std::vector<spec::MetadataLogEntry> MetadataChain(const Table& table) {
  auto md = table.metadata();
  std::vector<spec::MetadataLogEntry> chain = md->metadata_log;
  chain.push_back({md->last_updated_ms, table.metadata_location()});
  return chain;
}

// The snapshots `want` has that are newer than any of `base` (its pointer was moved back to
// an older metadata file), added back oldest first with the schemas and specs they use.
Status AddNewerSnapshots(const Table& table, const spec::TableMetadata& base,
                         const spec::TableMetadata& want, TableMetadataBuilder* b) {
  std::vector<spec::Snapshot> newer;
  for (const auto& s : want.snapshots) {
    if (!base.SnapshotById(s.snapshot_id) && s.sequence_number > base.last_sequence_number)
      newer.push_back(s);
  }
  if (newer.empty()) return Status::OK();
  // Their manifests name partition specs by id: those must keep their ids.
  for (const auto& spec : want.partition_specs) {
    if (base.SpecById(spec.spec_id())) continue;
    ARROW_ASSIGN_OR_RAISE(int32_t id, b->AddPartitionSpec(spec));
    if (id != spec.spec_id()) {
      return ValidationError("Cannot restore ", table.name(), ": partition spec ", spec.spec_id(),
                             " of the restored state would become spec ", id);
    }
  }
  std::sort(newer.begin(), newer.end(),
            [](const auto& x, const auto& y) { return x.sequence_number < y.sequence_number; });
  for (auto& s : newer) {
    if (s.schema_id) {
      if (spec::SchemaPtr schema = want.SchemaById(*s.schema_id)) {
        ARROW_ASSIGN_OR_RAISE(int32_t id, b->AddSchema(*schema));
        s.schema_id = id;  // the same columns, under the id the table gives them
      }
    }
    ARROW_RETURN_NOT_OK(b->AddSnapshot(std::move(s)));
  }
  return Status::OK();
}

}  // namespace

Result<RestoreTarget> ResolveRestorePoint(Table& table, const RestorePoint& point) {
  const int given = point.metadata_file.has_value() + point.snapshot_id.has_value() +
                    point.timestamp_ms.has_value() + point.audit_seq.has_value();
  if (given != 1) {
    return Status::Invalid(
        "Cannot restore ", table.name(),
        ": give exactly one of metadata_file, snapshot_id, timestamp and audit_seq");
  }
  ARROW_RETURN_NOT_OK(table.Refresh());
  const spec::TableMetadataPtr current = table.metadata();
  const std::vector<spec::MetadataLogEntry> chain = MetadataChain(table);
  RestoreTarget target;
  auto fail = [&](const std::string& why) {
    return ValidationError("Cannot restore ", table.name(), " to ", target.point, ": ", why);
  };
  // The metadata files of the table, from newest back, read when they are asked for.
  auto read = [&](const std::string& location) -> Result<spec::TableMetadataPtr> {
    if (location == table.metadata_location()) return current;
    return ReadMetadataFile(*table.io(), location);
  };

  if (point.metadata_file) {
    target.point = "metadata file " + *point.metadata_file;
    bool known = std::any_of(chain.begin(), chain.end(), [&](const auto& e) {
      return e.metadata_file == *point.metadata_file;
    });
    if (!known && table.catalog()->HasAuditLog()) {
      AuditQuery query;
      query.table = table.ident();
      ARROW_ASSIGN_OR_RAISE(auto entries, table.catalog()->ReadAuditLog(query));
      for (const auto& e : entries) {
        known = known || e.metadata_location == point.metadata_file ||
                e.previous_metadata_location == point.metadata_file;
      }
    }
    if (!known)
      return fail("it is not one of the table's metadata files (its metadata log or audit log)");
    target.metadata_file = *point.metadata_file;
  } else if (point.snapshot_id) {
    target.point = "snapshot " + std::to_string(*point.snapshot_id);
    if (!current->SnapshotById(*point.snapshot_id)) {
      return fail("the table has no such snapshot (never made, or expired)");
    }
    for (auto it = chain.rbegin(); it != chain.rend() && target.metadata_file.empty(); ++it) {
      auto md = read(it->metadata_file);
      // A metadata file that is gone cannot be restored; an older one may still say.
      if (md.ok() && (*md)->current_snapshot_id == point.snapshot_id)
        target.metadata_file = it->metadata_file;
    }
    if (target.metadata_file.empty()) {
      return fail(
          "no metadata file of its log had it as the current snapshot (set_current_snapshot makes "
          "any "
          "snapshot current)");
    }
  } else if (point.timestamp_ms) {
    target.point = FormatMillisUtc(*point.timestamp_ms) + " UTC";
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      if (it->timestamp_ms <= *point.timestamp_ms) {
        target.metadata_file = it->metadata_file;
        break;
      }
    }
    if (target.metadata_file.empty()) {
      return fail("its metadata log starts later, at " +
                  FormatMillisUtc(chain.front().timestamp_ms) + " UTC");
    }
  } else {
    target.point = "audit log entry " + std::to_string(*point.audit_seq);
    if (!table.catalog()->HasAuditLog()) return fail(table.catalog()->NoAuditLog());
    AuditQuery query;
    query.seq = *point.audit_seq;
    ARROW_ASSIGN_OR_RAISE(auto entries, table.catalog()->ReadAuditLog(query));
    // Changes made under an earlier name count when they are in the table's own chain.
    auto in_chain = [&](const std::optional<std::string>& location) {
      return location && std::any_of(chain.begin(), chain.end(),
                                     [&](const auto& e) { return e.metadata_file == *location; });
    };
    if (entries.empty() ||
        (entries[0].ident != table.ident() && !in_chain(entries[0].metadata_location))) {
      return fail("the audit log has no such entry for this table");
    }
    if (!entries[0].metadata_location) return fail("that change dropped the table");
    target.metadata_file = *entries[0].metadata_location;
  }

  auto md = read(target.metadata_file);
  if (!md.ok()) return fail(md.status().message());
  target.metadata = *md;
  if (target.metadata->table_uuid != current->table_uuid) {
    return fail("the metadata file belongs to another table (uuid " + target.metadata->table_uuid +
                ")");
  }
  for (const auto& [name, ref] : RefsWithMain(*target.metadata)) {
    if (current->SnapshotById(ref.snapshot_id)) continue;
    // A snapshot newer than any the table knows now comes back with the restore (the pointer
    // was moved back to an older metadata file); an older one was expired.
    const spec::Snapshot* s = target.metadata->SnapshotById(ref.snapshot_id);
    if (!s || s->sequence_number <= current->last_sequence_number) {
      return fail(StrCat("snapshot ", ref.snapshot_id, " of ",
                         ref.is_branch() ? "branch '" : "tag '", name, "' has expired"));
    }
  }
  if (!target.metadata->current_schema()) return fail("the metadata file has no current schema");
  return target;
}

Result<RestoreResult> RestoreTable(Table& table, const RestorePoint& point) {
  ARROW_ASSIGN_OR_RAISE(RestoreTarget target, ResolveRestorePoint(table, point));
  RestoreResult result;
  result.restored_metadata_file = target.metadata_file;
  result.previous_snapshot_id = table.metadata()->current_snapshot_id;
  const spec::TableMetadata& want = *target.metadata;
  AuditNote note{audit_kind::kRestore,
                 "restored to " + target.point + " (" + target.metadata_file + ")"};
  Status st = Commit(
      table,
      [&](const spec::TableMetadataPtr& base,
          std::vector<std::string>*) -> Result<std::shared_ptr<spec::TableMetadata>> {
        TableMetadataBuilder b(base);
        ARROW_RETURN_NOT_OK(AddNewerSnapshots(table, *base, want, &b));
        ARROW_ASSIGN_OR_RAISE(int32_t schema_id, b.AddSchema(*want.current_schema()));
        ARROW_RETURN_NOT_OK(b.SetCurrentSchema(schema_id));
        if (const spec::PartitionSpec* spec = want.default_spec()) {
          ARROW_ASSIGN_OR_RAISE(int32_t spec_id, b.AddPartitionSpec(*spec));
          ARROW_RETURN_NOT_OK(b.SetDefaultPartitionSpec(spec_id));
        }
        if (const spec::SortOrder* order = want.SortOrderById(want.default_sort_order_id)) {
          ARROW_ASSIGN_OR_RAISE(int32_t order_id, b.AddSortOrder(*order));
          ARROW_RETURN_NOT_OK(b.SetDefaultSortOrder(order_id));
        }
        // A restore never lifts or loosens a protection rule (that takes UNSET PROTECTION);
        // it puts back a rule the table no longer has.
        std::map<std::string, std::string> set;
        std::set<std::string> unset;
        for (const auto& [key, value] : want.properties) {
          auto it = base->properties.find(key);
          if (IsProtectionProperty(key) && it != base->properties.end()) continue;
          if (it == base->properties.end() || it->second != value) set[key] = value;
        }
        for (const auto& [key, value] : base->properties) {
          if (!IsProtectionProperty(key) && !want.properties.count(key)) unset.insert(key);
        }
        if (!set.empty()) b.SetProperties(set);
        if (!unset.empty()) b.RemoveProperties(unset);
        const auto want_refs = RefsWithMain(want);
        for (const auto& [name, ref] : RefsWithMain(*base)) {
          if (!want_refs.count(name)) b.RemoveRef(name);
        }
        for (const auto& [name, ref] : want_refs) {
          auto it = base->refs.find(name);
          if (it == base->refs.end() || !(it->second == ref))
            ARROW_RETURN_NOT_OK(b.SetRef(name, ref));
        }
        if (!b.changed()) return std::shared_ptr<spec::TableMetadata>();
        return b.Build();
      },
      note);
  ARROW_RETURN_NOT_OK(st);
  result.current_snapshot_id = table.metadata()->current_snapshot_id;
  return result;
}

std::vector<std::string> DescribeRestore(const spec::TableMetadata& current,
                                         const spec::TableMetadata& target) {
  std::vector<std::string> out;
  if (current.current_snapshot_id != target.current_snapshot_id) {
    out.push_back("current snapshot: " + SnapshotText(current.current_snapshot_id) + " -> " +
                  SnapshotText(target.current_snapshot_id));
  }
  const spec::SchemaPtr from = current.current_schema(), to = target.current_schema();
  if (from && to && !from->SameStructure(*to)) {
    out.push_back("schema: columns " + ColumnList(from) + " -> " + ColumnList(to));
  }
  const spec::PartitionSpec* from_spec = current.default_spec();
  const spec::PartitionSpec* to_spec = target.default_spec();
  if (from_spec && to_spec && !(from_spec->fields() == to_spec->fields())) {
    out.push_back(StrCat("partition spec: ", spec::PartitionFieldsToJson(*from_spec), " -> ",
                         spec::PartitionFieldsToJson(*to_spec)));
  }
  const spec::SortOrder* from_order = current.SortOrderById(current.default_sort_order_id);
  const spec::SortOrder* to_order = target.SortOrderById(target.default_sort_order_id);
  if (from_order && to_order && !(from_order->fields == to_order->fields)) {
    out.push_back(StrCat("sort order: ", current.default_sort_order_id, " -> ",
                         target.default_sort_order_id));
  }
  std::set<std::string> keys;
  for (const auto& [k, v] : current.properties) keys.insert(k);
  for (const auto& [k, v] : target.properties) keys.insert(k);
  for (const auto& key : keys) {
    auto a = current.properties.find(key);
    auto b = target.properties.find(key);
    if (IsProtectionProperty(key) && a != current.properties.end()) continue;  // kept as it is
    std::string was = a == current.properties.end() ? "(unset)" : a->second;
    std::string now = b == target.properties.end() ? "(unset)" : b->second;
    if (was != now) out.push_back("property " + key + ": " + was + " -> " + now);
  }
  const auto from_refs = RefsWithMain(current), to_refs = RefsWithMain(target);
  std::set<std::string> names;
  for (const auto& [name, ref] : from_refs) names.insert(name);
  for (const auto& [name, ref] : to_refs) names.insert(name);
  for (const auto& name : names) {
    if (name == spec::kMainBranch) continue;  // the current snapshot, above
    auto a = from_refs.find(name);
    auto b = to_refs.find(name);
    const spec::SnapshotRef& any = a != from_refs.end() ? a->second : b->second;
    std::string was = a == from_refs.end() ? "(none)" : std::to_string(a->second.snapshot_id);
    std::string now = b == to_refs.end() ? "(dropped)" : std::to_string(b->second.snapshot_id);
    if (was != now || (a != from_refs.end() && b != to_refs.end() && !(a->second == b->second))) {
      out.push_back(StrCat(any.is_branch() ? "branch " : "tag ", name, ": ", was, " -> ", now));
    }
  }
  return out;
}

}  // namespace floe::table
