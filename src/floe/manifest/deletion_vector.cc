#include "floe/manifest/deletion_vector.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <utility>

#include <libdeflate.h>
#include <roaring/roaring.h>

namespace floe::manifest {

namespace {

constexpr unsigned char kMagic[4] = {0xD1, 0xD3, 0x39, 0x64};
constexpr size_t kLengthSize = 4;
constexpr size_t kMagicSize = 4;
constexpr size_t kCountSize = 8;
constexpr size_t kKeySize = 4;
constexpr size_t kCrcSize = 4;
// The cookies that open a 32-bit bitmap in the portable format (RoaringFormatSpec): one
// whose low half also says run containers follow (its high half is the container count
// minus one), one without them (the count follows as 4 bytes).
constexpr uint32_t kCookieWithRuns = 12347;
constexpr uint32_t kCookieNoRuns = 12346;
constexpr uint32_t kMaxContainers = 1 << 16;
// Positions are non-negative: a key (their high 32 bits) has its top bit clear.
constexpr uint32_t kMaxKey = 0x7FFFFFFF;

struct BitmapFree {
  void operator()(roaring_bitmap_t* bitmap) const { roaring_bitmap_free(bitmap); }
};
using BitmapPtr = std::unique_ptr<roaring_bitmap_t, BitmapFree>;

uint32_t LoadBigEndian32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | uint32_t{b[3]};
}

uint16_t LoadLittleEndian16(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint16_t>(b[0] | b[1] << 8);
}

uint32_t LoadLittleEndian32(const char* p) {
  return uint32_t{LoadLittleEndian16(p)} | uint32_t{LoadLittleEndian16(p + 2)} << 16;
}

uint64_t LoadLittleEndian64(const char* p) {
  return uint64_t{LoadLittleEndian32(p)} | uint64_t{LoadLittleEndian32(p + 4)} << 32;
}

void StoreBigEndian32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (24 - 8 * i));
}

void StoreLittleEndian(char* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<char>(v >> (8 * i));
}

std::string Hex32(uint32_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) out += kDigits[(v >> shift) & 0xF];
  return out;
}

template <typename... Args>
Status Invalid(const std::string& file, Args&&... args) {
  return Status::IOError("Invalid deletion vector in ", file, ": ", std::forward<Args>(args)...);
}

uint32_t Crc32(const char* data, size_t size) {
  return static_cast<uint32_t>(libdeflate_crc32(0, data, size));
}

// A container of a 32-bit bitmap as the bitmap's header lists it.
struct Container {
  uint16_t key;          // the high 16 bits of its values
  uint32_t cardinality;  // 1 to 65536
};

// The container list of the 32-bit bitmap at `p` (within `size` bytes). CRoaring 0.2 reads
// containers without checking them against this list, so the walk below does.
bool ReadContainers(const char* p, size_t size, std::vector<Container>* out, std::string* why) {
  if (size < 4) {
    *why = "its header is cut short";
    return false;
  }
  const uint32_t cookie = LoadLittleEndian32(p);
  size_t at = 4;
  uint32_t count = 0;
  if ((cookie & 0xFFFF) == kCookieWithRuns) {
    count = (cookie >> 16) + 1;
    at += (count + 7) / 8;  // which containers are runs
  } else if (cookie == kCookieNoRuns) {
    if (size < 8) {
      *why = "its header is cut short";
      return false;
    }
    count = LoadLittleEndian32(p + 4);
    at = 8;
  } else {
    *why = StrCat("it starts with ", Hex32(cookie), ", not a Roaring bitmap's cookie");
    return false;
  }
  if (count > kMaxContainers) {
    *why = StrCat("its header lists ", count, " containers, more than 65536");
    return false;
  }
  if (size < at || (size - at) / 4 < count) {
    *why = "its header is cut short";
    return false;
  }
  out->clear();
  out->reserve(count);
  for (uint32_t i = 0; i < count; ++i, at += 4) {
    const uint16_t key = LoadLittleEndian16(p + at);
    if (i > 0 && key <= out->back().key) {
      *why = "its containers are not in ascending order";
      return false;
    }
    out->push_back({key, uint32_t{LoadLittleEndian16(p + at + 2)} + 1});
  }
  return true;
}

// One 32-bit bitmap of the vector.
struct Part {
  uint32_t key;
  BitmapPtr bitmap;
  std::vector<Container> containers;
};

