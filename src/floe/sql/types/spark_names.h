#pragma once

// How Spark prints names and types: SQL type names, type class names in procedure errors,
// partition transforms, and identifiers that need backticks.

#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/spec/partition_spec.h"
#include "floe/spec/schema.h"
#include "floe/spec/type.h"
#include "floe/util/status.h"

namespace floe::sql {

// Spark's SQL name of an Iceberg type: bigint, decimal(10,2), struct<a:int>, ...
std::string SparkTypeName(const spec::Type& t);
// The Spark class name of a value's type, as Iceberg's procedure errors print it.
std::string SparkTypeClassName(const arrow::DataType& type);
// Spark's rendering of a partition field: days(ts), bucket(16, id), ...
std::string PartitionFieldText(const spec::PartitionField& f, const spec::Schema& schema);
// A name part as Spark shows it: bare when it is letters, digits and underscores (and not
// only digits), else in backticks with backticks doubled.
std::string QuoteIfNeeded(const std::string& part);
// A multi-level name with each part quoted if needed: db.`my ns`.
std::string QuotedName(const std::vector<std::string>& parts);
// Spark's SHOW ... LIKE pattern: a case-insensitive regular expression where `*` is any text
// and `|` separates alternatives. An invalid pattern is an error naming it.
Result<bool> MatchesShowPattern(const std::string& name, const std::string& pattern);

}  // namespace floe::sql
