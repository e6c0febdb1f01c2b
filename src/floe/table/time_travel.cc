#include "floe/table/time_travel.h"

#include <charconv>
#include <unordered_set>

#include "floe/util/time_zone.h"

namespace floe::table {

namespace {

Result<ResolvedSnapshot> AtSnapshot(const spec::TableMetadataPtr& md, const spec::Snapshot* snap) {
  ResolvedSnapshot out;
  out.metadata = md;
  out.snapshot = snap;
  ARROW_ASSIGN_OR_RAISE(out.schema, SchemaForSnapshot(*md, snap->snapshot_id));
  return out;
}

Result<ResolvedSnapshot> AtBranch(const spec::TableMetadataPtr& md, const std::string& name,
                                  const spec::SnapshotRef& ref) {
  const spec::Snapshot* snap = md->SnapshotById(ref.snapshot_id);
  if (!snap) {
    return Status::Invalid("Ref ", name, " points to missing snapshot ", ref.snapshot_id);
  }
  ResolvedSnapshot out;
  out.metadata = md;
  out.snapshot = snap;
  out.schema = md->current_schema();
  out.branch = name;
  if (!out.schema) return Status::Invalid("Table has no current schema");
  return out;
}

Result<ResolvedSnapshot> AtTag(const spec::TableMetadataPtr& md, const std::string& name,
                               const spec::SnapshotRef& ref) {
  const spec::Snapshot* snap = md->SnapshotById(ref.snapshot_id);
  if (!snap) {
    return Status::Invalid("Ref ", name, " points to missing snapshot ", ref.snapshot_id);
  }
  return AtSnapshot(md, snap);
}

Result<ResolvedSnapshot> AtCurrent(const spec::TableMetadataPtr& md) {
  ResolvedSnapshot out;
  out.metadata = md;
  out.snapshot = md->current_snapshot();
  out.schema = md->current_schema();
  out.branch = spec::kMainBranch;
  if (!out.schema) return Status::Invalid("Table has no current schema");
  return out;
}

Result<ResolvedSnapshot> AtRef(const spec::TableMetadataPtr& md, const std::string& name,
                               const spec::SnapshotRef& ref) {
  return ref.is_branch() ? AtBranch(md, name, ref) : AtTag(md, name, ref);
}

}  // namespace

Result<spec::SchemaPtr> SchemaForSnapshot(const spec::TableMetadata& md, int64_t snapshot_id) {
  const spec::Snapshot* snap = md.SnapshotById(snapshot_id);
  if (!snap) return NotFound("Cannot find snapshot with ID ", snapshot_id);
  if (snap->schema_id) {
    spec::SchemaPtr schema = md.SchemaById(*snap->schema_id);
    if (!schema) return Status::Invalid("Cannot find schema with schema id ", *snap->schema_id);
    return schema;
  }
  spec::SchemaPtr schema = md.current_schema();
  if (!schema) return Status::Invalid("Table has no current schema");
  return schema;
}

Result<ResolvedSnapshot> ResolveTimeTravel(const spec::TableMetadataPtr& md,
                                           const TimeTravelSpec& spec) {
  std::vector<const char*> given;
  if (spec.snapshot_id) given.push_back("snapshot id");
  if (spec.as_of_timestamp_ms) given.push_back("timestamp");
  if (spec.tag) given.push_back("tag");
  if (spec.branch) given.push_back("branch");
  if (spec.ref) given.push_back("ref");
  if (given.size() > 1) {
    return ValidationError(
        "Cannot time-travel by more than one of snapshot id, timestamp, tag, branch or ref (got ",
        given[0], " and ", given[1], ")");
  }
  if (spec.snapshot_id) {
    const spec::Snapshot* snap = md->SnapshotById(*spec.snapshot_id);
    if (!snap) return NotFound("Cannot find snapshot with ID ", *spec.snapshot_id);
    return AtSnapshot(md, snap);
  }
  if (spec.as_of_timestamp_ms) {
    ARROW_ASSIGN_OR_RAISE(int64_t id, SnapshotIdAsOfTime(*md, *spec.as_of_timestamp_ms));
    const spec::Snapshot* snap = md->SnapshotById(id);
    if (!snap) {
      return Status::Invalid("Snapshot log entry points to missing snapshot ", id);
    }
    return AtSnapshot(md, snap);
  }
  if (spec.tag) {
    auto it = md->refs.find(*spec.tag);
    if (it == md->refs.end()) {
      return NotFound("Cannot find snapshot associated with tag name: ", *spec.tag);
    }
    if (it->second.is_branch()) return ValidationError("Ref ", *spec.tag, " is a branch not a tag");
    return AtTag(md, it->first, it->second);
  }
  if (spec.branch) {
    auto it = md->refs.find(*spec.branch);
    if (it == md->refs.end()) {
      return NotFound("Cannot use branch (does not exist): ", *spec.branch);
    }
    if (!it->second.is_branch()) {
      return ValidationError("Ref ", *spec.branch, " is a tag not a branch");
    }
    return AtBranch(md, it->first, it->second);
  }
  if (spec.ref) {
    auto it = md->refs.find(*spec.ref);
    if (it == md->refs.end()) return NotFound("Cannot find ref ", *spec.ref);
    return AtRef(md, it->first, it->second);
  }
  return AtCurrent(md);
}

Result<ResolvedSnapshot> ResolveTimeTravel(const Table& table, const TimeTravelSpec& spec) {
  auto resolved = ResolveTimeTravel(table.metadata(), spec);
  if (!resolved.ok() && KindOf(resolved.status()) == ErrorKind::kOther) {
    return WithContext(resolved.status(), "Table " + table.name());
  }
  return resolved;
}

Result<ResolvedSnapshot> ResolveVersion(const spec::TableMetadataPtr& md,
                                        std::string_view version) {
  int64_t id = 0;
  const char* end = version.data() + version.size();
  auto [ptr, ec] = std::from_chars(version.data(), end, id);
  if (!version.empty() && ec == std::errc() && ptr == end) {
    if (const spec::Snapshot* snap = md->SnapshotById(id)) return AtSnapshot(md, snap);
  }
  auto it = md->refs.find(std::string(version));
  if (it != md->refs.end()) return AtRef(md, it->first, it->second);
  return NotFound("Cannot find matching snapshot ID or reference name for version ", version);
}

Result<ResolvedSnapshot> ResolveVersion(const spec::TableMetadataPtr& md, int64_t snapshot_id) {
  const spec::Snapshot* snap = md->SnapshotById(snapshot_id);
  if (!snap) {
    return NotFound("Cannot find matching snapshot ID or reference name for version ", snapshot_id);
  }
  return AtSnapshot(md, snap);
}

std::optional<int64_t> NullableSnapshotIdAsOfTime(const spec::TableMetadata& md,
                                                  int64_t timestamp_ms) {
  std::optional<int64_t> id;
  int64_t best = 0;
  for (const auto& e : md.snapshot_log) {
    if (e.timestamp_ms <= timestamp_ms && (!id || e.timestamp_ms > best)) {
      id = e.snapshot_id;
      best = e.timestamp_ms;
    }
  }
  return id;
}

Result<int64_t> SnapshotIdAsOfTime(const spec::TableMetadata& md, int64_t timestamp_ms) {
  auto id = NullableSnapshotIdAsOfTime(md, timestamp_ms);
  if (!id) return NotFound("Cannot find a snapshot older than ", FormatMillisIso(timestamp_ms));
  return *id;
}

Result<int64_t> ResolveSnapshotAsOf(const spec::TableMetadata& md, int64_t timestamp_ms) {
  if (!md.current_snapshot()) return NotFound("Table has no current snapshot");
  std::unordered_set<int64_t> ancestors;
  for (const spec::Snapshot* s : CurrentAncestors(md)) ancestors.insert(s->snapshot_id);
  std::optional<int64_t> id;
  int64_t best = 0;
  for (const auto& e : md.snapshot_log) {
    if (e.timestamp_ms <= timestamp_ms && (!id || e.timestamp_ms >= best) &&
        ancestors.count(e.snapshot_id)) {
      id = e.snapshot_id;
      best = e.timestamp_ms;
    }
  }
  if (!id) return NotFound("Cannot find a snapshot older than ", FormatMillisIso(timestamp_ms));
  return *id;
}

Result<int64_t> ResolveSnapshotAsOf(const Table& table, int64_t timestamp_ms) {
  auto md = table.metadata();
  if (!md->current_snapshot()) return NotFound("Table ", table.name(), " has no snapshots");
  return ResolveSnapshotAsOf(*md, timestamp_ms);
}

std::vector<const spec::Snapshot*> AncestorsBetween(const spec::TableMetadata& md,
                                                    int64_t to_inclusive,
                                                    std::optional<int64_t> from_exclusive) {
  std::vector<const spec::Snapshot*> out;
  const spec::Snapshot* s = md.SnapshotById(to_inclusive);
  // Parent chains are acyclic in valid metadata; the bound guards against damaged files.
  size_t limit = md.snapshots.size();
  while (s && out.size() <= limit) {
    if (from_exclusive && s->snapshot_id == *from_exclusive) break;
    out.push_back(s);
    if (!s->parent_snapshot_id) break;
    s = md.SnapshotById(*s->parent_snapshot_id);
  }
  return out;
}

std::vector<const spec::Snapshot*> AncestorsOf(const spec::TableMetadata& md, int64_t snapshot_id) {
  return AncestorsBetween(md, snapshot_id, std::nullopt);
}

std::vector<const spec::Snapshot*> CurrentAncestors(const spec::TableMetadata& md) {
  if (!md.current_snapshot_id) return {};
  return AncestorsOf(md, *md.current_snapshot_id);
}

bool IsAncestorOf(const spec::TableMetadata& md, int64_t snapshot_id, int64_t ancestor_id) {
  for (const spec::Snapshot* s : AncestorsOf(md, snapshot_id)) {
    if (s->snapshot_id == ancestor_id) return true;
  }
  return false;
}

std::map<std::string, spec::SnapshotRef> RefsWithMain(const spec::TableMetadata& md) {
  std::map<std::string, spec::SnapshotRef> refs = md.refs;
  if (!refs.count(spec::kMainBranch) && md.current_snapshot_id) {
    spec::SnapshotRef main;
    main.snapshot_id = *md.current_snapshot_id;
    refs.emplace(spec::kMainBranch, main);
  }
  return refs;
}

bool IsCurrentAncestor(const spec::TableMetadata& md, int64_t snapshot_id) {
  return md.current_snapshot_id && IsAncestorOf(md, *md.current_snapshot_id, snapshot_id);
}

bool IsParentAncestorOf(const spec::TableMetadata& md, int64_t snapshot_id,
                        int64_t ancestor_parent_id) {
  for (const spec::Snapshot* s : AncestorsOf(md, snapshot_id)) {
    if (s->parent_snapshot_id && *s->parent_snapshot_id == ancestor_parent_id) return true;
  }
  return false;
}

}  // namespace floe::table
