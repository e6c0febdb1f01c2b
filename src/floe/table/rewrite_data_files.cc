#include "floe/table/rewrite_data_files.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include <arrow/record_batch.h>

#include "floe/manifest/manifest_reader.h"
#include "floe/manifest/manifest_writer.h"
#include "floe/manifest/partition_key.h"
#include "floe/table/commit.h"
#include "floe/table/manifest_merge.h"
#include "floe/table/metadata_files.h"
#include "floe/table/rolling_writer.h"
#include "floe/table/row_level_writes.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/table_metadata_builder.h"
#include "floe/util/ascii.h"
#include "floe/util/ids.h"
#include "floe/util/number_parse.h"
#include "floe/util/progress.h"
#include "floe/util/str_cat.h"

namespace floe::table {

using manifest::DataFile;
using manifest::FileContent;

namespace {

constexpr int64_t kSplitOverhead = 5 * 1024;
constexpr int32_t kDeleteFilePathId = 2147483546;  // spec: a position delete's file_path

// Iceberg's option names: the action's, the bin-pack planner's (its size-based base's and
// its own); the bin-pack runner adds none.
const std::vector<std::string>& ValidOptionNames() {
  static const std::vector<std::string> names = {"max-concurrent-file-group-rewrites",
                                                 "max-file-group-size-bytes",
                                                 "partial-progress.enabled",
                                                 "partial-progress.max-commits",
                                                 "partial-progress.max-failed-commits",
                                                 "target-file-size-bytes",
                                                 "use-starting-sequence-number",
                                                 "rewrite-job-order",
                                                 "output-spec-id",
                                                 "remove-dangling-deletes",
                                                 "max-files-to-rewrite",
                                                 "min-file-size-bytes",
                                                 "max-file-size-bytes",
                                                 "min-input-files",
                                                 "rewrite-all",
                                                 "delete-file-threshold",
                                                 "delete-ratio-threshold"};
  return names;
}

class OptionMap {
 public:
  explicit OptionMap(const std::vector<std::pair<std::string, std::string>>& options) {
    // A key given twice keeps its last value, as a Java map built from them does.
    for (const auto& [k, v] : options) values_[k] = v;
  }
  const std::map<std::string, std::string>& values() const { return values_; }

