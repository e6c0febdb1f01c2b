#include "floe/cli/command_common.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string_view>

#include "floe/catalog/rest_answers.h"
#include "floe/cli/sql_command.h"
#include "floe/util/byte_size.h"
#include "floe/util/memory_limit.h"

namespace floe::cli {

namespace {
constexpr char kAllowRootHelp[] =
    "Also let tables live under PATH, outside the warehouse (repeatable; added to the "
    "colon-separated list in $FLOE_ALLOWED_ROOTS)";
}  // namespace

void AddCatalogOptions(CLI::App* command, CatalogArgs* args) {
  command->add_option("--catalog", args->catalog,
                      "Catalog: a SQLite file path or URI (sqlite:///path, jdbc:sqlite:path) or a "
                      "PostgreSQL database (postgresql://user@host:port/db, "
                      "jdbc:postgresql://host:port/db?user=u) or an Iceberg REST catalog "
                      "(rest+http://host:port/path, rest+https://...); default $FLOE_CATALOG, "
                      "else ./warehouse/catalog.db");
  command->add_option("--warehouse", args->warehouse,
                      "Warehouse directory for new tables; default $FLOE_WAREHOUSE, else "
                      "./warehouse (created when missing)");
  command->add_option("--catalog-name", args->catalog_name, "Catalog name in SQL")
      ->capture_default_str();
  command->add_option("--allow-root", args->allowed_roots, kAllowRootHelp);
  command->add_option("--tz", args->time_zone,
                      "Session time zone for timestamps given and shown, e.g. "
                      "America/New_York or +02:00 (default UTC)");
  // Object storage, for a warehouse or tables at s3://bucket/prefix (s3a://, s3n://).
  // Credentials come from --s3-access-key-id with the secret in a file (a secret on the
  // command line would show in every process listing), else AWS_ACCESS_KEY_ID,
  // AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, else ~/.aws/credentials and ~/.aws/config.
  command->add_option("--s3-endpoint", args->object_store.endpoint,
                      "S3-compatible endpoint for s3:// locations, e.g. http://127.0.0.1:9000; "
                      "default $AWS_ENDPOINT_URL_S3, else $AWS_ENDPOINT_URL, else AWS");
  command->add_option("--s3-access-key-id", args->object_store.access_key_id,
                      "S3 access key id, with --s3-secret-access-key-file; default "
                      "$AWS_ACCESS_KEY_ID with $AWS_SECRET_ACCESS_KEY and $AWS_SESSION_TOKEN, "
                      "else ~/.aws");
  command->add_option("--s3-secret-access-key-file", args->s3_secret_file,
                      "File holding the secret access key of --s3-access-key-id (its first "
                      "line)");
  command->add_option("--s3-region", args->object_store.region,
                      "S3 region; default $AWS_REGION, else $AWS_DEFAULT_REGION, else "
                      "~/.aws/config");
  command->add_flag("--s3-path-style", args->s3_path_style,
                    "Path-style S3 requests (endpoint/bucket/key); the default when "
                    "an endpoint is given (--s3-endpoint or the environment)");
  command->add_option("--s3-connect-timeout", args->object_store.connect_timeout_seconds,
                      "Seconds to wait for a connection to S3 (default: the AWS SDK's)");
  command->add_option("--s3-request-timeout", args->object_store.request_timeout_seconds,
                      "Seconds an S3 transfer may stall before it fails (default: the AWS "
                      "SDK's)");
  command->add_option("--s3-max-attempts", args->object_store.max_attempts,
                      "Attempts per S3 request for retryable errors (500, 503, throttling, lost "
                      "connections), the first included (default: retry connection errors "
                      "only)");
  // An Iceberg REST catalog (--catalog rest+http://HOST:PORT[/PATH] or rest+https://...).
  // Secrets come from files or the environment, never from the command line.
  command->add_option("--rest-warehouse", args->rest.warehouse,
                      "Warehouse to ask a REST catalog for (GET /v1/config?warehouse=...)");
  command->add_option("--rest-token-file", args->rest_token_file,
                      "File holding the bearer token for a REST catalog (its first line); "
                      "default $FLOE_REST_TOKEN");
  command->add_option("--rest-credential", args->rest_client_id,
                      "OAuth2 client id for a REST catalog, with --rest-credential-secret-file; "
                      "default $FLOE_REST_CREDENTIAL (CLIENT_ID:SECRET)");
  command->add_option("--rest-credential-secret-file", args->rest_secret_file,
                      "File holding the OAuth2 client secret of --rest-credential (its first "
                      "line)");
  command->add_option("--rest-oauth2-uri", args->rest.oauth2_uri,
                      "OAuth2 token endpoint of a REST catalog (default: its /v1/oauth/tokens)");
  command->add_option("--rest-scope", args->rest.scope, "OAuth2 scope to ask for")
      ->capture_default_str();
  command->add_option("--rest-ca-file", args->rest.ca_file,
                      "CA certificates (PEM) to verify a rest+https:// catalog with (default: "
                      "the system's)");
  command->add_option("--rest-header", args->rest_headers,
                      "Extra header for every request to a REST catalog, 'Name: value' "
                      "(repeatable)");
  command->add_option("--rest-request-timeout", args->rest_timeout_seconds,
                      "Seconds a request to a REST catalog may take before it fails (default "
                      "120)")
      ->check(CLI::Range(0.001, 86400.0));
  command->add_option("--rest-page-size", args->rest.page_size,
                      "Entries per page when listing a REST catalog's namespaces and tables "
                      "(default: the catalog's rest-page-size, else the server's choice)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  command->add_flag("--no-vended-credentials", args->rest_no_vended,
                    "Do not ask a REST catalog for the credentials of each table's files; "
                    "floe's own S3 options apply");
}

void AddMemoryLimitOption(CLI::App* command, std::string* limit) {
  command->add_option("--memory-limit", *limit,
                      "Most memory the statements of this process may hold together, e.g. 4GB; "
                      "a statement that needs more fails alone (default: 80% of the machine's "
                      "memory; a session may lower its own with SET floe.memory_limit)");
}

Status ApplyMemoryLimit(const std::string& limit) {
  if (limit.empty()) return Status::OK();
  auto bytes = ParseByteSize(limit);
  if (!bytes.ok()) return Status::Invalid("--memory-limit: ", bytes.status().message());
  if (*bytes <= 0) return Status::Invalid("--memory-limit must be larger than 0");
  MemoryBudget::Process().set_limit(*bytes);
  return Status::OK();
}

void AddTempDirectoryOption(CLI::App* command, std::string* directory) {
  command->add_option("--temp-directory", *directory,
                      "Where sorts, aggregates and joins larger than the memory limit spill "
                      "(default: $TMPDIR or /tmp)");
}

std::vector<std::string> AllowedRoots(const std::vector<std::string>& flags) {
  std::vector<std::string> roots;
  if (const char* env = std::getenv("FLOE_ALLOWED_ROOTS")) {
    std::string_view list(env);
    while (!list.empty()) {
      size_t colon = list.find(':');
      // A URI keeps its own colon: "file:/x" and "s3://b/x" are one entry each.
      if (list.substr(0, 5) == "file:") colon = list.find(':', 5);
      for (std::string_view scheme : {"s3:", "s3a:", "s3n:"}) {
        if (list.substr(0, scheme.size()) == scheme) colon = list.find(':', scheme.size());
      }
      roots.emplace_back(list.substr(0, colon));
      if (colon == std::string_view::npos) break;
      list.remove_prefix(colon + 1);
    }
  }
  roots.insert(roots.end(), flags.begin(), flags.end());
  std::vector<std::string> out;
  for (auto& root : roots) {
    if (root.empty()) continue;
    if (root.front() != '/' && root.rfind("file:", 0) != 0 &&
        root.find("://") == std::string::npos) {
      root = std::filesystem::absolute(root).lexically_normal().string();
    }
    out.push_back(std::move(root));
  }
  return out;
}

namespace {

// The first line of a file holding a secret, without its line end; `what` names the secret.
Result<std::string> ReadSecretFile(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  std::string secret;
  if (!in || !std::getline(in, secret)) {
    return Status::IOError("Cannot read the ", what, " from ", path);
  }
  if (!secret.empty() && secret.back() == '\r') secret.pop_back();
  if (secret.empty()) return Status::Invalid("The ", what, " file ", path, " is empty");
  return secret;
}

// The secret of --s3-secret-access-key-file: the file's first line, without its line end.
Result<std::string> ReadS3Secret(const CatalogArgs& args) {
  const std::string& key_id = args.object_store.access_key_id;
  if (args.s3_secret_file.empty()) {
    // A key id without its secret (the Python package gives both in the options).
    if (!key_id.empty() && args.object_store.secret_access_key.empty()) {
      return Status::Invalid("--s3-access-key-id needs --s3-secret-access-key-file");
    }
    return args.object_store.secret_access_key;
  }
  if (key_id.empty()) {
    return Status::Invalid("--s3-secret-access-key-file needs --s3-access-key-id");
  }
  return ReadSecretFile(args.s3_secret_file, "S3 secret access key");
}

}  // namespace

Result<RestCatalogOptions> RestOptions(const CatalogArgs& args,
                                       const std::function<const char*(const char*)>& get_env) {
  RestCatalogOptions rest = args.rest;
  auto env = [&](const char* name) {
    const char* value = get_env(name);
    return std::string(value == nullptr ? "" : value);
  };
  if (!args.rest_token_file.empty()) {
    ARROW_ASSIGN_OR_RAISE(rest.token, ReadSecretFile(args.rest_token_file, "REST catalog token"));
  } else if (rest.token.empty()) {
    rest.token = env("FLOE_REST_TOKEN");
  }
  if (args.rest_client_id.find(':') != std::string::npos) {
    return Status::Invalid(
        "--rest-credential takes the client id alone: a secret on the command line shows in "
        "every process listing; put it in a file for --rest-credential-secret-file, or give "
        "CLIENT_ID:SECRET in $FLOE_REST_CREDENTIAL");
  }
  if (!args.rest_client_id.empty()) {
    if (args.rest_secret_file.empty()) {
      return Status::Invalid("--rest-credential needs --rest-credential-secret-file");
    }
    ARROW_ASSIGN_OR_RAISE(std::string secret,
                          ReadSecretFile(args.rest_secret_file, "OAuth2 client secret"));
    rest.credential = args.rest_client_id + ":" + secret;
  } else if (!args.rest_secret_file.empty()) {
    return Status::Invalid("--rest-credential-secret-file needs --rest-credential");
  } else if (rest.credential.empty()) {
    rest.credential = env("FLOE_REST_CREDENTIAL");
  }
  for (const std::string& header : args.rest_headers) {
    auto parsed = ParseHeaderLine(header);
    if (!parsed.ok()) return Status::Invalid("--rest-header: ", parsed.status().message());
    rest.headers.push_back(std::move(*parsed));
  }
  if (args.rest_no_vended) rest.vended_credentials = false;
  if (args.rest_timeout_seconds > 0) {
    rest.timeout_ms = std::max<int64_t>(1, static_cast<int64_t>(args.rest_timeout_seconds * 1000));
  }
  return rest;
}

Result<std::unique_ptr<sql::Session>> OpenSession(const CatalogArgs& args,
                                                  const std::string& client) {
  CatalogLocation location = ResolveCatalogLocation(args.catalog, args.warehouse);
  ARROW_RETURN_NOT_OK(PrepareCatalogLocation(location));
  sql::SessionOptions options;
  options.catalog_uri = location.catalog_uri;
  options.warehouse = location.warehouse;
  options.catalog_name = args.catalog_name;
  options.allowed_roots = AllowedRoots(args.allowed_roots);
  options.object_store = args.object_store;
  if (args.s3_path_style) options.object_store.path_style = true;
  ARROW_ASSIGN_OR_RAISE(options.object_store.secret_access_key, ReadS3Secret(args));
  options.client = client;
  if (IsRestCatalogUri(options.catalog_uri)) {
    ARROW_ASSIGN_OR_RAISE(options.rest, RestOptions(args));
  }
  ARROW_ASSIGN_OR_RAISE(std::unique_ptr<sql::Session> session, sql::Session::Make(options));
  // Said once, by the process whose first open of the catalog could not install the trigger.
  const std::string refusal = session->catalog()->AuditTriggerRefusal();
  if (!refusal.empty()) {
    std::cerr << "Warning: other engines' changes to catalog " << session->catalog()->name()
              << " are not recorded in its audit log: the database refused its table or trigger: "
              << refusal << " (floe verify reports it; floe audit --install-trigger retries)\n";
  }
  if (!args.time_zone.empty()) {
    ARROW_RETURN_NOT_OK(session->SetSetting("spark.sql.session.timeZone", args.time_zone));
  }
  return session;
}

int ReportError(const Status& status, std::ostream& err) {
  err << "Error: " << status.message() << "\n";
  return kExitFailed;
}

}  // namespace floe::cli
