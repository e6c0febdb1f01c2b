#include "floe/server/http/metadata_site.h"

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <arrow/api.h>
#include <arrow/compute/api_vector.h>

#include "floe/scan/changelog_scan.h"
#include "floe/scan/table_changes.h"
#include "floe/server/http/metadata_json.h"
#include "floe/server/http/metadata_pages.h"
#include "floe/server/http/table_path.h"
#include "floe/server/http/url_encoding.h"
#include "floe/util/number_parse.h"

namespace floe::server::http {

namespace {

// Enough for any catalog a page can usefully list; more are left out of the index.
constexpr size_t kMaxNamespacesListed = 10000;

std::string NewNonce() {
  std::random_device random;
  std::string nonce;
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 4; ++i) {
    uint32_t bits = random();
    for (int k = 0; k < 8; ++k, bits >>= 4) nonce += kHex[bits & 0xF];
  }
  return nonce;
}

HttpResponse Html(int status, std::string body, const std::string& nonce) {
  HttpResponse response;
  response.status = status;
  response.content_type = "text/html; charset=utf-8";
  response.body = std::move(body);
  response.headers.emplace_back("Content-Security-Policy", PageSecurityPolicy(nonce));
  return response;
}

HttpResponse HtmlError(int status, const std::string& message) {
  const std::string nonce = NewNonce();
  return Html(status, MessagePage(StatusReason(status), message, nonce), nonce);
}

int StatusFor(const Status& status) {
  if (IsNotFound(status)) return 404;
  if (status.IsInvalid() || KindOf(status) == ErrorKind::kValidation) return 400;
  return 500;
}

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> segments;
  size_t start = 1;  // past the leading '/'
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    segments.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  if (segments.size() == 1 && segments[0].empty()) segments.clear();  // "/"
  return segments;
}

struct CatalogListing {
  std::vector<Namespace> namespaces;
  std::vector<TableIdentifier> tables;
};

Result<CatalogListing> ListCatalog(Catalog& catalog) {
  CatalogListing listing;
  // Depth first, so each namespace is followed by the ones below it.
  std::vector<Namespace> pending;
  ARROW_ASSIGN_OR_RAISE(auto top, catalog.ListNamespaces(Namespace()));
  pending.assign(top.rbegin(), top.rend());
  while (!pending.empty() && listing.namespaces.size() < kMaxNamespacesListed) {
    Namespace ns = std::move(pending.back());
    pending.pop_back();
    ARROW_ASSIGN_OR_RAISE(auto tables, catalog.ListTables(ns));
    listing.tables.insert(listing.tables.end(), tables.begin(), tables.end());
    ARROW_ASSIGN_OR_RAISE(auto children, catalog.ListNamespaces(ns));
    pending.insert(pending.end(), children.rbegin(), children.rend());
    listing.namespaces.push_back(std::move(ns));
  }
  return listing;
}

// The table, or NotFound "Table <catalog>.<ns>.<t> not found" as the floe command says it.
Result<std::shared_ptr<table::Table>> LoadTable(sql::Session& session,
                                                const TableIdentifier& ident) {
  auto loaded = table::Table::Load(session.catalog(), session.io(), ident);
  if (!loaded.ok() && IsNotFound(loaded.status())) {
    return NotFound("Table ", session.catalog()->name(), ".", ident.ToString(), " not found");
  }
  return loaded;
}

Result<int64_t> SnapshotParameter(const std::map<std::string, std::string>& query,
                                  const std::string& name) {
  auto it = query.find(name);
  if (it == query.end() || it->second.empty()) {
    return Status::Invalid("Missing parameter '", name, "': a snapshot id");
  }
  std::optional<int64_t> id = ParseInt64(it->second);
  if (!id) {
    return Status::Invalid("Invalid parameter '", name, "': '", it->second,
                           "' is not a snapshot id");
  }
  return *id;
}

