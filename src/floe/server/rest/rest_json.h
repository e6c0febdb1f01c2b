#pragma once

// The request bodies of the Iceberg REST catalog (open-api/rest-catalog-open-api.yaml, 1.10)
// that floe reads, and the namespace form of its paths. Every error is Invalid with a message
// naming the field, which the server answers as 400 BadRequestException.

#include <string>
#include <string_view>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/catalog/table_identifier.h"
#include "floe/spec/table_metadata.h"
#include "floe/table/metadata_update.h"
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

// CreateTableRequest: {"name", "location"?, "schema", "partition-spec"?, "write-order"?,
// "stage-create"?, "properties"?}. The spec's and order's source ids name fields of `schema`.
struct CreateTableRequest {
  std::string name;
  std::string location;  // empty: the catalog's default
  spec::SchemaPtr schema;
  std::vector<spec::PartitionField> partition_fields;  // field ids as given or from 1000
  std::vector<spec::SortField> sort_fields;
  bool stage_create = false;
  std::map<std::string, std::string> properties;
};
Result<CreateTableRequest> ParseCreateTableRequest(std::string_view body);

// CommitTableRequest: {"identifier"?, "requirements": [...], "updates": [...]}. An unknown
// requirement type or update action is an error naming it.
struct CommitTableRequest {
  std::optional<TableIdentifier> identifier;
  std::vector<table::UpdateRequirement> requirements;
  std::vector<table::MetadataUpdate> updates;
};
Result<CommitTableRequest> ParseCommitTableRequest(std::string_view body);

// CommitTransactionRequest: {"table-changes": [CommitTableRequest with "identifier", ...]}.
Result<std::vector<CommitTableRequest>> ParseCommitTransactionRequest(std::string_view body);

// RenameTableRequest: {"source": TableIdentifier, "destination": TableIdentifier}.
struct RenameTableRequest {
  TableIdentifier source;
  TableIdentifier destination;
};
Result<RenameTableRequest> ParseRenameTableRequest(std::string_view body);

// RegisterTableRequest: {"name", "metadata-location", "overwrite"?}.
struct RegisterTableRequest {
  std::string name;
  std::string metadata_location;
  bool overwrite = false;
};
Result<RegisterTableRequest> ParseRegisterTableRequest(std::string_view body);

// A namespace as a path segment or the `parent` parameter carries it, already percent-decoded:
// its levels joined by the unit separator 0x1F. "" is the empty namespace.
Namespace NamespaceFromPathPart(std::string_view decoded);

}  // namespace floe::server::rest
