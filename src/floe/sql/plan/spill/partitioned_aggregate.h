#pragma once

// GROUP BY over more groups than memory holds. The first sixteenth of the statement's memory
// of input is held; if the input ends there it is aggregated in memory. Otherwise a sample of
// its keys tells whether groups repeat often (then one streaming Acero aggregate over all the
// input keeps a small hash table) or not: then every row goes to one of 32 spill files by the
// hash of its keys, and each file is aggregated on its own (a file still too large is split
// again, up to three times), so every group is whole in exactly one of them.

#include <arrow/acero/exec_plan.h>
#include <arrow/acero/options.h>

#include "floe/sql/plan/spill/spill_operator.h"

namespace floe::sql {

// `input` aggregated by `options` (which has group keys).
Result<arrow::acero::Declaration> AggregateWithSpill(arrow::acero::Declaration input,
                                                     arrow::acero::AggregateNodeOptions options, SpillEnv env);

}  // namespace floe::sql
