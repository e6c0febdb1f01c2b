#pragma once

// The REST catalog's table routes (open-api/rest-catalog-open-api.yaml, Iceberg 1.10):
//
//   POST   /v1/namespaces/{ns}/tables                 create (stage-create: metadata only)
//   GET    /v1/namespaces/{ns}/tables/{table}         load; snapshots=all|refs, ETag / 304
//   POST   /v1/namespaces/{ns}/tables/{table}         commit requirements and updates
//   DELETE /v1/namespaces/{ns}/tables/{table}         drop; purgeRequested=true deletes files
//   POST   /v1/namespaces/{ns}/tables/{table}/metrics accepted and dropped
//   POST   /v1/namespaces/{ns}/register               register a metadata file
//   POST   /v1/tables/rename                          rename
//   POST   /v1/transactions/commit                    several tables, all or nothing
//
// Every change goes through floe's own commit path: updates applied by TableMetadataBuilder,
// protection rules, location policy, retries and the audit log, stamped with the client.

#include <map>
#include <string>

#include "floe/catalog/table_identifier.h"
#include "floe/server/http/http_request.h"
#include "floe/server/http/http_response.h"
#include "floe/sql/session.h"
#include "floe/table/table_catalog.h"

namespace floe::server::rest {

class TableRoutes {
 public:
  TableRoutes(const http::HttpRequest& request, const std::map<std::string, std::string>& query,
              sql::Session& session, const std::string& user);

  http::HttpResponse Create(const Namespace& ns);
  http::HttpResponse Load(const TableIdentifier& ident);
  http::HttpResponse Commit(const TableIdentifier& ident);
  http::HttpResponse Drop(const TableIdentifier& ident);
  http::HttpResponse ReportMetrics(const TableIdentifier& ident);
  http::HttpResponse Register(const Namespace& ns);
  http::HttpResponse Rename();
  http::HttpResponse CommitTransaction();

 private:
  const http::HttpRequest& request_;
  const std::map<std::string, std::string>& query_;
  sql::Session& session_;
  table::TableCatalog tables_;
};

}  // namespace floe::server::rest
