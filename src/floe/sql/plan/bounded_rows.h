#pragma once

// LIMIT and ORDER BY ... LIMIT over a running plan in bounded memory: rows are consumed as
// the plan produces them and only what the answer can still need is kept.

#include <cstdint>
#include <memory>
#include <vector>

#include <arrow/acero/exec_plan.h>
#include <arrow/compute/api_vector.h>

#include "floe/util/status.h"

namespace floe::sql {

// Rows [offset, offset + limit) of `input` in the order of `keys` (null placement at the
// end, as the keys encode their own NULLS FIRST/LAST). Holds about offset + limit rows
// plus max(offset + limit, 65536) rows waiting to be compared, whatever the input's size.
Result<std::shared_ptr<arrow::Table>> TopRows(const arrow::acero::Declaration& input,
                                              const std::vector<arrow::compute::SortKey>& keys, int64_t offset,
                                              int64_t limit);

// Rows [offset, offset + limit) of `input` as they arrive (limit < 0: all of them); the
// plan is stopped once they are in.
Result<std::shared_ptr<arrow::Table>> FirstRows(const arrow::acero::Declaration& input, int64_t offset,
                                                int64_t limit);

}  // namespace floe::sql
