#pragma once

// ORDER BY over more rows than memory holds: sorted runs of a quarter of the statement's memory
// are written to spill files and merged; rows that fit are sorted in memory as Acero would.

#include <arrow/acero/exec_plan.h>
#include <arrow/compute/ordering.h>

#include "floe/sql/plan/spill/spill_operator.h"

namespace floe::sql {

// Whether rows can be merged by a sort key of this type.
bool CanMergeKey(const arrow::DataType& type);

// `input` in `ordering` (nulls and NaN placed as the ordering says, ties kept in input order).
Result<arrow::acero::Declaration> SortWithSpill(arrow::acero::Declaration input, arrow::compute::Ordering ordering,
                                                SpillEnv env);

}  // namespace floe::sql
