#pragma once

// Hashing and comparing whole rows (or some of their columns) of Arrow record batches, for
// work that matches rows by value: the snapshot diff's partitioning and matching. Equal
// values hash equally: every NaN is one value, -0.0 equals 0.0, and nulls equal nulls, as
// RowsEqual compares.

#include <cstdint>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/util/status.h"

namespace floe::scan {

// OK when every value of `type` can be hashed (primitives, strings, binary, decimals,
// dates and times, and structs, lists and maps of them); names the type otherwise.
Status CheckHashable(const arrow::DataType& type);

// The hash of each row of `batch` over `columns` (indices into the batch), into `out`
// (resized to the batch's rows). `seed` gives a different, independent family of hashes.
// The columns must pass CheckHashable.
void HashRows(const arrow::RecordBatch& batch, const std::vector<int>& columns, uint64_t seed,
              std::vector<uint64_t>* out);
uint64_t HashRow(const arrow::RecordBatch& batch, const std::vector<int>& columns, int64_t row,
                 uint64_t seed = 0);

// Whether row `i` of `a` and row `j` of `b` hold equal values in `columns` (the same
// indices in both, of equal types).
bool RowsEqual(const arrow::RecordBatch& a, int64_t i, const arrow::RecordBatch& b, int64_t j,
               const std::vector<int>& columns);

// A well-mixed 64-bit function of `x` (splitmix64's finalizer).
inline uint64_t MixHash(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace floe::scan
