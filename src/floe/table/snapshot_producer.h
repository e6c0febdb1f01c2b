#pragma once

// Writes that produce a snapshot: append and overwrite. Data files are written once;
// each commit attempt re-reads the base snapshot's manifests, rewrites the ones that lose
// files, writes a manifest list and a snapshot, and the commit loop swaps it in.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/manifest/data_file.h"
#include "floe/table/table.h"

namespace floe::table {

struct WriteOptions {
  std::string branch = spec::kMainBranch;
};

// Appends rows as a new `append` snapshot; returns its id.
Result<int64_t> AppendData(Table& table, const arrow::Table& data, const WriteOptions& options = {});

// How an overwrite chooses the files it replaces.
struct OverwriteFilter {
  enum class Mode {
    kAll,                // every data file of the table
    kDynamicPartitions,  // every file in a partition that the new rows write to
    kPredicate,          // files for which `predicate` is true
  } mode = Mode::kAll;
  std::function<bool(const manifest::DataFile&)> predicate;

  static OverwriteFilter All() { return {}; }
  static OverwriteFilter DynamicPartitions() { return {Mode::kDynamicPartitions, nullptr}; }
  static OverwriteFilter Where(std::function<bool(const manifest::DataFile&)> p) {
    return {Mode::kPredicate, std::move(p)};
  }
};

// Replaces the files chosen by `filter` with `data` as one `overwrite` snapshot.
Result<int64_t> OverwriteData(Table& table, const arrow::Table& data, const OverwriteFilter& filter,
                              const WriteOptions& options = {});

// Commits already written data files (from another writer) as an `append` snapshot.
Result<int64_t> AppendFiles(Table& table, std::vector<manifest::DataFile> files,
                            const WriteOptions& options = {});

// Writes `data` as data files laid out by the table's default spec, without committing.
Result<std::vector<manifest::DataFile>> WriteDataFiles(const Table& table, const arrow::Table& data);

}  // namespace floe::table
