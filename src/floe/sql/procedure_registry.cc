#include "floe/sql/procedure_registry.h"

#include <algorithm>

#include "floe/sql/suggest.h"
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

const std::vector<Procedure>& AllProcedures() {
  static const std::vector<Procedure> procedures = [] {
    std::vector<Procedure> out;
    AddSnapshotProcedures(&out);
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
    case ProcedureArgType::kLong: return "BIGINT";
    case ProcedureArgType::kTimestamp: return "TIMESTAMP";
  }
  return "STRING";
}

}  // namespace floe::sql
