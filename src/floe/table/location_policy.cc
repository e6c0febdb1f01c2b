#include "floe/table/location_policy.h"

#include <filesystem>
#include <optional>

#include "floe/io/file_io.h"
#include "floe/io/object_store.h"
#include "floe/table/table.h"

namespace floe::table {

namespace {

bool IsFileUri(std::string_view location) { return location.substr(0, 5) == "file:"; }

// What the operating system would open for a normalised path: symlinks in the part that
// exists are followed. nullopt when that cannot be determined (then nothing is allowed).
std::optional<std::string> Resolve(const std::string& path) {
  std::error_code ec;
  std::filesystem::path resolved = std::filesystem::weakly_canonical(path, ec);
  if (ec) return std::nullopt;
  std::string out = resolved.lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

bool IsUnder(std::string_view path, std::string_view root) {
  if (root == "/") return !path.empty() && path.front() == '/';
  return path.substr(0, root.size()) == root &&
         (path.size() == root.size() || path[root.size()] == '/');
}

// An object-store location as the policy compares it: s3a:// and s3n:// name the same objects
// as s3://.
std::string ObjectStoreKey(const std::string& normal) {
  return "s3" + normal.substr(normal.find(':'));
}

std::optional<std::string> ResolveLocation(std::string_view location) {
  auto normal = NormalizeLocation(location);
  if (!normal.ok()) return std::nullopt;
  if (IsObjectStoreLocation(*normal)) return ObjectStoreKey(*normal);
  return Resolve(*normal);
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += ", ";
    out += p;
  }
  return out;
}

}  // namespace

Result<std::string> NormalizeLocation(std::string_view location) {
  if (IsObjectStoreLocation(location)) {
    // Keys are compared as written: no "." or ".." to resolve, no empty segment to collapse.
    ARROW_ASSIGN_OR_RAISE(ObjectStoreLocation parsed, ParseObjectStoreLocation(location));
    std::string_view key = parsed.key;
    while (!key.empty()) {
      size_t slash = key.find('/');
      std::string_view segment = key.substr(0, slash);
      if (segment.empty() || segment == "." || segment == "..") {
        return ValidationError("Object location must not hold empty, '.' or '..' segments: ",
                               location);
      }
      if (slash == std::string_view::npos) break;
      key.remove_prefix(slash + 1);
    }
    return parsed.ToString();
  }
  ARROW_ASSIGN_OR_RAISE(std::string path, ToLocalPath(location));
  std::string out = std::filesystem::path(path).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

Result<std::string> CanonicalLocation(std::string_view location) {
  ARROW_ASSIGN_OR_RAISE(std::string path, NormalizeLocation(location));
  if (IsObjectStoreLocation(location)) return path;
  if (IsFileUri(location)) return "file://" + path;
  return path;
}

Result<LocationPolicy> LocationPolicy::Make(const std::string& warehouse,
                                            const std::vector<std::string>& allowed_roots) {
  LocationPolicy policy;
  policy.warehouse_ = warehouse;
  policy.allowed_roots_ = allowed_roots;
  auto add = [&](std::string_view what, const std::string& root) -> Status {
    auto normal = NormalizeLocation(root);
    if (!normal.ok()) {
      return ValidationError(what, " ", root,
                             " is not an absolute path, file: URI or s3:// location (",
                             normal.status().message(), ")");
    }
    if (IsObjectStoreLocation(*normal)) {
      policy.resolved_roots_.push_back(ObjectStoreKey(*normal));
      return Status::OK();
    }
    auto resolved = Resolve(*normal);
    if (!resolved) return Status::IOError("Cannot resolve ", what, " ", root);
    policy.resolved_roots_.push_back(std::move(*resolved));
    return Status::OK();
  };
  if (!warehouse.empty()) ARROW_RETURN_NOT_OK(add("Warehouse", warehouse));
  for (const auto& root : allowed_roots) ARROW_RETURN_NOT_OK(add("Allowed root", root));
  return policy;
}

Result<LocationPolicy> LocationPolicy::ForCatalog(const Catalog& catalog) {
  if (catalog.PlacesTables()) {
    LocationPolicy policy;
    policy.anywhere_ = true;
    return policy;
  }
  return Make(catalog.warehouse(), catalog.allowed_roots());
}

bool LocationPolicy::Allows(std::string_view location) const {
  auto resolved = ResolveLocation(location);
  if (!resolved) return false;
  if (anywhere_) return true;
  for (const auto& root : resolved_roots_) {
    if (IsUnder(*resolved, root)) return true;
  }
  return false;
}

Status LocationPolicy::Check(const TableIdentifier& table, std::string_view what,
                             std::string_view location) const {
  auto normal = NormalizeLocation(location);
  if (!normal.ok()) {
    return ValidationError(what, " ", location, " of table ", table.ToString(),
                           " is not usable: ", normal.status().message());
  }
  if (Allows(location)) return Status::OK();
  return ValidationError(
      what, " ", location, " of table ", table.ToString(), " is outside the warehouse ",
      warehouse_.empty() ? std::string("(none configured)") : warehouse_,
      " (allowed roots: ", allowed_roots_.empty() ? std::string("none") : Join(allowed_roots_),
      ")");
}

Status LocationPolicy::CheckTable(const TableIdentifier& table,
                                  const spec::TableMetadata& metadata) const {
  ARROW_RETURN_NOT_OK(Check(table, "Location", metadata.location));
  for (const char* key : kLocationProperties) {
    auto it = metadata.properties.find(key);
    if (it != metadata.properties.end() && !it->second.empty()) {
      ARROW_RETURN_NOT_OK(Check(table, key, it->second));
    }
  }
  return Status::OK();
}

Status CheckTableLocations(const Table& table, const spec::TableMetadata& metadata) {
  ARROW_ASSIGN_OR_RAISE(auto policy, LocationPolicy::ForCatalog(*table.catalog()));
  return policy.CheckTable(table.ident(), metadata);
}

PurgeScope::PurgeScope(const LocationPolicy& policy, const spec::TableMetadata& metadata) {
  std::vector<std::string> dirs = {metadata.location};
  for (const char* key : kLocationProperties) {
    auto it = metadata.properties.find(key);
    if (it != metadata.properties.end() && !it->second.empty()) dirs.push_back(it->second);
  }
  for (const auto& dir : dirs) {
    if (!policy.Allows(dir)) continue;
    auto resolved = ResolveLocation(dir);
    if (!resolved) continue;
    // A table whose location is a root itself would let a purge reach every table there.
    bool is_root = false;
    for (const auto& root : policy.resolved_roots_) is_root = is_root || *resolved == root;
    if (!is_root) resolved_dirs_.push_back(std::move(*resolved));
  }
}

bool PurgeScope::Allows(std::string_view location) const {
  auto resolved = ResolveLocation(location);
  if (!resolved) return false;
  for (const auto& dir : resolved_dirs_) {
    if (*resolved != dir && IsUnder(*resolved, dir)) return true;
  }
  return false;
}

}  // namespace floe::table
