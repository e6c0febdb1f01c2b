#pragma once

// Writes that produce a snapshot: append, overwrite and row deltas. Data files are written once;
// each commit attempt re-reads the base snapshot's manifests, rewrites the ones that lose
// files, writes a manifest list and a snapshot, and the commit loop swaps it in.

#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/manifest/data_file.h"
#include "floe/manifest/manifest_file.h"
#include "floe/table/conflict_validation.h"
#include "floe/table/table.h"

namespace floe::table {

struct WriteOptions {
  std::string branch = spec::kMainBranch;
  // The snapshot of `branch` the write read its input from. An overwrite that must retry
  // because others committed meanwhile first validates what they changed since this
  // snapshot. Unset: the branch head of the Table object when the write is called.
  std::optional<int64_t> starting_snapshot_id;
  // How strictly an overwrite checks those changes (appends never need to).
  IsolationLevel isolation = IsolationLevel::kSerializable;
  // Entries added to the snapshot's summary (a cherry-pick's `source-snapshot-id`, say).
  std::map<std::string, std::string> summary;
  // Re-run against the base of every commit attempt before anything is written for it,
  // with the snapshot of `branch` the write started from (a transaction's commit passes the
  // snapshot it read the table at); an error aborts the commit.
  std::function<Status(const spec::TableMetadata& base, std::optional<int64_t> start)> validate;
  // Whether a failed commit deletes the added data files. Not when they belong to other
  // snapshots too (a cherry-pick re-adds files another snapshot committed).
  bool owns_added_files = true;
};

// Appends rows as a new `append` snapshot; returns its id.
Result<int64_t> AppendData(Table& table, const arrow::Table& data, const WriteOptions& options = {});

// How an overwrite chooses the files it replaces. The same choice is the overwrite's
// conflict filter: data that others added since the write started and that the filter
// matches would be lost or mixed with rows computed without it.
struct OverwriteFilter {
  enum class Mode {
    kAll,                // every data file of the table
    kDynamicPartitions,  // every file in a partition that the new rows write to
    kPredicate,          // files for which `predicate` is true
    kFiles,              // exactly the files in `paths`; each must still be live
  } mode = Mode::kAll;
  std::function<bool(const manifest::DataFile&)> predicate;
  std::string description;  // the predicate as conflict messages print it
  std::vector<std::string> paths;

  static OverwriteFilter All() { return {}; }
  static OverwriteFilter DynamicPartitions() { return {Mode::kDynamicPartitions, nullptr, "", {}}; }
  static OverwriteFilter Where(std::function<bool(const manifest::DataFile&)> p,
                               std::string description = "<predicate>") {
    return {Mode::kPredicate, std::move(p), std::move(description), {}};
  }
  // `predicate`, when given, is what the rewrite evaluated: new files matching it conflict.
  static OverwriteFilter Files(std::vector<std::string> paths,
                               std::function<bool(const manifest::DataFile&)> predicate = nullptr,
                               std::string description = "") {
    return {Mode::kFiles, std::move(predicate), std::move(description), std::move(paths)};
  }
};

// Replaces the files chosen by `filter` with `data` as one `overwrite` snapshot.
Result<int64_t> OverwriteData(Table& table, const arrow::Table& data, const OverwriteFilter& filter,
                              const WriteOptions& options = {});

// Replaces the files chosen by `filter` with already written `files` as one `overwrite`
// snapshot (a streaming writer's output).
Result<int64_t> OverwriteFiles(Table& table, std::vector<manifest::DataFile> files, const OverwriteFilter& filter,
                               const WriteOptions& options = {});
// Removes the files chosen by `filter` as one `delete` snapshot (a DELETE that whole files
// or partitions decide).
Result<int64_t> DeleteFiles(Table& table, const OverwriteFilter& filter, const WriteOptions& options = {});
// The filter's own errors, found before any file is written.
Status CheckOverwriteFilter(const Table& table, const OverwriteFilter& filter);

// Commits already written data files (from another writer) as an `append` snapshot.
Result<int64_t> AppendFiles(Table& table, std::vector<manifest::DataFile> files,
                            const WriteOptions& options = {});

// Commits data files and row-level delete files written by the caller as one snapshot
// (Iceberg's RowDelta): `delete` when it adds only delete files, `overwrite` with both. The
// deletes apply to data files with a smaller sequence number (position deletes also to the
// data files of this snapshot). Concurrent commits are not validated here: a caller that
// computed the deletes from a snapshot checks what changed since with `options.validate`.
Result<int64_t> CommitRowDelta(Table& table, std::vector<manifest::DataFile> data_files,
                               std::vector<manifest::DataFile> delete_files, const WriteOptions& options = {});

// What a row delta computed from `options.starting_snapshot_id` depends on. Checked against
// every snapshot committed on the branch since then, as Iceberg's RowDelta validations do:
// no data file the deletes name may have been removed, no removed file may match
// `conflicts`, and under serializable isolation no added one either.
struct RowDeltaValidation {
  ConflictFilter conflicts;
  std::vector<std::string> referenced_data_files;
};
// `removed_delete_files` are delete files the new ones replace (a deletion vector merged into
// the data file's new one, a position delete file naming only that data file); each must
// still be live. Deletion vectors added meanwhile for a data file this delta adds one for fail
// the commit ("Found concurrently added DV for ...").
Result<int64_t> CommitRowDelta(Table& table, std::vector<manifest::DataFile> data_files,
                               std::vector<manifest::DataFile> delete_files, RowDeltaValidation validation,
                               WriteOptions options, std::vector<manifest::DataFile> removed_delete_files = {});

// Iceberg's RewriteFiles: data files replaced by `added`, which hold the same live rows, and
// delete files that no longer apply to any data file removed, as one `replace` snapshot.
// With `data_sequence_number` (the starting snapshot's), the added files keep it, so
// equality deletes committed since the starting snapshot still apply to their rows. Checked
// against the snapshots committed since `options.starting_snapshot_id`: every replaced file
// must still be live ("Missing required files to delete"), and no delete file added since
// may apply to a replaced data file (position deletes; equality deletes too when the added
// files take a new sequence number). Appends committed meanwhile are kept.
struct RewriteFilesChange {
  std::vector<manifest::DataFile> added;
  std::vector<manifest::DataFile> replaced_data_files;
  std::vector<manifest::DataFile> removed_delete_files;
  std::optional<int64_t> data_sequence_number;
};
Result<int64_t> RewriteFiles(Table& table, RewriteFilesChange change, const WriteOptions& options = {});

// Writes `data` as data files laid out by the table's default spec, without committing.
Result<std::vector<manifest::DataFile>> WriteDataFiles(const Table& table, const arrow::Table& data);

// Writes the manifest list of `snapshot` (its location, ids and sequence number set) for a
// commit on `base`; on a v3 table it also gives the snapshot its range of row ids: first-row-id
// from the table's next-row-id, added-rows as many as the list assigned.
Status WriteSnapshotManifestList(FileIO& io, const spec::TableMetadata& base,
                                 const std::vector<manifest::ManifestFile>& manifests, spec::Snapshot* snapshot);

}  // namespace floe::table
