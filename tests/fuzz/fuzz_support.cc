#include "fuzz_support.h"

#include "floe/spec/literal_json.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include "floe/manifest/manifest_reader.h"

namespace floe::fuzz {

namespace fs = std::filesystem;

namespace {

// Schema 1 is schema 0 plus `note`; spec 0 partitions by day(ts).
constexpr const char* kCorpusMetadata = R"json({
  "format-version": 2,
  "table-uuid": "6d2a4f0e-3c1b-4f43-9a5e-0b8f2d7c9e11",
  "location": "/tmp/floe-fuzz/warehouse/db/t",
  "last-sequence-number": 3,
  "last-updated-ms": 1735689600000,
  "last-column-id": 5,
  "current-schema-id": 1,
  "schemas": [
    {"type": "struct", "schema-id": 0, "fields": [
      {"id": 1, "name": "id", "required": false, "type": "long"},
      {"id": 2, "name": "name", "required": false, "type": "string"},
      {"id": 3, "name": "ts", "required": false, "type": "timestamp"},
      {"id": 4, "name": "amount", "required": false, "type": "decimal(10, 2)"}]},
    {"type": "struct", "schema-id": 1, "fields": [
      {"id": 1, "name": "id", "required": false, "type": "long"},
      {"id": 2, "name": "name", "required": false, "type": "string"},
      {"id": 3, "name": "ts", "required": false, "type": "timestamp"},
      {"id": 4, "name": "amount", "required": false, "type": "decimal(10, 2)"},
      {"id": 5, "name": "note", "required": false, "type": "string"}]}],
  "default-spec-id": 0,
  "partition-specs": [
    {"spec-id": 0, "fields": [{"name": "ts_day", "transform": "day", "source-id": 3, "field-id": 1000}]}],
  "last-partition-id": 1000,
  "default-sort-order-id": 0,
  "sort-orders": [{"order-id": 0, "fields": []}],
  "properties": {}
})json";

constexpr const char* kParquetProjection = R"json({"type": "struct", "schema-id": 0, "fields": [
  {"id": 1, "name": "id", "required": false, "type": "long"},
  {"id": 2, "name": "name", "required": false, "type": "string"},
  {"id": 3, "name": "ts", "required": false, "type": "timestamp"},
  {"id": 4, "name": "amount", "required": false, "type": "decimal(10, 2)"},
  {"id": 5, "name": "note", "required": false, "type": "string"},
  {"id": 100, "name": "point", "required": false, "type": {"type": "struct", "fields": [
    {"id": 101, "name": "x", "required": false, "type": "double"}]}},
  {"id": 102, "name": "tags", "required": false, "type": {"type": "list",
    "element-id": 103, "element": "string", "element-required": false}}]})json";

}  // namespace

void Die(const std::string& what) {
  std::fprintf(stderr, "fuzz set-up failed: %s\n", what.c_str());
  std::abort();
}

const std::string& ScratchDir() {
  static const std::string dir = [] {
    std::string tmpl = (fs::temp_directory_path() / "floe-fuzz-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) Die("mkdtemp " + tmpl);
    static std::string to_remove = tmpl;
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(to_remove, ec);
    });
    return tmpl;
  }();
  return dir;
}

std::string WriteInput(const uint8_t* data, size_t size, const std::string& name) {
  std::string path = ScratchDir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) Die("writing " + path);
  return path;
}

FileIO& LocalIO() {
  static std::shared_ptr<FileIO> io = Check(FileIO::MakeLocal(), "FileIO");
  return *io;
}

const spec::TableMetadata& CorpusTableMetadata() {
  static auto metadata = Check(spec::ParseTableMetadata(kCorpusMetadata), "corpus metadata");
  return *metadata;
}

manifest::ManifestFile ManifestEntryFor(const std::string& path) {
  manifest::ManifestFile m;
  m.manifest_path = path;
  m.partition_spec_id = 0;
  m.sequence_number = 2;
  m.min_sequence_number = 1;
  m.added_snapshot_id = 42;
  return m;
}

const spec::Schema& ParquetProjection() {
  static auto schema = Check(spec::SchemaFromJson(kParquetProjection), "projection");
  return *schema;
}

namespace {

// Columns' v3 defaults are read as values of their type: a value or an error, never a crash.
void ReadDefaults(const std::vector<spec::NestedField>& fields) {
  for (const auto& f : fields) {
    if (!f.type) continue;
    for (const std::string* json : {&f.initial_default_json, &f.write_default_json}) {
      if (!json->empty()) (void)spec::LiteralFromJson(*json, f.type);
    }
    if (f.type->is_nested()) ReadDefaults(f.type->fields());
  }
}

}  // namespace

void CheckMetadataRoundTrip(std::string_view json) {
  auto parsed = spec::ParseTableMetadata(json, "fuzz.metadata.json");
  if (!parsed.ok()) return;
  for (const auto& schema : (*parsed)->schemas) {
    if (schema) ReadDefaults(schema->fields());
  }
  std::string written = spec::WriteTableMetadata(**parsed);
  auto again = spec::ParseTableMetadata(written, "rewritten.metadata.json");
  if (!again.ok()) {
    std::fprintf(stderr, "written metadata does not parse: %s\n%s\n",
                 again.status().ToString().c_str(), written.c_str());
    std::abort();
  }
  if (!(**again == **parsed)) {
    std::fprintf(stderr, "metadata changed in a write/parse round trip:\n%s\n%s\n",
                 written.c_str(), spec::WriteTableMetadata(**again).c_str());
    std::abort();
  }
}

}  // namespace floe::fuzz
