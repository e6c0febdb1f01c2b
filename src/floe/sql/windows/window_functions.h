#pragma once

// Window functions over rows held in memory, as Spark computes them: rows are ordered by
// partition keys and then by the window's ORDER BY (a stable sort, so ties keep their input
// order), and each row's value comes from its partition, its peers (rows equal on every
// ORDER BY key) or its frame.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/util/status.h"

namespace floe::sql {

struct WindowOrderKey {
  std::shared_ptr<arrow::Array> values;
  bool ascending = true;
  bool nulls_first = true;
};

// One end of a frame; `offset` counts rows (ROWS) or order-key units (RANGE).
struct WindowBound {
  enum class Kind { kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing, kUnboundedFollowing };
  Kind kind = Kind::kCurrentRow;
  double offset = 0;
};

struct WindowFrameSpec {
  bool rows = true;  // ROWS; false: RANGE
  WindowBound start{WindowBound::Kind::kUnboundedPreceding, 0};
  WindowBound end{WindowBound::Kind::kCurrentRow, 0};
};

// A window function call with its arguments evaluated for every row.
struct WindowCall {
  // row_number, rank, dense_rank, percent_rank, cume_dist, ntile, lag, lead, first_value,
  // last_value, nth_value, count, sum, avg, min, max.
  std::string function;
  std::vector<std::shared_ptr<arrow::Array>> args;  // per row; count(*) has none
  bool ignore_nulls = false;
  int64_t offset = 1;                            // lag/lead distance, ntile buckets, nth_value n
  std::shared_ptr<arrow::Scalar> default_value;  // lag/lead, when given
  std::shared_ptr<arrow::DataType> result_type;
};

// The function's value for each of `num_rows` rows, in their input order.
Result<std::shared_ptr<arrow::Array>> ComputeWindow(
    int64_t num_rows, const std::vector<std::shared_ptr<arrow::Array>>& partition_by,
    const std::vector<WindowOrderKey>& order_by, const WindowFrameSpec& frame,
    const WindowCall& call);

}  // namespace floe::sql