// An optional snapshot id: none when absent or empty.
Result<std::optional<int64_t>> OptionalSnapshotParameter(
    const std::map<std::string, std::string>& query, const std::string& name) {
  auto it = query.find(name);
  if (it == query.end() || it->second.empty()) return std::optional<int64_t>();
  ARROW_ASSIGN_OR_RAISE(int64_t id, SnapshotParameter(query, name));
  return std::optional<int64_t>(id);
}

Result<int64_t> LimitParameter(const std::map<std::string, std::string>& query) {
  auto it = query.find("limit");
  if (it == query.end() || it->second.empty()) return kChangeRowsShown;
  std::optional<int64_t> limit = ParseInt64(it->second);
  if (!limit || *limit < 0 || *limit > kMaxChangeRows) {
    return Status::Invalid("Invalid parameter 'limit': '", it->second,
                           "' is not a number from 0 to ", kMaxChangeRows);
  }
  return *limit;
}

Result<std::shared_ptr<arrow::Table>> ReadAllChanges(const std::shared_ptr<table::Table>& table,
                                                     const scan::TableChangesOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto reader, scan::ReadTableChanges(table, options));
  return reader->ToTable();
}

// The rows of table_changes in the order `floe changes` prints them: by _change_ordinal,
// the schema's identifier fields, the kind of change (a before image ahead of its after
// image), then the table's other columns that order; nulls first.
Result<std::shared_ptr<arrow::Table>> InChangeOrder(const spec::Schema& schema,
                                                    const std::shared_ptr<arrow::Table>& rows) {
  namespace cp = arrow::compute;
  const auto& names = rows->schema()->fields();
  auto index_of = [&](const std::string& name) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i]->name() == name) return static_cast<int>(i);
    }
    return -1;
  };
  const int type_column = index_of(scan::kChangeTypeColumn);
  const int ordinal_column = index_of(scan::kChangeOrdinalColumn);
  if (type_column < 0 || ordinal_column < 0) return rows;
  arrow::Int8Builder ranks;
  for (const auto& chunk : rows->column(type_column)->chunks()) {
    const auto& types = static_cast<const arrow::StringArray&>(*chunk);
    for (int64_t i = 0; i < types.length(); ++i) {
      const std::string_view type = types.GetView(i);
      ARROW_RETURN_NOT_OK(ranks.Append(type == scan::kChangeDelete         ? 0
                                       : type == scan::kChangeUpdateBefore ? 1
                                       : type == scan::kChangeUpdateAfter  ? 2
                                                                           : 3));
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto rank_array, ranks.Finish());
  const int rank_column = rows->num_columns();
  ARROW_ASSIGN_OR_RAISE(auto ranked,
                        rows->AddColumn(rank_column, arrow::field("rank", arrow::int8()),
                                        std::make_shared<arrow::ChunkedArray>(rank_array)));
  std::vector<cp::SortKey> keys = {cp::SortKey(arrow::FieldRef(ordinal_column))};
  std::vector<int> data_columns;
  const auto& identifiers = schema.identifier_field_ids();
  for (bool identifier : {true, false}) {
    if (!identifier) keys.push_back(cp::SortKey(arrow::FieldRef(rank_column)));
    for (const spec::NestedField& field : schema.fields()) {
      const bool is_identifier =
          std::find(identifiers.begin(), identifiers.end(), field.id) != identifiers.end();
      const int column = index_of(field.name);
      if (is_identifier != identifier || column < 0 || !field.type->is_primitive()) continue;
      keys.push_back(cp::SortKey(arrow::FieldRef(column)));
    }
  }
  ARROW_ASSIGN_OR_RAISE(
      auto indices,
      cp::SortIndices(arrow::Datum(ranked), cp::SortOptions(keys, cp::NullPlacement::AtStart)));
  ARROW_ASSIGN_OR_RAISE(arrow::Datum taken, cp::Take(arrow::Datum(rows), arrow::Datum(indices)));
  return taken.table();
}

}  // namespace