  Result<std::optional<int64_t>> Long(const std::string& key) const {
    auto it = values_.find(key);
    if (it == values_.end()) return std::optional<int64_t>();
    auto parsed = ParseInt64(it->second);
    if (!parsed)
      return Status::Invalid("Invalid value for option ", key, ": For input string: \"", it->second,
                             "\"");
    return std::optional<int64_t>(*parsed);
  }
  Result<std::optional<int32_t>> Int(const std::string& key) const {
    ARROW_ASSIGN_OR_RAISE(auto v, Long(key));
    if (v && (*v < INT32_MIN || *v > INT32_MAX)) {
      return Status::Invalid("Invalid value for option ", key, ": For input string: \"",
                             values_.at(key), "\"");
    }
    return v ? std::optional<int32_t>(static_cast<int32_t>(*v)) : std::nullopt;
  }
  // Java's Boolean.parseBoolean: "true" in any case is true, anything else false.
  std::optional<bool> Bool(const std::string& key) const {
    auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    return AsciiLower(it->second) == "true";
  }
  Result<std::optional<double>> Double(const std::string& key) const {
    auto it = values_.find(key);
    if (it == values_.end()) return std::optional<double>();
    double parsed = 0;
    if (ParseDouble(it->second, &parsed) != FloatParse::kOk) {
      return Status::Invalid("Invalid value for option ", key, ": For input string: \"", it->second,
                             "\"");
    }
    return std::optional<double>(parsed);
  }
  std::optional<std::string> String(const std::string& key) const {
    auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::map<std::string, std::string> values_;
};

// Whether a position delete file names rows of one data file only (its path bounds agree).
bool FileScoped(const DataFile& del) {
  if (del.content != FileContent::kPositionDeletes) return false;
  auto lower = del.lower_bounds.find(kDeleteFilePathId);
  auto upper = del.upper_bounds.find(kDeleteFilePathId);
  return lower != del.lower_bounds.end() && upper != del.upper_bounds.end() &&
         lower->second == upper->second;
}

// A double as Java's Double.toString writes the usual ones: 2.0, 0.25.
std::string JavaDouble(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e7)
    return StrCat(static_cast<int64_t>(v), ".0");
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

}  // namespace

Result<BinPackOptions> BinPackOptions::Parse(
    const std::vector<std::pair<std::string, std::string>>& given,
    const spec::TableMetadata& metadata) {
  OptionMap options(given);
  std::vector<std::string> invalid;
  for (const auto& [key, value] : options.values()) {
    const auto& valid = ValidOptionNames();
    if (std::find(valid.begin(), valid.end(), key) == valid.end()) invalid.push_back(key);
  }
  if (!invalid.empty()) {
    std::string list;
    for (const auto& k : invalid) list += (list.empty() ? "" : ", ") + k;
    return Status::Invalid("Cannot use options [", list,
                           "], they are not supported by the action or the rewriter BIN-PACK");
  }
  BinPackOptions o;
  const std::string table_target = metadata.Property("write.target-file-size-bytes", "536870912");
  auto default_target = ParseInt64(table_target);
  if (!default_target)
    return Status::Invalid("Invalid value for write.target-file-size-bytes: '", table_target, "'");
  ARROW_ASSIGN_OR_RAISE(auto target, options.Long("target-file-size-bytes"));
  o.target_file_size_bytes = target.value_or(*default_target);
  ARROW_ASSIGN_OR_RAISE(auto min, options.Long("min-file-size-bytes"));
  o.min_file_size_bytes =
      min.value_or(static_cast<int64_t>(static_cast<double>(o.target_file_size_bytes) * 0.75));
  ARROW_ASSIGN_OR_RAISE(auto max, options.Long("max-file-size-bytes"));
  o.max_file_size_bytes =
      max.value_or(static_cast<int64_t>(static_cast<double>(o.target_file_size_bytes) * 1.80));
  if (o.target_file_size_bytes <= 0) {
    return Status::Invalid("'target-file-size-bytes' is set to ", o.target_file_size_bytes,
                           " but must be > 0");
  }
  if (o.min_file_size_bytes < 0) {
    return Status::Invalid("'min-file-size-bytes' is set to ", o.min_file_size_bytes,
                           " but must be >= 0");
  }
  if (o.target_file_size_bytes <= o.min_file_size_bytes) {
    return Status::Invalid("'target-file-size-bytes' (", o.target_file_size_bytes,
                           ") must be > 'min-file-size-bytes' (", o.min_file_size_bytes,
                           "), all new files will be smaller than the min threshold");
  }
  if (o.target_file_size_bytes >= o.max_file_size_bytes) {
    return Status::Invalid("'target-file-size-bytes' (", o.target_file_size_bytes,
                           ") must be < 'max-file-size-bytes' (", o.max_file_size_bytes,
                           "), all new files will be larger than the max threshold");
  }
  ARROW_ASSIGN_OR_RAISE(auto min_input, options.Int("min-input-files"));
  o.min_input_files = min_input.value_or(5);
  if (o.min_input_files <= 0) {
    return Status::Invalid("'min-input-files' is set to ", o.min_input_files, " but must be > 0");
  }
  o.rewrite_all = options.Bool("rewrite-all").value_or(false);
  ARROW_ASSIGN_OR_RAISE(auto group, options.Long("max-file-group-size-bytes"));
  o.max_file_group_size_bytes = group.value_or(o.max_file_group_size_bytes);
  if (o.max_file_group_size_bytes <= 0) {
    return Status::Invalid("'max-file-group-size-bytes' is set to ", o.max_file_group_size_bytes,
                           " but must be > 0");
  }
  ARROW_ASSIGN_OR_RAISE(auto output_spec, options.Int("output-spec-id"));
  if (output_spec && !metadata.SpecById(*output_spec)) {
    return Status::Invalid("Cannot use output spec id ", *output_spec,
                           " because the table does not contain a reference to this spec-id.");
  }
  if (output_spec && *output_spec != metadata.default_spec_id) {
    return Status::NotImplemented(
        "output-spec-id ", *output_spec,
        ": rewriting into another spec than the default one is not supported yet");
  }
  ARROW_ASSIGN_OR_RAISE(auto threshold, options.Int("delete-file-threshold"));
  o.delete_file_threshold = threshold.value_or(INT32_MAX);
  if (o.delete_file_threshold < 0) {
    return Status::Invalid("'delete-file-threshold' is set to ", o.delete_file_threshold,
                           " but must be >= 0");
  }
  ARROW_ASSIGN_OR_RAISE(auto ratio, options.Double("delete-ratio-threshold"));
  o.delete_ratio_threshold = ratio.value_or(0.3);
  if (!(o.delete_ratio_threshold > 0)) {
    return Status::Invalid("'delete-ratio-threshold' is set to ",
                           JavaDouble(o.delete_ratio_threshold), " but must be > 0");
  }
  if (o.delete_ratio_threshold > 1) {
    return Status::Invalid("'delete-ratio-threshold' is set to ",
                           JavaDouble(o.delete_ratio_threshold), " but must be <= 1");
  }
  ARROW_ASSIGN_OR_RAISE(o.max_files_to_rewrite, options.Int("max-files-to-rewrite"));
  if (o.max_files_to_rewrite && *o.max_files_to_rewrite <= 0) {
    return Status::Invalid("Cannot set max-files-to-rewrite to ", *o.max_files_to_rewrite,
                           ", the value must be positive integer.");
  }
  o.rewrite_job_order = AsciiLower(options.String("rewrite-job-order").value_or("none"));
  static const std::set<std::string> orders = {"bytes-asc", "bytes-desc", "files-asc", "files-desc",
                                               "none"};
  if (!orders.count(o.rewrite_job_order)) {
    return Status::Invalid("Invalid rewrite job order name: ",
                           *options.String("rewrite-job-order"));
  }
  o.use_starting_sequence_number = options.Bool("use-starting-sequence-number").value_or(true);
  o.remove_dangling_deletes = options.Bool("remove-dangling-deletes").value_or(false);
  ARROW_ASSIGN_OR_RAISE(auto concurrent, options.Int("max-concurrent-file-group-rewrites"));
  if (concurrent && *concurrent < 1) {
    return Status::Invalid("Cannot set max-concurrent-file-group-rewrites to ", *concurrent,
                           ", the value must be positive.");
  }
  ARROW_ASSIGN_OR_RAISE(auto max_commits, options.Int("partial-progress.max-commits"));
  if (options.Bool("partial-progress.enabled").value_or(false) && max_commits &&
      *max_commits <= 0) {
    return Status::Invalid("Cannot set partial-progress.max-commits to ", *max_commits,
                           ", the value must be positive when partial-progress.enabled is true");
  }
  ARROW_RETURN_NOT_OK(options.Int("partial-progress.max-failed-commits").status());
  return o;
}

int64_t BinPackOptions::WriteMaxFileSize() const {
  return static_cast<int64_t>(static_cast<double>(target_file_size_bytes) +
                              static_cast<double>(max_file_size_bytes - target_file_size_bytes) *
                                  0.5);
}

int32_t BinPackOptions::ExpectedOutputFiles(int64_t input_size) const {
  if (input_size < target_file_size_bytes) return 1;
  const int64_t with_remainder = (input_size + target_file_size_bytes - 1) / target_file_size_bytes;
  const int64_t without_remainder = input_size / target_file_size_bytes;
  const int64_t average_without = input_size / without_remainder;
  if (input_size % target_file_size_bytes > min_file_size_bytes)
    return static_cast<int32_t>(with_remainder);
  // Spreading the remainder over the other files keeps them within 10% of the target.
  if (static_cast<double>(average_without) <
      std::min(1.1 * static_cast<double>(target_file_size_bytes),
               static_cast<double>(WriteMaxFileSize()))) {
    return static_cast<int32_t>(without_remainder);
  }
  return static_cast<int32_t>(with_remainder);
}

int64_t BinPackOptions::InputSplitSize(int64_t input_size) const {
  const int64_t estimated = input_size / ExpectedOutputFiles(input_size) + kSplitOverhead;
  if (estimated < target_file_size_bytes) return target_file_size_bytes;
  return std::min(estimated, WriteMaxFileSize());
}

std::vector<RewriteGroup> PlanBinPack(const spec::TableMetadata& metadata,
                                      const std::vector<RewriteCandidate>& candidates,
                                      const std::vector<bool>& eligible, const BinPackOptions& o) {
  auto outside_range = [&](const DataFile& f) {
    return f.file_size_in_bytes < o.min_file_size_bytes ||
           f.file_size_in_bytes > o.max_file_size_bytes;
  };
  auto too_many_deletes = [&](const RewriteCandidate& c) {
    return static_cast<int64_t>(c.deletes.size()) >= o.delete_file_threshold;
  };
  auto too_high_ratio = [&](const RewriteCandidate& c) {
    if (c.deletes.empty() || c.file.record_count <= 0) return false;
    int64_t known = 0;
    for (const auto& d : c.deletes) {
      if (FileScoped(d)) known += d.record_count;
    }
    const double deleted = static_cast<double>(std::min(known, c.file.record_count));
    return deleted / static_cast<double>(c.file.record_count) >= o.delete_ratio_threshold;
  };
  // Files of another spec than the default may hold rows of several of its partitions:
  // they are grouped together, as unpartitioned.
  std::map<std::string, std::vector<size_t>> by_partition;
  std::vector<std::string> order;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!eligible.empty() && !eligible[i]) continue;
    const DataFile& f = candidates[i].file;
    std::string key =
        f.spec_id == metadata.default_spec_id ? manifest::PartitionKey(f) : std::string();
    auto [it, inserted] = by_partition.try_emplace(key);
    if (inserted) order.push_back(key);
    it->second.push_back(i);
  }
  std::vector<RewriteGroup> groups;
  int64_t files_left = o.max_files_to_rewrite ? int64_t{*o.max_files_to_rewrite} : INT64_MAX;
  for (const auto& key : order) {
    std::vector<size_t> files;
    for (size_t i : by_partition[key]) {
      const auto& c = candidates[i];
      if (o.rewrite_all || outside_range(c.file) || too_many_deletes(c) || too_high_ratio(c))
        files.push_back(i);
    }
    // Bins of at most max-file-group-size-bytes, filled in order (Iceberg's ListPacker with
    // a lookback of one).
    std::vector<RewriteGroup> bins;
    for (size_t i : files) {
      const int64_t size = candidates[i].file.file_size_in_bytes;
      if (bins.empty() || (bins.back().input_size + size > o.max_file_group_size_bytes &&
                           !bins.back().files.empty())) {
        bins.emplace_back();
      }
      bins.back().files.push_back(i);
      bins.back().input_size += size;
    }
    for (auto& bin : bins) {
      bool keep = o.rewrite_all;
      if (!keep) {
        const size_t n = bin.files.size();
        keep = (n > 1 && static_cast<int64_t>(n) >= o.min_input_files) ||
               (n > 1 && bin.input_size > o.target_file_size_bytes) ||
               bin.input_size > o.max_file_size_bytes;
        for (size_t i : bin.files)
          keep = keep || too_many_deletes(candidates[i]) || too_high_ratio(candidates[i]);
      }
      if (!keep || files_left <= 0) continue;
      if (static_cast<int64_t>(bin.files.size()) > files_left) {
        bin.files.resize(static_cast<size_t>(files_left));
      }
      files_left -= static_cast<int64_t>(bin.files.size());
      groups.push_back(std::move(bin));
    }
  }
  auto count = [](const RewriteGroup& g) { return g.files.size(); };
  if (o.rewrite_job_order == "bytes-asc") {
    std::stable_sort(groups.begin(), groups.end(),
                     [](auto& a, auto& b) { return a.input_size < b.input_size; });
  } else if (o.rewrite_job_order == "bytes-desc") {
    std::stable_sort(groups.begin(), groups.end(),
                     [](auto& a, auto& b) { return a.input_size > b.input_size; });
  } else if (o.rewrite_job_order == "files-asc") {
    std::stable_sort(groups.begin(), groups.end(),
                     [&](auto& a, auto& b) { return count(a) < count(b); });
  } else if (o.rewrite_job_order == "files-desc") {
    std::stable_sort(groups.begin(), groups.end(),
                     [&](auto& a, auto& b) { return count(a) > count(b); });
  }
  return groups;
}

