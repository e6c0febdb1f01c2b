#pragma once

// Aggregates a table's manifests answer exactly, without opening a data file: count(*) from
// record counts (also under a WHERE that identity-partition values decide file by file) and
// min/max from column bounds where bounds are exact. Anything the metadata does not decide
// exactly is left to the normal plan.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/scan/scan_filter.h"
#include "floe/scan/table_scan.h"
#include "floe/spec/schema.h"
#include "floe/table/table.h"

namespace floe::sql {

// A plain read of one table (not a metadata table), as the binder set it up.
struct TableFacts {
  std::string table_name;
  std::shared_ptr<table::Table> table;
  scan::TableScan scan;    // the snapshot read, with the query's pruning predicates
  spec::SchemaPtr schema;  // every column of the snapshot read
};

struct MetadataAggregate {
  enum class Kind { kCount, kMin, kMax };
  Kind kind = Kind::kCount;
  int32_t field_id = 0;                     // min/max: the column
  std::shared_ptr<arrow::DataType> type;    // min/max: the aggregate's argument type
};

struct MetadataAnswer {
  std::vector<std::shared_ptr<arrow::Scalar>> values;  // one per aggregate
  std::string note;                                    // what EXPLAIN says
};

// The aggregates over the rows of `facts` that satisfy every predicate of `where`, or
// nullopt when the metadata does not decide them exactly (delete files, a file whose
// partition value does not decide a predicate, missing or inexact bounds).
std::optional<MetadataAnswer> AnswerFromMetadata(const TableFacts& facts,
                                                 const std::vector<MetadataAggregate>& aggregates,
                                                 const std::vector<scan::ColumnPredicate>& where);

// `value op constant` as a WHERE filter decides it, with SQL's NULL giving false.
bool PartitionValueSatisfies(const spec::Literal& value, const scan::ColumnPredicate& predicate);

// Whether every row of `file` satisfies every predicate, decided by its identity partition
// values alone (all rows of a file share them); nullopt when some predicate's column is not
// an identity partition of the file's spec or its value cannot be compared.
std::optional<bool> PartitionValuesSatisfy(const spec::TableMetadata& md, const manifest::DataFile& file,
                                           const std::vector<scan::ColumnPredicate>& predicates);

}  // namespace floe::sql
