#pragma once

// Compaction of a table's data files (table/rewrite_data_files.h) over this layer's planning
// and reading: the live files of the current snapshot with the delete files that apply to
// each, and their rows read with those deletes applied.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "floe/scan/scan_filter.h"
#include "floe/table/rewrite_data_files.h"
#include "floe/table/table.h"

namespace floe::scan {

struct RewriteDataFilesOptions {
  std::string strategy = "binpack";
  // Iceberg's option names and values (target-file-size-bytes, min-input-files, ...).
  std::vector<std::pair<std::string, std::string>> options;
  // Only files that may hold rows matching every predicate are rewritten (a `where`).
  std::vector<ColumnPredicate> filter;
  // List what a run would replace (the result's `files`) and change nothing.
  bool dry_run = false;
};

// Rewrites the current snapshot's data files as Iceberg's rewrite_data_files does; a table
// without snapshots, or with nothing worth rewriting, is left as it is (zero counts).
Result<table::RewriteDataFilesResult> RewriteDataFiles(const std::shared_ptr<table::Table>& table,
                                                       const RewriteDataFilesOptions& options = {});

}  // namespace floe::scan
