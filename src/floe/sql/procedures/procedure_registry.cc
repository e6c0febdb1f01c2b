#include "floe/sql/procedures/procedure_registry.h"

#include <algorithm>

#include <arrow/api.h>

#include "floe/sql/bind/suggest.h"
#include "floe/util/ascii.h"

namespace floe::sql {

std::optional<std::string> ProcedureArgs::String(const std::string& name) const {
  for (const auto& [n, v] : strings_) {
    if (n == name) return v;
  }
  return std::nullopt;
}

std::optional<int64_t> ProcedureArgs::Long(const std::string& name) const {
  for (const auto& [n, v] : longs_) {
    if (n == name) return v;
  }
  return std::nullopt;
}

std::optional<int64_t> ProcedureArgs::TimestampMillis(const std::string& name) const { return Long(name); }

namespace {
template <typename T>
std::optional<T> Find(const std::vector<std::pair<std::string, T>>& values, const std::string& name) {
  for (const auto& [n, v] : values) {
    if (n == name) return v;
  }
  return std::nullopt;
}
}  // namespace

std::optional<bool> ProcedureArgs::Bool(const std::string& name) const { return Find(bools_, name); }

std::optional<std::vector<int64_t>> ProcedureArgs::LongArray(const std::string& name) const {
  return Find(long_arrays_, name);
}

std::optional<std::vector<std::string>> ProcedureArgs::StringArray(const std::string& name) const {
  return Find(string_arrays_, name);
}

std::optional<std::vector<std::pair<std::string, std::string>>> ProcedureArgs::StringMap(
    const std::string& name) const {
  return Find(string_maps_, name);
}

const std::vector<Procedure>& AllProcedures() {
  static const std::vector<Procedure> procedures = [] {
    std::vector<Procedure> out;
    AddSnapshotProcedures(&out);
    AddExpiryProcedures(&out);
    AddCompactionProcedures(&out);
    AddOrphanFileProcedures(&out);
    AddChangelogProcedures(&out);
    AddCatalogTagProcedures(&out);
    std::sort(out.begin(), out.end(), [](const Procedure& a, const Procedure& b) { return a.name < b.name; });
    return out;
  }();
  return procedures;
}

const Procedure* FindProcedure(std::string_view name) {
  const std::string lower = AsciiLower(std::string(name));
  for (const auto& p : AllProcedures()) {
    if (p.name == lower) return &p;
  }
  return nullptr;
}

std::string ClosestProcedureName(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& p : AllProcedures()) names.push_back(p.name);
  return ClosestName(name, names);
}

std::string ProcedureArgTypeName(ProcedureArgType type) {
  switch (type) {
    case ProcedureArgType::kString: return "STRING";
    case ProcedureArgType::kInteger: return "INT";
    case ProcedureArgType::kLong: return "BIGINT";
    case ProcedureArgType::kBoolean: return "BOOLEAN";
    case ProcedureArgType::kTimestamp: return "TIMESTAMP";
    case ProcedureArgType::kLongArray: return "ARRAY<BIGINT>";
    case ProcedureArgType::kStringArray: return "ARRAY<STRING>";
    case ProcedureArgType::kStringMap: return "MAP<STRING, STRING>";
  }
  return "STRING";
}

std::shared_ptr<arrow::Schema> RemovedFilesSchema() {
  return arrow::schema({arrow::field("file_path", arrow::utf8(), false),
                        arrow::field("file_type", arrow::utf8(), false),
                        arrow::field("file_size_in_bytes", arrow::int64()),
                        arrow::field("last_snapshot_id", arrow::int64())});
}

Result<std::shared_ptr<arrow::Table>> RemovedFilesTable(const std::shared_ptr<arrow::Schema>& schema,
                                                        const std::vector<table::RemovedFile>& files) {
  arrow::StringBuilder paths, types;
  arrow::Int64Builder sizes, snapshots;
  for (const auto& f : files) {
    ARROW_RETURN_NOT_OK(paths.Append(f.path));
    ARROW_RETURN_NOT_OK(types.Append(f.type));
    ARROW_RETURN_NOT_OK(f.size ? sizes.Append(*f.size) : sizes.AppendNull());
    ARROW_RETURN_NOT_OK(f.last_snapshot_id ? snapshots.Append(*f.last_snapshot_id) : snapshots.AppendNull());
  }
  std::vector<std::shared_ptr<arrow::Array>> columns(4);
  ARROW_RETURN_NOT_OK(paths.Finish(&columns[0]));
  ARROW_RETURN_NOT_OK(types.Finish(&columns[1]));
  ARROW_RETURN_NOT_OK(sizes.Finish(&columns[2]));
  ARROW_RETURN_NOT_OK(snapshots.Finish(&columns[3]));
  return arrow::Table::Make(schema, columns);
}

}  // namespace floe::sql