Status CheckRewriteDataFilesOptions(
    const Table& table, const std::string& strategy,
    const std::vector<std::pair<std::string, std::string>>& options) {
  const std::string lower = AsciiLower(strategy);
  if (lower == "sort") {
    return Status::NotImplemented(
        "Cannot rewrite ", table.name(),
        ": the sort strategy is not supported yet; only binpack is supported");
  }
  if (lower != "binpack") {
    return Status::Invalid("unsupported strategy: ", strategy,
                           ". Only binpack or sort is supported");
  }
  return BinPackOptions::Parse(options, *table.metadata()).status();
}

namespace {

// Delete files that applied to a rewritten file and to no file left live: the rewritten
// files no longer hold the rows they delete. A deletion vector is one blob of its Puffin file
// (manifest::DeleteFileId): the vectors of one Puffin file go each with their data file.
std::vector<DataFile> RemovedDeleteFiles(const std::vector<RewriteCandidate>& candidates,
                                         const std::set<std::string>& rewritten) {
  std::map<std::string, const DataFile*> deletes;
  std::set<std::string> still_apply, applied_to_rewritten;
  for (const auto& c : candidates) {
    const bool gone = rewritten.count(c.file.file_path) > 0;
    for (const auto& d : c.deletes) {
      const std::string id = manifest::DeleteFileId(d);
      deletes.emplace(id, &d);
      (gone ? applied_to_rewritten : still_apply).insert(id);
    }
  }
  std::vector<DataFile> removed;
  for (const auto& [id, d] : deletes) {
    if (applied_to_rewritten.count(id) && !still_apply.count(id)) removed.push_back(*d);
  }
  return removed;
}

}  // namespace

