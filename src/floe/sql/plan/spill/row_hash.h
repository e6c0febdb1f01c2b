#pragma once

// Hashing rows by key columns, to send every row of one group (or one join key) to the same
// spill partition. Equal keys hash equal the way the operators compare them: every NULL
// alike, every NaN alike, -0.0 as 0.0.

#include <cstdint>
#include <memory>
#include <vector>

#include <arrow/record_batch.h>
#include <arrow/type_fwd.h>

#include "floe/util/status.h"

namespace floe::sql {

// Whether rows can be hashed by a key of this type (nested types cannot).
bool CanHashKey(const arrow::DataType& type);

// One hash per row of `batch` over the columns `keys`, varied by `seed`.
Result<std::vector<uint64_t>> HashRows(const arrow::RecordBatch& batch, const std::vector<int>& keys, uint64_t seed);

// `batch` split into `fanout` batches by the hash of its keys (empty ones are null).
Result<std::vector<std::shared_ptr<arrow::RecordBatch>>> PartitionRows(const std::shared_ptr<arrow::RecordBatch>& batch,
                                                                       const std::vector<int>& keys, uint64_t seed,
                                                                       int fanout, arrow::MemoryPool* pool);

}  // namespace floe::sql
