#include "floe/manifest/partition_key.h"

namespace floe::manifest {

std::string PartitionKey(int32_t spec_id, const std::vector<spec::Literal>& partition) {
  std::string key = std::to_string(spec_id) + ":";
  for (const auto& value : partition) {
    if (value.is_null()) {
      key.push_back('N');
      continue;
    }
    const std::string bytes = spec::ToSingleValueBinary(value);
    key += 'V' + std::to_string(bytes.size()) + ':' + bytes;
  }
  return key;
}

}  // namespace floe::manifest
