#pragma once

// Reading and naming table metadata files: <table>/metadata/NNNNN-<uuid>.metadata.json.

#include <string>

#include "floe/io/file_io.h"
#include "floe/spec/table_metadata.h"
#include "floe/util/lru_cache.h"

namespace floe::table {

// A missing file fails with "Failed to read table metadata <location>: file not found", an
// IOError rather than NotFound: the table exists, its metadata is gone. Parsed files are cached
// per process, so a file read again costs one stat (one HEAD on object storage) instead of a
// read and a parse.
Result<spec::TableMetadataPtr> ReadMetadataFile(FileIO& io, const std::string& location);
// The same for the file a catalog names as a table's current metadata. On object storage one
// named <version>-<uuid>.metadata.json is trusted by its name (the catalog points to it, and no
// other file ever has that name): read again it costs no request, and its first read is one
// GET with no HEAD before it.
Result<spec::TableMetadataPtr> ReadCurrentMetadataFile(FileIO& io, const std::string& location);

// That cache: 64 MB, or FLOE_METADATA_CACHE_BYTES (0 turns it off).
LruCache& MetadataFileCache();

// The location for the metadata version after `previous` (empty for a new table).
std::string NextMetadataLocation(const spec::TableMetadata& metadata, const std::string& previous);
// The version number in a metadata file name, or -1 when the name has none.
int64_t ParseMetadataVersion(const std::string& location);

// Where the table keeps its metadata and data (`write.metadata.path`, `write.data.path`).
std::string MetadataDirectory(const spec::TableMetadata& metadata);
std::string DataDirectory(const spec::TableMetadata& metadata);

// The one naming scheme for manifest lists, as Iceberg's:
// <metadata dir>/snap-<snapshot id>-<attempt>-<uuid>.avro (attempts count from 1).
std::string ManifestListLocation(const spec::TableMetadata& metadata, int64_t snapshot_id,
                                 int attempt);

}  // namespace floe::table
