#pragma once

// Where floe may put and remove table files. Tables live under the catalog's warehouse or
// under a root the catalog was explicitly opened with (Catalog::allowed_roots); a purge
// removes only files under the dropped table's own directories. Every check is made on the
// path FileIO would touch, with "." and ".." resolved and symlinks followed, so neither
// "<warehouse>/../x" nor a link inside the warehouse leads outside it.

#include <string>
#include <string_view>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/spec/table_metadata.h"
#include "floe/util/status.h"

namespace floe::table {

class Table;

// The table properties that move a table's files away from its location.
inline constexpr const char* kLocationProperties[] = {"write.data.path", "write.metadata.path",
                                                      "write.folder-storage.path"};

// The local path a location names, as FileIO reads it (an absolute path, or a file: URI), with
// repeated slashes collapsed and "." and ".." resolved lexically: "file:///w//a/../b" -> "/w/b".
// An s3:// (s3a://, s3n://) location stays a URI, its scheme lower-cased and without a
// trailing slash; one whose key holds an empty, "." or ".." segment is refused. Object
// locations compare by bucket and key, at '/' boundaries; s3a:// and s3n:// equal s3://.
Result<std::string> NormalizeLocation(std::string_view location);

// A location as floe stores it in metadata: normalised, without a trailing slash, in the
// form it was given (a path stays a path; a file: URI becomes "file://<path>"; an s3://
// location stays one).
Result<std::string> CanonicalLocation(std::string_view location);

class LocationPolicy {
 public:
  // The warehouse may be empty (then only the allowed roots hold tables); it and every root
  // must be absolute.
  static Result<LocationPolicy> Make(const std::string& warehouse,
                                     const std::vector<std::string>& allowed_roots);
  // A catalog that places tables itself (Catalog::PlacesTables) allows any location.
  static Result<LocationPolicy> ForCatalog(const Catalog& catalog);

  // True when `location` is the warehouse or an allowed root or lies below one.
  bool Allows(std::string_view location) const;
  // As Allows, with the error users see: "<what> <location> of table db.t is outside the
  // warehouse /w (allowed roots: none)". `what` is "Location" or a property name.
  Status Check(const TableIdentifier& table, std::string_view what,
               std::string_view location) const;
  // The table's location and each of kLocationProperties it sets.
  Status CheckTable(const TableIdentifier& table, const spec::TableMetadata& metadata) const;

 private:
  friend class PurgeScope;
  LocationPolicy() = default;

  std::string warehouse_;                    // as configured, for messages
  std::vector<std::string> allowed_roots_;   // as configured, for messages
  std::vector<std::string> resolved_roots_;  // local paths with symlinks resolved, s3:// URIs
  bool anywhere_ = false;                    // the catalog places tables
};

// The check made before floe writes anything for `table` under `metadata` (each commit, each
// batch of data files): its locations must satisfy its catalog's LocationPolicy.
Status CheckTableLocations(const Table& table, const spec::TableMetadata& metadata);

// The files a purge of one table may delete: those under the table's location or one of its
// location properties, counting only directories that lie strictly below the warehouse or an
// allowed root.
class PurgeScope {
 public:
  PurgeScope(const LocationPolicy& policy, const spec::TableMetadata& metadata);

  bool Allows(std::string_view location) const;

 private:
  std::vector<std::string> resolved_dirs_;
};

}  // namespace floe::table
