#pragma once

// The metadata pages' routes, from a parsed request to a response, over a session that the
// caller lends for the call. Read-only: it loads metadata, lists the catalog and reads data
// files for diffs, and never commits.
//
//   GET /                                   IndexPage
//   GET /table/<ns>/<t>                     TablePage (404 naming an unknown table)
//   GET /api/tables                         TablesJson
//   GET /api/table/<ns>/<t>                 TableJson
//   GET /api/table/<ns>/<t>/diff?from=&to=  DiffJson
//   GET /api/table/<ns>/<t>/changes?from=&to=&limit=
//                                           ChangesJson: table_changes from `from` (default: the
//                                           table as created) to `to` (default: the current
//                                           snapshot), the first `limit` rows (default 100)
//
// Any other method is 405; any other path 404.

#include <cstdint>
#include <semaphore>

#include "floe/server/http/http_request.h"
#include "floe/server/http/http_response.h"
#include "floe/sql/session.h"

namespace floe::server::http {

// Rows of each kind (added, removed) a diff returns; the counts are always exact.
inline constexpr int64_t kDiffRowsShown = 100;
// Rows of table_changes returned unless `limit` says otherwise, and the most it may ask for;
// the total is always exact.
inline constexpr int64_t kChangeRowsShown = 100;
inline constexpr int64_t kMaxChangeRows = 1000;

class MetadataSite {
 public:
  HttpResponse Handle(const HttpRequest& request, sql::Session& session);

 private:
  // Diffs and changes read data files and hold rows: at most this many run at once, each
  // within kDiffMemoryBudget. The changes of a range that is one line of history are all held
  // before the first `limit` are returned.
  static constexpr int64_t kDiffMemoryBudget = 64LL << 20;
  std::counting_semaphore<2> diffs_{2};
};

}  // namespace floe::server::http
