#include "floe/table/snapshot_producer.h"

#include <set>

#include <arrow/table.h>

#include "floe/manifest/manifest_reader.h"
#include "floe/manifest/manifest_writer.h"
#include "floe/manifest/partition_key.h"
#include "floe/table/commit.h"
#include "floe/table/data_writer.h"
#include "floe/table/location_policy.h"
#include "floe/table/manifest_merge.h"
#include "floe/table/metadata_files.h"
#include "floe/table/multi_table_transaction.h"
#include "floe/table/partitioner.h"
#include "floe/table/table_metadata_builder.h"
#include "floe/util/clock.h"
#include "floe/util/ids.h"
#include "floe/util/number_parse.h"

namespace floe::table {

using manifest::DataFile;
using manifest::EntryStatus;
using manifest::ManifestEntry;
using manifest::ManifestFile;
using manifest::PartitionKey;

namespace {

struct Totals {
  int64_t records = 0, files_size = 0, data_files = 0;
  int64_t delete_files = 0, position_delete_files = 0, equality_delete_files = 0, dvs = 0;
  int64_t position_deletes = 0, equality_deletes = 0;

  void Add(const DataFile& f) {
    // A deletion vector counts the bytes of its blob, not of the Puffin file it shares.
    files_size += f.is_deletion_vector() ? f.content_size_in_bytes.value_or(0) : f.file_size_in_bytes;
    switch (f.content) {
      case manifest::FileContent::kData:
        records += f.record_count;
        ++data_files;
        break;
      case manifest::FileContent::kPositionDeletes:
        ++delete_files;
        ++(f.is_deletion_vector() ? dvs : position_delete_files);
        position_deletes += f.record_count;
        break;
      case manifest::FileContent::kEqualityDeletes:
        ++delete_files;
        ++equality_delete_files;
        equality_deletes += f.record_count;
        break;
    }
  }
};

// Spark's snapshot summary: what this snapshot added and removed, and running totals
// carried from the parent's summary.
std::map<std::string, std::string> BuildSummary(const std::vector<DataFile>& added,
                                                const std::vector<DataFile>& deleted,
                                                const spec::Snapshot* parent) {
  std::map<std::string, std::string> s;
  Totals add, del;
  std::set<std::string> partitions;
  for (const auto& f : added) {
    add.Add(f);
    partitions.insert(PartitionKey(f));
  }
  for (const auto& f : deleted) {
    del.Add(f);
    partitions.insert(PartitionKey(f));
  }
  if (add.data_files > 0) {
    s["added-data-files"] = std::to_string(add.data_files);
    s["added-records"] = std::to_string(add.records);
  }
  if (add.data_files > 0 || add.delete_files > 0) s["added-files-size"] = std::to_string(add.files_size);
  if (add.delete_files > 0) s["added-delete-files"] = std::to_string(add.delete_files);
  if (add.position_delete_files > 0) {
    s["added-position-delete-files"] = std::to_string(add.position_delete_files);
  }
  if (add.dvs > 0) s["added-dvs"] = std::to_string(add.dvs);
  if (add.position_deletes > 0) s["added-position-deletes"] = std::to_string(add.position_deletes);
  if (add.equality_delete_files > 0) {
    s["added-equality-delete-files"] = std::to_string(add.equality_delete_files);
    s["added-equality-deletes"] = std::to_string(add.equality_deletes);
  }
  if (del.data_files > 0) {
    s["deleted-data-files"] = std::to_string(del.data_files);
    s["deleted-records"] = std::to_string(del.records);
  }
  if (del.data_files > 0 || del.delete_files > 0) s["removed-files-size"] = std::to_string(del.files_size);
  if (del.delete_files > 0) s["removed-delete-files"] = std::to_string(del.delete_files);
  if (del.position_delete_files > 0) {
    s["removed-position-delete-files"] = std::to_string(del.position_delete_files);
  }
  if (del.dvs > 0) s["removed-dvs"] = std::to_string(del.dvs);
  if (del.position_deletes > 0) s["removed-position-deletes"] = std::to_string(del.position_deletes);
  if (del.equality_delete_files > 0) {
    s["removed-equality-delete-files"] = std::to_string(del.equality_delete_files);
    s["removed-equality-deletes"] = std::to_string(del.equality_deletes);
  }
  s["changed-partition-count"] = std::to_string(partitions.size());
  auto total = [&](const char* key, int64_t added_n, int64_t deleted_n) {
    int64_t base = 0;
    if (parent) {
      auto it = parent->summary.find(key);
      if (it == parent->summary.end()) return;  // unknown totals stay unknown
      auto parsed = ParseInt64(it->second);
      if (!parsed) return;
      base = *parsed;
    }
    s[key] = std::to_string(base + added_n - deleted_n);
  };
  total("total-records", add.records, del.records);
  total("total-files-size", add.files_size, del.files_size);
  total("total-data-files", add.data_files, del.data_files);
  total("total-delete-files", add.delete_files, del.delete_files);
  total("total-position-deletes", add.position_deletes, del.position_deletes);
  total("total-equality-deletes", add.equality_deletes, del.equality_deletes);
  return s;
}

std::string ManifestLocation(const spec::TableMetadata& md) {
  return MetadataDirectory(md) + "/" + NewUuid() + "-m0.avro";
}

// What an overwrite removes, and how it validates what others committed meanwhile.
struct Removal {
  std::function<bool(const DataFile&)> remove;  // null: an append
  ConflictFilter conflicts;
  std::vector<std::string> required_paths;  // kFiles: each must be live in the base
  IsolationLevel isolation = IsolationLevel::kSerializable;
  // Delete files removed: a rewrite's that no longer apply, or those an overwrite replaces
  // every row of (all, or the replaced partitions'), as Iceberg drops the deletes a row
  // filter covers. Unset: delete files stay.
  std::function<bool(const DataFile&)> remove_deletes;
  std::vector<std::string> required_delete_ids;  // DeleteFileId of each
};

// Removes exactly `files` (by DeleteFileId) from the delete manifests, each of which must
// still be live when the commit applies.
void RemoveDeleteFiles(const std::vector<DataFile>& files, Removal* removal) {
  if (files.empty()) return;
  auto ids = std::make_shared<std::set<std::string>>();
  for (const auto& f : files) {
    ids->insert(manifest::DeleteFileId(f));
    removal->required_delete_ids.push_back(manifest::DeleteFileId(f));
  }
  removal->remove_deletes = [ids](const DataFile& f) { return ids->count(manifest::DeleteFileId(f)) > 0; };
}

// One pending snapshot: files to add (already written) and which base files to remove.
class SnapshotProducer : public std::enable_shared_from_this<SnapshotProducer> {
 public:
  SnapshotProducer(Table& table, std::string operation, std::vector<DataFile> added,
                   Removal removal, const WriteOptions& options)
      : table_(table),
        operation_(std::move(operation)),
        added_(std::move(added)),
        removal_(std::move(removal)),
        branch_(options.branch),
        extra_summary_(options.summary),
        validate_(options.validate),
        owns_added_files_(options.owns_added_files),
        snapshot_id_(NewSnapshotId()) {
    if (options.starting_snapshot_id) {
      starting_snapshot_id_ = options.starting_snapshot_id;
    } else {
      auto md = table_.metadata();
      auto ref = md->refs.find(branch_);
      if (ref != md->refs.end()) starting_snapshot_id_ = ref->second.snapshot_id;
    }
  }

