#pragma once

// Requirements and updates written as the Iceberg REST catalog's JSON (TableRequirement,
// TableUpdate, CommitTableRequest), as a client sends them.

#include <optional>
#include <string>
#include <vector>

#include "floe/spec/table_update.h"

namespace floe::spec {

std::string RequirementToJson(const UpdateRequirement& requirement);
// A spec's fields are written with their field ids.
std::string UpdateToJson(const MetadataUpdate& update);

// The table a commit request names: its namespace levels and its name.
struct CommitTarget {
  std::vector<std::string> ns;
  std::string name;
};
// {"identifier": {"namespace": [...], "name": ...}, "requirements": [...], "updates": [...]};
// without a target, no identifier (the table is in the request's path).
std::string CommitRequestToJson(const std::vector<UpdateRequirement>& requirements,
                                const std::vector<MetadataUpdate>& updates,
                                const std::optional<CommitTarget>& target = std::nullopt);

}  // namespace floe::spec
