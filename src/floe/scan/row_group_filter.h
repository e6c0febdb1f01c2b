#pragma once

// Pruning inside a Parquet file: which row groups (and pages) the pushed predicates rule out,
// from the footer's column statistics, the page index and Bloom filters. Every check answers
// "may match" whenever it is unsure, so a skipped row group never holds a matching row.

#include <cstdint>
#include <optional>
#include <utility>
#include <string_view>
#include <vector>

#include <parquet/type_fwd.h>

namespace parquet {
class ParquetFileReader;
}  // namespace parquet

#include "floe/io/prefetched_file.h"
#include "floe/scan/scan_filter.h"
#include "floe/spec/literal.h"

namespace floe::scan {

// A pushed predicate bound to a flat (non-repeated) leaf column of one file.
struct BoundPredicate {
  ColumnPredicate predicate;
  int column = -1;  // leaf column index in the file
  const parquet::ColumnDescriptor* descr = nullptr;
};

// Whether values of `p`'s column may be used to rule rows out for `p`. Floating columns:
// NaN is kept out of min/max by writers yet sorts above every number in Spark, so only
// =, <, <= against a number (which NaN rows never satisfy) can prune.
bool PredicateCanPrune(const ColumnPredicate& p);

// The value a PLAIN-encoded Parquet statistic (row group statistics, column index) stands
// for, as a literal of Iceberg type `type`; nullopt when the column's physical and logical
// type do not map onto `type` exactly (other time units, unsigned ints, other scales).
std::optional<spec::Literal> StatToLiteral(const parquet::ColumnDescriptor& column, const spec::TypePtr& type,
                                           std::string_view encoded);

// False only when the statistics of row group `row_group` rule out one of the predicates.
bool RowGroupStatsMayMatch(const parquet::FileMetaData& metadata, int row_group,
                           const std::vector<BoundPredicate>& predicates);

// False only when a column Bloom filter of the row group says an equality's value is absent.
// May throw parquet::ParquetException on a damaged filter.
bool BloomFiltersMayMatch(parquet::ParquetFileReader& reader, int row_group,
                          const std::vector<BoundPredicate>& predicates);

// Rows [begin, end) of a row group, sorted and apart.
using RowRanges = std::vector<std::pair<int64_t, int64_t>>;

// The rows of row group `row_group` that lie, for every predicate with a column and offset
// index, in a page its column may match: all of them when no index applies, none when the
// indexes rule every row out. May throw parquet::ParquetException.
RowRanges PageIndexRowRanges(parquet::ParquetFileReader& reader, int row_group,
                             const std::vector<BoundPredicate>& predicates);

// The bytes from the first to the end of the last column and offset index of leaf columns
// `columns` (every column when null) in every row group, as the footer places them; empty
// (length 0) when there are none.
ByteRange PageIndexSpan(const parquet::FileMetaData& metadata, const std::vector<int>* columns = nullptr);

}  // namespace floe::scan
