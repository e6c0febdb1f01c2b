#pragma once

// A plan source for reads whose rows may arrive in any order (aggregates, DISTINCT, sorts).
// One worker task per thread takes row groups from the scan and pushes each batch it decodes
// through the operators above on its own thread, so a batch is decoded and consumed before
// the worker reads the next: nothing queues between decoding and the plan, and memory holds
// a batch per thread besides what the operators keep.

#include <atomic>
#include <memory>

#include <arrow/acero/exec_plan.h>

#include "floe/scan/row_group_stream.h"

namespace floe::sql {

// Once `cancel` (when given) is set, the workers stop and the plan fails with
// CancelledStatus().
arrow::acero::Declaration ParallelScanSource(std::shared_ptr<scan::SharedRowGroupScan> scan,
                                             std::shared_ptr<const std::atomic<bool>> cancel = nullptr);

}  // namespace floe::sql