  Result<int64_t> Commit() {
    if (MultiTableTransaction* transaction = table_.transaction()) return Stage(*transaction);
    Status st = table::Commit(table_, [this](const spec::TableMetadataPtr& base,
                                             std::vector<std::string>* files) {
      return Apply(base, files);
    });
    if (!st.ok()) {
      if (!IsCommitStateUnknown(st)) Cleanup();
      return st;
    }
    // Manifests this commit wrote that a merge then folded into another are referenced by
    // no snapshot.
    for (const auto& path : merged_away_) (void)table_.io()->DeleteFile(path, FileKind::kManifest);
    return snapshot_id_;
  }

  // Inside a transaction: the write is applied to the transaction's view of the table and
  // kept, owning this producer, to be applied again at COMMIT if others moved the table.
  Result<int64_t> Stage(MultiTableTransaction& transaction) {
    std::shared_ptr<SnapshotProducer> self = shared_from_this();
    StagedWrite write;
    write.apply = [self](const spec::TableMetadataPtr& base, std::vector<std::string>* files) {
      return self->Apply(base, files);
    };
    write.validate_since = [self](const spec::TableMetadata& fresh,
                                  const spec::TableMetadata& read_base) {
      std::optional<int64_t> start;
      auto ref = read_base.refs.find(self->branch_);
      if (ref != read_base.refs.end()) start = ref->second.snapshot_id;
      return self->ValidateSince(fresh, start);
    };
    write.discard = [self] { self->Cleanup(); };
    write.committed = [self] {
      for (const auto& path : self->merged_away_) {
        (void)self->table_.io()->DeleteFile(path, FileKind::kManifest);
      }
    };
    write.provenance = table_.provenance();
    Status st = transaction.Stage(table_, std::move(write));
    if (!st.ok()) {
      Cleanup();
      return st;
    }
    return snapshot_id_;
  }

