#include "floe/table/manifest_merge.h"

#include <algorithm>
#include <map>

#include "floe/manifest/manifest_reader.h"
#include "floe/manifest/manifest_writer.h"
#include "floe/util/ascii.h"
#include "floe/util/number_parse.h"

namespace floe::table {

using manifest::EntryStatus;
using manifest::ManifestContent;
using manifest::ManifestFile;

Result<ManifestMergeOptions> ManifestMergeOptions::FromMetadata(const spec::TableMetadata& md) {
  ManifestMergeOptions options;
  auto number = [&](const char* key, int64_t* out) -> Status {
    auto it = md.properties.find(key);
    if (it == md.properties.end()) return Status::OK();
    auto parsed = ParseInt64(it->second);
    if (!parsed) {
      return ValidationError("Invalid value for ", key, ": '", it->second, "' (expected an integer)");
    }
    *out = *parsed;
    return Status::OK();
  };
  ARROW_RETURN_NOT_OK(number("commit.manifest.min-count-to-merge", &options.min_count_to_merge));
  ARROW_RETURN_NOT_OK(number("commit.manifest.target-size-bytes", &options.target_size_bytes));
  const std::string enabled = AsciiLower(md.Property("commit.manifest-merge.enabled", "true"));
  if (enabled != "true" && enabled != "false") {
    return ValidationError("Invalid value for commit.manifest-merge.enabled: '",
                           md.Property("commit.manifest-merge.enabled", ""),
                           "' (expected true or false)");
  }
  options.enabled = enabled == "true";
  return options;
}

namespace {

using Bin = std::vector<const ManifestFile*>;

// Packs from the end with a lookback of one bin (Iceberg's ListPacker.packEnd): the order of
// manifests is kept, and only the first bin may be left under-filled.
std::vector<Bin> PackEnd(const std::vector<const ManifestFile*>& items, int64_t target) {
  std::vector<Bin> bins;
  Bin current;
  int64_t weight = 0;
  for (auto it = items.rbegin(); it != items.rend(); ++it) {
    const int64_t w = (*it)->manifest_length;
    if (!current.empty() && weight + w > target) {
      std::reverse(current.begin(), current.end());
      bins.push_back(std::move(current));
      current.clear();
      weight = 0;
    }
    current.push_back(*it);
    weight += w;
  }
  if (!current.empty()) {
    std::reverse(current.begin(), current.end());
    bins.push_back(std::move(current));
  }
  std::reverse(bins.begin(), bins.end());
  return bins;
}

Result<std::optional<ManifestFile>> WriteMerged(const Bin& bin, int32_t spec_id,
                                                const ManifestMergeTarget& target,
                                                std::vector<std::string>* written) {
  const spec::TableMetadata& base = *target.base;
  const spec::PartitionSpec* spec = base.SpecById(spec_id);
  if (!spec) return Status::Invalid("Unknown partition spec id ", spec_id);
  const spec::SchemaPtr schema = base.current_schema();
  std::string location = target.new_location();
  written->push_back(location);
  ARROW_ASSIGN_OR_RAISE(auto writer, manifest::ManifestWriter::Make(
                                         target.io, location, *schema, *spec, target.snapshot_id,
                                         ManifestContent::kData, base.format_version));
  int64_t entries = 0;
  for (const ManifestFile* mf : bin) {
    ARROW_ASSIGN_OR_RAISE(auto read, manifest::ReadManifest(*target.io, *mf, base));
    for (auto& e : read) {
      const bool ours = e.snapshot_id == target.snapshot_id;
      if (e.status == EntryStatus::kDeleted) {
        // Only this snapshot's deletions belong in its manifests.
        if (!ours) continue;
        ARROW_RETURN_NOT_OK(writer->Delete(e));
      } else if (e.status == EntryStatus::kAdded && ours) {
        // Added by this snapshot: sequence numbers stay unset and inherit the snapshot's,
        // unless the writer gave a data sequence number (a rewrite's).
        if (e.sequence_number && *e.sequence_number != manifest::kUnassignedSequenceNumber) {
          ARROW_RETURN_NOT_OK(writer->Add(e.data_file, *e.sequence_number));
        } else {
          ARROW_RETURN_NOT_OK(writer->Add(e.data_file));
        }
      } else {
        ARROW_RETURN_NOT_OK(writer->Existing(e));
      }
      ++entries;
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto merged, writer->Close());
  if (entries == 0) {
    // Nothing live was left: the bin vanishes from the manifest list.
    (void)target.io->DeleteFile(location, FileKind::kManifest);
    return std::optional<ManifestFile>();
  }
  return std::optional<ManifestFile>(std::move(merged));
}

}  // namespace

Result<std::vector<ManifestFile>> MergeManifests(const std::vector<ManifestFile>& manifests,
                                                 const ManifestMergeOptions& options,
                                                 const ManifestMergeTarget& target,
                                                 std::vector<std::string>* written,
                                                 std::vector<std::string>* replaced) {
  if (!options.enabled || manifests.empty()) return manifests;
  std::vector<ManifestFile> out;
  std::vector<const ManifestFile*> deletes;
  std::map<int32_t, std::vector<const ManifestFile*>, std::greater<>> groups;
  const ManifestFile* first = nullptr;
  for (const auto& mf : manifests) {
    if (mf.content != ManifestContent::kData) {
      deletes.push_back(&mf);
      continue;
    }
    if (!first) first = &mf;
    groups[mf.partition_spec_id].push_back(&mf);
  }
  for (const auto& [spec_id, group] : groups) {
    for (const Bin& bin : PackEnd(group, options.target_size_bytes)) {
      const bool has_first = std::find(bin.begin(), bin.end(), first) != bin.end();
      // A bin with the newest manifest waits for the minimum count, so that one large old
      // manifest does not keep older groups from merging.
      if (bin.size() == 1 || (has_first && static_cast<int64_t>(bin.size()) < options.min_count_to_merge)) {
        for (const ManifestFile* mf : bin) out.push_back(*mf);
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(auto merged, WriteMerged(bin, spec_id, target, written));
      if (merged) out.push_back(std::move(*merged));
      for (const ManifestFile* mf : bin) replaced->push_back(mf->manifest_path);
    }
  }
  for (const ManifestFile* mf : deletes) out.push_back(*mf);
  return out;
}

}  // namespace floe::table
