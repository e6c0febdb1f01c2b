#pragma once

// What the floe subcommands share: the catalog options (--catalog, --warehouse,
// --catalog-name, --allow-root, --tz, --s3-*), opening a session on them, and the one-line
// error.

#include <cstdlib>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "floe/sql/session.h"
#include "floe/util/status.h"

namespace floe::cli {

struct CatalogArgs {
  std::string catalog;
  std::string warehouse;
  std::string catalog_name = "lakehouse";
  std::vector<std::string> allowed_roots;
  // The session time zone for timestamps read and shown (an IANA name or an offset); empty
  // keeps the session default, UTC.
  std::string time_zone;
  // --s3-endpoint, --s3-access-key-id, --s3-region, --s3-path-style, --s3-connect-timeout,
  // --s3-request-timeout and --s3-max-attempts; without a key id, credentials come from the
  // environment or ~/.aws.
  ObjectStoreOptions object_store;
  bool s3_path_style = false;
  std::string s3_secret_file;  // --s3-secret-access-key-file
  // A REST catalog (--catalog rest+http://...): --rest-warehouse, --rest-oauth2-uri,
  // --rest-scope, --rest-ca-file, --rest-header, --no-vended-credentials, and the secrets'
  // files (or $FLOE_REST_TOKEN, $FLOE_REST_CREDENTIAL).
  RestCatalogOptions rest;
  std::string rest_token_file;
  std::string rest_client_id;      // --rest-credential CLIENT_ID
  std::string rest_secret_file;    // --rest-credential-secret-file
  std::vector<std::string> rest_headers;
  bool rest_no_vended = false;
  double rest_timeout_seconds = 0;  // --rest-request-timeout; 0 keeps RestCatalogOptions'.
};

// Adds --catalog, --warehouse, --catalog-name, --allow-root, --tz, the --s3-* and the --rest-*
// options to `command`.
void AddCatalogOptions(CLI::App* command, CatalogArgs* args);

// --memory-limit SIZE: the most memory this process's statements may hold together.
void AddMemoryLimitOption(CLI::App* command, std::string* limit);
// Sets the process's memory limit from --memory-limit's value (none given: 80% of memory).
Status ApplyMemoryLimit(const std::string& limit);
// --temp-directory: where statements spill (SetProcessTempDirectory).
void AddTempDirectoryOption(CLI::App* command, std::string* directory);

// $FLOE_ALLOWED_ROOTS, then the --allow-root flags; relative paths are taken from the
// current directory, as the warehouse is.
std::vector<std::string> AllowedRoots(const std::vector<std::string>& flags);

// Opens a session on the catalog the options name, with the time zone of --tz set. The
// session's commits record `client` as their floe.client (see SessionOptions::client).
// The REST catalog options of `args` with their secrets read: the token from
// --rest-token-file or $FLOE_REST_TOKEN, the OAuth2 credential from --rest-credential CLIENT_ID
// with --rest-credential-secret-file, or $FLOE_REST_CREDENTIAL (CLIENT_ID:SECRET).
Result<RestCatalogOptions> RestOptions(const CatalogArgs& args,
                                       const std::function<const char*(const char*)>& get_env =
                                           [](const char* name) {
                                             return static_cast<const char*>(std::getenv(name));
                                           });

Result<std::unique_ptr<sql::Session>> OpenSession(const CatalogArgs& args,
                                                  const std::string& client = "floe cli");

// Writes "Error: <message>" as one line on `err` (a message's own line breaks, such as a
// caret line, are kept) and returns kExitFailed.
int ReportError(const Status& status, std::ostream& err);

}  // namespace floe::cli