  // Added data files keep this data sequence number instead of inheriting the snapshot's.
  void set_data_sequence_number(std::optional<int64_t> n) { data_sequence_number_ = n; }

  // Files written before the commit that a failed commit must remove.
  void Cleanup() {
    auto& io = *table_.io();
    for (const auto& m : added_manifests_) (void)io.DeleteFile(m.manifest_path, FileKind::kManifest);
    if (!owns_added_files_) return;
    for (const auto& f : added_) (void)io.DeleteFile(f.file_path, FileKind::kData);
  }

 private:
  Result<std::shared_ptr<spec::TableMetadata>> Apply(const spec::TableMetadataPtr& base,
                                                     std::vector<std::string>* attempt_files) {
    ++attempt_;
    auto& io = table_.io();
    ARROW_RETURN_NOT_OK(ValidateSince(*base, starting_snapshot_id_));
    const spec::Snapshot* parent = nullptr;
    auto ref = base->refs.find(branch_);
    if (ref != base->refs.end()) {
      if (!ref->second.is_branch()) {
        return ValidationError(branch_, " is a tag, not a branch; cannot write to it");
      }
      parent = base->SnapshotById(ref->second.snapshot_id);
    }
    const spec::SchemaPtr schema = base->current_schema();
    const spec::PartitionSpec* spec = base->default_spec();
    if (!schema || !spec) return Status::Invalid("Table ", table_.name(), " has no current schema or spec");


    // The manifests of added files do not depend on the base: write them once, data and
    // delete files apart, one per spec.
    if (added_manifests_.empty() && !added_.empty()) {
      std::map<std::pair<bool, int32_t>, std::vector<const DataFile*>> by_spec;
      for (const auto& f : added_) by_spec[{f.content != manifest::FileContent::kData, f.spec_id}].push_back(&f);
      for (const auto& [key, files] : by_spec) {
        const auto& [deletes, spec_id] = key;
        const spec::PartitionSpec* file_spec = base->SpecById(spec_id);
        if (!file_spec) return Status::Invalid("Unknown partition spec id ", spec_id);
        if (deletes && base->format_version < 2) {
          return Status::Invalid("Delete files need format version 2; ", table_.name(), " is version ",
                                 base->format_version);
        }
        ARROW_ASSIGN_OR_RAISE(auto writer, manifest::ManifestWriter::Make(
                                               io, ManifestLocation(*base), *schema, *file_spec, snapshot_id_,
                                               deletes ? manifest::ManifestContent::kDeletes
                                                       : manifest::ManifestContent::kData,
                                               base->format_version));
        for (const DataFile* f : files) {
          if (data_sequence_number_ && !deletes) {
            ARROW_RETURN_NOT_OK(writer->Add(*f, *data_sequence_number_));
          } else {
            ARROW_RETURN_NOT_OK(writer->Add(*f));
          }
        }
        ARROW_ASSIGN_OR_RAISE(auto mf, writer->Close());
        added_manifests_.push_back(std::move(mf));
      }
    }

    ARROW_ASSIGN_OR_RAISE(auto merge_options, ManifestMergeOptions::FromMetadata(*base));
    std::vector<ManifestFile> manifests = added_manifests_;
    std::set<std::string> own_files;  // manifests no earlier snapshot references
    for (const auto& m : added_manifests_) own_files.insert(m.manifest_path);
    std::vector<DataFile> deleted;
    if (parent) {
      ARROW_ASSIGN_OR_RAISE(auto existing, manifest::ReadManifestList(*io, parent->manifest_list));
      for (const auto& mf : existing) {
        // A manifest left with only the deletions of an earlier snapshot holds nothing live:
        // carrying it forward would grow every later snapshot (Iceberg drops it too).
        if (mf.added_files_count == 0 && mf.existing_files_count == 0 && mf.deleted_files_count > 0) {
          continue;
        }
        const bool data_manifest = mf.content == manifest::ManifestContent::kData;
        const auto& remove = data_manifest ? removal_.remove : removal_.remove_deletes;
        if (!remove) {
          manifests.push_back(mf);
          continue;
        }
        ARROW_ASSIGN_OR_RAISE(auto entries, manifest::ReadManifest(*io, mf, *base));
        bool touched = false;
        for (const auto& e : entries) {
          if (e.status != EntryStatus::kDeleted && remove(e.data_file)) touched = true;
        }
        if (!touched) {
          manifests.push_back(mf);
          continue;
        }
        const spec::PartitionSpec* mf_spec = base->SpecById(mf.partition_spec_id);
        if (!mf_spec) return Status::Invalid("Unknown partition spec id ", mf.partition_spec_id);
        std::string location = ManifestLocation(*base);
        attempt_files->push_back(location);
        own_files.insert(location);
        ARROW_ASSIGN_OR_RAISE(auto writer, manifest::ManifestWriter::Make(
                                               io, location, *schema, *mf_spec, snapshot_id_,
                                               mf.content, base->format_version));
        for (const auto& e : entries) {
          if (e.status == EntryStatus::kDeleted) continue;
          if (remove(e.data_file)) {
            deleted.push_back(e.data_file);
            ARROW_RETURN_NOT_OK(writer->Delete(e));
          } else {
            ARROW_RETURN_NOT_OK(writer->Existing(e));
          }
        }
        ARROW_ASSIGN_OR_RAISE(auto rewritten, writer->Close());
        manifests.push_back(std::move(rewritten));
      }
    }

    if (!removal_.required_paths.empty()) {
      std::set<std::string> found;
      for (const auto& f : deleted) found.insert(f.file_path);
      std::string missing;
      for (const auto& p : removal_.required_paths) {
        if (!found.count(p)) missing += (missing.empty() ? "" : ", ") + p;
      }
      if (!missing.empty()) return ValidationError("Missing required files to delete: ", missing);
    }
    if (!removal_.required_delete_ids.empty()) {
      std::set<std::string> found;
      for (const auto& f : deleted) {
        if (f.content != manifest::FileContent::kData) found.insert(manifest::DeleteFileId(f));
      }
      std::string missing;
      for (const auto& id : removal_.required_delete_ids) {
        if (!found.count(id)) missing += (missing.empty() ? "" : ", ") + id;
      }
      if (!missing.empty()) return ValidationError("Missing required files to delete: ", missing);
    }

    // A merged manifest is written per attempt: the bins depend on the base's manifests.
    ManifestMergeTarget target{io, base.get(), snapshot_id_, [&] { return ManifestLocation(*base); }};
    std::vector<std::string> replaced;
    ARROW_ASSIGN_OR_RAISE(manifests, MergeManifests(manifests, merge_options, target,
                                                    attempt_files, &replaced));
    merged_away_.clear();
    for (const auto& path : replaced) {
      if (own_files.count(path)) merged_away_.push_back(path);
    }

    TableMetadataBuilder builder(base);
    spec::Snapshot snap;
    snap.snapshot_id = snapshot_id_;
    if (parent) snap.parent_snapshot_id = parent->snapshot_id;
    snap.sequence_number = builder.NextSequenceNumber();
    snap.timestamp_ms = builder.ChangeTime();
    snap.operation = operation_;
    snap.summary = BuildSummary(added_, deleted, parent);
    for (const auto& [key, value] : extra_summary_) snap.summary[key] = value;
    snap.schema_id = base->current_schema_id;
    snap.manifest_list = ManifestListLocation(*base, snapshot_id_, attempt_);
    attempt_files->push_back(snap.manifest_list);
    ARROW_RETURN_NOT_OK(WriteSnapshotManifestList(*io, *base, manifests, &snap));
    ARROW_RETURN_NOT_OK(builder.SetBranchSnapshot(std::move(snap), branch_));
    return builder.Build();
  }