Result<RewriteDataFilesResult> RewriteDataFiles(Table& table,
                                                const RewriteDataFilesRequest& request,
                                                const RewriteGroupReader& read) {
  ARROW_RETURN_NOT_OK(CheckRewriteDataFilesOptions(table, request.strategy, request.options));
  auto md = table.metadata();
  const spec::Snapshot* start = md->SnapshotById(request.starting_snapshot_id);
  if (!start) {
    return Status::Invalid("Cannot rewrite ", table.name(), ": starting snapshot ",
                           request.starting_snapshot_id, " does not exist");
  }
  ARROW_ASSIGN_OR_RAISE(auto options, BinPackOptions::Parse(request.options, *md));
  if (!request.eligible.empty() && request.eligible.size() != request.candidates.size()) {
    return Status::Invalid("Cannot rewrite ", table.name(), ": ", request.eligible.size(),
                           " eligibility flags for ", request.candidates.size(), " files");
  }
  const std::vector<RewriteGroup> groups =
      PlanBinPack(*md, request.candidates, request.eligible, options);
  RewriteDataFilesResult result;
  if (groups.empty()) return result;
  if (request.dry_run) {
    std::set<std::string> rewritten;
    for (const auto& group : groups) {
      for (size_t i : group.files) {
        const DataFile& f = request.candidates[i].file;
        rewritten.insert(f.file_path);
        result.rewritten_bytes_count += f.file_size_in_bytes;
        result.files.push_back({f.file_path, ContentFileType(f.content), f.file_size_in_bytes,
                                request.starting_snapshot_id});
      }
    }
    result.rewritten_data_files_count = static_cast<int32_t>(rewritten.size());
    for (const DataFile& d : RemovedDeleteFiles(request.candidates, rewritten)) {
      result.files.push_back({d.file_path, ContentFileType(d.content), d.file_size_in_bytes,
                              request.starting_snapshot_id});
    }
    result.removed_delete_files_count =
        static_cast<int32_t>(result.files.size()) - result.rewritten_data_files_count;
    return result;
  }

  // Each group is written on its own, in files of the split size (the target, or more to
  // avoid a small remainder file), up to the largest size a file may have.
  std::vector<DataFile> added;
  auto remove_added = [&] {
    for (const auto& f : added) (void)table.io()->DeleteFile(f.file_path, FileKind::kData);
  };
  std::set<std::string> rewritten;
  std::vector<DataFile> replaced;
  ARROW_ASSIGN_OR_RAISE(auto rolling, RollingWriterOptions::FromProperties(md->properties));
  ProgressTask progress("Rewriting file groups", static_cast<int64_t>(groups.size()));
  for (const auto& group : groups) {
    std::vector<const RewriteCandidate*> files;
    for (size_t i : group.files) files.push_back(&request.candidates[i]);
    RollingWriterOptions writer_options = rolling;
    writer_options.target_file_size_bytes = options.InputSplitSize(group.input_size);
    // On v3 the rows keep their lineage: the reader hands it over beside the table's columns.
    writer_options.row_lineage = CarriesRowLineage(*md);
    auto written = [&]() -> Result<std::vector<DataFile>> {
      ARROW_ASSIGN_OR_RAISE(auto reader, read(files));
      ARROW_ASSIGN_OR_RAISE(auto writer, RollingDataWriter::Make(table, writer_options));
      while (true) {
        std::shared_ptr<arrow::RecordBatch> batch;
        ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
        if (!batch) break;
        if (batch->num_rows() > 0) ARROW_RETURN_NOT_OK(writer->Write(*batch));
      }
      return writer->Finish();
    }();
    if (!written.ok()) {
      remove_added();
      return WithContext(written.status(), "Cannot rewrite data files of " + table.name());
    }
    for (auto& f : *written) added.push_back(std::move(f));
    for (const RewriteCandidate* c : files) {
      rewritten.insert(c->file.file_path);
      replaced.push_back(c->file);
      result.rewritten_bytes_count += c->file.file_size_in_bytes;
    }
    progress.Advance();
  }

  std::vector<DataFile> removed_deletes = RemovedDeleteFiles(request.candidates, rewritten);

  RewriteFilesChange change;
  change.added = added;
  change.replaced_data_files = std::move(replaced);
  change.removed_delete_files = removed_deletes;
  if (options.use_starting_sequence_number) change.data_sequence_number = start->sequence_number;
  WriteOptions write_options;
  write_options.starting_snapshot_id = request.starting_snapshot_id;
  auto committed = RewriteFiles(table, std::move(change), write_options);
  if (!committed.ok()) {
    if (IsCommitStateUnknown(committed.status())) return committed.status();
    return WithContext(committed.status(),
                       "Cannot commit rewrite of " + table.name() +
                           " because of a ValidationException or CommitFailedException. This "
                           "usually means that this "
                           "rewrite has conflicted with another concurrent Iceberg operation");
  }
  result.snapshot_id = *committed;
  result.rewritten_data_files_count = static_cast<int32_t>(rewritten.size());
  result.added_data_files_count = static_cast<int32_t>(added.size());
  result.removed_delete_files_count = static_cast<int32_t>(removed_deletes.size());
  return result;
}

