#pragma once

// The Avro schemas of manifests and manifest lists (spec: "Manifests", "Manifest Lists"),
// with the field ids, record names and docs Java writes, and the conversions between
// Iceberg partition values and Avro values.

#include <memory>
#include <string>

#include "floe/avro/schema.h"
#include "floe/avro/value.h"
#include "floe/spec/literal.h"
#include "floe/spec/type.h"

namespace floe::manifest {

// A field name Avro accepts: `name` itself when valid, else Java's escaped form.
std::string AvroCompatibleName(const std::string& name);

// The manifest entry schema for a partition type (a struct of partition fields); format
// version 3 adds the data file's first_row_id and a deletion vector's referenced file and blob.
Result<std::shared_ptr<const avro::Schema>> ManifestEntrySchema(const spec::Type& partition_type,
                                                                int32_t format_version = 2);
// Format version 3 adds each manifest's first_row_id.
Result<std::shared_ptr<const avro::Schema>> ManifestListSchema(int32_t format_version = 2);

// The Avro schema JSON of one Iceberg primitive type, as Java's AvroSchemaUtil writes it.
Result<std::string> AvroTypeJson(const spec::Type& type);

avro::Value LiteralToAvro(const spec::Literal& value);  // optional: null or union branch 1
Result<spec::Literal> LiteralFromAvro(const avro::Value& value, const spec::TypePtr& type);

}  // namespace floe::manifest
