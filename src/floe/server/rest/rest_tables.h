#pragma once

// The REST catalog's table routes (open-api/rest-catalog-open-api.yaml, Iceberg 1.10):
//
//   POST   /v1/namespaces/{ns}/tables                 create (stage-create: metadata only)
//   GET    /v1/namespaces/{ns}/tables/{table}         load; snapshots=all|refs, ETag / 304
//   HEAD   /v1/namespaces/{ns}/tables/{table}         204, or 404
//   POST   /v1/namespaces/{ns}/tables/{table}         commit requirements and updates
//   DELETE /v1/namespaces/{ns}/tables/{table}         drop; purgeRequested=true deletes files
//   POST   /v1/namespaces/{ns}/tables/{table}/metrics accepted and dropped
//   POST   /v1/namespaces/{ns}/register               register a metadata file
//   POST   /v1/tables/rename                          rename
//   POST   /v1/transactions/commit                    several tables, all or nothing
//
// Every change goes through floe's own commit path: updates applied by TableMetadataBuilder,
// protection rules, location policy, retries and the audit log, stamped with the client.
//
// A change sent with an Idempotency-Key is kept with that key in its catalog transaction; the
// same key sent again within kIdempotencyKeyLifetime gets the first answer and changes nothing
// (a retry after a lost answer or a server restart). Refused requests are not kept.

#include <map>
#include <optional>
#include <string>

#include "floe/catalog/table_identifier.h"
#include "floe/server/http/http_request.h"
#include "floe/server/http/http_response.h"
#include "floe/sql/session.h"
#include "floe/table/table_catalog.h"

namespace floe::server::rest {

inline constexpr int64_t kIdempotencyKeyLifetimeMs = 30 * 60 * 1000;
inline constexpr char kIdempotencyKeyLifetime[] = "PT30M";  // as the config advertises it

class TableRoutes {
 public:
  TableRoutes(const http::HttpRequest& request, const std::map<std::string, std::string>& query,
              sql::Session& session, const std::string& user, bool vend_credentials = false);

  http::HttpResponse Create(const Namespace& ns);
  http::HttpResponse Load(const TableIdentifier& ident);
  http::HttpResponse Exists(const TableIdentifier& ident);
  http::HttpResponse Commit(const TableIdentifier& ident);
  http::HttpResponse Drop(const TableIdentifier& ident);
  http::HttpResponse ReportMetrics(const TableIdentifier& ident);
  http::HttpResponse Register(const Namespace& ns);
  http::HttpResponse Rename();
  http::HttpResponse CommitTransaction();

 private:
  // The first answer to this request's Idempotency-Key, when one was given and used before;
  // a malformed key is refused.
  // `with_metadata`: a LoadTableResult (with `config`: a create's or register's) or a
  // CommitTableResponse, else 204.
  std::optional<http::HttpResponse> Replay(const std::optional<TableIdentifier>& table,
                                           bool with_metadata, bool with_config = true);

  // A LoadTableResult's `config` for a table at `location`: {}, or with the server's S3
  // settings when it vends them, the client asked and the table is in object storage.
  std::string Config(const std::string& location) const;
  std::string TableResult(const std::string& metadata_location, std::string_view metadata_json,
                          bool with_config, const std::string& location) const;

  const http::HttpRequest& request_;
  const std::map<std::string, std::string>& query_;
  sql::Session& session_;
  table::TableCatalog tables_;
  const bool vend_credentials_;
};

}  // namespace floe::server::rest
