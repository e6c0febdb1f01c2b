#pragma once

// Iceberg types (spec: "Schemas and Data Types"). One value class covers primitives and the
// three nested types; nested types own their children as NestedFields with field ids.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/util/status.h"

namespace floe::spec {

enum class TypeId {
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kDecimal,
  kDate,
  kTime,
  kTimestamp,    // without zone, microseconds
  kTimestampTz,  // with zone (stored as UTC), microseconds
  kString,
  kUuid,
  kFixed,
  kBinary,
  // A v3 type floe cannot read (variant, geometry, geography, timestamp_ns, timestamptz_ns,
  // unknown): kept by name so the table's metadata stays intact and its other columns readable.
  kUnsupported,
  kStruct,
  kList,
  kMap,
};

class Type;
using TypePtr = std::shared_ptr<const Type>;

struct NestedField {
  int32_t id = 0;
  std::string name;
  TypePtr type;
  bool required = false;
  std::string doc;
  // Raw JSON text of the v3 defaults, kept so metadata round-trips; empty when absent.
  std::string initial_default_json;
  std::string write_default_json;

  bool operator==(const NestedField& other) const;
};

class Type {
 public:
  TypeId id() const { return id_; }
  bool is_primitive() const { return id_ < TypeId::kStruct; }
  bool is_nested() const { return !is_primitive(); }
  int32_t precision() const { return precision_; }  // decimal
  int32_t scale() const { return scale_; }          // decimal
  int32_t length() const { return length_; }        // fixed
  const std::string& name() const { return name_; }  // unsupported: the type as written

  // Struct: its fields. List: one field, the element. Map: two fields, key then value.
  const std::vector<NestedField>& fields() const { return fields_; }
  const NestedField& element() const { return fields_[0]; }
  const NestedField& key() const { return fields_[0]; }
  const NestedField& value() const { return fields_[1]; }
  const NestedField* FieldById(int32_t id) const;        // direct children only
  const NestedField* FieldByName(std::string_view name) const;

  // The spec's JSON name of a primitive ("long", "decimal(9,2)", "fixed[16]");
  // "struct<...>", "list<...>", "map<...>" for nested types (for messages).
  std::string ToString() const;
  bool Equals(const Type& other) const;

  // Factories.
  static TypePtr Boolean();
  static TypePtr Int();
  static TypePtr Long();
  static TypePtr Float();
  static TypePtr Double();
  static TypePtr Decimal(int32_t precision, int32_t scale);
  static TypePtr Date();
  static TypePtr Time();
  static TypePtr Timestamp();
  static TypePtr TimestampTz();
  static TypePtr String();
  static TypePtr Uuid();
  static TypePtr Fixed(int32_t length);
  static TypePtr Binary();
  static TypePtr Unsupported(std::string name);
  static TypePtr Struct(std::vector<NestedField> fields);
  static TypePtr List(int32_t element_id, TypePtr element, bool element_required);
  static TypePtr Map(int32_t key_id, TypePtr key, int32_t value_id, TypePtr value,
                     bool value_required);

  // Parses a primitive type name as written in metadata JSON.
  static Result<TypePtr> ParsePrimitive(std::string_view name);

 private:
  explicit Type(TypeId id) : id_(id) {}
  TypeId id_;
  int32_t precision_ = 0;
  int32_t scale_ = 0;
  int32_t length_ = 0;
  std::string name_;
  std::vector<NestedField> fields_;
};

inline bool operator==(const Type& a, const Type& b) { return a.Equals(b); }

NestedField Required(int32_t id, std::string name, TypePtr type, std::string doc = "");
NestedField Optional(int32_t id, std::string name, TypePtr type, std::string doc = "");

}  // namespace floe::spec
