#pragma once

// A generic Avro datum. One Value type covers every schema type; its storage is laid out so
// that decoding the next record into the same Value reuses every string and vector it
// already owns, which keeps steady-state manifest decoding free of allocations.

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/util/status.h"

namespace floe::avro {

class DatumReader;

class Value {
 public:
  enum class Kind : uint8_t {
    kNull,
    kBool,
    kInt,
    kLong,
    kFloat,
    kDouble,
    kString,
    kBytes,
    kFixed,
    kEnum,
    kArray,
    kMap,
    kRecord,
    kUnion,
  };

  Value() = default;

  static Value Null() { return Value(); }
  static Value Bool(bool v);
  static Value Int(int32_t v);
  static Value Long(int64_t v);
  static Value Float(float v);
  static Value Double(double v);
  static Value String(std::string v);
  static Value Bytes(std::string v);
  static Value Fixed(std::string v);
  static Value Enum(int32_t index);
  static Value Array(std::vector<Value> items);
  static Value Map(std::vector<std::pair<std::string, Value>> entries);
  static Value Record(std::vector<Value> fields);
  static Value Union(int32_t branch, Value value);

  Kind kind() const { return kind_; }

  // Accessors below look through a union to its branch value, so that an optional field
  // reads as its value: v.IsNull(), v.AsInt64(). Their preconditions (the right kind, an
  // index in range) are the caller's to check; a wrong kind yields 0 or empty, never UB.
  const Value& Unwrapped() const {
    return kind_ == Kind::kUnion && !children_.empty() ? children_[0] : *this;
  }
  bool IsNull() const { return Unwrapped().kind_ == Kind::kNull; }
  bool AsBool() const;
  int32_t AsInt32() const;
  // Also reads an int.
  int64_t AsInt64() const;
  float AsFloat() const;
  // Also reads a float, int or long.
  double AsDouble() const;
  // String, bytes and fixed.
  std::string_view AsString() const;
  std::string_view AsBytes() const { return AsString(); }
  int32_t AsEnum() const;

  // Arrays, maps and records: the number of items, entries or fields.
  size_t size() const { return Unwrapped().children_.size(); }
  const Value& field(size_t i) const { return Unwrapped().children_[i]; }
  const Value& item(size_t i) const { return Unwrapped().children_[i]; }
  const std::vector<Value>& items() const { return Unwrapped().children_; }
  const std::string& key(size_t i) const { return Unwrapped().keys_[i]; }
  const Value& value(size_t i) const { return Unwrapped().children_[i]; }

  // Unions: the branch index and the branch value.
  int32_t branch() const { return kind_ == Kind::kUnion ? index_ : -1; }
  const Value& branch_value() const { return Unwrapped(); }

  // Checked forms for data whose schema the caller has not verified.
  Result<bool> GetBool() const;
  Result<int32_t> GetInt32() const;
  Result<int64_t> GetInt64() const;
  Result<double> GetDouble() const;
  Result<std::string_view> GetString() const;
  Result<std::string_view> GetBytes() const;
  Result<const Value*> GetField(size_t i) const;

  // Mutable access for building values in place.
  Value& mutable_field(size_t i) { return children_[i]; }
  std::vector<Value>* mutable_items() { return &children_; }

  std::string ToString() const;

  friend bool operator==(const Value& a, const Value& b);
  friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }
  friend std::ostream& operator<<(std::ostream& os, const Value& v) { return os << v.ToString(); }

 private:
  friend class DatumReader;
  friend class DatumWriter;

  Kind kind_ = Kind::kNull;
  // Enum symbol or union branch.
  int32_t index_ = 0;
  union {
    bool b;
    int32_t i;
    int64_t l;
    float f;
    double d;
  } scalar_{};
  // String, bytes, fixed.
  std::string bytes_;
  // Array items, map values, record fields, or the single branch value of a union.
  std::vector<Value> children_;
  // Map keys, parallel to children_.
  std::vector<std::string> keys_;
};

const char* KindName(Value::Kind kind);

}  // namespace floe::avro
