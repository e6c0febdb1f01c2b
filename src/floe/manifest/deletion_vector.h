#pragma once

// Deletion vectors (spec: "Deletion Vectors"; Puffin spec: "deletion-vector-v1"): the rows of
// one data file that a format-version 3 table deletes, as a bitmap of row positions stored as
// one blob of a Puffin file. A blob is a 4-byte big-endian length of what follows up to the
// checksum, the magic D1 D3 39 64, a 64-bit Roaring bitmap in the portable serialization (an
// 8-byte little-endian count of 32-bit bitmaps, then each one's 4-byte little-endian key, the
// high 32 bits of its positions, and the 32-bit Roaring bitmap of their low 32 bits), and a
// 4-byte big-endian CRC-32 of the magic and the bitmap.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/io/file_io.h"
#include "floe/util/status.h"

namespace floe::manifest {

// A deletion vector with more positions than this is refused before any is decoded: as
// positions they would take 16 GiB, and a few hundred bytes of run containers can claim them.
inline constexpr int64_t kMaxDeletionVectorPositions = int64_t{1} << 31;

// The positions of one `deletion-vector-v1` blob (the content_size_in_bytes bytes at
// content_offset of its Puffin file), ascending and without repeats. A blob that is damaged
// in any way (length, magic, checksum, bitmap structure, positions out of order or negative)
// is an IOError naming `file`.
Result<std::vector<int64_t>> DecodeDeletionVector(std::string_view blob, const std::string& file);

// The blob of the given positions, readable by Iceberg Java and by DecodeDeletionVector.
// Positions should be ascending and non-negative, as row positions are; repeats are kept
// once, unordered positions are sorted first, and negative ones, which no row has, are left
// out. Runs are stored as run containers where that is smaller, as Java does.
std::string EncodeDeletionVector(const std::vector<int64_t>& sorted_positions);

// Reads and decodes the blob of `content_size_in_bytes` bytes at `content_offset` of
// `puffin_path`, reading only that range. A range outside the file is an IOError naming it.
Result<std::vector<int64_t>> ReadDeletionVector(FileIO& io, const std::string& puffin_path,
                                                int64_t content_offset,
                                                int64_t content_size_in_bytes);

}  // namespace floe::manifest