  // What was committed on the branch since `start` against this write: the caller's
  // validation, then, for an overwrite, which computed its rows from `start`, that nothing
  // committed since is something it should have read or something it removes.
  Status ValidateSince(const spec::TableMetadata& base, std::optional<int64_t> start) {
    if (validate_) ARROW_RETURN_NOT_OK(validate_(base, start));
    if (!removal_.remove) return Status::OK();
    std::optional<int64_t> head;
    auto ref = base.refs.find(branch_);
    if (ref != base.refs.end()) head = ref->second.snapshot_id;
    if (head == start) return Status::OK();
    ARROW_ASSIGN_OR_RAISE(auto changes,
                          CollectChangesSince(*table_.io(), base, table_.name(), head, start));
    return ValidateNoConflicts(changes, removal_.conflicts, removal_.isolation);
  }

  Table& table_;
  std::string operation_;
  std::vector<DataFile> added_;
  Removal removal_;
  std::string branch_;
  std::map<std::string, std::string> extra_summary_;
  std::function<Status(const spec::TableMetadata&, std::optional<int64_t>)> validate_;
  bool owns_added_files_ = true;
  int64_t snapshot_id_;
  std::optional<int64_t> starting_snapshot_id_;
  int attempt_ = 0;
  std::vector<ManifestFile> added_manifests_;
  std::optional<int64_t> data_sequence_number_;
  // This commit's own manifests that the last attempt merged into others.
  std::vector<std::string> merged_away_;
};

void DeleteDataFiles(Table& table, const std::vector<DataFile>& files) {
  for (const auto& f : files) (void)table.io()->DeleteFile(f.file_path, FileKind::kData);
}

}  // namespace

Result<std::vector<DataFile>> WriteDataFiles(const Table& table, const arrow::Table& data) {
  auto md = table.metadata();
  const spec::SchemaPtr schema = md->current_schema();
  const spec::PartitionSpec* spec = md->default_spec();
  if (!schema || !spec) return Status::Invalid("Table ", table.name(), " has no current schema or spec");
  ARROW_RETURN_NOT_OK(CheckTableLocations(table, *md));
  ARROW_ASSIGN_OR_RAISE(auto conformed, ConformToSchema(data, *schema));
  ARROW_ASSIGN_OR_RAISE(auto options, DataWriterOptions::FromProperties(md->properties));
  ARROW_ASSIGN_OR_RAISE(auto slices, SplitByPartition(conformed, *schema, *spec));
  std::vector<DataFile> files;
  const std::string write_id = NewUuid();
  int task = 0;
  for (auto& slice : slices) {
    if (slice.rows->num_rows() == 0) continue;
    std::string dir = DataDirectory(*md);
    if (!spec->fields().empty()) dir += "/" + spec->PartitionPath(slice.partition);
    char name[96];
    std::snprintf(name, sizeof(name), "/%05d-%d-%s-%05d.parquet", task, task, write_id.c_str(), 1);
    ++task;
    auto file = WriteParquetDataFile(*table.io(), dir + name, *slice.rows, *schema, options);
    if (!file.ok()) {
      DeleteDataFiles(const_cast<Table&>(table), files);
      return file.status();
    }
    file->partition = std::move(slice.partition);
    file->spec_id = spec->spec_id();
    files.push_back(std::move(file).ValueUnsafe());
  }
  return files;
}

Result<int64_t> AppendFiles(Table& table, std::vector<DataFile> files, const WriteOptions& options) {
  auto producer = std::make_shared<SnapshotProducer>(table, "append", std::move(files), Removal{}, options);
  return producer->Commit();
}

namespace {

Result<int64_t> CommitRowDeltaRemoving(Table& table, std::vector<DataFile> data_files,
                                       std::vector<DataFile> delete_files,
                                       const std::vector<DataFile>& removed_delete_files,
                                       const WriteOptions& options) {
  const int32_t format_version = table.metadata()->format_version;
  for (const auto& f : data_files) {
    if (f.content != manifest::FileContent::kData) {
      return Status::Invalid("Row delta on ", table.name(), ": ", f.file_path, " is a delete file, not a data file");
    }
  }
  for (const auto& f : delete_files) {
    if (f.content == manifest::FileContent::kData) {
      return Status::Invalid("Row delta on ", table.name(), ": ", f.file_path, " is a data file, not a delete file");
    }
    if (f.content == manifest::FileContent::kEqualityDeletes && f.equality_ids.empty()) {
      return Status::Invalid("Row delta on ", table.name(), ": equality delete file ", f.file_path,
                             " has no equality field ids");
    }
    // Spec: v3 tables keep position deletes as deletion vectors only, one per data file.
    if (f.content == manifest::FileContent::kPositionDeletes && f.is_deletion_vector() != (format_version >= 3)) {
      return Status::Invalid("Row delta on ", table.name(), ": ",
                             format_version >= 3 ? "must use deletion vectors for position deletes in v3: "
                                                 : "must not use deletion vectors for position deletes in v2: ",
                             f.file_path);
    }
    if (f.is_deletion_vector() && (!f.referenced_data_file || !f.content_offset || !f.content_size_in_bytes)) {
      return Status::Invalid("Row delta on ", table.name(), ": deletion vector in ", f.file_path,
                             " lacks its referenced data file, offset or size");
    }
  }
  // Iceberg's operation names: deletes alone are a `delete`, data alone an `append`.
  const char* operation = data_files.empty() ? "delete" : delete_files.empty() ? "append" : "overwrite";
  std::vector<DataFile> added = std::move(data_files);
  added.insert(added.end(), std::make_move_iterator(delete_files.begin()), std::make_move_iterator(delete_files.end()));
  Removal removal;
  RemoveDeleteFiles(removed_delete_files, &removal);
  auto producer = std::make_shared<SnapshotProducer>(table, operation, std::move(added), std::move(removal), options);
  return producer->Commit();
}

}  // namespace

Result<int64_t> CommitRowDelta(Table& table, std::vector<DataFile> data_files, std::vector<DataFile> delete_files,
                               const WriteOptions& options) {
  return CommitRowDeltaRemoving(table, std::move(data_files), std::move(delete_files), {}, options);
}

Result<int64_t> CommitRowDelta(Table& table, std::vector<DataFile> data_files, std::vector<DataFile> delete_files,
                               RowDeltaValidation validation, WriteOptions options,
                               std::vector<DataFile> removed_delete_files) {
  // The data files this delta adds deletion vectors for: a vector another commit added for
  // one of them meanwhile would leave two (Iceberg's validateAddedDVs).
  auto dv_targets = std::make_shared<std::set<std::string>>();
  for (const auto& f : delete_files) {
    if (f.is_deletion_vector() && f.referenced_data_file) dv_targets->insert(*f.referenced_data_file);
  }
  if (!options.starting_snapshot_id) {
    auto md = table.metadata();
    auto ref = md->refs.find(options.branch);
    if (ref != md->refs.end()) options.starting_snapshot_id = ref->second.snapshot_id;
  }
  auto earlier = std::move(options.validate);
  options.validate = [&table, earlier, validation = std::move(validation), branch = options.branch,
                      isolation = options.isolation, dv_targets](const spec::TableMetadata& base,
                                                                 std::optional<int64_t> start) -> Status {
    if (earlier) ARROW_RETURN_NOT_OK(earlier(base, start));
    std::optional<int64_t> head;
    auto ref = base.refs.find(branch);
    if (ref != base.refs.end()) head = ref->second.snapshot_id;
    if (head == start) return Status::OK();
    ARROW_ASSIGN_OR_RAISE(auto changes, CollectChangesSince(*table.io(), base, table.name(), head, start));
    std::set<std::string> referenced(validation.referenced_data_files.begin(), validation.referenced_data_files.end());
    std::string missing;
    for (const auto& f : changes.deleted) {
      if (referenced.count(f.file_path)) missing += (missing.empty() ? "" : ", ") + f.file_path;
    }
    if (!missing.empty()) return ValidationError("Cannot commit, missing data files: [", missing, "]");
    if (!dv_targets->empty()) {
      ARROW_ASSIGN_OR_RAISE(auto added_deletes, DeleteFilesAddedSince(*table.io(), base, table.name(), head, start));
      for (const auto& [f, seq] : added_deletes) {
        if (!f.is_deletion_vector() || !f.referenced_data_file || !dv_targets->count(*f.referenced_data_file)) {
          continue;
        }
        return ValidationError("Found concurrently added DV for ", *f.referenced_data_file, ": DV{location=",
                               f.file_path, ", offset=", f.content_offset.value_or(0),
                               ", length=", f.content_size_in_bytes.value_or(0),
                               ", referencedDataFile=", *f.referenced_data_file, "}");
      }
    }
    return ValidateNoConflicts(changes, validation.conflicts, isolation);
  };
  return CommitRowDeltaRemoving(table, std::move(data_files), std::move(delete_files), removed_delete_files,
                                options);
}

Result<int64_t> AppendData(Table& table, const arrow::Table& data, const WriteOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto files, WriteDataFiles(table, data));
  return AppendFiles(table, std::move(files), options);
}

