#pragma once

#include <cstdint>
#include <string>

namespace floe {

// A random version-4 UUID in its canonical 36-character form.
std::string NewUuid();

// A random positive 64-bit snapshot id, as Iceberg generates them.
int64_t NewSnapshotId();

}  // namespace floe
