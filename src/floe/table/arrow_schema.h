#pragma once

// Iceberg schema <-> Arrow schema. Arrow fields carry the Iceberg field id in the
// "PARQUET:field_id" metadata key, which Arrow's Parquet writer turns into Parquet field ids
// and its reader fills back in.

#include <memory>

#include <arrow/type_fwd.h>

#include "floe/spec/schema.h"

namespace floe::table {

inline constexpr char kParquetFieldIdKey[] = "PARQUET:field_id";

Result<std::shared_ptr<arrow::DataType>> ToArrowType(const spec::Type& type);
Result<std::shared_ptr<arrow::Field>> ToArrowField(const spec::NestedField& field);
Result<std::shared_ptr<arrow::Schema>> ToArrowSchema(const spec::Schema& schema);

// The field id an Arrow field carries, or -1.
int32_t FieldIdOf(const arrow::Field& field);

// Builds an Iceberg schema for Arrow data, assigning fresh field ids from 1 in
// depth-first order (as Iceberg does for a new table). Non-nullable Arrow fields become
// required fields.
Result<spec::SchemaPtr> SchemaFromArrow(const arrow::Schema& schema, int32_t schema_id = 0);

}  // namespace floe::table
