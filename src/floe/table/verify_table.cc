#include "floe/table/verify_table.h"

namespace floe::table {

Result<VerifyReport> VerifyTableFiles(FileIO& io, const spec::TableMetadata& metadata,
                                      const std::string& metadata_location,
                                      const VerifyOptions& options) {
  using Kind = ReachableFile::Kind;
  VerifyReport report;
  Status failure;
  auto count = [&](Kind kind) -> int64_t& {
    switch (kind) {
      case Kind::kMetadata:
        return report.metadata_files;
      case Kind::kManifestList:
        return report.manifest_lists;
      case Kind::kManifest:
        return report.manifests;
      case Kind::kData:
        return report.data_files;
      case Kind::kDelete:
        return report.delete_files;
      case Kind::kStatistics:
        break;
    }
    return report.statistics_files;
  };
  auto visit = [&](const ReachableFile& file) {
    ++count(file.kind);
    auto size = io.FileSize(file.location);
    if (!size.ok()) {
      if (IsNotFound(size.status())) {
        report.problems.push_back(FileProblem{file, "missing"});
      } else if (failure.ok()) {
        failure = size.status();
      }
      return;
    }
    if (options.check_sizes && file.recorded_size && *file.recorded_size != *size) {
      report.problems.push_back(
          FileProblem{file, StrCat("size ", *size, ", recorded ", *file.recorded_size)});
    }
  };
  // A list or manifest that is missing was reported by `visit`; one that exists and does
  // not read is a problem of its own.
  auto unreadable = [&](const ReachableFile& file, const Status& st) {
    auto exists = io.Exists(file.location);
    if (exists.ok() && !*exists) return;
    report.problems.push_back(FileProblem{file, StrCat("unreadable: ", st.message())});
  };
  WalkReachableFiles(io, metadata, metadata_location, visit, unreadable);
  ARROW_RETURN_NOT_OK(failure);
  return report;
}

}  // namespace floe::table
