#pragma once

// A single typed value: partition values, column bounds, filter constants. Physical forms
// follow the spec: int for int/date (days), long for long/time/timestamp (micros),
// unscaled 128-bit for decimals, bytes in `std::string` for string/binary/fixed/uuid.

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include <arrow/util/decimal.h>

#include "floe/spec/type.h"

namespace floe::spec {

class Literal {
 public:
  using Value = std::variant<std::monostate, bool, int32_t, int64_t, float, double,
                             arrow::Decimal128, std::string>;

  Literal() = default;  // null of unknown type
  Literal(TypePtr type, Value value) : type_(std::move(type)), value_(std::move(value)) {}

  static Literal Null(TypePtr type) { return Literal(std::move(type), std::monostate{}); }
  static Literal Boolean(bool v);
  static Literal Int(int32_t v);
  static Literal Long(int64_t v);
  static Literal Float(float v);
  static Literal Double(double v);
  static Literal Decimal(arrow::Decimal128 unscaled, int32_t precision, int32_t scale);
  static Literal Date(int32_t days);
  static Literal Time(int64_t micros);
  static Literal Timestamp(int64_t micros);
  static Literal TimestampTz(int64_t micros);
  static Literal String(std::string v);
  static Literal Uuid(std::string bytes16);
  static Literal Fixed(std::string bytes);
  static Literal Binary(std::string bytes);

  const TypePtr& type() const { return type_; }
  const Value& value() const { return value_; }
  bool is_null() const { return std::holds_alternative<std::monostate>(value_); }

  template <typename T>
  const T& get() const {
    return std::get<T>(value_);
  }

  // Human form used in partition paths and messages ("2024-01-15", "12.50", "abc").
  std::string ToString() const;

  bool operator==(const Literal& other) const;
  // Orders two non-null values of the same type as Iceberg compares them (strings and
  // binary as unsigned bytes). Returns <0, 0, >0.
  int Compare(const Literal& other) const;

 private:
  TypePtr type_;
  Value value_;
};

// The spec's single-value binary serialization (Appendix D), used for lower/upper bounds.
// A null literal serializes to an empty string.
std::string ToSingleValueBinary(const Literal& value);
Result<Literal> FromSingleValueBinary(const TypePtr& type, std::string_view bytes);

// Canonical lowercase 8-4-4-4-12 text of 16 big-endian bytes, and back.
std::string UuidToString(std::string_view bytes16);
Result<std::string> UuidFromString(std::string_view text);

// Iceberg's human forms (Java's toHumanString): "2017-11-16", "22:31:08",
// "2017-11-16T22:31:08.000001", with "+00:00" appended when `with_zone`.
std::string DateToString(int32_t days);
std::string TimeToString(int64_t micros);
std::string TimestampToString(int64_t micros, bool with_zone);

}  // namespace floe::spec
