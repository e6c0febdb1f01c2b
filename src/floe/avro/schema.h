#pragma once

// The Avro schema model (Avro 1.11 spec, "Schema Declaration"), kept faithful enough that a
// schema read from an Iceberg manifest and written back is the same JSON: custom attributes
// (field-id, element-id, key-id, value-id, logicalType, adjust-to-utc, ...) keep their JSON
// types and order, fields keep their order and defaults.
//
// A Node is a plain value tree that callers may build by hand; a Schema takes ownership of a
// root Node, validates it, resolves named-type references, and is immutable afterwards.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "floe/avro/json_value.h"
#include "floe/util/status.h"

namespace floe::avro {

enum class Type : uint8_t {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

// The spec's name for `type` ("long", "record", ...).
const char* TypeName(Type type);
bool IsPrimitive(Type type);
bool IsNamed(Type type);

// Custom attributes of a type or field, in the order they were read or added.
class Attributes {
 public:
  using Entry = std::pair<std::string, JsonValue>;

  const JsonValue* Find(std::string_view key) const;
  // Replaces the value of an existing key (keeping its position) or appends it.
  void Set(std::string key, JsonValue value);
  // An integer attribute that fits in int32 (ids); nullopt when absent or not such an int.
  std::optional<int32_t> GetInt32(std::string_view key) const;
  std::optional<std::string_view> GetString(std::string_view key) const;
  std::optional<bool> GetBool(std::string_view key) const;

  const std::vector<Entry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

  friend bool operator==(const Attributes& a, const Attributes& b) {
    return a.entries_ == b.entries_;
  }

 private:
  std::vector<Entry> entries_;
};

struct Field;

class Node {
 public:
  Type type = Type::kNull;

  // Named types (record, enum, fixed) and references: the name as written, which may be a
  // dotted full name, and the namespace when one was given.
  std::string name;
  std::optional<std::string> name_space;
  std::string doc;
  // Set by Schema::Make: the resolved full name of a named type or of a reference's target.
  std::string full_name;

  std::vector<Field> fields;          // record
  std::vector<std::string> symbols;   // enum
  int64_t fixed_size = 0;             // fixed
  // array: {items}; map: {values}; union: the branches.
  std::vector<Node> children;

  Attributes attributes;

  // A use, by name, of a named type defined earlier in the schema (or enclosing it).
  // Only `name` is meaningful until Schema::Make fills `type` and `full_name`.
  bool is_reference = false;

  static Node Primitive(Type type);
  static Node Record(std::string name, std::vector<Field> fields,
                     std::optional<std::string> name_space = std::nullopt);
  static Node Enum(std::string name, std::vector<std::string> symbols,
                   std::optional<std::string> name_space = std::nullopt);
  static Node Fixed(std::string name, int64_t size,
                    std::optional<std::string> name_space = std::nullopt);
  static Node Array(Node items);
  static Node Map(Node values);
  static Node Union(std::vector<Node> branches);
  // ["null", type], Iceberg's optional field.
  static Node Optional(Node type);
  static Node Reference(std::string name);

  // Chainable attribute setters for building schemas by hand.
  Node&& WithAttribute(std::string key, JsonValue value) &&;
  Node& WithAttribute(std::string key, JsonValue value) &;
  Node&& WithLogicalType(std::string logical_type) && {
    return std::move(*this).WithAttribute("logicalType", JsonValue::String(std::move(logical_type)));
  }

  const Node& items() const { return children[0]; }   // array
  const Node& values() const { return children[0]; }  // map

  std::optional<std::string_view> logical_type() const {
    return attributes.GetString("logicalType");
  }
  std::optional<int32_t> element_id() const { return attributes.GetInt32("element-id"); }
  std::optional<int32_t> key_id() const { return attributes.GetInt32("key-id"); }
  std::optional<int32_t> value_id() const { return attributes.GetInt32("value-id"); }

  // For a union: the index of the "null" branch, or -1.
  int NullBranch() const;

  friend bool operator==(const Node& a, const Node& b);
  friend bool operator!=(const Node& a, const Node& b) { return !(a == b); }
};

struct Field {
  std::string name;
  Node type;
  std::string doc;
  std::optional<JsonValue> default_value;
  Attributes attributes;

  Field() = default;
  Field(std::string field_name, Node field_type)
      : name(std::move(field_name)), type(std::move(field_type)) {}

  Field&& WithFieldId(int32_t id) && {
    attributes.Set("field-id", JsonValue::Int(id));
    return std::move(*this);
  }
  Field&& WithDoc(std::string text) && {
    doc = std::move(text);
    return std::move(*this);
  }
  Field&& WithDefault(JsonValue value) && {
    default_value = std::move(value);
    return std::move(*this);
  }
  Field&& WithAttribute(std::string key, JsonValue value) && {
    attributes.Set(std::move(key), std::move(value));
    return std::move(*this);
  }

  std::optional<int32_t> field_id() const { return attributes.GetInt32("field-id"); }

  friend bool operator==(const Field& a, const Field& b) {
    return a.name == b.name && a.type == b.type && a.doc == b.doc &&
           a.default_value == b.default_value && a.attributes == b.attributes;
  }
};

class Schema {
 public:
  // Validates `root` (names, duplicate fields and symbols, union rules, references) and
  // resolves every reference.
  static Result<std::shared_ptr<const Schema>> Make(Node root);
  // Parses Avro schema JSON text.
  static Result<std::shared_ptr<const Schema>> Parse(std::string_view json);

  // Compact JSON text; named types are defined at their first use and referenced by name
  // afterwards, exactly as in the Node tree.
  std::string ToJson() const;

  const Node& root() const { return root_; }

  // The definition of the named type with this full name, or nullptr.
  const Node* FindNamed(std::string_view full_name) const;
  // The definition a reference points to; any other node is returned as is.
  const Node& Resolve(const Node& node) const;

  Schema(const Schema&) = delete;
  Schema& operator=(const Schema&) = delete;

 private:
  Schema() = default;

  Node root_;
  std::unordered_map<std::string, const Node*> named_;
};

}  // namespace floe::avro
