#pragma once

// The request bodies of the Iceberg REST catalog (open-api/rest-catalog-open-api.yaml, 1.10)
// that floe reads, and the namespace form of its paths. Every error is Invalid with a message
// naming the field, which the server answers as 400 BadRequestException.

#include <string>
#include <string_view>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/catalog/table_identifier.h"
#include "floe/util/status.h"

namespace floe::server::rest {

// CreateNamespaceRequest: {"namespace": ["a", "b"], "properties": {"k": "v"}}.
struct CreateNamespaceRequest {
  Namespace ns;
  NamespaceProperties properties;
};
Result<CreateNamespaceRequest> ParseCreateNamespaceRequest(std::string_view body);

// UpdateNamespacePropertiesRequest: {"removals": ["k"], "updates": {"k": "v"}}, both optional.
struct UpdateNamespacePropertiesRequest {
  std::vector<std::string> removals;
  NamespaceProperties updates;
};
Result<UpdateNamespacePropertiesRequest> ParseUpdateNamespacePropertiesRequest(
    std::string_view body);

// A namespace as a path segment or the `parent` parameter carries it, already percent-decoded:
// its levels joined by the unit separator 0x1F. "" is the empty namespace.
Namespace NamespaceFromPathPart(std::string_view decoded);

}  // namespace floe::server::rest
