#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/spec/literal.h"
#include "floe/spec/type.h"

namespace floe::spec {

enum class TransformKind { kIdentity, kBucket, kTruncate, kYear, kMonth, kDay, kHour, kVoid, kUnknown };

// A partition or sort transform (spec: "Partition Transforms", Appendix B for bucket hashing).
class Transform {
 public:
  Transform() = default;
  Transform(TransformKind kind, int32_t param = 0) : kind_(kind), param_(param) {}
  static Transform Identity() { return {TransformKind::kIdentity}; }
  static Transform Bucket(int32_t n) { return {TransformKind::kBucket, n}; }
  static Transform Truncate(int32_t w) { return {TransformKind::kTruncate, w}; }
  static Transform Year() { return {TransformKind::kYear}; }
  static Transform Month() { return {TransformKind::kMonth}; }
  static Transform Day() { return {TransformKind::kDay}; }
  static Transform Hour() { return {TransformKind::kHour}; }
  static Transform Void() { return {TransformKind::kVoid}; }

  // "identity", "bucket[16]", "truncate[10]", "year", ... ; unknown names parse to
  // kUnknown and keep their text so metadata round-trips.
  static Result<Transform> Parse(std::string_view text);
  std::string ToString() const;

  TransformKind kind() const { return kind_; }
  int32_t param() const { return param_; }

  bool CanTransform(const Type& source) const;
  // The partition field's type for a source type (bucket -> int, day -> date, ...).
  Result<TypePtr> ResultType(const TypePtr& source) const;
  // Applies the transform; null in gives null out.
  Result<Literal> Apply(const Literal& value) const;
  // The human-readable partition value used in data file paths ("2024-01-15" for day,
  // "2024-01" for month, "2024-01-15-10" for hour, "null" for null).
  std::string ToHumanString(const Literal& transformed) const;

  bool operator==(const Transform& other) const {
    return kind_ == other.kind_ && param_ == other.param_ && unknown_ == other.unknown_;
  }

 private:
  TransformKind kind_ = TransformKind::kIdentity;
  int32_t param_ = 0;
  std::string unknown_;
};

// Murmur3 x86 32-bit hash with seed 0, as the bucket transform uses it.
int32_t Murmur3Hash32(std::string_view bytes);
// The bucket transform's hash of a value (type-specific byte form per Appendix B).
Result<int32_t> BucketHash(const Literal& value);

}  // namespace floe::spec
