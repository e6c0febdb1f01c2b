#pragma once

// Hash joins (and the set operations built on them) whose build side outgrows memory. The
// build (right) input is read first; if it ends within a sixteenth of the statement's memory,
// Acero joins it in memory while the probe (left) side streams by. Otherwise both sides go to
// 32 spill files each by the hash of their join keys and each pair of files is joined on its
// own (a pair whose build side is still too large is split again, up to three times): rows
// with equal keys, NULL keys included, always meet in the same pair, so every join type
// (inner, outer, semi, anti) gives the rows it gives in memory.

#include <arrow/acero/exec_plan.h>
#include <arrow/acero/options.h>

#include "floe/sql/plan/spill/spill_operator.h"

namespace floe::sql {

Result<arrow::acero::Declaration> HashJoinWithSpill(arrow::acero::Declaration left, arrow::acero::Declaration right,
                                                    arrow::acero::HashJoinNodeOptions options, SpillEnv env);

}  // namespace floe::sql
