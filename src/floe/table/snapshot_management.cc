#include "floe/table/snapshot_management.h"

#include <algorithm>
#include <functional>
#include <set>

#include "floe/manifest/manifest_reader.h"
#include "floe/manifest/manifest_writer.h"
#include "floe/table/commit.h"
#include "floe/table/metadata_files.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/time_travel.h"
#include "floe/util/clock.h"
#include "floe/util/ids.h"
#include "floe/util/number_parse.h"

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

void ApplyChanges(TableMetadata* md, const std::vector<RefChange>& changes, int64_t now) {
  for (const auto& c : changes) {
    if (!c.ref) {
      md->refs.erase(c.name);
      continue;
    }
    md->refs[c.name] = *c.ref;
    if (c.name == spec::kMainBranch && md->current_snapshot_id != c.ref->snapshot_id) {
      md->current_snapshot_id = c.ref->snapshot_id;
      md->snapshot_log.push_back({now, c.ref->snapshot_id});
    }
  }
}

int64_t ChangeTime(const TableMetadata& base) {
  return std::max(NowMillis(), base.last_updated_ms);
}

// Plans against the loaded metadata; commits only when something changes.
Status CommitRefChanges(Table& table, const PlanFn& plan) {
  {
    auto base = table.metadata();
    ARROW_ASSIGN_OR_RAISE(auto changes, plan(*base));
    if (Effective(*base, std::move(changes)).empty()) return Status::OK();
  }
  return Commit(table,
                [&](const spec::TableMetadataPtr& base,
                    std::vector<std::string>*) -> Result<std::shared_ptr<TableMetadata>> {
                  ARROW_ASSIGN_OR_RAISE(auto changes, plan(*base));
                  changes = Effective(*base, std::move(changes));
                  auto md = std::make_shared<TableMetadata>(*base);
                  ApplyChanges(md.get(), changes, ChangeTime(*base));
                  return md;
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

std::string PartitionKey(const manifest::DataFile& file) {
  std::string key = std::to_string(file.spec_id) + ":";
  for (const auto& v : file.partition) {
    key += v.is_null() ? std::string("\0", 1) : "\1" + spec::ToSingleValueBinary(v);
    key += '\2';
  }
  return key;
}

// Spark's summary for a snapshot that adds `added`, with totals carried from `parent`.
std::map<std::string, std::string> AppendSummary(const std::vector<manifest::DataFile>& added,
                                                 const spec::Snapshot* parent) {
  std::map<std::string, std::string> s;
  int64_t records = 0, size = 0;
  std::set<std::string> partitions;
  for (const auto& f : added) {
    records += f.record_count;
    size += f.file_size_in_bytes;
    partitions.insert(PartitionKey(f));
  }
  const int64_t files = static_cast<int64_t>(added.size());
  if (files > 0) {
    s["added-data-files"] = std::to_string(files);
    s["added-records"] = std::to_string(records);
    s["added-files-size"] = std::to_string(size);
  }
  s["changed-partition-count"] = std::to_string(partitions.size());
  auto total = [&](const char* key, int64_t delta) {
    int64_t base = 0;
    if (parent) {
      auto it = parent->summary.find(key);
      if (it == parent->summary.end()) return;
      auto parsed = ParseInt64(it->second);
      if (!parsed) return;
      base = *parsed;
    }
    s[key] = std::to_string(base + delta);
  };
  total("total-records", records);
  total("total-files-size", size);
  total("total-data-files", files);
  total("total-delete-files", 0);
  total("total-position-deletes", 0);
  total("total-equality-deletes", 0);
  return s;
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
  std::vector<manifest::ManifestFile> written;  // the manifest of re-added files, written once
  std::optional<std::vector<manifest::DataFile>> added;
  const int64_t new_id = NewSnapshotId();
  CherrypickResult result{snapshot_id, 0};
  auto& io = table.io();

  Status st = Commit(
      table,
      [&](const spec::TableMetadataPtr& base,
          std::vector<std::string>* files) -> Result<std::shared_ptr<TableMetadata>> {
        const spec::Snapshot* source = base->SnapshotById(snapshot_id);
        if (!source)
          return ValidationError("Cannot cherry-pick unknown snapshot ID: ", snapshot_id);
        const bool is_append = source->operation == "append";
        if (is_append) ARROW_RETURN_NOT_OK(ValidateWapPublish(*base, *source));
        auto md = std::make_shared<TableMetadata>(*base);
        const int64_t now = ChangeTime(*base);
        if (IsFastForward(*base, *source)) {
          ApplyChanges(md.get(), {MoveMain(*base, snapshot_id)}, now);
          result.current_snapshot_id = snapshot_id;
          return md;
        }
        if (!is_append) return NotPickable(snapshot_id);
        ARROW_RETURN_NOT_OK(ValidateNonAncestor(*base, snapshot_id));

        const spec::SchemaPtr schema = base->current_schema();
        if (!schema) return Status::Invalid("Table ", table.name(), " has no current schema");
        if (!added) {
          ARROW_ASSIGN_OR_RAISE(auto files_added, AddedDataFiles(*io, *base, *source));
          added = std::move(files_added);
          std::map<int32_t, std::vector<const manifest::DataFile*>> by_spec;
          for (const auto& f : *added) by_spec[f.spec_id].push_back(&f);
          for (const auto& [spec_id, spec_files] : by_spec) {
            const spec::PartitionSpec* spec = base->SpecById(spec_id);
            if (!spec) return Status::Invalid("Unknown partition spec id ", spec_id);
            std::string location = MetadataDirectory(*base) + "/" + NewUuid() + "-m0.avro";
            ARROW_ASSIGN_OR_RAISE(
                auto writer, manifest::ManifestWriter::Make(io, location, *schema, *spec, new_id,
                                                            manifest::ManifestContent::kData,
                                                            base->format_version));
            for (const auto* f : spec_files) ARROW_RETURN_NOT_OK(writer->Add(*f));
            ARROW_ASSIGN_OR_RAISE(auto mf, writer->Close());
            written.push_back(std::move(mf));
          }
        }

        const spec::Snapshot* parent = base->current_snapshot();
        std::vector<manifest::ManifestFile> manifests = written;
        if (parent) {
          ARROW_ASSIGN_OR_RAISE(auto existing,
                                manifest::ReadManifestList(*io, parent->manifest_list));
          manifests.insert(manifests.end(), existing.begin(), existing.end());
        }
        spec::Snapshot snap;
        snap.snapshot_id = new_id;
        if (parent) snap.parent_snapshot_id = parent->snapshot_id;
        snap.sequence_number = base->format_version >= 2 ? base->last_sequence_number + 1 : 0;
        snap.timestamp_ms = now;
        snap.operation = "append";
        snap.summary = AppendSummary(*added, parent);
        snap.summary["source-snapshot-id"] = std::to_string(snapshot_id);
        std::string wap_id = SummaryValue(*source, "wap.id");
        if (!wap_id.empty()) snap.summary["published-wap-id"] = wap_id;
        snap.schema_id = base->current_schema_id;
        snap.manifest_list = MetadataDirectory(*base) + "/snap-" + std::to_string(new_id) + "-1-" +
                             NewUuid() + ".avro";
        files->push_back(snap.manifest_list);
        ARROW_RETURN_NOT_OK(
            manifest::WriteManifestList(*io, snap.manifest_list, new_id, snap.parent_snapshot_id,
                                        snap.sequence_number, manifests, base->format_version));
        if (base->format_version >= 2) md->last_sequence_number = snap.sequence_number;
        md->snapshots.push_back(std::move(snap));
        md->snapshot_index[new_id] = md->snapshots.size() - 1;
        ApplyChanges(md.get(), {MoveMain(*base, new_id)}, now);
        result.current_snapshot_id = new_id;
        return md;
      });
  if (!st.ok()) {
    if (!IsCommitStateUnknown(st)) {
      for (const auto& m : written) (void)io->DeleteFile(m.manifest_path, FileKind::kManifest);
    }
    return st;
  }
  // A fast-forward on the final attempt leaves the manifest of an earlier attempt unused.
  if (result.current_snapshot_id == snapshot_id) {
    for (const auto& m : written) (void)io->DeleteFile(m.manifest_path, FileKind::kManifest);
  }
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
