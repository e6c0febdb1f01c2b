#include "python_session.h"

#include <cstdlib>
#include <variant>

#include <arrow/scalar.h>
#include <arrow/table.h>

#include "floe/catalog/table_identifier.h"
#include "floe/cli/command_common.h"
#include "floe/scan/incremental_scan.h"
#include "floe/sql/parse/parse_error.h"
#include "floe/sql/parse/parser.h"
#include "floe/sql/plan/query_planner.h"
#include "floe/table/run_manifest.h"
#include "floe/table/table_catalog.h"
#include "floe/util/ascii.h"
#include "floe/util/clock.h"
#include "floe/util/str_cat.h"

namespace floe::python {

namespace {

// "lakehouse.db.t" and "db.t" name the same table, as in SQL.
Result<TableIdentifier> ParseTableName(const std::string& name, const std::string& catalog_name) {
  ARROW_ASSIGN_OR_RAISE(TableIdentifier ident, TableIdentifier::Parse(name));
  if (ident.ns.size() > 1 && AsciiLower(ident.ns.levels.front()) == AsciiLower(catalog_name)) {
    ident.ns.levels.erase(ident.ns.levels.begin());
  }
  return ident;
}

std::string QuoteIdentifier(const std::string& name) {
  std::string out = "`";
  for (char c : name) {
    out += c;
    if (c == '`') out += '`';
  }
  return out + "`";
}

Result<double> ParseSeconds(const std::string& key, const std::string& value,
                            std::string_view what = "S3") {
  char* end = nullptr;
  double seconds = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !(seconds >= 0) || seconds > 86400) {
    return Status::Invalid(what, " option '", key,
                           "' must be a number of seconds from 0 to 86400, not '", value, "'");
  }
  return seconds;
}

}  // namespace

Result<ObjectStoreOptions> ObjectStoreFromSettings(
    const std::map<std::string, std::string>& settings) {
  ObjectStoreOptions options;
  for (const auto& [key, value] : settings) {
    if (key == "endpoint") {
      options.endpoint = value;
    } else if (key == "region") {
      options.region = value;
    } else if (key == "path_style") {
      if (value != "true" && value != "false") {
        return Status::Invalid("S3 option 'path_style' must be true or false, not '", value, "'");
      }
      options.path_style = value == "true";
    } else if (key == "access_key_id") {
      options.access_key_id = value;
    } else if (key == "secret_access_key") {
      options.secret_access_key = value;
    } else if (key == "session_token") {
      options.session_token = value;
    } else if (key == "connect_timeout") {
      ARROW_ASSIGN_OR_RAISE(options.connect_timeout_seconds, ParseSeconds(key, value));
    } else if (key == "request_timeout") {
      ARROW_ASSIGN_OR_RAISE(options.request_timeout_seconds, ParseSeconds(key, value));
    } else if (key == "max_attempts") {
      char* end = nullptr;
      long attempts = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || end != value.c_str() + value.size() || attempts < 1 || attempts > 100) {
        return Status::Invalid(
            "S3 option 'max_attempts' must be a whole number from 1 to 100, not '", value, "'");
      }
      options.max_attempts = static_cast<int>(attempts);
    } else {
      return Status::Invalid("Unknown S3 option '", key,
                             "'; expected endpoint, region, path_style, access_key_id, "
                             "secret_access_key, session_token, connect_timeout, request_timeout "
                             "or max_attempts");
    }
  }
  if (options.access_key_id.empty() != options.secret_access_key.empty()) {
    return Status::Invalid("S3 options 'access_key_id' and 'secret_access_key' go together");
  }
  return options;
}

Result<RestCatalogOptions> RestFromSettings(const std::map<std::string, std::string>& settings) {
  RestCatalogOptions options;
  for (const auto& [key, value] : settings) {
    if (key == "warehouse") {
      options.warehouse = value;
    } else if (key == "token") {
      options.token = value;
    } else if (key == "credential") {
      options.credential = value;
    } else if (key == "oauth2_uri") {
      options.oauth2_uri = value;
    } else if (key == "scope") {
      options.scope = value;
    } else if (key == "ca_file") {
      options.ca_file = value;
    } else if (key == "vended_credentials") {
      if (value != "true" && value != "false") {
        return Status::Invalid("REST option 'vended_credentials' must be true or false, not '",
                               value, "'");
      }
      options.vended_credentials = value == "true";
    } else if (key == "request_timeout") {
      ARROW_ASSIGN_OR_RAISE(double seconds, ParseSeconds(key, value, "REST"));
      options.timeout_ms = std::max<int64_t>(1, static_cast<int64_t>(seconds * 1000));
    } else if (key.rfind("header.", 0) == 0 && key.size() > 7) {
      options.headers.emplace_back(key.substr(7), value);
    } else {
      return Status::Invalid("Unknown REST option '", key,
                             "'; expected warehouse, token, credential, oauth2_uri, scope, "
                             "ca_file, vended_credentials, request_timeout or header.NAME");
    }
  }
  return options;
}

Result<std::unique_ptr<PythonSession>> PythonSession::Open(const ConnectOptions& options) {
  cli::CatalogArgs args;
  args.catalog = options.catalog;
  args.warehouse = options.warehouse;
  args.catalog_name = options.catalog_name;
  args.time_zone = options.time_zone;
  args.object_store = options.object_store;
  args.rest = options.rest;
  ARROW_ASSIGN_OR_RAISE(std::unique_ptr<sql::Session> session,
                        cli::OpenSession(args, "floe python"));
  return std::unique_ptr<PythonSession>(new PythonSession(std::move(session)));
}

Result<sql::StatementResult> PythonSession::Execute(const std::string& sql) {
  std::lock_guard<std::mutex> lock(mutex_);
  return session_->Execute(sql);
}

