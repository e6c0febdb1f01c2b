#include "floe/table/incremental.h"

#include <unordered_set>

#include "floe/manifest/manifest_reader.h"
#include "floe/table/time_travel.h"

namespace floe::table {

Result<std::vector<AppendedFile>> AppendedFilesBetween(const Table& table,
                                                       std::optional<int64_t> from_exclusive,
                                                       std::optional<int64_t> to_inclusive) {
  auto md = table.metadata();
  int64_t to = 0;
  if (to_inclusive) {
    if (!md->SnapshotById(*to_inclusive)) {
      return ValidationError("Cannot find the end snapshot: ", *to_inclusive);
    }
    to = *to_inclusive;
  } else {
    if (!md->current_snapshot_id) {
      return ValidationError("End snapshot is not set and table has no current snapshot");
    }
    to = *md->current_snapshot_id;
  }
  // The start need not exist any more: it is the parent of an ancestor of the end.
  if (from_exclusive && !IsParentAncestorOf(*md, to, *from_exclusive)) {
    return ValidationError("Starting snapshot (exclusive) ", *from_exclusive,
                           " is not a parent ancestor of end snapshot ", to);
  }
  std::vector<const spec::Snapshot*> appends;
  for (const spec::Snapshot* s : AncestorsBetween(*md, to, from_exclusive)) {
    if (s->operation == "append") appends.push_back(s);
  }
  std::vector<AppendedFile> out;
  auto& io = *table.io();
  // Oldest first, so rows come back in commit order.
  for (auto it = appends.rbegin(); it != appends.rend(); ++it) {
    const spec::Snapshot* s = *it;
    ARROW_ASSIGN_OR_RAISE(auto manifests, manifest::ReadManifestList(io, s->manifest_list));
    for (const auto& mf : manifests) {
      if (mf.content != manifest::ManifestContent::kData ||
          mf.added_snapshot_id != s->snapshot_id) {
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(auto entries, manifest::ReadManifest(io, mf, *md));
      for (auto& e : entries) {
        if (e.status != manifest::EntryStatus::kAdded ||
            e.snapshot_id.value_or(s->snapshot_id) != s->snapshot_id) {
          continue;
        }
        out.push_back({std::move(e.data_file), s->snapshot_id, e.sequence_number.value_or(0)});
      }
    }
  }
  return out;
}

}  // namespace floe::table