// ---- rewrite_manifests ----

namespace {

// The manifests one content kind of a snapshot is rewritten into: entries sorted by
// partition, cut into `count` runs of about equal length.
Result<std::vector<manifest::ManifestFile>> WriteRewrittenManifests(
    Table& table, const spec::TableMetadata& md, const spec::PartitionSpec& spec,
    const std::vector<manifest::ManifestFile>& inputs, manifest::ManifestContent content,
    int64_t snapshot_id, std::vector<std::string>* written) {
  std::vector<manifest::ManifestEntry> entries;
  int64_t total_size = 0;
  for (const auto& mf : inputs) {
    total_size += mf.manifest_length;
    ARROW_ASSIGN_OR_RAISE(auto read, manifest::ReadManifest(*table.io(), mf, md));
    for (auto& e : read) {
      if (e.status != manifest::EntryStatus::kDeleted) entries.push_back(std::move(e));
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto merge, ManifestMergeOptions::FromMetadata(md));
  const int64_t target = std::max<int64_t>(1, merge.target_size_bytes);
  const int64_t count = std::max<int64_t>(1, (total_size + target - 1) / target);
  // Clustered by partition, so that a manifest's partition summaries stay narrow.
  std::vector<std::pair<std::string, size_t>> keys;
  keys.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i)
    keys.emplace_back(manifest::PartitionKey(entries[i].data_file), i);
  std::stable_sort(keys.begin(), keys.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<manifest::ManifestEntry> sorted;
  sorted.reserve(entries.size());
  for (const auto& k : keys) sorted.push_back(std::move(entries[k.second]));
  entries = std::move(sorted);
  std::vector<manifest::ManifestFile> out;
  const spec::SchemaPtr schema = md.current_schema();
  const size_t n = entries.size();
  for (int64_t run = 0; run < count; ++run) {
    const size_t begin = n * static_cast<size_t>(run) / static_cast<size_t>(count);
    const size_t end = n * static_cast<size_t>(run + 1) / static_cast<size_t>(count);
    if (begin == end) continue;
    std::string location =
        MetadataDirectory(md) + "/" + NewUuid() + "-m" + std::to_string(run) + ".avro";
    written->push_back(location);
    ARROW_ASSIGN_OR_RAISE(auto writer,
                          manifest::ManifestWriter::Make(table.io(), location, *schema, spec,
                                                         snapshot_id, content, md.format_version));
    for (size_t i = begin; i < end; ++i) ARROW_RETURN_NOT_OK(writer->Existing(entries[i]));
    ARROW_ASSIGN_OR_RAISE(auto mf, writer->Close());
    out.push_back(std::move(mf));
  }
  return out;
}

}  // namespace

Result<RewriteManifestsResult> RewriteManifests(Table& table, std::optional<int32_t> spec_id) {
  auto md = table.metadata();
  const int32_t chosen = spec_id.value_or(md->default_spec_id);
  const spec::PartitionSpec* spec = md->SpecById(chosen);
  if (!spec) return Status::Invalid("Invalid spec id ", chosen);
  const spec::Snapshot* current = md->current_snapshot();
  RewriteManifestsResult result;
  if (!current) return result;
  ARROW_ASSIGN_OR_RAISE(auto manifests,
                        manifest::ReadManifestList(*table.io(), current->manifest_list));
  ARROW_ASSIGN_OR_RAISE(auto merge, ManifestMergeOptions::FromMetadata(*md));
  const int64_t target = std::max<int64_t>(1, merge.target_size_bytes);
  const int64_t snapshot_id = NewSnapshotId();
  std::vector<std::string> written;
  std::vector<manifest::ManifestFile> added;
  std::set<std::string> replaced;
  auto fail = [&](const Status& st) {
    for (const auto& path : written) (void)table.io()->DeleteFile(path, FileKind::kManifest);
    return WithContext(st, "Cannot rewrite manifests of " + table.name());
  };
  for (auto content : {manifest::ManifestContent::kData, manifest::ManifestContent::kDeletes}) {
    std::vector<manifest::ManifestFile> matching;
    int64_t total = 0;
    for (const auto& mf : manifests) {
      if (mf.content != content || mf.partition_spec_id != chosen) continue;
      matching.push_back(mf);
      total += mf.manifest_length;
    }
    if (matching.empty() || (matching.size() == 1 && (total + target - 1) / target <= 1)) continue;
    auto out = WriteRewrittenManifests(table, *md, *spec, matching, content, snapshot_id, &written);
    if (!out.ok()) return fail(out.status());
    for (auto& mf : *out) added.push_back(std::move(mf));
    for (const auto& mf : matching) replaced.insert(mf.manifest_path);
  }
  if (replaced.empty()) return result;

  int attempt = 0;
  Status st = Commit(
      table,
      [&](const spec::TableMetadataPtr& base,
          std::vector<std::string>* attempt_files) -> Result<std::shared_ptr<spec::TableMetadata>> {
        const spec::Snapshot* head = base->current_snapshot();
        if (!head)
          return ValidationError("Cannot rewrite manifests of ", table.name(),
                                 ": the table has no snapshot");
        ARROW_ASSIGN_OR_RAISE(auto now,
                              manifest::ReadManifestList(*table.io(), head->manifest_list));
        std::set<std::string> present;
        for (const auto& mf : now) present.insert(mf.manifest_path);
        for (const auto& path : replaced) {
          if (!present.count(path)) {
            return ValidationError("Deleted manifest ", path,
                                   " could not be found in the latest snapshot ",
                                   head->snapshot_id);
          }
        }
        // New manifests first, then every manifest kept.
        std::vector<manifest::ManifestFile> list = added;
        int64_t kept = 0;
        for (const auto& mf : now) {
          if (replaced.count(mf.manifest_path)) continue;
          list.push_back(mf);
          ++kept;
        }
        TableMetadataBuilder builder(base);
        spec::Snapshot snap;
        snap.snapshot_id = snapshot_id;
        snap.parent_snapshot_id = head->snapshot_id;
        snap.sequence_number = builder.NextSequenceNumber();
        snap.timestamp_ms = builder.ChangeTime();
        snap.operation = "replace";
        for (const auto& [key, value] : head->summary) {
          if (key.rfind("total-", 0) == 0) snap.summary[key] = value;
        }
        snap.summary["manifests-created"] = std::to_string(added.size());
        snap.summary["manifests-kept"] = std::to_string(kept);
        snap.summary["manifests-replaced"] = std::to_string(replaced.size());
        // Iceberg counts entries only when it rewrites manifests itself, not for manifests
        // written by the action and handed to the commit.
        snap.summary["entries-processed"] = "0";
        snap.schema_id = base->current_schema_id;
        snap.manifest_list = ManifestListLocation(*base, snapshot_id, ++attempt);
        attempt_files->push_back(snap.manifest_list);
        ARROW_RETURN_NOT_OK(WriteSnapshotManifestList(*table.io(), *base, list, &snap));
        ARROW_RETURN_NOT_OK(builder.SetBranchSnapshot(std::move(snap), spec::kMainBranch));
        return builder.Build();
      });
  if (!st.ok()) {
    if (IsCommitStateUnknown(st)) return st;
    return fail(st);
  }
  result.rewritten_manifests_count = static_cast<int32_t>(replaced.size());
  result.added_manifests_count = static_cast<int32_t>(added.size());
  result.snapshot_id = snapshot_id;
  return result;
}

}  // namespace floe::table