std::string PythonSession::Setting(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  return session_->Setting(key);
}

std::string PythonSession::catalog_name() {
  std::lock_guard<std::mutex> lock(mutex_);
  return session_->catalog()->name();
}

Result<std::string> PythonSession::BuildRunManifest(const std::vector<std::string>& tables,
                                                    int64_t run_started_at_ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  table::TableCatalog catalog(session_->catalog(), session_->io());
  std::vector<std::shared_ptr<table::Table>> loaded;
  for (const std::string& name : tables) {
    ARROW_ASSIGN_OR_RAISE(TableIdentifier ident, ParseTableName(name, session_->catalog()->name()));
    ARROW_ASSIGN_OR_RAISE(auto table, catalog.LoadTable(ident));
    loaded.push_back(std::move(table));
  }
  ARROW_ASSIGN_OR_RAISE(table::RunManifest manifest,
                        table::BuildRunManifest(loaded, run_started_at_ms));
  return table::RunManifestToJson(manifest);
}

Result<std::vector<ManifestSource>> PythonSession::ResolveRunManifest(const std::string& json) {
  std::lock_guard<std::mutex> lock(mutex_);
  ARROW_ASSIGN_OR_RAISE(table::RunManifest manifest, table::RunManifestFromJson(json));
  table::TableCatalog catalog(session_->catalog(), session_->io());
  ARROW_ASSIGN_OR_RAISE(auto resolved, table::ResolveRunManifest(catalog, manifest));
  std::vector<ManifestSource> out;
  for (const auto& source : resolved) {
    out.push_back({source.table->name(), *source.snapshot.snapshot_id()});
  }
  return out;
}

Result<sql::StatementResult> PythonSession::ReadAppendedRows(
    const std::string& table, int64_t start_exclusive, std::optional<int64_t> end_inclusive,
    const std::vector<std::string>& columns, const std::string& filter) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string select;
  for (const std::string& column : columns) {
    select += (select.empty() ? "" : ", ") + QuoteIdentifier(column);
  }
  std::string text = StrCat("SELECT ", select.empty() ? "*" : select, " FROM ", table);
  if (!filter.empty()) text += " WHERE " + filter;
  ARROW_ASSIGN_OR_RAISE(sql::Statement statement, sql::ParseStatement(text));
  const auto* query = std::get_if<sql::Query>(&statement.node);
  if (query == nullptr) return ValidationError("Not a query: ", text);

  const std::string catalog_name = session_->catalog()->name();
  table::TableCatalog catalog(session_->catalog(), session_->io());
  // The FROM item is the table, read once as its appended rows (a query planned again meets
  // the same item); any other table reference came in with the filter.
  const sql::TableRef* from = nullptr;
  std::shared_ptr<arrow::Table> appended;
  std::vector<std::vector<std::string>> qualifiers;
  sql::PlannerEnv env;
  env.time_zone = session_->Setting("spark.sql.session.timeZone", "UTC");
  env.now_micros = NowMillis() * 1000;
  env.sql = text;
  env.pushdown = false;  // the rows are in memory already, every column of them
  env.resolve_table = [&](const sql::TableRef& ref, const sql::ScanHints&) -> Result<sql::Rel> {
    if (from != nullptr && &ref != from) {
      return sql::ErrorAt(text, ref.name.pos,
                          "The filter of an incremental read cannot read tables; it reads only "
                          "the appended rows' columns");
    }
    if (from == nullptr) {
      std::vector<std::string> parts;
      for (const auto& part : ref.name.parts) parts.push_back(part.name);
      if (parts.size() > 1 && AsciiLower(parts.front()) == AsciiLower(catalog_name)) {
        parts.erase(parts.begin());
      }
      std::vector<std::string> levels(parts.begin(), parts.end() - 1);
      if (levels.empty()) {
        // A bare name is in the current namespace, as SQL resolves it.
        ARROW_ASSIGN_OR_RAISE(sql::StatementResult current,
                              session_->Execute("SELECT current_schema()"));
        ARROW_ASSIGN_OR_RAISE(auto value, current.rows->column(0)->GetScalar(0));
        levels = SplitDots(value->ToString());
      }
      TableIdentifier ident(Namespace(levels), parts.back());
      auto loaded = catalog.LoadTable(ident);
      if (!loaded.ok() && IsNotFound(loaded.status())) {
        return sql::ErrorAt(
            text, ref.name.pos,
            StrCat("[TABLE_OR_VIEW_NOT_FOUND] The table or view `", catalog_name, "`.`",
                   ident.ns.ToString(), "`.`", ident.name, "` cannot be found."));
      }
      ARROW_RETURN_NOT_OK(loaded.status());
      ARROW_ASSIGN_OR_RAISE(appended,
                            scan::ReadAppendedRows(**loaded, start_exclusive, end_inclusive));
      // Columns answer to the names SQL gives the table: t, db.t and lakehouse.db.t.
      std::vector<std::string> full{AsciiLower(catalog_name)};
      for (const auto& level : ident.ns.levels) full.push_back(AsciiLower(level));
      full.push_back(AsciiLower(ident.name));
      qualifiers = {{full.back()}, {full.begin() + 1, full.end()}, full};
      from = &ref;
    }
    sql::Rel rel = sql::RelFromTable(appended);
    for (auto& column : rel.columns) column.qualifiers = qualifiers;
    return rel;
  };
  sql::QueryPlanner planner(std::move(env));
  ARROW_ASSIGN_OR_RAISE(auto rows, planner.Run(*query));
  sql::StatementResult result;
  result.statement = std::move(text);
  result.command = "SELECT";
  result.rows_affected = rows->num_rows();
  result.rows = std::move(rows);
  return result;
}

}  // namespace floe::python
