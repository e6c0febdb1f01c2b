#pragma once

// What an Iceberg REST catalog answers, read: the error model, a page of a list, a namespace's
// properties, a table as loadTable (or a commit) returns it, a staged table's location. A body
// that is not what the spec says is refused as "Invalid REST catalog answer: ..."; the caller
// names the catalog and the request.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/catalog/catalog.h"

namespace floe {

// The message of an ErrorModel body ({"error": {"message", "type", "code"}}), else its type,
// else the body itself (cut to 300 bytes), else "(no message)".
std::string RestErrorMessage(std::string_view body);

// One page of ListNamespacesResponse ("namespaces") or ListTablesResponse ("identifiers").
struct RestListPage {
  std::vector<Namespace> namespaces;
  std::vector<TableIdentifier> tables;
  std::string next_page_token;  // empty: the last page
};
enum class RestListKind { kNamespaces, kTables };
Result<RestListPage> ParseRestListPage(std::string_view body, RestListKind kind);

// GetNamespaceResponse's properties (none when absent).
Result<NamespaceProperties> ParseNamespaceProperties(std::string_view body);

// LoadTableResult: metadata-location, metadata, and the settings for the table's files:
// `config`, then the storage credentials whose prefix is the longest that starts the table's
// location.
Result<CatalogTable> ParseLoadTableResult(std::string_view body);

// The location of the table a staged create answers with.
Result<std::string> ParseStagedTableLocation(std::string_view body);

// "Name: value" (--rest-header): the name (no spaces, not empty) and the value, trimmed.
Result<std::pair<std::string, std::string>> ParseHeaderLine(std::string_view text);

}  // namespace floe