Result<int64_t> OverwriteData(Table& table, const arrow::Table& data, const OverwriteFilter& filter,
                              const WriteOptions& options) {
  ARROW_RETURN_NOT_OK(CheckOverwriteFilter(table, filter));
  ARROW_ASSIGN_OR_RAISE(auto files, WriteDataFiles(table, data));
  return OverwriteFiles(table, std::move(files), filter, options);
}

Status CheckOverwriteFilter(const Table& table, const OverwriteFilter& filter) {
  if (filter.mode == OverwriteFilter::Mode::kPredicate && !filter.predicate) {
    return ValidationError("Overwrite filter has no predicate");
  }
  if (filter.mode == OverwriteFilter::Mode::kFiles && filter.paths.empty()) {
    return ValidationError("Overwrite of ", table.name(), " names no files to replace");
  }
  return Status::OK();
}

namespace {

// What `filter` removes, and the conflicts it checks; `files` are the files being added.
Removal RemovalFor(const Table& table, const std::vector<DataFile>& files, const OverwriteFilter& filter,
                   const WriteOptions& options) {
  Removal removal;
  removal.isolation = options.isolation;
  switch (filter.mode) {
    case OverwriteFilter::Mode::kAll:
      removal.remove = [](const DataFile&) { return true; };
      removal.remove_deletes = removal.remove;
      removal.conflicts = {removal.remove, "true"};
      break;
    case OverwriteFilter::Mode::kDynamicPartitions: {
      auto keys = std::make_shared<std::set<std::string>>();
      std::string partitions;
      auto md = table.metadata();
      for (const auto& f : files) {
        if (!keys->insert(PartitionKey(f)).second) continue;
        const spec::PartitionSpec* spec = md->SpecById(f.spec_id);
        partitions += (partitions.empty() ? "" : ", ") +
                      (spec ? spec->PartitionPath(f.partition) : PartitionKey(f));
      }
      removal.remove = [keys](const DataFile& f) { return keys->count(PartitionKey(f)) > 0; };
      removal.remove_deletes = removal.remove;
      removal.conflicts = {removal.remove, "partitions [" + partitions + "]"};
      break;
    }
    case OverwriteFilter::Mode::kPredicate:
      removal.remove = filter.predicate;
      removal.conflicts = {filter.predicate, filter.description};
      break;
    case OverwriteFilter::Mode::kFiles: {
      auto paths = std::make_shared<std::set<std::string>>(filter.paths.begin(), filter.paths.end());
      removal.remove = [paths](const DataFile& f) { return paths->count(f.file_path) > 0; };
      // A copy-on-write rewrite passes the predicate it evaluated, which new files must
      // not match; without one, only the replaced files themselves are checked.
      removal.conflicts = filter.predicate
                              ? ConflictFilter{filter.predicate, filter.description}
                              : ConflictFilter{removal.remove, "the replaced files"};
      removal.required_paths = filter.paths;
      break;
    }
  }
  return removal;
}

}  // namespace

