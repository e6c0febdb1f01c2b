#pragma once

// The HTML of the metadata pages. Everything from the catalog is HTML-escaped; the only
// script and style are inline and carry the response's nonce, which the Content-Security-
// Policy (PageSecurityPolicy) names, so nothing else runs or loads.

#include <string>
#include <vector>

#include "floe/catalog/table_identifier.h"

namespace floe::server::http {

// The Content-Security-Policy header value for a page with `nonce`.
std::string PageSecurityPolicy(const std::string& nonce);

// `/`: the catalog's namespaces, each with links to its tables.
std::string IndexPage(const std::string& catalog_name, const std::vector<Namespace>& namespaces,
                      const std::vector<TableIdentifier>& tables, const std::string& nonce);

// `/table/<ns>/<t>`: the frame that the inline script fills from /api/table/<ns>/<t>.
std::string TablePage(const std::string& table_name, const std::string& nonce);

// An error page: `title` as heading, `message` below it.
std::string MessagePage(const std::string& title, const std::string& message,
                        const std::string& nonce);

}  // namespace floe::server::http
