#include "floe/scan/metadata_columns.h"

#include <cctype>

namespace floe::scan {

namespace {

bool SameName(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

}  // namespace

std::optional<spec::NestedField> MetadataColumn(std::string_view name) {
  // Optional in the projection: no data file holds them, and the reader fills them in.
  if (SameName(name, "_file")) return spec::Optional(kFileColumnId, "_file", spec::Type::String());
  if (SameName(name, "_pos")) return spec::Optional(kPosColumnId, "_pos", spec::Type::Long());
  return std::nullopt;
}

}  // namespace floe::scan
