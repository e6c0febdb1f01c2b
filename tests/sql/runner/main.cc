// floe_sqltest [--catalog URI] FILE...: runs golden SQL files, each in a fresh Session over its
// own temporary catalog and warehouse (or over the catalog URI names, emptied before each
// file), and ends with "N passed, M failed".

#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "floe/cli/guarded_main.h"
#include "floe/cli/session_executor.h"
#include "floe/sql/session.h"
#include "floe/table/table_catalog.h"
#include "sql/runner/test_file.h"
#include "sql/runner/test_runner.h"

namespace {

struct Totals {
  int passed = 0;
  int failed = 0;
};

// A fresh directory under the system temp dir, removed when done unless kept.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "floe-sqltest-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~ScratchDir() {
    if (!path_.empty() && !keep_) {
      std::error_code ec;
      std::filesystem::remove_all(path_, ec);
    }
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  void Keep() { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

// Drops every table (purged) and namespace of a shared catalog, deepest first, so each file
// starts from nothing as it does on a catalog of its own.
floe::Status EmptyCatalog(floe::sql::Session& session, const floe::Namespace& parent) {
  const auto& catalog = session.catalog();
  ARROW_ASSIGN_OR_RAISE(auto children, catalog->ListNamespaces(parent));
  for (const auto& child : children) {
    ARROW_RETURN_NOT_OK(EmptyCatalog(session, child));
    floe::table::TableCatalog tables(catalog, session.io());
    ARROW_ASSIGN_OR_RAISE(auto idents, catalog->ListTables(child));
    for (const auto& ident : idents) {
      // The whole directory: files no metadata reaches would look like the next file's orphans.
      ARROW_ASSIGN_OR_RAISE(auto table, tables.LoadTable(ident));
      const std::string location = table->metadata()->location;
      ARROW_RETURN_NOT_OK(tables.DropTable(ident, true).status());
      ARROW_RETURN_NOT_OK(session.io()->DeleteDirectory(location));
    }
    ARROW_RETURN_NOT_OK(catalog->DropNamespace(child));
  }
  return floe::Status::OK();
}

void RunFile(const std::string& path, bool keep, const std::string& shared_catalog,
             Totals* totals) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cout << path << ": cannot read the file\n";
    ++totals->failed;
    return;
  }
  std::ostringstream text;
  text << in.rdbuf();
  floe::Result<floe::sqltest::TestFile> file = floe::sqltest::ParseTestFile(text.str(), path);
  if (!file.ok()) {
    std::cout << file.status().message() << "\n";
    ++totals->failed;
    return;
  }

  ScratchDir dir;
  if (dir.path().empty()) {
    std::cout << path << ": cannot create a temporary directory\n";
    ++totals->failed;
    return;
  }
  floe::sql::SessionOptions options;
  options.catalog_uri = (dir.path() / "catalog.db").string();
  options.warehouse = (dir.path() / "warehouse").string();
  if (!shared_catalog.empty()) {
    options.catalog_uri = shared_catalog;
    if (const char* token = std::getenv("FLOE_REST_TOKEN")) options.rest.token = token;
  }
  std::error_code ec;
  std::filesystem::create_directories(options.warehouse, ec);
  auto session = floe::sql::Session::Make(options);
  if (session.ok() && !shared_catalog.empty()) {
    floe::Status emptied = EmptyCatalog(**session, floe::Namespace());
    if (!emptied.ok()) session = emptied;
  }
  if (!session.ok()) {
    std::cout << path << ": cannot start a session: " << session.status().message() << "\n";
    ++totals->failed;
    return;
  }
  std::vector<std::unique_ptr<floe::sql::Session>> others;
  auto connect = [&](const std::string&) -> floe::Result<floe::cli::Executor> {
    ARROW_ASSIGN_OR_RAISE(auto other, floe::sql::Session::Make(options));
    others.push_back(std::move(other));
    return floe::cli::SessionExecutor(*others.back());
  };
  floe::sqltest::FileSummary summary = floe::sqltest::RunTestFile(
      *file, floe::cli::SessionExecutor(**session), std::cout, connect);
  totals->passed += summary.passed;
  totals->failed += summary.failed;
  if (keep) {
    dir.Keep();
    std::cout << path << ": catalog and warehouse kept in " << dir.path().string() << "\n";
  }
}

int Main(int argc, char** argv) {
  bool keep = false;
  std::string catalog;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--keep") == 0) {
      keep = true;
    } else if (std::strcmp(argv[i], "--catalog") == 0 && i + 1 < argc) {
      catalog = argv[++i];
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::cout << "usage: floe_sqltest [--keep] [--catalog URI] FILE...\n"
                   "Runs golden SQL test files (see tests/sql/runner/README.md). --keep leaves\n"
                   "each file's temporary catalog and warehouse in place. --catalog runs every\n"
                   "file on that catalog (a REST catalog, rest+http://...; token from\n"
                   "$FLOE_REST_TOKEN), dropping all its tables and namespaces before each file.\n";
      return 0;
    } else {
      paths.push_back(argv[i]);
    }
  }
  if (paths.empty()) {
    std::cerr << "usage: floe_sqltest [--keep] [--catalog URI] FILE...\n";
    return 2;
  }
  Totals totals;
  for (const std::string& path : paths) RunFile(path, keep, catalog, &totals);
  std::cout << totals.passed << " passed, " << totals.failed << " failed\n";
  return totals.failed == 0 ? 0 : 1;
}

}  // namespace

// Whatever escapes a file's run ends the process with an error line, never an abort.
int main(int argc, char** argv) {
  return floe::cli::GuardedMain([&] { return Main(argc, argv); }, 1);
}
