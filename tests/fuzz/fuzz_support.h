#pragma once

// Shared set-up for the libFuzzer targets, so each target's body stays a few lines.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "floe/io/file_io.h"
#include "floe/manifest/manifest_file.h"
#include "floe/spec/schema.h"
#include "floe/spec/table_metadata.h"

namespace floe::sql {
class Session;
}

namespace floe::fuzz {

[[noreturn]] void Die(const std::string& what);

template <typename T>
T Check(Result<T> result, const char* what) {
  if (!result.ok()) Die(std::string(what) + ": " + result.status().ToString());
  return std::move(result).ValueOrDie();
}

inline std::string_view Text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A per-process scratch directory, removed at exit.
const std::string& ScratchDir();

// Writes the input to `name` in the scratch directory (replacing the previous input) and
// returns its absolute path: floe's readers take locations, not buffers.
std::string WriteInput(const uint8_t* data, size_t size, const std::string& name);

FileIO& LocalIO();

// Table metadata whose schema and partition spec (spec 0: day(ts)) match the tables the
// manifest corpus was written from: db.t(id bigint, name string, ts timestamp,
// amount decimal(10,2)).
const spec::TableMetadata& CorpusTableMetadata();

// A manifest list entry pointing at `path`, as a v2 snapshot would list it.
manifest::ManifestFile ManifestEntryFor(const std::string& path);

// The projection Parquet inputs are read with: the corpus table's columns by field id, plus
// a nested column and a column no file has.
const spec::Schema& ParquetProjection();

// The SQL engine target's catalog and warehouse: db.t (partitioned, three snapshots, a tag
// and a branch) and db.u, built once. RestoreEngine() puts both back as they were built and
// returns a fresh session over them, so every input runs against the same state.
void InitEngine();
sql::Session& RestoreEngine();

// Parses `json` and, when that succeeds, checks that writing and parsing again gives the
// same metadata; aborts (a fuzzer finding) when it does not.
void CheckMetadataRoundTrip(std::string_view json);

}  // namespace floe::fuzz
