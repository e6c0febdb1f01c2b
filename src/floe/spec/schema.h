#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "floe/spec/type.h"

namespace floe::spec {

// A table schema: a struct of fields with ids, plus its schema-id and identifier fields.
// Immutable once built; lookups by id and by dotted name are indexed.
class Schema {
 public:
  Schema(int32_t schema_id, std::vector<NestedField> fields,
         std::vector<int32_t> identifier_field_ids = {});

  int32_t schema_id() const { return schema_id_; }
  const std::vector<NestedField>& fields() const { return struct_->fields(); }
  const TypePtr& as_struct() const { return struct_; }
  const std::vector<int32_t>& identifier_field_ids() const { return identifier_field_ids_; }

  // Any field at any depth (struct fields, list elements, map keys and values).
  const NestedField* FindFieldById(int32_t id) const;
  // Full dotted name as Iceberg builds it ("a.b", list element "l.element", map "m.key").
  const NestedField* FindFieldByName(std::string_view full_name) const;
  const NestedField* FindFieldByNameCaseInsensitive(std::string_view full_name) const;
  std::string FindColumnName(int32_t id) const;  // empty when unknown
  int32_t HighestFieldId() const { return highest_field_id_; }

  // Same fields and identifier fields, ignoring schema-id (to reuse an existing schema).
  bool SameStructure(const Schema& other) const;
  bool Equals(const Schema& other) const;

 private:
  int32_t schema_id_;
  TypePtr struct_;
  std::vector<int32_t> identifier_field_ids_;
  int32_t highest_field_id_ = 0;
  std::unordered_map<int32_t, const NestedField*> by_id_;
  std::unordered_map<std::string, int32_t> name_to_id_;
  std::unordered_map<std::string, int32_t> lower_name_to_id_;
  std::unordered_map<int32_t, std::string> id_to_name_;
};

using SchemaPtr = std::shared_ptr<const Schema>;

// The row lineage columns (spec: "Row Lineage", "Reserved Field IDs"): optional longs that
// format-version 3 data files may store for the rows a rewrite carries over.
inline constexpr int32_t kRowIdFieldId = 2147483540;
inline constexpr int32_t kLastUpdatedSequenceNumberFieldId = 2147483539;
inline constexpr const char* kRowIdName = "_row_id";
inline constexpr const char* kLastUpdatedSequenceNumberName = "_last_updated_sequence_number";

// `schema` with `_row_id` and `_last_updated_sequence_number` after its own columns, as Iceberg
// writes the data files of a v3 rewrite (Java's MetadataColumns.schemaWithRowLineage).
SchemaPtr WithRowLineage(const Schema& schema);

}  // namespace floe::spec
