#include "floe/spec/table_update.h"

#include <iterator>

namespace floe::spec {

const char* UpdateName(const MetadataUpdate& update) {
  static constexpr const char* kNames[] = {"assign-uuid",
                                           "upgrade-format-version",
                                           "add-schema",
                                           "set-current-schema",
                                           "add-spec",
                                           "set-default-spec",
                                           "add-sort-order",
                                           "set-default-sort-order",
                                           "add-snapshot",
                                           "set-snapshot-ref",
                                           "remove-snapshots",
                                           "remove-snapshot-ref",
                                           "set-location",
                                           "set-properties",
                                           "remove-properties",
                                           "set-statistics",
                                           "remove-statistics",
                                           "set-partition-statistics",
                                           "remove-partition-statistics",
                                           "remove-partition-specs",
                                           "remove-schemas"};
  static_assert(std::size(kNames) == std::variant_size_v<MetadataUpdate>);
  return kNames[update.index()];
}

}  // namespace floe::spec