// The walk over one part's values (roaring_iterate's callback): each value must come from
// the container its header says it is in, in ascending order, as many as the header counts.
struct Walk {
  std::vector<int64_t>* positions;
  const std::vector<Container>* containers;
  int64_t high = 0;   // the part's key, shifted into place
  int64_t last = -1;  // the previous position (of any part)
  size_t next = 0;    // the container after the one being walked
  uint32_t left = 0;  // values still to come from the one being walked
  const char* problem = nullptr;
};

bool VisitValue(uint32_t value, void* param) {
  auto* walk = static_cast<Walk*>(param);
  if (walk->left == 0) {
    if (walk->next == walk->containers->size()) {
      walk->problem = "its containers hold more values than its header lists";
      return false;
    }
    walk->left = (*walk->containers)[walk->next++].cardinality;
  }
  if ((value >> 16) != (*walk->containers)[walk->next - 1].key) {
    walk->problem = "a container holds a value outside its range";
    return false;
  }
  const int64_t position = walk->high | value;
  if (position <= walk->last) {
    walk->problem = "its positions are not strictly ascending";
    return false;
  }
  walk->positions->push_back(position);
  walk->last = position;
  --walk->left;
  return true;
}

}  // namespace

Result<std::vector<int64_t>> DecodeDeletionVector(std::string_view blob, const std::string& file) {
  constexpr size_t kSmallest = kLengthSize + kMagicSize + kCountSize + kCrcSize;
  if (blob.size() < kSmallest) {
    return Invalid(file, "the blob has ", blob.size(), " bytes, fewer than the ", kSmallest,
                   " of an empty one");
  }
  // Java's reader checks the length against the blob's size the same way.
  const uint32_t length = LoadBigEndian32(blob.data());
  const size_t expected = blob.size() - kLengthSize - kCrcSize;
  if (length != expected) {
    return Invalid(file, "its length field says ", length,
                   " bytes of magic and bitmap, but the blob has ", expected);
  }
  const char* data = blob.data() + kLengthSize;  // the magic, then the bitmap
  if (std::memcmp(data, kMagic, kMagicSize) != 0) {
    return Invalid(file, "wrong magic bytes ", Hex32(LoadBigEndian32(data)).substr(2),
                   ", expected d1d33964");
  }
  // Checked before the bitmap is read, so a damaged byte is reported as what it is.
  const uint32_t stored_crc = LoadBigEndian32(data + length);
  const uint32_t crc = Crc32(data, length);
  if (crc != stored_crc) {
    return Invalid(file, "CRC-32 mismatch: the blob says ", Hex32(stored_crc), ", its bytes give ",
                   Hex32(crc));
  }

  const char* p = data + kMagicSize;
  const char* const end = data + length;
  const uint64_t count = LoadLittleEndian64(p);
  p += kCountSize;
  // Every 32-bit bitmap takes at least 12 bytes (a key and an empty bitmap), which bounds
  // the count before anything is allocated for it.
  if (count > static_cast<uint64_t>(end - p) / 12) {
    return Invalid(file, "it says it holds ", count, " bitmaps, more than its ", end - p,
                   " bytes can");
  }
  std::vector<Part> parts;
  parts.reserve(count);
  uint64_t cardinality = 0;
  std::string why;
  for (uint64_t i = 0; i < count; ++i) {
    if (end - p < static_cast<ptrdiff_t>(kKeySize)) {
      return Invalid(file, "cut short before bitmap ", i + 1, " of ", count);
    }
    Part part;
    part.key = LoadLittleEndian32(p);
    p += kKeySize;
    if (part.key > kMaxKey) {
      return Invalid(file, "bitmap key ", part.key, " makes its positions negative");
    }
    if (!parts.empty() && part.key <= parts.back().key) {
      return Invalid(file, "bitmap keys are not in ascending order (", part.key, " after ",
                     parts.back().key, ")");
    }
    const size_t left = static_cast<size_t>(end - p);
    if (!ReadContainers(p, left, &part.containers, &why)) {
      return Invalid(file, "the bitmap of key ", part.key, " is damaged: ", why);
    }
    const size_t size = roaring_bitmap_portable_deserialize_size(p, left);
    if (size == 0) {
      return Invalid(file, "the bitmap of key ", part.key, " is not a valid Roaring bitmap");
    }
    part.bitmap.reset(roaring_bitmap_portable_deserialize_safe(p, size));
    if (part.bitmap == nullptr) {
      return Invalid(file, "the bitmap of key ", part.key, " could not be read");
    }
    p += size;
    // Exact for run containers, the header's claim for the others, which the walk checks.
    cardinality += roaring_bitmap_get_cardinality(part.bitmap.get());
    if (cardinality > static_cast<uint64_t>(kMaxDeletionVectorPositions)) {
      return Status::IOError("Deletion vector in ", file, " holds more positions than floe reads (",
                             kMaxDeletionVectorPositions, ")");
    }
    parts.push_back(std::move(part));
  }
  if (p != end) {
    return Invalid(file, end - p, " bytes follow the last bitmap");
  }

  std::vector<int64_t> positions;
  positions.reserve(cardinality);
  Walk walk;
  walk.positions = &positions;
  for (const Part& part : parts) {
    walk.containers = &part.containers;
    walk.high = static_cast<int64_t>(part.key) << 32;
    walk.next = 0;
    walk.left = 0;
    roaring_iterate(part.bitmap.get(), VisitValue, &walk);
    if (walk.problem == nullptr && (walk.left != 0 || walk.next != part.containers.size())) {
      walk.problem = "its containers hold fewer values than its header lists";
    }
    if (walk.problem != nullptr) {
      return Invalid(file, "the bitmap of key ", part.key, " is damaged: ", walk.problem);
    }
  }
  return positions;
}

