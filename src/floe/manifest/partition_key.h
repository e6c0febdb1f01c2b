#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "floe/manifest/data_file.h"
#include "floe/spec/literal.h"

namespace floe::manifest {

// A key equal for equal partition tuples of one spec and different otherwise (values are
// length-prefixed, so no value can run into the next).
std::string PartitionKey(int32_t spec_id, const std::vector<spec::Literal>& partition);
inline std::string PartitionKey(const DataFile& file) {
  return PartitionKey(file.spec_id, file.partition);
}

}  // namespace floe::manifest
