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
  // Optional in the projection: no data file holds `_file` or `_pos`, and the reader fills
  // them in. Row lineage columns may be in a data file (rows carried over by a rewrite keep
  // their ids there); the reader fills in those left null.
  if (SameName(name, "_file")) return spec::Optional(kFileColumnId, "_file", spec::Type::String());
  if (SameName(name, "_pos")) return spec::Optional(kPosColumnId, "_pos", spec::Type::Long());
  if (SameName(name, "_row_id")) return spec::Optional(kRowIdColumnId, "_row_id", spec::Type::Long());
  if (SameName(name, "_last_updated_sequence_number")) {
    return spec::Optional(kLastUpdatedSequenceNumberColumnId, "_last_updated_sequence_number", spec::Type::Long());
  }
  return std::nullopt;
}

const std::vector<std::string>& MetadataColumnNames() {
  static const std::vector<std::string> names = {"_file", "_pos", "_row_id", "_last_updated_sequence_number"};
  return names;
}

}  // namespace floe::scan
