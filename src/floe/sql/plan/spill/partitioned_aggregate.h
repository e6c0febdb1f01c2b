#pragma once

// GROUP BY over more groups than memory holds. A node right below the aggregate holds the
// first 4 MB of input and samples its keys: when groups repeat often, it and the rest of
// the input go straight on to one streaming Acero aggregate in the same plan, which keeps a
// small hash table. Otherwise input is held up to a sixteenth of the statement's memory; if
// it ends there, it is aggregated in memory. If not, and its keys still repeat little, every
// row goes to one of 32 spill files by the hash of its keys, and each file is aggregated on
// its own (a file still too large is split again, up to three times), so every group is
// whole in exactly one of them.

#include <arrow/acero/exec_plan.h>
#include <arrow/acero/options.h>

#include "floe/sql/plan/spill/spill_operator.h"

namespace floe::sql {

// `input` aggregated by `options` (which has group keys).
Result<arrow::acero::Declaration> AggregateWithSpill(arrow::acero::Declaration input,
                                                     arrow::acero::AggregateNodeOptions options, SpillEnv env);

}  // namespace floe::sql