namespace {

// Java's RoaringBitmap, whose bytes a vector must match, holds up to 4096 values of one
// container as an array and more as a bitmap, and before serializing turns a container into
// runs when those take strictly fewer bytes (CRoaring's rule differs at the tie, so floe
// writes the portable format itself).
constexpr int64_t kMaxArrayValues = 4096;
constexpr size_t kBitmapContainerBytes = 8192;
constexpr uint32_t kNoOffsetThreshold = 4;  // fewer containers with runs: no offset table

enum class ContainerKind { kArray, kBitmap, kRun };

// One container: the positions [begin, end) sharing a key and their high 16 low bits.
struct WrittenContainer {
  size_t begin = 0, end = 0;
  size_t runs = 0;
  ContainerKind kind = ContainerKind::kArray;

  size_t cardinality() const { return end - begin; }
  size_t bytes() const {
    switch (kind) {
      case ContainerKind::kArray: return 2 * cardinality();
      case ContainerKind::kBitmap: return kBitmapContainerBytes;
      case ContainerKind::kRun: return 2 + 4 * runs;
    }
    return 0;
  }
};

// The portable serialization of the 32-bit bitmap of `low` (ascending, distinct) split into
// `containers`, appended to `out`.
void SerializeBitmap(const std::vector<uint32_t>& low, const std::vector<WrittenContainer>& containers, std::string* out) {
  const auto n = static_cast<uint32_t>(containers.size());
  const bool has_runs = std::any_of(containers.begin(), containers.end(),
                                    [](const WrittenContainer& c) { return c.kind == ContainerKind::kRun; });
  const bool offsets = !has_runs || n >= kNoOffsetThreshold;
  size_t header = has_runs ? 4 + (n + 7) / 8 : 8;
  header += 4 * n + (offsets ? 4 * n : 0);
  size_t size = header;
  for (const WrittenContainer& c : containers) size += c.bytes();
  const size_t origin = out->size();
  out->resize(origin + size, '\0');
  char* base = out->data() + origin;
  char* p = base;
  if (has_runs) {
    StoreLittleEndian(p, kCookieWithRuns | (n - 1) << 16, 4);
    p += 4;
    for (uint32_t i = 0; i < n; ++i) {
      if (containers[i].kind == ContainerKind::kRun) p[i / 8] = static_cast<char>(p[i / 8] | 1 << (i % 8));
    }
    p += (n + 7) / 8;
  } else {
    StoreLittleEndian(p, kCookieNoRuns, 4);
    StoreLittleEndian(p + 4, n, 4);
    p += 8;
  }
  for (const WrittenContainer& c : containers) {
    StoreLittleEndian(p, low[c.begin] >> 16, 2);
    StoreLittleEndian(p + 2, c.cardinality() - 1, 2);
    p += 4;
  }
  size_t at = header;
  if (offsets) {
    for (const WrittenContainer& c : containers) {
      StoreLittleEndian(p, at, 4);
      p += 4;
      at += c.bytes();
    }
  }
  p = base + header;
  for (const WrittenContainer& c : containers) {
    switch (c.kind) {
      case ContainerKind::kArray:
        for (size_t i = c.begin; i < c.end; ++i, p += 2) StoreLittleEndian(p, low[i] & 0xFFFF, 2);
        break;
      case ContainerKind::kBitmap:
        for (size_t i = c.begin; i < c.end; ++i) {
          const uint32_t v = low[i] & 0xFFFF;
          p[v / 8] = static_cast<char>(p[v / 8] | 1 << (v % 8));  // little-endian words: bit v at byte v/8
        }
        p += kBitmapContainerBytes;
        break;
      case ContainerKind::kRun: {
        StoreLittleEndian(p, c.runs, 2);
        p += 2;
        size_t i = c.begin;
        while (i < c.end) {
          size_t j = i + 1;
          while (j < c.end && low[j] == low[j - 1] + 1) ++j;
          StoreLittleEndian(p, low[i] & 0xFFFF, 2);
          StoreLittleEndian(p + 2, j - i - 1, 2);
          p += 4;
          i = j;
        }
        break;
      }
    }
  }
}

}  // namespace