Result<int64_t> OverwriteFiles(Table& table, std::vector<DataFile> files, const OverwriteFilter& filter,
                               const WriteOptions& options) {
  ARROW_RETURN_NOT_OK(CheckOverwriteFilter(table, filter));
  Removal removal = RemovalFor(table, files, filter, options);
  auto producer = std::make_shared<SnapshotProducer>(table, "overwrite", std::move(files), std::move(removal), options);
  return producer->Commit();
}

namespace {

// Whether a delete file committed after the starting snapshot applies to `data` (Iceberg's
// delete file index: position deletes of the same partition whose path bounds hold the
// file; equality deletes of the same partition, or of an unpartitioned spec).
bool DeleteMayApply(const spec::TableMetadata& md, const DataFile& del, const DataFile& data) {
  constexpr int32_t kFilePathId = 2147483546;  // spec: reserved id of a position delete's file_path
  const bool same_partition = del.spec_id == data.spec_id && del.partition == data.partition;
  if (del.content == manifest::FileContent::kPositionDeletes) {
    if (!same_partition) return false;
    auto lower = del.lower_bounds.find(kFilePathId);
    auto upper = del.upper_bounds.find(kFilePathId);
    if (lower != del.lower_bounds.end() && data.file_path < lower->second) return false;
    if (upper != del.upper_bounds.end() && data.file_path > upper->second) return false;
    return true;
  }
  const spec::PartitionSpec* spec = md.SpecById(del.spec_id);
  return same_partition || (spec && spec->fields().empty());
}

}  // namespace

