#pragma once

// Object storage for FileIO: s3:// locations (and s3a://, s3n://, as Spark and Hadoop write
// them) go to an S3-compatible store through Arrow's S3FileSystem; every other location to
// the local file system. One FileIO (FileIO::Make with these options) serves both, so a
// catalog may hold tables of each kind. Arrow's S3 library starts on the first s3:// use.
//
// What holds on S3, as on local files:
//  - WriteFile and OpenOutputStream never replace an existing object: they fail with
//    AlreadyExists naming the location. S3 (through Arrow) has no conditional create, so this
//    is an existence check before the upload: two writers racing for the same new key can
//    both succeed, and the later upload wins. floe's commits do not depend on it (the
//    catalog's compare-and-swap decides which metadata file is current, and every file name
//    is unique), but it is weaker than the local O_EXCL/link(2).
//  - Objects appear whole or not at all. OpenOutputStream uploads in parts (a multipart
//    upload once the data outgrows one part); Abort(), a failed Close() or releasing the
//    stream without Close() aborts the upload, so no object is created.
//  - Deleting a missing object is not an error; ListFiles lists objects recursively with
//    their sizes and modification times (seconds, as S3 keeps them), as s3:// URIs in the
//    scheme the listed location used.
//  - Counters and the fault injector see the same operations.
// Not like local files: Arrow's S3FileSystem writes an empty "directory marker" object
// (key ending in '/') for the parent of every object it deletes, so after a delete the
// bucket may hold zero-byte "<dir>/" objects. They are not files: ListFiles skips them, and
// no table metadata points to them.

#include <optional>
#include <string>
#include <string_view>

#include "floe/io/file_io.h"
#include "floe/util/status.h"

namespace floe {

// How to reach the object store. Empty fields are filled from the environment by
// WithEnvironment; what is still empty is left to the AWS SDK's defaults (its credentials
// chain reads ~/.aws/credentials and ~/.aws/config, and the region from the config file).
struct ObjectStoreOptions {
  // "http://host:port", "https://host" or "host[:port]" (https); empty: AWS for the region.
  std::string endpoint;
  std::string region;
  // Path-style requests (endpoint/bucket/key) rather than virtual-hosted ones
  // (bucket.endpoint/key). Unset: path-style exactly when an endpoint is given.
  std::optional<bool> path_style;
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  // Seconds; 0 keeps the SDK's defaults. The request timeout ends a request whose transfer
  // stalls that long.
  double connect_timeout_seconds = 0;
  double request_timeout_seconds = 0;
  // Attempts per request, the first included, for errors S3 calls retryable (throttling,
  // 500, 503, lost connections); 0 keeps Arrow's default (connection errors only).
  int max_attempts = 0;
};

// Fills the empty fields of `options` from the environment: AWS_ENDPOINT_URL_S3, else
// AWS_ENDPOINT_URL; AWS_REGION, else AWS_DEFAULT_REGION; AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (only when no key was given explicitly).
ObjectStoreOptions WithEnvironment(ObjectStoreOptions options);

// An s3:// (s3a://, s3n://) location split into its parts: "s3a://b/k/x" -> {"s3a", "b",
// "k/x"}. The scheme is lower-cased; the key has no leading or trailing '/'.
struct ObjectStoreLocation {
  std::string scheme;
  std::string bucket;
  std::string key;

  std::string ToString() const;  // scheme://bucket/key (scheme://bucket when key is empty)
};

// True for s3:, s3a: and s3n: locations (case-insensitive).
bool IsObjectStoreLocation(std::string_view location);
Result<ObjectStoreLocation> ParseObjectStoreLocation(std::string_view location);

// Shuts Arrow's S3 library down (a no-op when it never started). Call it once, at the end of
// main(), after the last use of an s3:// location: the AWS SDK cannot be shut down safely
// from an atexit handler or a static destructor, and without the call Arrow prints a warning
// at exit and leaks the SDK's state instead. Later s3:// operations fail.
Status FinalizeObjectStore();

}  // namespace floe
