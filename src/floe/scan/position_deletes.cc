#include "floe/scan/position_deletes.h"

#include <algorithm>

#include <arrow/array.h>
#include <arrow/table.h>

#include "floe/spec/schema.h"

namespace floe::scan {

namespace {

const spec::SchemaPtr& DeleteFileProjection() {
  static const spec::SchemaPtr schema = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{
             spec::Required(kDeleteFilePathId, "file_path", spec::Type::String()),
             spec::Required(kDeletePosId, "pos", spec::Type::Long())});
  return schema;
}

}  // namespace

Result<std::shared_ptr<const PositionDeleteIndex::ByDataFile>> PositionDeleteIndex::Load(
    const std::string& delete_file) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = loaded_.find(delete_file);
    if (it != loaded_.end()) return it->second;
  }
  ARROW_ASSIGN_OR_RAISE(auto rows, ReadParquetFile(*io_, delete_file, *DeleteFileProjection()));
  auto by_file = std::make_shared<ByDataFile>();
  const auto& paths = *rows->column(0);
  const auto& positions = *rows->column(1);
  for (int c = 0; c < paths.num_chunks(); ++c) {
    const auto& path = static_cast<const arrow::StringArray&>(*paths.chunk(c));
    const auto& pos = static_cast<const arrow::Int64Array&>(*positions.chunk(c));
    DeletedPositions* current = nullptr;
    std::string_view current_path;
    for (int64_t i = 0; i < path.length(); ++i) {
      if (path.IsNull(i) || pos.IsNull(i)) {
        return Status::IOError("Position delete file ", delete_file,
                               " has a null file_path or pos in row ", i);
      }
      const std::string_view p = path.GetView(i);
      // Rows come sorted by file path: look the file up only when it changes.
      if (!current || p != current_path) {
        current = &(*by_file)[std::string(p)];
        current_path = p;
      }
      current->push_back(pos.Value(i));
    }
  }
  for (auto& [path, deleted] : *by_file) {
    std::sort(deleted.begin(), deleted.end());
    deleted.erase(std::unique(deleted.begin(), deleted.end()), deleted.end());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  return loaded_.emplace(delete_file, std::move(by_file)).first->second;
}

std::shared_ptr<const DeletedPositions> MergePositions(std::shared_ptr<const DeletedPositions> a,
                                                       DeletedPositions b) {
  if (!a || a->empty()) return std::make_shared<const DeletedPositions>(std::move(b));
  if (b.empty()) return a;
  DeletedPositions merged;
  merged.reserve(a->size() + b.size());
  std::set_union(a->begin(), a->end(), b.begin(), b.end(), std::back_inserter(merged));
  return std::make_shared<const DeletedPositions>(std::move(merged));
}

Result<std::shared_ptr<const DeletedPositions>> PositionDeleteIndex::For(
    const std::string& data_file, const std::vector<std::string>& delete_files) {
  std::shared_ptr<const DeletedPositions> out;
  for (const auto& delete_file : delete_files) {
    ARROW_ASSIGN_OR_RAISE(auto by_file, Load(delete_file));
    auto it = by_file->find(data_file);
    if (it != by_file->end()) out = MergePositions(std::move(out), it->second);
  }
  return out;
}

}  // namespace floe::scan
