#include "floe/cli/sql_command.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace floe::cli {

namespace {

bool HasScheme(const std::string& location) {
  return location.find("://") != std::string::npos || location.rfind("jdbc:", 0) == 0 ||
         location.rfind("sqlite:", 0) == 0 || location.rfind("file:", 0) == 0;
}

Result<std::string> ReadFile(const std::string& path) {
  // A directory opens as an empty stream: say so rather than run nothing.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Status::IOError("Cannot read ", path, ": it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("Cannot read ", path, ": no such file or not readable");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IOError("Cannot read ", path);
  return text.str();
}

}  // namespace

CatalogLocation ResolveCatalogLocation(const std::string& catalog_flag,
                                       const std::string& warehouse_flag,
                                       const std::function<const char*(const char*)>& get_env) {
  auto pick = [&](const std::string& flag, const char* env, const char* fallback) {
    if (!flag.empty()) return flag;
    const char* value = get_env(env);
    if (value != nullptr && *value != '\0') return std::string(value);
    return std::string(fallback);
  };
  CatalogLocation location;
  location.catalog_uri = pick(catalog_flag, "FLOE_CATALOG", "warehouse/catalog.db");
  location.warehouse = pick(warehouse_flag, "FLOE_WAREHOUSE", "warehouse");
  if (!HasScheme(location.warehouse)) {
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(location.warehouse, ec);
    if (!ec) location.warehouse = absolute.lexically_normal().string();
    while (location.warehouse.size() > 1 && location.warehouse.back() == '/') {
      location.warehouse.pop_back();
    }
  }
  return location;
}

Status PrepareCatalogLocation(const CatalogLocation& location) {
  std::error_code ec;
  // A REST catalog places its tables itself: no local warehouse.
  if (IsRestCatalogUri(location.catalog_uri)) return Status::OK();
  if (!HasScheme(location.warehouse)) {
    std::filesystem::create_directories(location.warehouse, ec);
    if (ec) {
      return Status::IOError("Cannot create warehouse directory ", location.warehouse, ": ",
                             ec.message());
    }
  }
  if (!HasScheme(location.catalog_uri)) {
    std::filesystem::path parent = std::filesystem::path(location.catalog_uri).parent_path();
    if (!parent.empty()) {
      std::filesystem::create_directories(parent, ec);
      if (ec) {
        return Status::IOError("Cannot create directory ", parent.string(), " for catalog ",
                               location.catalog_uri, ": ", ec.message());
      }
    }
  }
  return Status::OK();
}

int RunSqlSources(Shell& shell, const SqlSources& sources, std::ostream& err) {
  if (!sources.inputs.empty()) {
    bool all_ok = true;
    for (const SqlInput& input : sources.inputs) {
      bool ok = true;
      if (input.kind == SqlInput::Kind::kCommand) {
        ok = shell.RunScript(input.value);
      } else {
        Result<std::string> text = ReadFile(input.value);
        if (!text.ok()) {
          err << "Error: " << text.status().message() << "\n";
          ok = false;
        } else {
          ok = shell.RunScript(*text, input.value);
        }
      }
      all_ok = all_ok && ok;
      if (!ok && !shell.continues_on_error()) return kExitFailed;
    }
    return all_ok ? kExitOk : kExitFailed;
  }
  if (sources.stdin_is_terminal && sources.make_reader) {
    // Failures were reported as they happened; a session that ends normally exits 0.
    std::unique_ptr<LineReader> reader = sources.make_reader();
    shell.RunInteractive(*reader);
    return kExitOk;
  }
  if (sources.stdin_stream == nullptr) return kExitOk;
  std::ostringstream text;
  text << sources.stdin_stream->rdbuf();
  return shell.RunScript(text.str()) ? kExitOk : kExitFailed;
}

}  // namespace floe::cli