std::string EncodeDeletionVector(const std::vector<int64_t>& sorted_positions) {
  const std::vector<int64_t>* positions = &sorted_positions;
  std::vector<int64_t> sorted;
  if (!std::is_sorted(sorted_positions.begin(), sorted_positions.end()) ||
      std::adjacent_find(sorted_positions.begin(), sorted_positions.end()) != sorted_positions.end()) {
    sorted = sorted_positions;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    positions = &sorted;
  }
  auto it = std::lower_bound(positions->begin(), positions->end(), int64_t{0});
  const auto end = positions->end();

  std::string out(kLengthSize + kMagicSize + kCountSize, '\0');
  std::memcpy(out.data() + kLengthSize, kMagic, kMagicSize);
  uint64_t parts = 0;
  std::vector<uint32_t> low;
  std::vector<WrittenContainer> containers;
  while (it != end) {
    const auto key = static_cast<uint32_t>(*it >> 32);
    low.clear();
    for (; it != end && static_cast<uint32_t>(*it >> 32) == key; ++it) low.push_back(static_cast<uint32_t>(*it));
    containers.clear();
    for (size_t i = 0; i < low.size();) {
      WrittenContainer c;
      c.begin = i;
      const uint32_t high = low[i] >> 16;
      for (; i < low.size() && low[i] >> 16 == high; ++i) {
        if (i == c.begin || low[i] != low[i - 1] + 1) ++c.runs;
      }
      c.end = i;
      const size_t plain = static_cast<int64_t>(c.cardinality()) <= kMaxArrayValues ? 2 * c.cardinality()
                                                                                    : kBitmapContainerBytes;
      c.kind = 2 + 4 * c.runs < plain ? ContainerKind::kRun
               : static_cast<int64_t>(c.cardinality()) <= kMaxArrayValues ? ContainerKind::kArray
                                                                         : ContainerKind::kBitmap;
      containers.push_back(c);
    }
    const size_t at = out.size();
    out.resize(at + kKeySize);
    StoreLittleEndian(out.data() + at, key, 4);
    SerializeBitmap(low, containers, &out);
    ++parts;
  }
  StoreLittleEndian(out.data() + kLengthSize + kMagicSize, parts, 8);
  const size_t length = out.size() - kLengthSize;
  StoreBigEndian32(out.data(), static_cast<uint32_t>(length));
  out.resize(out.size() + kCrcSize);
  StoreBigEndian32(out.data() + kLengthSize + length, Crc32(out.data() + kLengthSize, length));
  return out;
}

Result<std::vector<int64_t>> ReadDeletionVector(FileIO& io, const std::string& puffin_path,
                                                int64_t content_offset,
                                                int64_t content_size_in_bytes) {
  if (content_offset < 0 || content_size_in_bytes < 0) {
    return Invalid(puffin_path, "offset ", content_offset, " and length ", content_size_in_bytes,
                   " cannot locate a blob");
  }
  ARROW_ASSIGN_OR_RAISE(auto file, io.OpenInputFile(puffin_path, FileKind::kDelete));
  const std::string context = StrCat("Cannot read file ", puffin_path);
  auto size = file->GetSize();
  if (!size.ok()) return WithContext(size.status(), context);
  if (content_offset > *size || content_size_in_bytes > *size - content_offset) {
    return Invalid(puffin_path, content_size_in_bytes, " bytes at offset ", content_offset,
                   " reach past the end of the file (", *size, " bytes)");
  }
  auto bytes = file->ReadAt(content_offset, content_size_in_bytes);
  if (!bytes.ok()) return WithContext(bytes.status(), context);
  if ((*bytes)->size() != content_size_in_bytes) {
    return Status::IOError(context, ": expected ", content_size_in_bytes, " bytes at offset ",
                           content_offset, ", read ", (*bytes)->size());
  }
  ARROW_RETURN_NOT_OK(WithContext(file->Close(), context));
  return DecodeDeletionVector(std::string_view(**bytes), puffin_path);
}

}  // namespace floe::manifest
