#pragma once

// Small pieces the function entries share.

#include <string>
#include <utility>
#include <vector>

#include <arrow/compute/api.h>
#include <arrow/scalar.h>

#include "floe/sql/functions/function_registry.h"

namespace floe::sql::functions {

namespace cp = arrow::compute;

inline bool IsInteger(const arrow::DataType& t) { return arrow::is_integer(t.id()); }
inline bool IsFloating(const arrow::DataType& t) { return arrow::is_floating(t.id()); }
inline bool IsDecimal(const arrow::DataType& t) { return t.id() == arrow::Type::DECIMAL128; }
inline bool IsString(const arrow::DataType& t) {
  return t.id() == arrow::Type::STRING || t.id() == arrow::Type::LARGE_STRING;
}
inline bool IsTimestamp(const arrow::DataType& t) { return t.id() == arrow::Type::TIMESTAMP; }

inline const std::string kExpressions = "org.apache.spark.sql.catalyst.expressions.";

inline FunctionDoc Doc(const std::string& class_name, std::string usage, std::vector<FunctionExample> examples = {},
                       std::string since = "") {
  FunctionDoc doc;
  doc.class_name = class_name.find('.') == std::string::npos ? kExpressions + class_name : class_name;
  doc.usage = std::move(usage);
  doc.examples = std::move(examples);
  doc.since = std::move(since);
  return doc;
}

inline ReturnTypeRule Fixed(TypePtr type) {
  return [type](CallBinder&) -> Result<TypePtr> { return type; };
}

inline ReturnTypeRule SameAsArgument(size_t i) {
  return [i](CallBinder& b) -> Result<TypePtr> { return b.args[i].type; };
}

// One Arrow function applied to the first argument.
inline ScalarImpl ArrowUnary(const char* arrow_function) {
  return [arrow_function](CallBinder& b) -> Result<BoundExpr> {
    return b.Make(cp::call(arrow_function, {b.args[0].expr}));
  };
}

inline cp::Expression Null(const TypePtr& type) { return cp::literal(arrow::MakeNullScalar(type)); }

inline TypePtr UtcTimestamp() { return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"); }

}  // namespace floe::sql::functions
