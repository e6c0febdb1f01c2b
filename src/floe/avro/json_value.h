#pragma once

// A small owned JSON value for the parts of an Avro schema that are arbitrary JSON: field
// defaults and custom attributes (Iceberg's field-id, element-id, adjust-to-utc, ...).
// Object members keep their order so a schema written back looks like the one read.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/util/status.h"

namespace floe::avro {

class JsonValue {
 public:
  enum class Kind : uint8_t { kNull, kBool, kInt, kDouble, kString, kArray, kObject };
  using Member = std::pair<std::string, JsonValue>;

  JsonValue() = default;

  static JsonValue Null() { return JsonValue(); }
  static JsonValue Bool(bool v);
  static JsonValue Int(int64_t v);
  static JsonValue Double(double v);
  static JsonValue String(std::string v);
  static JsonValue Array(std::vector<JsonValue> items);
  static JsonValue Object(std::vector<Member> members);

  // Parses one JSON document (the whole text).
  static Result<JsonValue> Parse(std::string_view text);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_bool() const { return kind_ == Kind::kBool; }
  bool is_int() const { return kind_ == Kind::kInt; }
  bool is_double() const { return kind_ == Kind::kDouble; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_object() const { return kind_ == Kind::kObject; }

  // Preconditions: the matching kind (as_double also accepts kInt).
  bool as_bool() const { return bool_; }
  int64_t as_int() const { return int_; }
  double as_double() const { return kind_ == Kind::kInt ? static_cast<double>(int_) : double_; }
  const std::string& as_string() const { return string_; }
  const std::vector<JsonValue>& items() const { return items_; }
  const std::vector<Member>& members() const { return members_; }

  // The member named `key` of an object, or nullptr.
  const JsonValue* Find(std::string_view key) const;

  // Compact JSON text.
  std::string ToJson() const;

  friend bool operator==(const JsonValue& a, const JsonValue& b);
  friend bool operator!=(const JsonValue& a, const JsonValue& b) { return !(a == b); }

 private:
  Kind kind_ = Kind::kNull;
  bool bool_ = false;
  int64_t int_ = 0;
  double double_ = 0;
  std::string string_;
  std::vector<JsonValue> items_;
  std::vector<Member> members_;
};

}  // namespace floe::avro
