#pragma once

// How INSERT brings the query's columns to the table's types: by position at every depth
// (struct fields, list elements, map keys and values), with Spark's store-assignment rules.

#include <memory>
#include <string>

#include <arrow/type_fwd.h>

#include "floe/util/status.h"

namespace floe::sql {

// `column` written into a column named `name` of type `want` of the table `table_sql`
// (quoted as Spark prints it, e.g. `cat`.`db`.`t`). Struct fields pair up by position,
// untyped NULLs become NULLs of the wanted type, and leaves are cast; a type Spark would not
// store, a struct with too many or too few fields, a value that does not fit or a NULL in a
// required field fails with a message naming the table and the column path.
Result<std::shared_ptr<arrow::ChunkedArray>> ConformForInsert(const std::shared_ptr<arrow::ChunkedArray>& column,
                                                              const arrow::Field& want,
                                                              const std::string& table_sql);

// `array` cast to `type`, struct fields paired by position at every depth (Spark's cast of
// nested values); `type` must have the same shape, as a common type found for it does.
Result<std::shared_ptr<arrow::Array>> CastByPosition(const std::shared_ptr<arrow::Array>& array,
                                                     const std::shared_ptr<arrow::DataType>& type);

}  // namespace floe::sql
