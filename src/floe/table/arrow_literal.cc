#include "floe/table/arrow_literal.h"

#include <arrow/array.h>
#include <arrow/extension/uuid.h>
#include <arrow/scalar.h>

#include "floe/table/arrow_schema.h"
#include "floe/util/time_units.h"

namespace floe::table {

using spec::Literal;
using spec::TypeId;

Result<Literal> LiteralFromScalar(const arrow::Scalar& in, const spec::TypePtr& type) {
  if (!in.is_valid) return Literal::Null(type);
  const arrow::Scalar* scalar = &in;
  if (in.type->id() == arrow::Type::EXTENSION) {
    scalar = static_cast<const arrow::ExtensionScalar&>(in).value.get();
  }
  auto mismatch = [&]() {
    return ValidationError("Cannot convert Arrow value of type ", in.type->ToString(),
                           " to Iceberg type ", type->ToString());
  };
  auto as_int64 = [&]() -> Result<int64_t> {
    switch (scalar->type->id()) {
      case arrow::Type::INT8:
        return static_cast<const arrow::Int8Scalar&>(*scalar).value;
      case arrow::Type::INT16:
        return static_cast<const arrow::Int16Scalar&>(*scalar).value;
      case arrow::Type::INT32:
        return static_cast<const arrow::Int32Scalar&>(*scalar).value;
      case arrow::Type::INT64:
        return static_cast<const arrow::Int64Scalar&>(*scalar).value;
      case arrow::Type::UINT8:
        return static_cast<const arrow::UInt8Scalar&>(*scalar).value;
      case arrow::Type::UINT16:
        return static_cast<const arrow::UInt16Scalar&>(*scalar).value;
      case arrow::Type::UINT32:
        return static_cast<const arrow::UInt32Scalar&>(*scalar).value;
      case arrow::Type::DATE32:
        return static_cast<const arrow::Date32Scalar&>(*scalar).value;
      case arrow::Type::DATE64:
        return static_cast<const arrow::Date64Scalar&>(*scalar).value / 86400000;
      case arrow::Type::TIME64: {
        const auto& t = static_cast<const arrow::Time64Scalar&>(*scalar);
        auto unit = static_cast<const arrow::Time64Type&>(*t.type).unit();
        return unit == arrow::TimeUnit::NANO ? t.value / 1000 : t.value;
      }
      case arrow::Type::TIME32: {
        const auto& t = static_cast<const arrow::Time32Scalar&>(*scalar);
        auto unit = static_cast<const arrow::Time32Type&>(*t.type).unit();
        return unit == arrow::TimeUnit::SECOND ? int64_t{t.value} * 1000000 : int64_t{t.value} * 1000;
      }
      case arrow::Type::TIMESTAMP: {
        const auto& t = static_cast<const arrow::TimestampScalar&>(*scalar);
        // Nanoseconds are floored, so a bound never excludes a value it should cover.
        return MicrosFromUnit(t.value, static_cast<const arrow::TimestampType&>(*t.type).unit());
      }
      default:
        return mismatch();
    }
  };
  auto as_bytes = [&]() -> Result<std::string> {
    if (auto* b = dynamic_cast<const arrow::BaseBinaryScalar*>(scalar)) {
      return b->value ? b->value->ToString() : std::string();
    }
    return mismatch();
  };
  switch (type->id()) {
    case TypeId::kBoolean:
      if (scalar->type->id() != arrow::Type::BOOL) return mismatch();
      return Literal(type, static_cast<const arrow::BooleanScalar&>(*scalar).value);
    case TypeId::kInt:
    case TypeId::kDate: {
      ARROW_ASSIGN_OR_RAISE(int64_t v, as_int64());
      return Literal(type, static_cast<int32_t>(v));
    }
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      ARROW_ASSIGN_OR_RAISE(int64_t v, as_int64());
      return Literal(type, v);
    }
    case TypeId::kFloat:
      if (scalar->type->id() == arrow::Type::FLOAT) {
        return Literal(type, static_cast<const arrow::FloatScalar&>(*scalar).value);
      }
      return mismatch();
    case TypeId::kDouble:
      if (scalar->type->id() == arrow::Type::DOUBLE) {
        return Literal(type, static_cast<const arrow::DoubleScalar&>(*scalar).value);
      }
      if (scalar->type->id() == arrow::Type::FLOAT) {
        return Literal(type, double{static_cast<const arrow::FloatScalar&>(*scalar).value});
      }
      return mismatch();
    case TypeId::kDecimal: {
      if (scalar->type->id() != arrow::Type::DECIMAL128) return mismatch();
      const auto& d = static_cast<const arrow::Decimal128Scalar&>(*scalar);
      int32_t scale = static_cast<const arrow::Decimal128Type&>(*d.type).scale();
      arrow::Decimal128 value = d.value;
      if (scale != type->scale()) {
        ARROW_ASSIGN_OR_RAISE(value, value.Rescale(scale, type->scale()));
      }
      return Literal(type, value);
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixed:
    case TypeId::kUuid: {
      ARROW_ASSIGN_OR_RAISE(std::string bytes, as_bytes());
      return Literal(type, std::move(bytes));
    }
    default:
      return mismatch();
  }
}

Result<Literal> LiteralFromArray(const arrow::Array& array, int64_t index,
                                 const spec::TypePtr& type) {
  if (array.IsNull(index)) return Literal::Null(type);
  ARROW_ASSIGN_OR_RAISE(auto scalar, array.GetScalar(index));
  return LiteralFromScalar(*scalar, type);
}

Result<std::shared_ptr<arrow::Scalar>> LiteralToScalar(const Literal& literal) {
  ARROW_ASSIGN_OR_RAISE(auto arrow_type, ToArrowType(*literal.type()));
  if (literal.is_null()) return arrow::MakeNullScalar(arrow_type);
  switch (literal.type()->id()) {
    case TypeId::kBoolean:
      return std::make_shared<arrow::BooleanScalar>(literal.get<bool>());
    case TypeId::kInt:
      return std::make_shared<arrow::Int32Scalar>(literal.get<int32_t>());
    case TypeId::kDate:
      return std::make_shared<arrow::Date32Scalar>(literal.get<int32_t>());
    case TypeId::kLong:
      return std::make_shared<arrow::Int64Scalar>(literal.get<int64_t>());
    case TypeId::kTime:
      return std::make_shared<arrow::Time64Scalar>(literal.get<int64_t>(), arrow_type);
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return std::make_shared<arrow::TimestampScalar>(literal.get<int64_t>(), arrow_type);
    case TypeId::kFloat:
      return std::make_shared<arrow::FloatScalar>(literal.get<float>());
    case TypeId::kDouble:
      return std::make_shared<arrow::DoubleScalar>(literal.get<double>());
    case TypeId::kDecimal:
      return std::make_shared<arrow::Decimal128Scalar>(literal.get<arrow::Decimal128>(), arrow_type);
    case TypeId::kString:
      return std::make_shared<arrow::StringScalar>(literal.get<std::string>());
    case TypeId::kBinary:
      return std::make_shared<arrow::BinaryScalar>(literal.get<std::string>());
    case TypeId::kFixed:
      return std::make_shared<arrow::FixedSizeBinaryScalar>(
          arrow::Buffer::FromString(literal.get<std::string>()), arrow_type);
    case TypeId::kUuid: {
      auto storage = std::make_shared<arrow::FixedSizeBinaryScalar>(
          arrow::Buffer::FromString(literal.get<std::string>()), arrow::fixed_size_binary(16));
      return std::make_shared<arrow::ExtensionScalar>(std::move(storage), arrow_type);
    }
    default:
      return Status::NotImplemented("No Arrow scalar for ", literal.type()->ToString());
  }
}

}  // namespace floe::table
