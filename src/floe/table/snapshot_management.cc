#include "floe/table/snapshot_management.h"

#include <algorithm>
#include <functional>

#include "floe/manifest/manifest_reader.h"
#include "floe/table/commit.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/table_metadata_builder.h"
#include "floe/table/time_travel.h"

namespace floe::table {

namespace {

using spec::SnapshotRef;
using spec::SnapshotRefType;
using spec::TableMetadata;

SnapshotRef MakeRef(int64_t snapshot_id, SnapshotRefType type = SnapshotRefType::kBranch) {
  SnapshotRef ref;
  ref.snapshot_id = snapshot_id;
  ref.type = type;
  return ref;
}

// One ref set (or removed, when `ref` is empty).
struct RefChange {
  std::string name;
  std::optional<SnapshotRef> ref;
};

// Computes the ref changes against a base; re-run on every commit attempt so the checks
// hold for the metadata actually swapped in.
using PlanFn = std::function<Result<std::vector<RefChange>>(const TableMetadata& base)>;

// The main ref as the metadata stands; v1 tables may have a current snapshot and no refs.
std::optional<SnapshotRef> MainRef(const TableMetadata& md) {
  auto it = md.refs.find(spec::kMainBranch);
  if (it != md.refs.end()) return it->second;
  if (md.current_snapshot_id) return MakeRef(*md.current_snapshot_id);
  return std::nullopt;
}

std::optional<SnapshotRef> FindRef(const TableMetadata& md, const std::string& name) {
  if (name == spec::kMainBranch) return MainRef(md);
  auto it = md.refs.find(name);
  if (it == md.refs.end()) return std::nullopt;
  return it->second;
}

// Drops changes that change nothing (Iceberg's builder treats them as no-ops).
std::vector<RefChange> Effective(const TableMetadata& base, std::vector<RefChange> changes) {
  std::vector<RefChange> out;
  for (auto& c : changes) {
    auto it = base.refs.find(c.name);
    const bool in_refs = it != base.refs.end();
    if (!c.ref && !in_refs) continue;
    if (c.ref && in_refs && it->second == *c.ref) continue;
    // v1 metadata without a main ref: main already points there.
    if (c.ref && !in_refs && c.name == spec::kMainBranch &&
        base.current_snapshot_id == c.ref->snapshot_id) {
      continue;
    }
    out.push_back(std::move(c));
  }
  return out;
}

Status CheckSnapshotExists(const TableMetadata& md, const std::string& name, int64_t id) {
  if (!md.SnapshotById(id)) {
    return ValidationError("Cannot set ", name, " to unknown snapshot: ", id);
  }
  return Status::OK();
}

Status ApplyChanges(TableMetadataBuilder& builder, const std::vector<RefChange>& changes) {
  for (const auto& c : changes) {
    if (c.ref) {
      ARROW_RETURN_NOT_OK(builder.SetRef(c.name, *c.ref));
    } else {
      builder.RemoveRef(c.name);
    }
  }
  return Status::OK();
}

// Plans against the loaded metadata; commits only when something changes.
Status CommitRefChanges(Table& table, const PlanFn& plan) {
  {
    auto base = table.metadata();
    ARROW_ASSIGN_OR_RAISE(auto changes, plan(*base));
    if (Effective(*base, std::move(changes)).empty()) return Status::OK();
  }
  return CommitUpdate(table, [&](TableMetadataBuilder& builder, std::vector<std::string>*) {
    const TableMetadata& base = builder.current();
    ARROW_ASSIGN_OR_RAISE(auto changes, plan(base));
    return ApplyChanges(builder, Effective(base, std::move(changes)));
  });
}

RefChange MoveMain(const TableMetadata& base, int64_t snapshot_id) {
  SnapshotRef ref = MainRef(base).value_or(SnapshotRef());
  ref.snapshot_id = snapshot_id;
  ref.type = SnapshotRefType::kBranch;
  return {spec::kMainBranch, ref};
}

// Runs a main-moving plan and reports Spark's previous/current columns.
Result<SetCurrentResult> MoveMainTo(
    Table& table, const std::function<Result<int64_t>(const TableMetadata&)>& target) {
  SetCurrentResult result;
  ARROW_RETURN_NOT_OK(
      CommitRefChanges(table, [&](const TableMetadata& base) -> Result<std::vector<RefChange>> {
        ARROW_ASSIGN_OR_RAISE(int64_t id, target(base));
        result.previous_snapshot_id = base.current_snapshot_id;
        result.current_snapshot_id = id;
        return std::vector<RefChange>{MoveMain(base, id)};
      }));
  return result;
}

Status CheckRetention(const RefOptions& o, bool tag) {
  if (tag && o.min_snapshots_to_keep) {
    return ValidationError("Tags do not support setting minSnapshotsToKeep");
  }
  if (tag && o.max_snapshot_age_ms) {
    return ValidationError("Tags do not support setting maxSnapshotAgeMs");
  }
  if (o.min_snapshots_to_keep && *o.min_snapshots_to_keep <= 0) {
    return ValidationError("Min snapshots to keep must be greater than 0");
  }
  if (o.max_snapshot_age_ms && *o.max_snapshot_age_ms <= 0) {
    return ValidationError("Max snapshot age must be greater than 0 ms");
  }
  if (o.max_ref_age_ms && *o.max_ref_age_ms <= 0) {
    return ValidationError("Max reference age must be greater than 0");
  }
  return Status::OK();
}

void ApplyRetention(const RefOptions& o, SnapshotRef* ref) {
  if (o.min_snapshots_to_keep) ref->min_snapshots_to_keep = o.min_snapshots_to_keep;
  if (o.max_snapshot_age_ms) ref->max_snapshot_age_ms = o.max_snapshot_age_ms;
  if (o.max_ref_age_ms) ref->max_ref_age_ms = o.max_ref_age_ms;
}

std::string SummaryValue(const spec::Snapshot& s, const std::string& key) {
  auto it = s.summary.find(key);
  return it == s.summary.end() ? std::string() : it->second;
}

// The data files `snapshot` added (Iceberg's Snapshot.addedDataFiles).
Result<std::vector<manifest::DataFile>> AddedDataFiles(FileIO& io, const TableMetadata& md,
                                                       const spec::Snapshot& snapshot) {
  std::vector<manifest::DataFile> out;
  ARROW_ASSIGN_OR_RAISE(auto manifests, manifest::ReadManifestList(io, snapshot.manifest_list));
  for (const auto& mf : manifests) {
    if (mf.content != manifest::ManifestContent::kData ||
        mf.added_snapshot_id != snapshot.snapshot_id) {
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto entries, manifest::ReadManifest(io, mf, md));
    for (auto& e : entries) {
      if (e.status == manifest::EntryStatus::kAdded &&
          e.snapshot_id.value_or(snapshot.snapshot_id) == snapshot.snapshot_id) {
        out.push_back(std::move(e.data_file));
      }
    }
  }
  return out;
}

bool IsFastForward(const TableMetadata& md, const spec::Snapshot& source) {
  if (md.current_snapshot_id) {
    return source.parent_snapshot_id && *source.parent_snapshot_id == *md.current_snapshot_id;
  }
  return !source.parent_snapshot_id;
}

Status ValidateWapPublish(const TableMetadata& md, const spec::Snapshot& source) {
  std::string wap_id = SummaryValue(source, "wap.id");
  if (wap_id.empty()) return Status::OK();
  for (const spec::Snapshot* s : CurrentAncestors(md)) {
    if (SummaryValue(*s, "published-wap-id") == wap_id) {
      return ValidationError("Duplicate request to cherry pick wap id that was published already: ",
                             wap_id);
    }
  }
  return Status::OK();
}

Status ValidateNonAncestor(const TableMetadata& md, int64_t snapshot_id) {
  const std::string id = std::to_string(snapshot_id);
  for (const spec::Snapshot* s : CurrentAncestors(md)) {
    if (s->snapshot_id == snapshot_id) {
      return ValidationError("Cannot cherrypick snapshot ", snapshot_id, ": already an ancestor");
    }
  }
  for (const spec::Snapshot* s : CurrentAncestors(md)) {
    if (SummaryValue(*s, "source-snapshot-id") == id) {
      return ValidationError("Cannot cherrypick snapshot ", snapshot_id,
                             ": already picked to create ancestor ", s->snapshot_id);
    }
  }
  return Status::OK();
}

Status NotPickable(int64_t id) {
  return ValidationError("Cannot cherry-pick snapshot ", id,
                         ": not append, dynamic overwrite, or fast-forward");
}

}  // namespace

Result<SetCurrentResult> RollbackToSnapshot(Table& table, int64_t snapshot_id) {
  return MoveMainTo(table, [snapshot_id](const TableMetadata& base) -> Result<int64_t> {
    if (!base.SnapshotById(snapshot_id)) {
      return ValidationError("Cannot roll back to unknown snapshot id: ", snapshot_id);
    }
    if (!IsCurrentAncestor(base, snapshot_id)) {
      return ValidationError("Cannot roll back to snapshot, not an ancestor of the current state: ",
                             snapshot_id);
    }
    return snapshot_id;
  });
}

Result<SetCurrentResult> RollbackToTimestamp(Table& table, int64_t timestamp_ms) {
  return MoveMainTo(table, [timestamp_ms](const TableMetadata& base) -> Result<int64_t> {
    const spec::Snapshot* best = nullptr;
    for (const spec::Snapshot* s : CurrentAncestors(base)) {
      if (s->timestamp_ms < timestamp_ms && (!best || s->timestamp_ms > best->timestamp_ms)) {
        best = s;
      }
    }
    if (!best) {
      return ValidationError("Cannot roll back, no valid snapshot older than: ", timestamp_ms);
    }
    return best->snapshot_id;
  });
}

Result<SetCurrentResult> SetCurrentSnapshot(Table& table, std::optional<int64_t> snapshot_id,
                                            std::optional<std::string> ref) {
  if (snapshot_id.has_value() == ref.has_value()) {
    return ValidationError("Either snapshot_id or ref must be provided, not both");
  }
  return MoveMainTo(table, [&](const TableMetadata& base) -> Result<int64_t> {
    int64_t id = 0;
    if (ref) {
      auto r = FindRef(base, *ref);
      if (!r) return ValidationError("Cannot find matching snapshot ID for ref ", *ref);
      id = r->snapshot_id;
    } else {
      id = *snapshot_id;
    }
    if (!base.SnapshotById(id)) {
      return ValidationError("Cannot roll back to unknown snapshot id: ", id);
    }
    return id;
  });
}

Result<CherrypickResult> CherrypickSnapshot(Table& table, int64_t snapshot_id) {
  CherrypickResult result{snapshot_id, 0};
  // The checks every attempt repeats against its base, in Iceberg's order.
  auto check_source = [snapshot_id](const TableMetadata& base) -> Result<const spec::Snapshot*> {
    const spec::Snapshot* source = base.SnapshotById(snapshot_id);
    if (!source) return ValidationError("Cannot cherry-pick unknown snapshot ID: ", snapshot_id);
    if (source->operation == "append") ARROW_RETURN_NOT_OK(ValidateWapPublish(base, *source));
    return source;
  };

  // A source whose parent is main's head is published by moving main to it.
  bool fast_forwarded = false;
  {
    auto md = table.metadata();
    ARROW_ASSIGN_OR_RAISE(const spec::Snapshot* source, check_source(*md));
    if (IsFastForward(*md, *source)) {
      ARROW_RETURN_NOT_OK(
          CommitRefChanges(table, [&](const TableMetadata& base) -> Result<std::vector<RefChange>> {
            ARROW_ASSIGN_OR_RAISE(const spec::Snapshot* s, check_source(base));
            // Main moved meanwhile: the source is re-applied below instead.
            fast_forwarded = IsFastForward(base, *s);
            if (!fast_forwarded) return std::vector<RefChange>{};
            return std::vector<RefChange>{MoveMain(base, snapshot_id)};
          }));
      if (fast_forwarded) {
        result.current_snapshot_id = snapshot_id;
        return result;
      }
    }
  }

  // Otherwise an append is re-applied as a new snapshot on main that adds the same data
  // files; the snapshot producer writes it like any other append.
  auto md = table.metadata();
  ARROW_ASSIGN_OR_RAISE(const spec::Snapshot* source, check_source(*md));
  if (source->operation != "append") return NotPickable(snapshot_id);
  ARROW_RETURN_NOT_OK(ValidateNonAncestor(*md, snapshot_id));
  ARROW_ASSIGN_OR_RAISE(auto files, AddedDataFiles(*table.io(), *md, *source));
  WriteOptions options;
  options.summary["source-snapshot-id"] = std::to_string(snapshot_id);
  std::string wap_id = SummaryValue(*source, "wap.id");
  if (!wap_id.empty()) options.summary["published-wap-id"] = wap_id;
  options.owns_added_files = false;
  options.validate = [&](const TableMetadata& base, std::optional<int64_t>) -> Status {
    ARROW_RETURN_NOT_OK(check_source(base).status());
    return ValidateNonAncestor(base, snapshot_id);
  };
  ARROW_ASSIGN_OR_RAISE(result.current_snapshot_id, AppendFiles(table, std::move(files), options));
  return result;
}

Result<FastForwardResult> FastForward(Table& table, const std::string& branch,
                                      const std::string& to) {
  FastForwardResult result;
  result.branch_updated = branch;
  ARROW_RETURN_NOT_OK(
      CommitRefChanges(table, [&](const TableMetadata& base) -> Result<std::vector<RefChange>> {
        auto to_ref = FindRef(base, to);
        if (!to_ref) return ValidationError("Ref does not exist: ", to);
        auto from_ref = FindRef(base, branch);
        result.updated_ref = to_ref->snapshot_id;
        if (!from_ref) {
          result.previous_ref.reset();
          return std::vector<RefChange>{{branch, MakeRef(to_ref->snapshot_id)}};
        }
        result.previous_ref = from_ref->snapshot_id;
        if (!from_ref->is_branch())
          return ValidationError("Ref ", branch, " is a tag not a branch");
        if (from_ref->snapshot_id == to_ref->snapshot_id) return std::vector<RefChange>{};
        if (!IsAncestorOf(base, to_ref->snapshot_id, from_ref->snapshot_id)) {
          return ValidationError("Cannot fast-forward: ", branch, " is not an ancestor of ", to);
        }
        SnapshotRef updated = *from_ref;
        updated.snapshot_id = to_ref->snapshot_id;
        return std::vector<RefChange>{{branch, updated}};
      }));
  return result;
}

std::vector<AncestorRow> AncestorsOfRows(const TableMetadata& md,
                                         std::optional<int64_t> snapshot_id) {
  std::vector<AncestorRow> rows;
  int64_t start = snapshot_id ? *snapshot_id : md.current_snapshot_id.value_or(-1);
  for (const spec::Snapshot* s : AncestorsOf(md, start)) {
    rows.push_back({s->snapshot_id, s->timestamp_ms});
  }
  return rows;
}

Status CreateOrReplaceTag(Table& table, const std::string& name, const RefOptions& options) {
  ARROW_RETURN_NOT_OK(CheckRetention(options, /*tag=*/true));
  return CommitRefChanges(table, [&](const TableMetadata& base) -> Result<std::vector<RefChange>> {
    std::optional<int64_t> id = options.snapshot_id;
    if (!id) id = base.current_snapshot_id;
    if (!id) {
      return ValidationError("Cannot complete create or replace tag operation on ", table.name(),
                             ", main has no snapshot");
    }
    auto existing = FindRef(base, name);
    SnapshotRef ref = MakeRef(*id, SnapshotRefType::kTag);
    const bool create = options.mode != RefWriteMode::kReplace;
    const bool replace = options.mode != RefWriteMode::kCreate;
    if (create && replace && !existing) {
      // create
    } else if (replace) {
      if (!existing) return ValidationError("Tag does not exist: ", name);
      if (existing->is_branch()) return ValidationError("Ref ", name, " is a branch not a tag");
      ref = *existing;
      ref.snapshot_id = *id;
    } else {
      if (existing && options.if_not_exists) return std::vector<RefChange>{};
      if (existing) return ValidationError("Ref ", name, " already exists");
    }
    ARROW_RETURN_NOT_OK(CheckSnapshotExists(base, name, *id));
    ApplyRetention(options, &ref);
    return std::vector<RefChange>{{name, ref}};
  });
}

Status CreateOrReplaceBranch(Table& table, const std::string& name, const RefOptions& options) {
  ARROW_RETURN_NOT_OK(CheckRetention(options, /*tag=*/false));
  const bool create = options.mode != RefWriteMode::kReplace;
  const bool replace = options.mode != RefWriteMode::kCreate;
  {
    // A branch on a table without snapshots starts with an empty snapshot (Iceberg's
    // createBranch(name) commits an empty fast append to the new branch).
    auto md = table.metadata();
    auto existing = FindRef(*md, name);
    std::optional<int64_t> id = options.snapshot_id ? options.snapshot_id : md->current_snapshot_id;
    if (!id && (!replace || (create && !existing))) {
      if (existing) {
        if (options.if_not_exists) return Status::OK();
        return ValidationError("Ref ", name, " already exists");
      }
      WriteOptions write;
      write.branch = name;
      ARROW_RETURN_NOT_OK(AppendFiles(table, {}, write).status());
      if (!options.min_snapshots_to_keep && !options.max_snapshot_age_ms &&
          !options.max_ref_age_ms) {
        return Status::OK();
      }
      return CommitRefChanges(table,
                              [&](const TableMetadata& base) -> Result<std::vector<RefChange>> {
                                auto ref = FindRef(base, name);
                                if (!ref) return ValidationError("Branch does not exist: ", name);
                                ApplyRetention(options, &*ref);
                                return std::vector<RefChange>{{name, *ref}};
                              });
    }
  }
  return CommitRefChanges(table, [&](const TableMetadata& base) -> Result<std::vector<RefChange>> {
    std::optional<int64_t> id = options.snapshot_id;
    if (!id) id = base.current_snapshot_id;
    auto existing = FindRef(base, name);
    SnapshotRef ref = MakeRef(id.value_or(0));
    if (create && replace && !existing) {
      // create
    } else if (replace) {
      if (!id) {
        return ValidationError("Cannot complete replace branch operation on ", table.name(),
                               ", main has no snapshot");
      }
      if (!existing) return ValidationError("Branch does not exist: ", name);
      if (!existing->is_branch()) return ValidationError("Ref ", name, " is a tag not a branch");
      ref = *existing;
      ref.snapshot_id = *id;
    } else {
      if (existing && options.if_not_exists) return std::vector<RefChange>{};
      if (existing) return ValidationError("Ref ", name, " already exists");
    }
    if (!id) return ValidationError("Cannot create branch ", name, ": table has no snapshot");
    ARROW_RETURN_NOT_OK(CheckSnapshotExists(base, name, *id));
    ApplyRetention(options, &ref);
    return std::vector<RefChange>{{name, ref}};
  });
}

Status DropTag(Table& table, const std::string& name, bool if_exists) {
  return CommitRefChanges(table, [&](const TableMetadata& base) -> Result<std::vector<RefChange>> {
    auto existing = FindRef(base, name);
    if (!existing) {
      if (if_exists) return std::vector<RefChange>{};
      return ValidationError("Tag does not exist: ", name);
    }
    if (existing->is_branch()) return ValidationError("Ref ", name, " is a branch not a tag");
    return std::vector<RefChange>{{name, std::nullopt}};
  });
}

Status DropBranch(Table& table, const std::string& name, bool if_exists) {
  return CommitRefChanges(table, [&](const TableMetadata& base) -> Result<std::vector<RefChange>> {
    auto existing = FindRef(base, name);
    if (!existing && if_exists) return std::vector<RefChange>{};
    if (name == spec::kMainBranch) return ValidationError("Cannot remove main branch");
    if (!existing) return ValidationError("Branch does not exist: ", name);
    if (!existing->is_branch()) return ValidationError("Ref ", name, " is a tag not a branch");
    return std::vector<RefChange>{{name, std::nullopt}};
  });
}

Status RenameBranch(Table& table, const std::string& name, const std::string& new_name) {
  return CommitRefChanges(table, [&](const TableMetadata& base) -> Result<std::vector<RefChange>> {
    if (name == spec::kMainBranch) return ValidationError("Cannot rename main branch");
    auto existing = FindRef(base, name);
    if (!existing) return ValidationError("Branch does not exist: ", name);
    if (!existing->is_branch()) return ValidationError("Ref ", name, " is a tag not a branch");
    if (FindRef(base, new_name)) return ValidationError("Ref ", new_name, " already exists");
    return std::vector<RefChange>{{new_name, *existing}, {name, std::nullopt}};
  });
}

}  // namespace floe::table
