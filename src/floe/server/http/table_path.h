#pragma once

// How a table appears in the metadata pages' URLs: "<namespace>/<table>", each namespace
// level and the name percent-encoded and the levels joined with '.' (a level never holds a
// '.', and PercentEncode encodes every '.' inside a name).

#include <optional>
#include <string>
#include <string_view>

#include "floe/catalog/table_identifier.h"

namespace floe::server::http {

// "db.sub/my%20table".
std::string TablePath(const TableIdentifier& ident);

// The identifier of the two path segments TablePath made; nullopt when they do not decode or
// name no valid table (an empty level or name).
std::optional<TableIdentifier> ParseTablePath(std::string_view ns_segment,
                                              std::string_view table_segment);

}  // namespace floe::server::http