HttpResponse MetadataSite::Handle(const HttpRequest& request, sql::Session& session) {
  if (request.method != "GET") {
    HttpResponse response =
        TextResponse(405, "The metadata pages are read-only; only GET is served");
    response.headers.emplace_back("Allow", "GET");
    return response;
  }
  const std::vector<std::string> segments = SplitPath(request.path);
  const bool api = !segments.empty() && segments[0] == "api";
  auto fail = [&](const Status& status) {
    const int code = StatusFor(status);
    return api ? JsonResponse(code, ErrorJson(status.message()))
               : HtmlError(code, status.message());
  };
  const std::string& catalog_name = session.catalog()->name();

  if (segments.empty() || (segments.size() == 2 && api && segments[1] == "tables")) {
    auto listing = ListCatalog(*session.catalog());
    if (!listing.ok()) return fail(listing.status());
    if (api)
      return JsonResponse(200, TablesJson(catalog_name, listing->namespaces, listing->tables));
    const std::string nonce = NewNonce();
    return Html(200, IndexPage(catalog_name, listing->namespaces, listing->tables, nonce), nonce);
  }

  // /table/<ns>/<t>, /api/table/<ns>/<t>, /api/table/<ns>/<t>/diff, /api/table/<ns>/<t>/changes
  const size_t base = api ? 1 : 0;
  const bool diff = api && segments.size() == base + 4 && segments[base + 3] == "diff";
  const bool changes = api && segments.size() == base + 4 && segments[base + 3] == "changes";
  if (segments.size() >= base + 3 && segments[base] == "table" &&
      (segments.size() == base + 3 || diff || changes)) {
    std::optional<TableIdentifier> ident = ParseTablePath(segments[base + 1], segments[base + 2]);
    if (!ident) return fail(Status::Invalid("Invalid table name in ", request.path));
    auto table = LoadTable(session, *ident);
    if (!table.ok()) return fail(table.status());
    if (!api) {
      const std::string nonce = NewNonce();
      return Html(200, TablePage((*table)->name(), nonce), nonce);
    }
    if (!diff && !changes) return JsonResponse(200, TableJson(**table));

    auto query = ParseQuery(request.query);
    if (!query) return fail(Status::Invalid("Malformed query string"));
    struct Slot {
      std::counting_semaphore<2>& s;
      ~Slot() { s.release(); }
    };
    if (changes) {
      auto from = OptionalSnapshotParameter(*query, "from");
      if (!from.ok()) return fail(from.status());
      auto to = OptionalSnapshotParameter(*query, "to");
      if (!to.ok()) return fail(to.status());
      auto limit = LimitParameter(*query);
      if (!limit.ok()) return fail(limit.status());
      scan::TableChangesOptions options;
      options.from_exclusive = *from;
      options.to_inclusive = *to;
      options.to_is_head = !*to;
      options.memory_budget_bytes = kDiffMemoryBudget;
      spec::SchemaPtr schema = (*table)->metadata()->current_schema();
      if (!schema)
        return fail(Status::IOError("Table ", (*table)->name(), " has no current schema"));
      diffs_.acquire();
      Slot slot{diffs_};
      auto rows = ReadAllChanges(*table, options);
      if (!rows.ok()) return fail(rows.status());
      auto ordered = InChangeOrder(*schema, *rows);
      if (!ordered.ok()) return fail(ordered.status());
      const std::optional<int64_t> shown_to = *to ? *to : (*table)->metadata()->current_snapshot_id;
      return JsonResponse(200, ChangesJson(**table, *from, shown_to, **ordered, *limit));
    }
    auto from = SnapshotParameter(*query, "from");
    if (!from.ok()) return fail(from.status());
    auto to = SnapshotParameter(*query, "to");
    if (!to.ok()) return fail(to.status());
    scan::DiffOptions options;
    options.sample_rows = kDiffRowsShown;
    options.memory_budget_bytes = kDiffMemoryBudget;
    diffs_.acquire();
    Slot slot{diffs_};
    auto result = scan::DiffSnapshots(*table, *from, *to, options);
    if (!result.ok()) return fail(result.status());
    return JsonResponse(200, DiffJson(**table, *result, kDiffRowsShown));
  }
  return fail(NotFound("No page at ", request.path));
}

}  // namespace floe::server::http
