#pragma once

// Compaction of data files, as Iceberg's RewriteDataFiles action with the bin-pack strategy
// does it: the live data files of each partition whose size is outside the wanted range (or
// that carry many deletes) are packed into groups, each group's rows are read with their
// delete files applied and written anew at the target size, and all groups commit as one
// `replace` snapshot (RewriteFiles). Rows do not change; delete files that then apply to no
// live data file are removed in the same snapshot.
//
// Reading rows is the scan layer's job: the operation takes the files to consider (a scan's
// plan, with the delete files that apply to each) and a reader for a group's rows.
// scan/rewrite_data_files.h binds both for a table.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/manifest/data_file.h"
#include "floe/table/removed_file.h"
#include "floe/table/table.h"

namespace floe::table {

// A live data file of the starting snapshot and the delete files that apply to it.
struct RewriteCandidate {
  manifest::DataFile file;
  std::vector<manifest::DataFile> deletes;
  int64_t data_sequence_number = 0;  // the file's, which its rows' lineage inherits
};

// The options of the action and the bin-pack planner, by Iceberg's names, with Iceberg's
// defaults and checks. Unknown keys are refused with Iceberg's message.
struct BinPackOptions {
  int64_t target_file_size_bytes = 0;  // default: write.target-file-size-bytes (512 MB)
  int64_t min_file_size_bytes = 0;     // default: 75% of the target
  int64_t max_file_size_bytes = 0;     // default: 180% of the target
  int32_t min_input_files = 5;
  bool rewrite_all = false;
  int64_t max_file_group_size_bytes = int64_t{100} << 30;
  int32_t delete_file_threshold = INT32_MAX;
  double delete_ratio_threshold = 0.3;
  std::optional<int32_t> max_files_to_rewrite;
  std::string rewrite_job_order = "none";
  bool use_starting_sequence_number = true;
  bool remove_dangling_deletes = false;

  static Result<BinPackOptions> Parse(
      const std::vector<std::pair<std::string, std::string>>& options,
      const spec::TableMetadata& metadata);
  // The size a written file may grow to: the target plus half the way to the maximum.
  int64_t WriteMaxFileSize() const;
  // How many files a group of `input_size` bytes should become, and the bytes each gets.
  int32_t ExpectedOutputFiles(int64_t input_size) const;
  int64_t InputSplitSize(int64_t input_size) const;
};

// A group of files rewritten together (indexes into the candidates).
struct RewriteGroup {
  std::vector<size_t> files;
  int64_t input_size = 0;
};

// Iceberg's BinPackRewriteFilePlanner: candidates grouped by partition (files of another
// spec than the default together), filtered by size and deletes, packed into groups of at
// most max-file-group-size-bytes, and the groups worth rewriting kept. `eligible` marks the
// candidates a filter (a `where`) allows; others are never rewritten.
std::vector<RewriteGroup> PlanBinPack(const spec::TableMetadata& metadata,
                                      const std::vector<RewriteCandidate>& candidates,
                                      const std::vector<bool>& eligible,
                                      const BinPackOptions& options);

struct RewriteDataFilesResult {
  int32_t rewritten_data_files_count = 0;
  int32_t added_data_files_count = 0;
  int64_t rewritten_bytes_count = 0;
  int32_t failed_data_files_count = 0;
  int32_t removed_delete_files_count = 0;
  std::optional<int64_t> snapshot_id;  // the `replace` snapshot; unset when nothing was rewritten
  // A dry run's plan: the data files a run would replace, then the delete files it would
  // remove, each with the starting snapshot as the last that reached it.
  std::vector<RemovedFile> files;
};

// The rows of a group's files, in the table's current schema, without the deleted ones.
using RewriteGroupReader = std::function<Result<std::shared_ptr<arrow::RecordBatchReader>>(
    const std::vector<const RewriteCandidate*>& files)>;

struct RewriteDataFilesRequest {
  std::string strategy = "binpack";
  std::vector<std::pair<std::string, std::string>> options;
  // The snapshot `candidates` were planned from; its sequence number is the added files'.
  int64_t starting_snapshot_id = 0;
  std::vector<RewriteCandidate> candidates;  // every live data file of that snapshot
  std::vector<bool> eligible;                // per candidate; empty: all
  // Plan only: fill the result's counts and `files` with what a run would replace; read,
  // write and commit nothing.
  bool dry_run = false;
};

// Plans, rewrites and commits. Errors name the table; a failed commit removes the files written.
Result<RewriteDataFilesResult> RewriteDataFiles(Table& table,
                                                const RewriteDataFilesRequest& request,
                                                const RewriteGroupReader& read);

// Checks the strategy and options (Iceberg's errors) without doing anything.
Status CheckRewriteDataFilesOptions(
    const Table& table, const std::string& strategy,
    const std::vector<std::pair<std::string, std::string>>& options);

// Iceberg's RewriteManifests: the data manifests of the current snapshot (of one spec, or
// all) rewritten into as few manifests as commit.manifest.target-size-bytes allows, as one
// `replace` snapshot with the same files. Nothing to do (fewer than two manifests to
// rewrite) commits nothing.
struct RewriteManifestsResult {
  int32_t rewritten_manifests_count = 0;
  int32_t added_manifests_count = 0;
  std::optional<int64_t> snapshot_id;
};
Result<RewriteManifestsResult> RewriteManifests(Table& table,
                                                std::optional<int32_t> spec_id = std::nullopt);

}  // namespace floe::table