Result<int64_t> RewriteFiles(Table& table, RewriteFilesChange change, const WriteOptions& given) {
  if (change.replaced_data_files.empty() && change.removed_delete_files.empty()) {
    return Status::Invalid("Rewrite of ", table.name(), ": Files to delete cannot be empty");
  }
  if (change.replaced_data_files.empty() && !change.added.empty()) {
    return Status::Invalid("Rewrite of ", table.name(),
                           ": Data files to add must be empty because there's no data file to be rewritten");
  }
  for (const auto& f : change.added) {
    if (f.content != manifest::FileContent::kData) {
      return Status::Invalid("Rewrite of ", table.name(), ": ", f.file_path, " is a delete file, not a data file");
    }
  }
  WriteOptions options = given;
  if (!options.starting_snapshot_id) {
    auto md = table.metadata();
    auto ref = md->refs.find(options.branch);
    if (ref != md->refs.end()) options.starting_snapshot_id = ref->second.snapshot_id;
  }
  auto replaced = std::make_shared<std::vector<DataFile>>(std::move(change.replaced_data_files));
  const bool ignore_equality = change.data_sequence_number.has_value();
  auto earlier = std::move(options.validate);
  options.validate = [&table, earlier, replaced, ignore_equality, branch = options.branch](
                         const spec::TableMetadata& base, std::optional<int64_t> start) -> Status {
    if (earlier) ARROW_RETURN_NOT_OK(earlier(base, start));
    std::optional<int64_t> head;
    auto ref = base.refs.find(branch);
    if (ref != base.refs.end()) head = ref->second.snapshot_id;
    if (head == start || base.format_version < 2) return Status::OK();
    ARROW_ASSIGN_OR_RAISE(auto added, DeleteFilesAddedSince(*table.io(), base, table.name(), head, start));
    for (const auto& d : added) {
      if (ignore_equality && d.file.content == manifest::FileContent::kEqualityDeletes) continue;
      for (const auto& f : *replaced) {
        if (!DeleteMayApply(base, d.file, f)) continue;
        return ValidationError(ignore_equality ? "Cannot commit, found new position delete for replaced data file: "
                                               : "Cannot commit, found new delete for replaced data file: ",
                               f.file_path);
      }
    }
    return Status::OK();
  };
  Removal removal;
  removal.isolation = IsolationLevel::kSnapshot;
  auto data_paths = std::make_shared<std::set<std::string>>();
  for (const auto& f : *replaced) {
    data_paths->insert(f.file_path);
    removal.required_paths.push_back(f.file_path);
  }
  RemoveDeleteFiles(change.removed_delete_files, &removal);
  removal.remove = [data_paths](const DataFile& f) { return data_paths->count(f.file_path) > 0; };
  // Files others added meanwhile never conflict (their rows are not rewritten); files they
  // removed are found missing above.
  removal.conflicts = {[](const DataFile&) { return false; }, "the rewritten files"};
  auto producer = std::make_shared<SnapshotProducer>(table, "replace", std::move(change.added), std::move(removal), options);
  producer->set_data_sequence_number(change.data_sequence_number);
  return producer->Commit();
}

Result<int64_t> DeleteFiles(Table& table, const OverwriteFilter& filter, const WriteOptions& options) {
  ARROW_RETURN_NOT_OK(CheckOverwriteFilter(table, filter));
  auto producer = std::make_shared<SnapshotProducer>(table, "delete", std::vector<DataFile>{}, RemovalFor(table, {}, filter, options), options);
  return producer->Commit();
}

Status WriteSnapshotManifestList(FileIO& io, const spec::TableMetadata& base,
                                 const std::vector<manifest::ManifestFile>& manifests, spec::Snapshot* snapshot) {
  manifest::ManifestListRowIds row_ids{base.next_row_id, 0};
  ARROW_RETURN_NOT_OK(manifest::WriteManifestList(io, snapshot->manifest_list, snapshot->snapshot_id,
                                                  snapshot->parent_snapshot_id, snapshot->sequence_number,
                                                  manifests, base.format_version, "deflate", &row_ids));
  if (base.format_version >= 3) {
    snapshot->first_row_id = row_ids.first_row_id;
    snapshot->added_rows = row_ids.assigned;
  }
  return Status::OK();
}

}  // namespace floe::table
