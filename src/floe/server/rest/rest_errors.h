#pragma once

// The REST catalog's errors: the spec's ErrorModel, {"error": {"message", "type", "code"}},
// with the type names of Iceberg's exceptions, which clients turn back into them.

#include <string>

#include "floe/catalog/table_identifier.h"
#include "floe/server/http/http_response.h"
#include "floe/util/status.h"

namespace floe::server::rest {

http::HttpResponse ErrorResponse(int code, const std::string& type, const std::string& message);

// 400 BadRequestException.
http::HttpResponse BadRequest(const std::string& message);

// 404 NoSuchNamespaceException / NoSuchTableException in Iceberg's words.
http::HttpResponse NoSuchNamespace(const Namespace& ns);
http::HttpResponse NoSuchTable(const TableIdentifier& ident);

// A failed catalog or table call: the kinds callers act on keep their meaning (404 for a
// missing table or namespace, 409 for one that exists or a commit that lost), malformed or
// refused input is 400, a commit whose outcome is unknown 500 CommitStateUnknownException,
// and anything else 500.
http::HttpResponse FromStatus(const Status& status);

}  // namespace floe::server::rest
