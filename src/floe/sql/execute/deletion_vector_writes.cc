#include "floe/sql/execute/deletion_vector_writes.h"

#include <algorithm>
#include <map>

#include "floe/manifest/deletion_vector.h"
#include "floe/manifest/puffin_file.h"
#include "floe/scan/position_deletes.h"
#include "floe/scan/row_group_stream.h"
#include "floe/table/location_policy.h"
#include "floe/table/metadata_files.h"
#include "floe/util/ids.h"

namespace floe::sql {

namespace {

// The one data file a position delete file names, if only one (Iceberg's file-scoped deletes):
// a deletion vector's referenced file, or equal lower and upper file_path bounds.
std::optional<std::string> FileScopedTarget(const manifest::DataFile& deletes) {
  if (deletes.referenced_data_file) return deletes.referenced_data_file;
  auto lower = deletes.lower_bounds.find(scan::kDeleteFilePathId);
  auto upper = deletes.upper_bounds.find(scan::kDeleteFilePathId);
  if (lower == deletes.lower_bounds.end() || upper == deletes.upper_bounds.end()) return std::nullopt;
  if (lower->second != upper->second) return std::nullopt;
  return lower->second;
}

}  // namespace

Result<DeletionVectorWrite> WriteDeletionVectors(const table::Table& table,
                                                 const FilePositions& positions,
                                                 const std::vector<scan::FileScanTask>& tasks) {
  DeletionVectorWrite out;
  if (positions.empty()) return out;
  auto md = table.metadata();
  ARROW_RETURN_NOT_OK(table::CheckTableLocations(table, *md));
  std::map<std::string_view, const scan::FileScanTask*> task_of;
  for (const auto& t : tasks) task_of.emplace(t.file.file_path, &t);
  FileIO& io = *table.io();
  scan::PositionDeleteIndex position_deletes(table.io());

  const std::string location = table::DataDirectory(*md) + "/" + NewUuid() + "-deletes.puffin";
  ARROW_ASSIGN_OR_RAISE(auto writer, manifest::PuffinWriter::Make(io, location));
  for (const auto& [path, now] : positions) {
    auto it = task_of.find(path);
    if (it == task_of.end())
      return Status::Invalid("internal: ", path, " is not a live data file of ", table.name());
    const scan::FileScanTask& task = *it->second;
    for (const auto& d : task.deletes) {
      if (d.content == manifest::FileContent::kPositionDeletes && FileScopedTarget(d) == path) {
        out.replaced.push_back(d);
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto file, scan::ScanFileOf(task.file, task.data_sequence_number, task.deletes));
    ARROW_ASSIGN_OR_RAISE(auto before, scan::DeletedPositionsOf(io, position_deletes, file));
    scan::DeletedPositions added = now;
    std::sort(added.begin(), added.end());
    added.erase(std::unique(added.begin(), added.end()), added.end());
    auto deleted = scan::MergePositions(std::move(before), std::move(added));
    const auto cardinality = static_cast<int64_t>(deleted->size());
    ARROW_ASSIGN_OR_RAISE(auto placed, writer->Add(manifest::DeletionVectorBlobMetadata(path, cardinality),
                                                   manifest::EncodeDeletionVector(*deleted)));
    manifest::DataFile dv;
    dv.content = manifest::FileContent::kPositionDeletes;
    dv.file_path = location;
    dv.file_format = "PUFFIN";
    dv.partition = task.file.partition;
    dv.spec_id = task.file.spec_id;
    dv.record_count = cardinality;
    dv.referenced_data_file = path;
    dv.content_offset = placed.offset;
    dv.content_size_in_bytes = placed.length;
    out.deletion_vectors.push_back(std::move(dv));
  }
  ARROW_ASSIGN_OR_RAISE(auto size, writer->Finish());
  for (auto& dv : out.deletion_vectors) dv.file_size_in_bytes = size.file_size;
  return out;
}

}  // namespace floe::sql
