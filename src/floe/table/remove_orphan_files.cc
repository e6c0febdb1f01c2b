#include "floe/table/remove_orphan_files.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <set>
#include <thread>
#include <utility>

#include "floe/io/object_store.h"
#include "floe/table/location_policy.h"
#include "floe/table/metadata_files.h"
#include "floe/table/reachable_files.h"
#include "floe/util/ascii.h"
#include "floe/util/clock.h"

namespace floe::table {

namespace {

// A location split as Iceberg's FileURI splits it: scheme, authority and path are compared
// separately, so file:/w/x and /w/x name the same file.
struct FileUri {
  std::string scheme;
  std::string authority;
  std::string path;
};

std::string LexicalPath(std::string_view path) {
  std::string out = std::filesystem::path(std::string(path)).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

bool IsSchemeChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '-' || c == '.';
}

FileUri SplitLocation(std::string_view location) {
  FileUri uri;
  size_t colon = location.find(':');
  bool has_scheme = colon != std::string_view::npos && colon > 0 &&
                    std::all_of(location.begin(), location.begin() + colon, IsSchemeChar);
  std::string_view rest = location;
  if (has_scheme) {
    uri.scheme = std::string(location.substr(0, colon));
    rest = location.substr(colon + 1);
    if (rest.substr(0, 2) == "//") {
      rest.remove_prefix(2);
      size_t slash = rest.find('/');
      uri.authority = std::string(rest.substr(0, slash));
      rest = slash == std::string_view::npos ? std::string_view("/") : rest.substr(slash);
    }
  }
  uri.path = LexicalPath(rest);
  return uri;
}

// "s3n,s3a" -> s3 becomes s3n -> s3 and s3a -> s3, keys and values trimmed.
std::map<std::string, std::string> Flatten(const std::map<std::string, std::string>& in) {
  auto trim = [](std::string s) {
    size_t b = s.find_first_not_of(" \t");
    size_t e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  };
  std::map<std::string, std::string> out;
  for (const auto& [keys, value] : in) {
    size_t start = 0;
    while (start <= keys.size()) {
      size_t comma = keys.find(',', start);
      if (comma == std::string::npos) comma = keys.size();
      out[trim(keys.substr(start, comma - start))] = trim(value);
      start = comma + 1;
    }
  }
  return out;
}

bool ComponentMatch(const std::string& valid, const std::string& actual) {
  return valid.empty() || AsciiLower(valid) == AsciiLower(actual);
}

bool IsUnder(const std::string& path, const std::string& dir) {
  if (dir == "/") return !path.empty() && path.front() == '/';
  return path.compare(0, dir.size(), dir) == 0 &&
         (path.size() == dir.size() || path[dir.size()] == '/');
}

// The files in use: everything the current metadata reaches (each of its manifest lists and
// manifests must be readable) and what older metadata files in its log still reach (files
// there that expiry already removed are expected to be gone).
Result<ReachableFiles> FilesInUse(Table& table) {
  auto md = table.metadata();
  const std::string current = table.metadata_location();
  ReachableFiles files;
  AddReachableFiles(*table.io(), *md, current, &files);
  if (!files.unreadable.empty()) {
    return Status::IOError("Cannot remove orphan files of table ", table.name(), ": cannot read ",
                           *files.unreadable.begin(),
                           ", which its current metadata references; nothing was deleted");
  }
  for (const auto& entry : md->metadata_log) {
    if (entry.metadata_file == current) continue;
    ARROW_ASSIGN_OR_RAISE(bool exists, table.io()->Exists(entry.metadata_file));
    if (!exists) continue;
    auto old = ReadMetadataFile(*table.io(), entry.metadata_file);
    if (!old.ok()) {
      return Status::IOError("Cannot remove orphan files of table ", table.name(), ": cannot read ",
                             entry.metadata_file, " (", old.status().message(),
                             "); nothing was deleted");
    }
    std::set<std::string> had = files.unreadable;
    // Its snapshots' files and its statistics files; not its own log, which reaches back
    // further than the current metadata's.
    std::set<std::string> metadata_files = files.metadata_files;
    AddReachableFiles(*table.io(), **old, "", &files);
    files.metadata_files = std::move(metadata_files);
    for (const auto& f : files.unreadable) {
      if (!had.count(f) && !files.not_found.count(f)) {
        return Status::IOError("Cannot remove orphan files of table ", table.name(),
                               ": cannot read ", f, ", which ", entry.metadata_file,
                               " references; nothing was deleted");
      }
    }
  }
  files.metadata_files.insert(MetadataDirectory(*md) + "/version-hint.text");
  return files;
}

}  // namespace

Status CheckGcEnabled(const spec::TableMetadata& md) {
  auto it = md.properties.find("gc.enabled");
  // Java's Boolean.parseBoolean: "true" in any case, anything else is false.
  if (it == md.properties.end() || AsciiLower(it->second) == "true") return Status::OK();
  return ValidationError(
      "Cannot delete orphan files: GC is disabled (deleting files may corrupt other tables)");
}

Result<PrefixMismatchMode> ParsePrefixMismatchMode(const std::string& text) {
  const std::string upper = AsciiUpper(text);
  if (upper == "ERROR") return PrefixMismatchMode::kError;
  if (upper == "IGNORE") return PrefixMismatchMode::kIgnore;
  if (upper == "DELETE") return PrefixMismatchMode::kDelete;
  return ValidationError("Invalid mode: ", text);
}

Result<RemoveOrphanFilesResult> RemoveOrphanFiles(Table& table,
                                                  const RemoveOrphanFilesOptions& options) {
  ARROW_RETURN_NOT_OK(table.Refresh());
  auto md = table.metadata();
  ARROW_RETURN_NOT_OK(CheckGcEnabled(*md));
  const int64_t older_than = options.older_than_ms.value_or(NowMillis() - kDefaultOrphanAgeMillis);
  if (options.max_concurrent_deletes <= 0) {
    return ValidationError("max_concurrent_deletes should have value > 0, value: ",
                           options.max_concurrent_deletes);
  }

  // Where to look: the table's location or a directory below it, and only where a purge of
  // this table could delete (never another table's files, never a root).
  const std::string table_location = md->location;
  const std::string location = options.location.value_or(table_location);
  auto root = NormalizeLocation(location);
  auto table_root = NormalizeLocation(table_location);
  if (!table_root.ok()) {
    return ValidationError("Cannot remove orphan files of table ", table.name(), ": its location ",
                           table_location, " is not usable (", table_root.status().message(), ")");
  }
  if (!root.ok() || !IsUnder(*root, *table_root)) {
    return ValidationError("Cannot remove orphan files under ", location,
                           ": it is not under the location ", table_location, " of table ",
                           table.name());
  }
  ARROW_ASSIGN_OR_RAISE(auto policy, LocationPolicy::ForCatalog(*table.catalog()));
  PurgeScope scope(policy, *md);
  if (!scope.Allows(*root + "/x")) {
    return ValidationError("Cannot remove orphan files under ", location, ": the location ",
                           table_location, " of table ", table.name(),
                           " is not a table directory below the warehouse or an allowed root");
  }
  // Listed files are reported in the form the location was given in (object stores list
  // URIs in the location's scheme).
  const bool as_uri = location.rfind("file:", 0) == 0;
  const bool in_object_store = IsObjectStoreLocation(*root);
  const FileUri root_uri = SplitLocation(*root);

  // 1. The candidates: files under the location modified before older_than.
  std::vector<ListedFile> candidates;
  if (options.file_list) {
    for (const auto& f : *options.file_list) {
      if (f.last_modified_ms >= older_than) continue;
      FileUri uri = SplitLocation(f.location);
      if (in_object_store) {
        // s3, s3a and s3n name the same objects; the bucket must match.
        if (!IsObjectStoreLocation(f.location) || uri.authority != root_uri.authority) continue;
        if (!IsUnder(uri.path, root_uri.path)) continue;
      } else {
        if (!uri.scheme.empty() && AsciiLower(uri.scheme) != "file") continue;
        if (!IsUnder(uri.path, *root)) continue;
      }
      candidates.push_back(f);
    }
  } else {
    ARROW_ASSIGN_OR_RAISE(auto listed, table.io()->ListFiles(*root));
    for (const auto& f : listed) {
      if (f.last_modified_ms >= older_than) continue;
      // Hadoop's checksum beside a file a Java engine wrote (".x.crc" for x): Hadoop's listing
      // hides them, and each goes with its file below.
      if (IsHadoopChecksum(f.path)) continue;
      std::string listed_location = f.path;
      if (as_uri && !in_object_store) listed_location = "file://" + f.path;
      candidates.push_back(ListedFile{std::move(listed_location), f.last_modified_ms});
    }
  }
  if (options.after_listing) options.after_listing();

  // 2. The files in use, from the table as it is now: a commit that landed while the listing
  // ran is seen here.
  ARROW_RETURN_NOT_OK(table.Refresh());
  ARROW_ASSIGN_OR_RAISE(ReachableFiles in_use, FilesInUse(table));

  std::map<std::string, std::string> schemes = Flatten({{"s3n,s3a", "s3"}});
  for (const auto& [k, v] : Flatten(options.equal_schemes)) schemes[k] = v;
  const std::map<std::string, std::string> authorities = Flatten(options.equal_authorities);
  auto to_uri = [&](const std::string& location_text) {
    FileUri uri = SplitLocation(location_text);
    if (auto it = schemes.find(uri.scheme); it != schemes.end()) uri.scheme = it->second;
    if (auto it = authorities.find(uri.authority); it != authorities.end())
      uri.authority = it->second;
    return uri;
  };
  std::multimap<std::string, FileUri> valid;
  for (const auto* set : {&in_use.metadata_files, &in_use.manifest_lists, &in_use.manifests,
                          &in_use.content_files, &in_use.statistics_files}) {
    for (const auto& f : *set) {
      FileUri uri = to_uri(f);
      std::string path = uri.path;
      valid.emplace(std::move(path), std::move(uri));
    }
  }

  // 3. Orphans: candidates no file in use matches.
  std::vector<std::string> orphans;
  std::set<std::pair<std::string, std::string>> conflicts;
  for (const auto& candidate : candidates) {
    FileUri actual = to_uri(candidate.location);
    // Listed local files are file: URIs, whatever form the table writes its locations in.
    if (actual.scheme.empty()) actual.scheme = "file";
    auto [begin, end] = valid.equal_range(actual.path);
    if (begin == end) {
      orphans.push_back(candidate.location);
      continue;
    }
    bool matched = false;
    std::vector<std::pair<std::string, std::string>> mismatches;
    for (auto it = begin; it != end && !matched; ++it) {
      const FileUri& v = it->second;
      bool scheme_match = ComponentMatch(v.scheme, actual.scheme);
      bool authority_match = ComponentMatch(v.authority, actual.authority);
      if (scheme_match && authority_match) {
        matched = true;
      } else {
        if (!scheme_match) mismatches.emplace_back(v.scheme, actual.scheme);
        if (!authority_match) mismatches.emplace_back(v.authority, actual.authority);
      }
    }
    if (matched) continue;
    if (options.prefix_mismatch_mode == PrefixMismatchMode::kDelete) {
      orphans.push_back(candidate.location);
    } else {
      conflicts.insert(mismatches.begin(), mismatches.end());
    }
  }
  if (options.prefix_mismatch_mode == PrefixMismatchMode::kError && !conflicts.empty()) {
    std::string list;
    for (const auto& [a, b] : conflicts)
      list += StrCat(list.empty() ? "" : ", ", "(", a, ", ", b, ")");
    return ValidationError(
        "Unable to determine whether certain files are orphan. Metadata references files that "
        "match "
        "listed/provided files except for authority/scheme. Please, inspect the conflicting "
        "authorities/schemes and provide which of them are equal by further configuring the action "
        "via "
        "equalSchemes() and equalAuthorities() methods. Set the prefix mismatch mode to 'NONE' to "
        "ignore "
        "remaining locations with conflicting authorities/schemes or to 'DELETE' iff you are "
        "ABSOLUTELY "
        "confident that remaining conflicting authorities/schemes are different. It will be "
        "impossible to "
        "recover deleted files. Conflicting authorities/schemes: [",
        list, "].");
  }
  // Never outside the table's own directories, whatever the listing or a file list said.
  orphans.erase(std::remove_if(orphans.begin(), orphans.end(),
                               [&](const std::string& f) { return !scope.Allows(f); }),
                orphans.end());
  std::sort(orphans.begin(), orphans.end());

  // 4. Delete (failures are skipped, as Iceberg's action does: the file stays an orphan).
  if (!options.dry_run && !orphans.empty()) {
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t i = next++; i < orphans.size(); i = next++) {
        (void)table.io()->DeleteFile(orphans[i], FileKind::kOther);
        if (!IsObjectStoreLocation(orphans[i])) {
          (void)table.io()->DeleteFile(HadoopChecksumOf(orphans[i]), FileKind::kOther);
        }
      }
    };
    size_t threads =
        std::min<size_t>(static_cast<size_t>(options.max_concurrent_deletes), orphans.size());
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
  }
  return RemoveOrphanFilesResult{std::move(orphans)};
}

}  // namespace floe::table
