#pragma once

// Checks that a table's files are all there: every file the current metadata reaches (the
// metadata-log files, each kept snapshot's manifest list, its manifests and their live data
// and delete files, statistics files) must exist, and optionally have the size recorded for
// it. Used after maintenance (orphan-file removal, expiry) and by `floe verify`.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "floe/io/file_io.h"
#include "floe/spec/table_metadata.h"
#include "floe/table/reachable_files.h"

namespace floe::table {

struct VerifyOptions {
  // Also compare each file's size with the size its manifest (or manifest list, or
  // statistics entry) recorded.
  bool check_sizes = false;
};

struct FileProblem {
  ReachableFile file;  // what it is and what references it
  // "missing", "size 10, recorded 12", or why it could not be read.
  std::string problem;
};

struct VerifyReport {
  int64_t metadata_files = 0;
  int64_t manifest_lists = 0;
  int64_t manifests = 0;
  int64_t data_files = 0;
  int64_t delete_files = 0;
  int64_t statistics_files = 0;
  // Missing files, files of the wrong size and manifest lists or manifests that exist but
  // cannot be read (what they name could not be checked), in the order walked.
  std::vector<FileProblem> problems;

  int64_t checked() const {
    return metadata_files + manifest_lists + manifests + data_files + delete_files +
           statistics_files;
  }
  bool ok() const { return problems.empty(); }
};

// Walks `metadata` (read from `metadata_location`) and checks each file once.
Result<VerifyReport> VerifyTableFiles(FileIO& io, const spec::TableMetadata& metadata,
                                      const std::string& metadata_location,
                                      const VerifyOptions& options = {});

}  // namespace floe::table
