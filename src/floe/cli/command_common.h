#pragma once

// What the floe subcommands share: the catalog options (--catalog, --warehouse,
// --catalog-name, --allow-root, --tz, --s3-*), opening a session on them, and the one-line
// error.

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
};

// Adds --catalog, --warehouse, --catalog-name, --allow-root, --tz and the --s3-* options to
// `command`.
void AddCatalogOptions(CLI::App* command, CatalogArgs* args);

// $FLOE_ALLOWED_ROOTS, then the --allow-root flags; relative paths are taken from the
// current directory, as the warehouse is.
std::vector<std::string> AllowedRoots(const std::vector<std::string>& flags);

// Opens a session on the catalog the options name, with the time zone of --tz set. The
// session's commits record `client` as their floe.client (see SessionOptions::client).
Result<std::unique_ptr<sql::Session>> OpenSession(const CatalogArgs& args,
                                                  const std::string& client = "floe cli");

// Writes "Error: <message>" as one line on `err` (a message's own line breaks, such as a
// caret line, are kept) and returns kExitFailed.
int ReportError(const Status& status, std::ostream& err);

}  // namespace floe::cli
