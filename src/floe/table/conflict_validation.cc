#include "floe/table/conflict_validation.h"

#include "floe/manifest/manifest_reader.h"
#include "floe/util/ascii.h"

namespace floe::table {

using manifest::DataFile;
using manifest::EntryStatus;

Result<IsolationLevel> IsolationLevelFor(const spec::TableMetadata& metadata,
                                         std::string_view operation) {
  const std::string key = StrCat("write.", operation, ".isolation-level");
  const std::string value = AsciiLower(metadata.Property(key, "serializable"));
  if (value == "serializable") return IsolationLevel::kSerializable;
  if (value == "snapshot") return IsolationLevel::kSnapshot;
  return ValidationError("Invalid value for ", key, ": '", metadata.Property(key, ""),
                         "' (expected serializable or snapshot)");
}

Result<ChangesSince> CollectChangesSince(FileIO& io, const spec::TableMetadata& metadata,
                                         const std::string& table_name,
                                         std::optional<int64_t> head,
                                         std::optional<int64_t> starting) {
  ChangesSince changes;
  std::optional<int64_t> last_known;
  std::optional<int64_t> id = head;
  while (id && id != starting) {
    const spec::Snapshot* snapshot = metadata.SnapshotById(*id);
    if (!snapshot) break;  // expired: the history is cut here
    changes.snapshot_ids.push_back(*id);
    last_known = id;
    id = snapshot->parent_snapshot_id;
  }
  if (id != starting) {
    return ValidationError("Cannot determine history between starting snapshot ",
                           starting ? std::to_string(*starting) : std::string("null"),
                           " and the last known ancestor ",
                           last_known ? std::to_string(*last_known) : std::string("null"),
                           " of table ", table_name);
  }
  for (int64_t changed : changes.snapshot_ids) {
    const spec::Snapshot* snapshot = metadata.SnapshotById(changed);
    if (snapshot->manifest_list.empty()) continue;
    ARROW_ASSIGN_OR_RAISE(auto manifests, manifest::ReadManifestList(io, snapshot->manifest_list));
    for (const auto& mf : manifests) {
      // Only manifests written by this snapshot can hold its ADDED or DELETED entries.
      if (mf.added_snapshot_id != changed || mf.content != manifest::ManifestContent::kData) continue;
      if (mf.added_files_count == 0 && mf.deleted_files_count == 0) continue;
      ARROW_ASSIGN_OR_RAISE(auto entries, manifest::ReadManifest(io, mf, metadata));
      for (auto& e : entries) {
        if (e.snapshot_id && *e.snapshot_id != changed) continue;
        if (e.status == EntryStatus::kAdded) changes.added.push_back(std::move(e.data_file));
        if (e.status == EntryStatus::kDeleted) changes.deleted.push_back(std::move(e.data_file));
      }
    }
  }
  return changes;
}

Result<std::vector<AddedDeleteFile>> DeleteFilesAddedSince(FileIO& io, const spec::TableMetadata& metadata,
                                                           const std::string& table_name,
                                                           std::optional<int64_t> head,
                                                           std::optional<int64_t> starting) {
  // The walk (and its error when `starting` is no ancestor of `head`), without reading data manifests.
  std::vector<int64_t> ids;
  std::optional<int64_t> last_known;
  std::optional<int64_t> id = head;
  while (id && id != starting) {
    const spec::Snapshot* snapshot = metadata.SnapshotById(*id);
    if (!snapshot) break;
    ids.push_back(*id);
    last_known = id;
    id = snapshot->parent_snapshot_id;
  }
  if (id != starting) {
    return ValidationError("Cannot determine history between starting snapshot ",
                           starting ? std::to_string(*starting) : std::string("null"),
                           " and the last known ancestor ",
                           last_known ? std::to_string(*last_known) : std::string("null"),
                           " of table ", table_name);
  }
  std::vector<AddedDeleteFile> out;
  for (int64_t changed : ids) {
    const spec::Snapshot* snapshot = metadata.SnapshotById(changed);
    if (snapshot->manifest_list.empty()) continue;
    ARROW_ASSIGN_OR_RAISE(auto manifests, manifest::ReadManifestList(io, snapshot->manifest_list));
    for (const auto& mf : manifests) {
      if (mf.added_snapshot_id != changed || mf.content != manifest::ManifestContent::kDeletes) continue;
      if (mf.added_files_count == 0) continue;
      ARROW_ASSIGN_OR_RAISE(auto entries, manifest::ReadManifest(io, mf, metadata));
      for (auto& e : entries) {
        if (e.status != EntryStatus::kAdded || (e.snapshot_id && *e.snapshot_id != changed)) continue;
        out.push_back({std::move(e.data_file), e.sequence_number.value_or(snapshot->sequence_number)});
      }
    }
  }
  return out;
}

namespace {

// Iceberg prints the paths as a bracketed, comma-separated list.
std::string PathList(const std::vector<const DataFile*>& files) {
  std::string out = "[";
  for (size_t i = 0; i < files.size(); ++i) {
    if (i) out += ", ";
    out += files[i]->file_path;
  }
  return out + "]";
}

std::vector<const DataFile*> Matching(const std::vector<DataFile>& files,
                                      const ConflictFilter& filter) {
  std::vector<const DataFile*> out;
  for (const auto& f : files) {
    if (!filter.matches || filter.matches(f)) out.push_back(&f);
  }
  return out;
}

}  // namespace

Status ValidateNoConflicts(const ChangesSince& changes, const ConflictFilter& filter,
                           IsolationLevel isolation) {
  if (isolation == IsolationLevel::kSerializable) {
    auto added = Matching(changes.added, filter);
    if (!added.empty()) {
      return ValidationError("Found conflicting files that can contain records matching ",
                             filter.description, ": ", PathList(added));
    }
  }
  auto deleted = Matching(changes.deleted, filter);
  if (!deleted.empty()) {
    return ValidationError("Found conflicting deleted files that can contain records matching ",
                           filter.description, ": ", PathList(deleted));
  }
  return Status::OK();
}

}  // namespace floe::table
