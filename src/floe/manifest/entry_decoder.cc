#include "floe/manifest/entry_decoder.h"

#include <algorithm>
#include <type_traits>

#include <arrow/util/decimal.h>

#include "floe/avro/container_reader.h"
#include "floe/manifest/manifest_columns.h"

namespace floe::manifest {

using avro::Decoder;
using avro::Node;

namespace {

constexpr int kMaxDepth = 64;

// Where a field's value goes.
enum class Target {
  kSkip,
  kSkipMap,  // an int-keyed map left out by the projection
  kStatus,
  kSnapshotId,
  kSequenceNumber,
  kFileSequenceNumber,
  kDataFile,
  kContent,
  kFilePath,
  kFileFormat,
  kPartition,
  kRecordCount,
  kFileSize,
  kColumnSizes,
  kValueCounts,
  kNullCounts,
  kNanCounts,
  kLowerBounds,
  kUpperBounds,
  kKeyMetadata,
  kSplitOffsets,
  kEqualityIds,
  kSortOrderId,
  kFirstRowId,
  kReferencedDataFile,
  kContentOffset,
  kContentSize,
  kPartitionValue,
};

Status SkipNode(const avro::Schema& schema, const Node& in, Decoder* d, int depth);

Status SkipBlocks(const avro::Schema& schema, const Node& item, const Node* key, Decoder* d,
                  int depth) {
  while (true) {
    int64_t count = 0;
    ARROW_RETURN_NOT_OK(d->ReadBlockCount(&count));
    if (count == 0) return Status::OK();
    for (int64_t i = 0; i < count; ++i) {
      size_t before = d->remaining();
      if (key) ARROW_RETURN_NOT_OK(SkipNode(schema, *key, d, depth + 1));
      ARROW_RETURN_NOT_OK(SkipNode(schema, item, d, depth + 1));
      // Items that take no bytes could spin on a forged count.
      if (d->remaining() == before && count > (1 << 20)) {
        return Status::Invalid("Avro block of ", count, " empty items");
      }
    }
  }
}

Status SkipNode(const avro::Schema& schema, const Node& in, Decoder* d, int depth) {
  if (depth > kMaxDepth) return Status::Invalid("Avro value nested too deeply");
  const Node& n = schema.Resolve(in);
  int64_t l;
  std::string_view view;
  switch (n.type) {
    case avro::Type::kNull:
      return Status::OK();
    case avro::Type::kBoolean:
      return d->Skip(1);
    case avro::Type::kInt:
    case avro::Type::kLong:
    case avro::Type::kEnum:
      return d->ReadLong(&l);
    case avro::Type::kFloat:
      return d->Skip(4);
    case avro::Type::kDouble:
      return d->Skip(8);
    case avro::Type::kBytes:
    case avro::Type::kString:
      return d->ReadBytesView(&view);
    case avro::Type::kFixed:
      return d->Skip(static_cast<size_t>(n.fixed_size));
    case avro::Type::kRecord:
      for (const auto& f : n.fields) ARROW_RETURN_NOT_OK(SkipNode(schema, f.type, d, depth + 1));
      return Status::OK();
    case avro::Type::kArray:
      return SkipBlocks(schema, n.items(), nullptr, d, depth);
    case avro::Type::kMap: {
      static const Node kStringNode = Node::Primitive(avro::Type::kString);
      return SkipBlocks(schema, n.values(), &kStringNode, d, depth);
    }
    case avro::Type::kUnion: {
      int32_t branch = 0;
      ARROW_RETURN_NOT_OK(d->ReadIndex(&branch));
      if (static_cast<size_t>(branch) >= n.children.size()) {
        return Status::Invalid("Avro union branch ", branch, " out of range");
      }
      return SkipNode(schema, n.children[branch], d, depth + 1);
    }
  }
  return Status::Invalid("unknown Avro type");
}

// Reads a union's branch index (when `n` is a union) and returns the node to decode, or
// nullptr for the null branch.
Result<const Node*> Branch(const avro::Schema& schema, const Node& in, Decoder* d) {
  const Node& n = schema.Resolve(in);
  if (n.type != avro::Type::kUnion) return &n;
  int32_t branch = 0;
  ARROW_RETURN_NOT_OK(d->ReadIndex(&branch));
  if (static_cast<size_t>(branch) >= n.children.size()) {
    return Status::Invalid("Avro union branch ", branch, " out of range");
  }
  const Node& b = schema.Resolve(n.children[branch]);
  return b.type == avro::Type::kNull ? nullptr : &b;
}

Status ReadInteger(const Node& n, Decoder* d, int64_t* out) {
  if (n.type != avro::Type::kInt && n.type != avro::Type::kLong) {
    return Status::Invalid("expected an Avro int or long, got ", avro::TypeName(n.type));
  }
  return d->ReadLong(out);
}

Status ReadRaw(const Node& n, Decoder* d, std::string_view* out) {
  if (n.type == avro::Type::kFixed) return d->ReadFixedView(static_cast<size_t>(n.fixed_size), out);
  if (n.type != avro::Type::kBytes && n.type != avro::Type::kString) {
    return Status::Invalid("expected Avro bytes, got ", avro::TypeName(n.type));
  }
  return d->ReadBytesView(out);
}

// An array of ints or longs, each handed to `push`.
template <typename Push>
Status ReadIntArray(Decoder* d, Push push) {
  while (true) {
    int64_t count = 0;
    ARROW_RETURN_NOT_OK(d->ReadBlockCount(&count));
    if (count == 0) return Status::OK();
    if (static_cast<uint64_t>(count) > d->remaining()) return Status::Invalid("array block too long");
    for (int64_t i = 0; i < count; ++i) {
      int64_t v = 0;
      ARROW_RETURN_NOT_OK(d->ReadLong(&v));
      push(v);
    }
  }
}

Result<spec::Literal> ReadPartitionValue(const Node& n, Decoder* d, const spec::TypePtr& type) {
  using spec::TypeId;
  int64_t l = 0;
  std::string_view raw;
  switch (type->id()) {
    case TypeId::kBoolean: {
      bool b = false;
      ARROW_RETURN_NOT_OK(d->ReadBool(&b));
      return spec::Literal(type, b);
    }
    case TypeId::kInt:
    case TypeId::kDate:
      ARROW_RETURN_NOT_OK(ReadInteger(n, d, &l));
      return spec::Literal(type, static_cast<int32_t>(l));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      ARROW_RETURN_NOT_OK(ReadInteger(n, d, &l));
      return spec::Literal(type, l);
    case TypeId::kFloat: {
      if (n.type != avro::Type::kFloat) break;
      float f = 0;
      ARROW_RETURN_NOT_OK(d->ReadFloat(&f));
      return spec::Literal(type, f);
    }
    case TypeId::kDouble: {
      if (n.type == avro::Type::kFloat) {
        float f = 0;
        ARROW_RETURN_NOT_OK(d->ReadFloat(&f));
        return spec::Literal(type, static_cast<double>(f));
      }
      if (n.type != avro::Type::kDouble) break;
      double v = 0;
      ARROW_RETURN_NOT_OK(d->ReadDouble(&v));
      return spec::Literal(type, v);
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixed:
    case TypeId::kUuid:
      ARROW_RETURN_NOT_OK(ReadRaw(n, d, &raw));
      return spec::Literal(type, std::string(raw));
    case TypeId::kDecimal: {
      ARROW_RETURN_NOT_OK(ReadRaw(n, d, &raw));
      if (raw.empty() || raw.size() > 16) break;
      ARROW_ASSIGN_OR_RAISE(auto dec, arrow::Decimal128::FromBigEndian(
                                          reinterpret_cast<const uint8_t*>(raw.data()),
                                          static_cast<int32_t>(raw.size())));
      return spec::Literal(type, dec);
    }
    default:
      break;
  }
  return Status::Invalid("cannot read Avro ", avro::TypeName(n.type), " as partition type ",
                         type->ToString());
}

// Skips one value of a resolved node; primitives without the generic walk.
Status SkipValue(const avro::Schema& schema, const Node& n, Decoder* d) {
  int64_t l;
  std::string_view view;
  switch (n.type) {
    case avro::Type::kInt:
    case avro::Type::kLong:
      return d->ReadLong(&l);
    case avro::Type::kBytes:
    case avro::Type::kString:
      return d->ReadBytesView(&view);
    default:
      return SkipNode(schema, n, d, 1);
  }
}

// A varint read without a Status per value, for the loops below; false when malformed.
// Most values in a manifest's metric maps (field ids, lengths, small counts) take one byte.
[[gnu::always_inline]] inline bool ReadVarint(const uint8_t*& p, const uint8_t* end, int64_t* out) {
  if (p != end && *p < 0x80) {
    const uint64_t b = *p++;
    *out = static_cast<int64_t>((b >> 1) ^ (~(b & 1) + 1));
    return true;
  }
  uint64_t n = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p == end) return false;
    const uint8_t b = *p++;
    n |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) {
      if (shift == 63 && b > 1) return false;
      *out = static_cast<int64_t>((n >> 1) ^ (~(n & 1) + 1));
      return true;
    }
  }
  return false;
}

// Iceberg's own layout of an int-keyed map, an array of {key: int, value: long or bytes}
// records with the key first, read in one tight loop: planning reads some fifty of these
// items per data file. Kept items go to `out.Put(key, value)`, a long or a view of the
// bytes. False when the bytes are malformed, leaving `d` where it was; the caller then
// reads them again the general way, which names the problem (and puts the same items).
template <bool kBytes, typename Out, typename Keep>
bool ReadKeyValueArray(Decoder* d, Out& out, Keep keep) {
  const uint8_t* p = d->current();
  const uint8_t* const end = p + d->remaining();
  while (true) {
    int64_t count = 0;
    if (!ReadVarint(p, end, &count)) return false;
    if (count == 0) break;
    if (count < 0) {
      int64_t size = 0;
      if (count == INT64_MIN || !ReadVarint(p, end, &size) || size < 0 || size > end - p) return false;
      count = -count;
    }
    // Every item takes at least two bytes.
    if (count > (end - p) / 2) return false;
    out.Reserve(count);
    for (int64_t i = 0; i < count; ++i) {
      int64_t key = 0;
      if (!ReadVarint(p, end, &key)) return false;
      if constexpr (kBytes) {
        int64_t len = 0;
        if (!ReadVarint(p, end, &len) || len < 0 || len > end - p) return false;
        if (keep(static_cast<int32_t>(key))) {
          out.Put(static_cast<int32_t>(key), std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(len)));
        }
        p += len;
      } else {
        int64_t value = 0;
        if (!ReadVarint(p, end, &value)) return false;
        if (keep(static_cast<int32_t>(key))) out.Put(static_cast<int32_t>(key), value);
      }
    }
  }
  return d->Skip(static_cast<size_t>(p - d->current())).ok();
}

// The shape of an int-keyed map, resolved once per manifest.
struct MapShape {
  bool valid = false;
  bool as_array = false;  // Iceberg's array of key/value records; else an Avro map
  int key_index = 0;
  const Node* key = nullptr;
  const Node* value = nullptr;
  // Key first, both integers, or an integer key and a bytes value: ReadKeyValueArray.
  bool int_values = false;
  bool bytes_values = false;
};

MapShape ResolveMapShape(const avro::Schema& schema, const Node& n) {
  MapShape shape;
  if (n.type == avro::Type::kArray) {
    const Node& record = schema.Resolve(n.items());
    if (record.type != avro::Type::kRecord || record.fields.size() != 2) return shape;
    shape.as_array = true;
    shape.key_index = record.fields[0].name == "key" ? 0 : 1;
    shape.key = &schema.Resolve(record.fields[shape.key_index].type);
    shape.value = &schema.Resolve(record.fields[1 - shape.key_index].type);
    shape.valid = true;
    const auto is_integer = [](const Node* node) {
      return node->type == avro::Type::kInt || node->type == avro::Type::kLong;
    };
    if (shape.key_index == 0 && is_integer(shape.key)) {
      shape.int_values = is_integer(shape.value);
      shape.bytes_values = shape.value->type == avro::Type::kBytes;
    }
  } else if (n.type == avro::Type::kMap) {
    shape.value = &schema.Resolve(n.values());
    shape.valid = true;
  }
  return shape;
}

// Reads an int-keyed map of longs (kBytes false) or bytes, handing the values whose key
// `keep` accepts to `out` (the others are skipped without being copied).
template <bool kBytes, typename Out, typename Keep>
Status ReadIdMap(const avro::Schema& schema, const MapShape& shape, Decoder* d, Out& out, Keep keep) {
  if (!shape.valid) return Status::Invalid("malformed int-keyed map");
  using V = std::conditional_t<kBytes, std::string_view, int64_t>;
  auto read_value = [](const Node& n, Decoder* dec, V* value) {
    if constexpr (kBytes) {
      return ReadRaw(n, dec, value);
    } else {
      return ReadInteger(n, dec, value);
    }
  };
  if (kBytes ? shape.bytes_values : shape.int_values) {
    if (ReadKeyValueArray<kBytes>(d, out, keep)) return Status::OK();
  }
  while (true) {
    int64_t count = 0;
    ARROW_RETURN_NOT_OK(d->ReadBlockCount(&count));
    if (count == 0) return Status::OK();
    if (static_cast<uint64_t>(count) > d->remaining()) return Status::Invalid("map block too long");
    out.Reserve(count);
    for (int64_t i = 0; i < count; ++i) {
      int64_t key = 0;
      if (shape.as_array) {
        if (shape.key_index == 0) ARROW_RETURN_NOT_OK(ReadInteger(*shape.key, d, &key));
      } else {
        std::string_view text;
        ARROW_RETURN_NOT_OK(d->ReadBytesView(&text));
        for (char c : text) {
          if (c < '0' || c > '9' || key > 100000000) return Status::Invalid("map key is not a field id");
          key = key * 10 + (c - '0');
        }
      }
      if (shape.as_array && shape.key_index == 1) {
        // Value first: read it before knowing whether it is kept.
        V value{};
        ARROW_RETURN_NOT_OK(read_value(*shape.value, d, &value));
        ARROW_RETURN_NOT_OK(ReadInteger(*shape.key, d, &key));
        if (keep(static_cast<int32_t>(key))) out.Put(static_cast<int32_t>(key), value);
        continue;
      }
      if (keep(static_cast<int32_t>(key))) {
        V value{};
        ARROW_RETURN_NOT_OK(read_value(*shape.value, d, &value));
        out.Put(static_cast<int32_t>(key), value);
      } else {
        ARROW_RETURN_NOT_OK(SkipValue(schema, *shape.value, d));
      }
    }
  }
}

// The metric maps, in the order of ManifestColumns' counts and bounds.
enum MetricKind { kSizesKind = 0, kValuesKind, kNullsKind, kNansKind, kLowerKind, kUpperKind };

// Where decoded values go: one ManifestEntry.
class EntrySink {
 public:
  explicit EntrySink(ManifestEntry* e) : e_(e), f_(e->data_file) {}
  void SetStatus(int64_t v) { e_->status = static_cast<EntryStatus>(v); }
  void SnapshotId(int64_t v) { e_->snapshot_id = v; }
  void SequenceNumber(int64_t v) { e_->sequence_number = v; }
  void FileSequenceNumber(int64_t v) { e_->file_sequence_number = v; }
  void Content(int64_t v) { f_.content = static_cast<FileContent>(v); }
  void FilePath(std::string_view v) { f_.file_path.assign(v); }
  void FileFormat(std::string v) { f_.file_format = std::move(v); }
  void PartitionValue(int32_t index, spec::Literal v) { f_.partition[index] = std::move(v); }
  void RecordCount(int64_t v) { f_.record_count = v; }
  void FileSize(int64_t v) { f_.file_size_in_bytes = v; }
  void EmptyMap(MetricKind kind) { f_.empty_metric_maps |= static_cast<uint8_t>(1 << kind); }
  void KeyMetadata(std::string_view v) { f_.key_metadata = std::string(v); }
  void SplitOffset(int64_t v) { f_.split_offsets.push_back(v); }
  void EqualityId(int64_t v) { f_.equality_ids.push_back(static_cast<int32_t>(v)); }
  void SortOrderId(int64_t v) { f_.sort_order_id = static_cast<int32_t>(v); }
  void FirstRowId(int64_t v) { f_.first_row_id = v; }
  void ReferencedDataFile(std::string_view v) { f_.referenced_data_file = std::string(v); }
  void ContentOffset(int64_t v) { f_.content_offset = v; }
  void ContentSize(int64_t v) { f_.content_size_in_bytes = v; }

  template <typename V>
  struct MapOut {
    IdMap<V>* map;
    int64_t max_kept;
    void Reserve(int64_t n) { map->reserve(map->size() + static_cast<size_t>(std::min(n, max_kept))); }
    void Put(int32_t id, int64_t v) { (*map)[id] = v; }
    void Put(int32_t id, std::string_view v) { (*map)[id].assign(v); }
    bool Empty() const { return map->empty(); }
  };
  MapOut<int64_t> Counts(MetricKind kind, int64_t max_kept) {
    IdMap<int64_t>* maps[] = {&f_.column_sizes, &f_.value_counts, &f_.null_value_counts, &f_.nan_value_counts};
    return {maps[kind], max_kept};
  }
  MapOut<std::string> Bounds(MetricKind kind, int64_t max_kept) {
    return {kind == kLowerKind ? &f_.lower_bounds : &f_.upper_bounds, max_kept};
  }
 private:
  ManifestEntry* e_;
  DataFile& f_;
};

}  // namespace

// Where decoded values go: the next row of a ManifestColumns (its friend).
class ColumnSink {
 public:
  // `expected`: how many entries the manifest list says there are (0 when unknown).
  ColumnSink(ManifestColumns* out, const std::optional<std::vector<int32_t>>& metric_ids,
             const std::vector<spec::Literal>& null_partition, size_t expected)
      : c_(*out), null_partition_(null_partition), expected_(expected) {
    c_.partition_width_ = null_partition.size();
    if (c_.split_begin_.empty()) c_.split_begin_.push_back(0);
    if (metric_ids) {
      for (int32_t id : *metric_ids) c_.metrics_.push_back({id, {}, {}});
    }
    if (expected_ == 0) return;
    for (auto* column : {&c_.status_, &c_.content_, &c_.flags_, &c_.empty_maps_}) column->reserve(expected_);
    for (auto* column : {&c_.snapshot_id_, &c_.sequence_number_, &c_.file_sequence_number_, &c_.record_count_,
                         &c_.file_size_, &c_.first_row_id_}) {
      column->reserve(expected_);
    }
    c_.sort_order_id_.reserve(expected_);
    c_.path_.reserve(expected_);
    c_.partition_.reserve(expected_ * c_.partition_width_);
    c_.split_begin_.reserve(expected_ + 1);
  }

  // Starts a row with every field at its default.
  void BeginRow() {
    row_ = c_.status_.size();
    c_.status_.push_back(static_cast<uint8_t>(EntryStatus::kAdded));
    c_.content_.push_back(static_cast<uint8_t>(FileContent::kData));
    c_.flags_.push_back(0);
    c_.empty_maps_.push_back(0);
    for (auto* column : {&c_.snapshot_id_, &c_.sequence_number_, &c_.file_sequence_number_, &c_.record_count_,
                         &c_.file_size_, &c_.first_row_id_}) {
      column->push_back(0);
    }
    c_.sort_order_id_.push_back(0);
    c_.path_.push_back({c_.bytes_.size(), 0});
    // Values without a type are the fields the entry leaves out: EndRow makes them typed nulls.
    c_.partition_.resize(c_.partition_.size() + null_partition_.size());
    metric_hint_ = -1;
  }
  void EndRow() {
    spec::Literal* partition = c_.partition_.data() + row_ * c_.partition_width_;
    for (size_t k = 0; k < null_partition_.size(); ++k) {
      if (!partition[k].type()) partition[k] = null_partition_[k];
    }
    c_.split_begin_.push_back(static_cast<uint32_t>(c_.split_offsets_.size()));
    // The first entry tells how many bytes and split offsets the others will likely take.
    if (row_ == 0 && expected_ > 1) {
      c_.bytes_.reserve(c_.bytes_.size() * expected_ + expected_ * 8);
      c_.split_offsets_.reserve(c_.split_offsets_.size() * expected_);
    }
  }
  bool RowHasPath() const { return c_.path_[row_].size > 0; }

  void SetStatus(int64_t v) { c_.status_[row_] = static_cast<uint8_t>(v); }
  void SnapshotId(int64_t v) { SetOptional(c_.snapshot_id_, ManifestColumns::kHasSnapshotId, v); }
  void SequenceNumber(int64_t v) { SetOptional(c_.sequence_number_, ManifestColumns::kHasSequenceNumber, v); }
  void FileSequenceNumber(int64_t v) {
    SetOptional(c_.file_sequence_number_, ManifestColumns::kHasFileSequenceNumber, v);
  }
  void Content(int64_t v) { c_.content_[row_] = static_cast<uint8_t>(v); }
  void FilePath(std::string_view v) { c_.path_[row_] = Append(v); }
  void FileFormat(std::string v) { Rare().file_format = std::move(v); }
  void PartitionValue(int32_t index, spec::Literal v) {
    c_.partition_[row_ * c_.partition_width_ + static_cast<size_t>(index)] = std::move(v);
  }
  void RecordCount(int64_t v) { c_.record_count_[row_] = v; }
  void FileSize(int64_t v) { c_.file_size_[row_] = v; }
  void EmptyMap(MetricKind kind) { c_.empty_maps_[row_] |= static_cast<uint8_t>(1 << kind); }
  void KeyMetadata(std::string_view v) { Rare().key_metadata = std::string(v); }
  void SplitOffset(int64_t v) { c_.split_offsets_.push_back(v); }
  void EqualityId(int64_t v) { Rare().equality_ids.push_back(static_cast<int32_t>(v)); }
  void SortOrderId(int64_t v) {
    c_.sort_order_id_[row_] = static_cast<int32_t>(v);
    c_.flags_[row_] |= ManifestColumns::kHasSortOrderId;
  }
  void FirstRowId(int64_t v) { SetOptional(c_.first_row_id_, ManifestColumns::kHasFirstRowId, v); }
  void ReferencedDataFile(std::string_view v) { Rare().referenced_data_file = std::string(v); }
  void ContentOffset(int64_t v) { Rare().content_offset = v; }
  void ContentSize(int64_t v) { Rare().content_size_in_bytes = v; }

  struct MapOut {
    ColumnSink* sink;
    MetricKind kind;
    int64_t puts = 0;
    void Reserve(int64_t) {}
    void Put(int32_t id, int64_t v) {
      ++puts;
      auto& column = sink->Metric(id).counts[kind];
      if (column.size() <= sink->row_) sink->Grow(column, ManifestColumns::kNoCount);
      column[sink->row_] = v;
    }
    void Put(int32_t id, std::string_view v) {
      ++puts;
      auto& column = sink->Metric(id).bounds[kind - kLowerKind];
      if (column.size() <= sink->row_) sink->Grow(column, ManifestColumns::Span());
      column[sink->row_] = sink->Append(v);
    }
    bool Empty() const { return puts == 0; }
  };
  MapOut Counts(MetricKind kind, int64_t) { return {this, kind}; }
  MapOut Bounds(MetricKind kind, int64_t) { return {this, kind}; }

 private:
  ManifestColumns::Span Append(std::string_view v) {
    ManifestColumns::Span span{c_.bytes_.size(), static_cast<uint32_t>(v.size())};
    c_.bytes_.append(v);
    return span;
  }
  // Extends a metric column to the current row, its first time sized for every entry.
  template <typename T>
  void Grow(std::vector<T>& column, T absent) {
    if (column.capacity() == 0) column.reserve(std::max(expected_, row_ + 1));
    if (column.size() == row_) {
      column.push_back(absent);
    } else {
      column.resize(row_ + 1, absent);
    }
  }
  void SetOptional(std::vector<int64_t>& column, uint8_t flag, int64_t v) {
    column[row_] = v;
    c_.flags_[row_] |= flag;
  }
  ManifestColumns::Rare& Rare() {
    if (!(c_.flags_[row_] & ManifestColumns::kHasRare)) {
      c_.flags_[row_] |= ManifestColumns::kHasRare;
      c_.rare_.push_back({});
      c_.rare_.back().row = static_cast<uint32_t>(row_);
    }
    return c_.rare_.back();
  }
  // The metric columns of `id`; ids come in the same order entry after entry, so the one
  // after the last found is tried first. Only ids kept reach here.
  ManifestColumns::Metric& Metric(int32_t id) {
    auto& metrics = c_.metrics_;
    const size_t next = static_cast<size_t>(metric_hint_ + 1);
    if (next < metrics.size() && metrics[next].field_id == id) {
      metric_hint_ = static_cast<int>(next);
      return metrics[next];
    }
    for (size_t i = 0; i < metrics.size(); ++i) {
      if (metrics[i].field_id == id) {
        metric_hint_ = static_cast<int>(i);
        return metrics[i];
      }
    }
    metrics.push_back({id, {}, {}});
    metric_hint_ = static_cast<int>(metrics.size() - 1);
    return metrics.back();
  }

  ManifestColumns& c_;
  const std::vector<spec::Literal>& null_partition_;
  const size_t expected_;
  size_t row_ = 0;
  int metric_hint_ = -1;
};

struct EntryDecoder::Field {
  Target target = Target::kSkip;
  const Node* node = nullptr;   // as written: maybe an optional union or a reference
  const Node* value = nullptr;  // the resolved node of the non-null value
  // For an optional ([null, T] or [T, null]) the branch index of null; -1 when not a union.
  int32_t null_branch = -1;
  bool other_union = false;  // any other union: its branch is resolved per value
  int32_t partition_index = -1;  // for kPartitionValue
  MapShape map;                  // for the int-keyed maps
};

EntryDecoder::~EntryDecoder() = default;

Result<std::unique_ptr<EntryDecoder>> EntryDecoder::Make(std::shared_ptr<const avro::Schema> schema,
                                                         spec::TypePtr partition_type,
                                                         EntryProjection projection) {
  std::unique_ptr<EntryDecoder> dec(new EntryDecoder());
  dec->schema_ = std::move(schema);
  dec->partition_type_ = std::move(partition_type);
  dec->projection_ = std::move(projection);
  if (dec->projection_.metric_ids) {
    std::sort(dec->projection_.metric_ids->begin(), dec->projection_.metric_ids->end());
  }
  for (const auto& pf : dec->partition_type_->fields()) {
    dec->null_partition_.push_back(spec::Literal::Null(pf.type));
  }
  const avro::Schema& s = *dec->schema_;
  const Node& root = s.Resolve(s.root());
  if (root.type != avro::Type::kRecord) return Status::Invalid("manifest entries are not records");
  auto non_null = [&](const Node& n) -> const Node& {
    const Node& r = s.Resolve(n);
    if (r.type != avro::Type::kUnion) return r;
    for (const auto& b : r.children) {
      if (s.Resolve(b).type != avro::Type::kNull) return s.Resolve(b);
    }
    return r;
  };
  const bool all_metrics = !dec->projection_.metric_ids.has_value();
  auto make_field = [&](Target target, const Node& type) {
    Field field;
    field.target = target;
    field.node = &type;
    const Node& r = s.Resolve(type);
    field.value = &r;
    if (r.type == avro::Type::kUnion) {
      field.other_union = true;
      if (r.children.size() == 2) {
        const Node& a = s.Resolve(r.children[0]);
        const Node& b = s.Resolve(r.children[1]);
        if (a.type == avro::Type::kNull && b.type != avro::Type::kNull) {
          field.null_branch = 0;
          field.value = &b;
          field.other_union = false;
        } else if (b.type == avro::Type::kNull && a.type != avro::Type::kNull) {
          field.null_branch = 1;
          field.value = &a;
          field.other_union = false;
        }
      }
    }
    if (!field.other_union) field.map = ResolveMapShape(s, *field.value);
    return field;
  };
  const Node* data_file = nullptr;
  for (const auto& f : root.fields) {
    Target target = Target::kSkip;
    switch (f.field_id().value_or(-1)) {
      case 0: target = Target::kStatus; break;
      case 1: target = Target::kSnapshotId; break;
      case 3: target = Target::kSequenceNumber; break;
      case 4: target = Target::kFileSequenceNumber; break;
      case 2:
        target = Target::kDataFile;
        data_file = &non_null(f.type);
        break;
      default: break;
    }
    dec->entry_fields_.push_back(make_field(target, f.type));
  }
  if (!data_file || data_file->type != avro::Type::kRecord) {
    return Status::Invalid("manifest entries have no data_file record (field id 2)");
  }
  const Node* partition = nullptr;
  for (const auto& f : data_file->fields) {
    Target target = Target::kSkip;
    switch (f.field_id().value_or(-1)) {
      case 134: target = Target::kContent; break;
      case 100: target = Target::kFilePath; break;
      case 101: target = Target::kFileFormat; break;
      case 102:
        target = Target::kPartition;
        partition = &non_null(f.type);
        break;
      case 103: target = Target::kRecordCount; break;
      case 104: target = Target::kFileSize; break;
      case 108: target = all_metrics ? Target::kColumnSizes : Target::kSkipMap; break;
      case 109: target = Target::kValueCounts; break;
      case 110: target = Target::kNullCounts; break;
      case 137: target = Target::kNanCounts; break;
      case 125: target = Target::kLowerBounds; break;
      case 128: target = Target::kUpperBounds; break;
      case 131: target = Target::kKeyMetadata; break;
      case 132: target = Target::kSplitOffsets; break;
      case 135: target = Target::kEqualityIds; break;
      case 140: target = Target::kSortOrderId; break;
      case 142: target = Target::kFirstRowId; break;
      case 143: target = Target::kReferencedDataFile; break;
      case 144: target = Target::kContentOffset; break;
      case 145: target = Target::kContentSize; break;
      default: break;
    }
    dec->file_fields_.push_back(make_field(target, f.type));
  }
  if (partition && partition->type == avro::Type::kRecord) {
    for (const auto& f : partition->fields) {
      Field field = make_field(Target::kSkip, f.type);
      int32_t id = f.field_id().value_or(-1);
      const auto& pfields = dec->partition_type_->fields();
      for (size_t i = 0; i < pfields.size(); ++i) {
        if (pfields[i].id == id) {
          field.target = Target::kPartitionValue;
          field.partition_index = static_cast<int32_t>(i);
        }
      }
      dec->partition_fields_.push_back(field);
    }
  }
  return dec;
}

Status EntryDecoder::Decode(Decoder* d, ManifestEntry* e) const {
  *e = ManifestEntry();
  return DecodeNew(d, e);
}

Status EntryDecoder::DecodeNew(Decoder* d, ManifestEntry* e) const {
  e->data_file.partition = null_partition_;
  EntrySink sink(e);
  return DecodeRecord(entry_fields_, d, sink);
}

Status EntryDecoder::DecodeAll(avro::ContainerReader* reader, size_t expected, ManifestColumns* out) const {
  ColumnSink sink(out, projection_.metric_ids, null_partition_, expected);
  auto decode = [&](Decoder* d) {
    sink.BeginRow();
    Status st = DecodeRecord(entry_fields_, d, sink);
    sink.EndRow();
    return st;
  };
  while (true) {
    ARROW_ASSIGN_OR_RAISE(bool more, reader->NextWith(decode));
    if (!more) return Status::OK();
    if (!sink.RowHasPath()) return Status::IOError("data file without file_path");
  }
}

template <typename Sink>
Status EntryDecoder::DecodeRecord(const std::vector<Field>& fields, Decoder* d, Sink& sink) const {
  const avro::Schema& s = *schema_;
  const std::vector<int32_t>* ids = projection_.metric_ids ? &*projection_.metric_ids : nullptr;
  auto keep = [ids](int32_t id) {
    if (!ids) return true;
    for (int32_t want : *ids) {
      if (want == id) return true;
    }
    return false;
  };
  const int64_t max_kept = ids ? static_cast<int64_t>(ids->size()) : INT64_MAX;
  // Reads one metric map; a map read with nothing in it is remembered as empty (not null).
  auto read_map = [&](const MapShape& map, MetricKind kind) -> Status {
    if (kind >= kLowerKind) {
      auto out = sink.Bounds(kind, max_kept);
      ARROW_RETURN_NOT_OK(ReadIdMap<true>(s, map, d, out, keep));
      if (!ids && out.Empty()) sink.EmptyMap(kind);
    } else {
      auto out = sink.Counts(kind, max_kept);
      ARROW_RETURN_NOT_OK(ReadIdMap<false>(s, map, d, out, keep));
      if (!ids && out.Empty()) sink.EmptyMap(kind);
    }
    return Status::OK();
  };
  for (const Field& field : fields) {
    if (field.target == Target::kSkip) {
      ARROW_RETURN_NOT_OK(SkipNode(s, *field.node, d, 0));
      continue;
    }
    const Node* n = field.value;
    if (field.null_branch >= 0) {
      int64_t branch = 0;
      ARROW_RETURN_NOT_OK(d->ReadLong(&branch));
      if (branch == field.null_branch) continue;
      if (branch != 1 - field.null_branch) {
        return Status::Invalid("Avro union branch ", branch, " out of range");
      }
    } else if (field.other_union) {
      ARROW_ASSIGN_OR_RAISE(n, Branch(s, *field.node, d));
      if (!n) continue;  // null
    }
    const MapShape map = field.other_union ? ResolveMapShape(s, *n) : field.map;
    int64_t l = 0;
    std::string_view view;
    switch (field.target) {
      case Target::kStatus:
        ARROW_RETURN_NOT_OK(ReadInteger(*n, d, &l));
        if (l < 0 || l > 2) return Status::Invalid("invalid entry status ", l);
        sink.SetStatus(l);
        break;
      case Target::kSnapshotId:
        ARROW_RETURN_NOT_OK(ReadInteger(*n, d, &l));
        sink.SnapshotId(l);
        break;
      case Target::kSequenceNumber:
        ARROW_RETURN_NOT_OK(ReadInteger(*n, d, &l));
        sink.SequenceNumber(l);
        break;
      case Target::kFileSequenceNumber:
        ARROW_RETURN_NOT_OK(ReadInteger(*n, d, &l));
        sink.FileSequenceNumber(l);
        break;
      case Target::kDataFile:
        if (n->type != avro::Type::kRecord) return Status::Invalid("data_file is not a record");
        ARROW_RETURN_NOT_OK(DecodeRecord(file_fields_, d, sink));
        break;
      case Target::kContent:
        ARROW_RETURN_NOT_OK(ReadInteger(*n, d, &l));
        if (l < 0 || l > 2) return Status::Invalid("invalid file content ", l);
        sink.Content(l);
        break;
      case Target::kFilePath:
        ARROW_RETURN_NOT_OK(ReadRaw(*n, d, &view));
        sink.FilePath(view);
        break;
      case Target::kFileFormat:
        ARROW_RETURN_NOT_OK(ReadRaw(*n, d, &view));
        if (view != "PARQUET") {
          std::string format(view);
          for (auto& c : format) c = static_cast<char>(::toupper(static_cast<unsigned char>(c)));
          if (format != "PARQUET") sink.FileFormat(std::move(format));
        }
        break;
      case Target::kPartition:
        if (n->type != avro::Type::kRecord) return Status::Invalid("partition is not a record");
        ARROW_RETURN_NOT_OK(DecodeRecord(partition_fields_, d, sink));
        break;
      case Target::kPartitionValue: {
        const auto& pf = partition_type_->fields()[field.partition_index];
        ARROW_ASSIGN_OR_RAISE(auto value, ReadPartitionValue(*n, d, pf.type));
        sink.PartitionValue(field.partition_index, std::move(value));
        break;
      }
      case Target::kRecordCount:
        ARROW_RETURN_NOT_OK(ReadInteger(*n, d, &l));
        sink.RecordCount(l);
        break;
      case Target::kFileSize:
        ARROW_RETURN_NOT_OK(ReadInteger(*n, d, &l));
        sink.FileSize(l);
        break;
      case Target::kColumnSizes:
        ARROW_RETURN_NOT_OK(read_map(map, kSizesKind));
        break;
      case Target::kSkipMap: {
        if (!map.valid || (map.as_array && map.key_index == 1)) {
          ARROW_RETURN_NOT_OK(SkipNode(s, *n, d, 0));
          break;
        }
        auto none = sink.Counts(kSizesKind, 0);
        ARROW_RETURN_NOT_OK(ReadIdMap<false>(s, map, d, none, [](int32_t) { return false; }));
        break;
      }
      case Target::kValueCounts:
        ARROW_RETURN_NOT_OK(read_map(map, kValuesKind));
        break;
      case Target::kNullCounts:
        ARROW_RETURN_NOT_OK(read_map(map, kNullsKind));
        break;
      case Target::kNanCounts:
        ARROW_RETURN_NOT_OK(read_map(map, kNansKind));
        break;
      case Target::kLowerBounds:
        ARROW_RETURN_NOT_OK(read_map(map, kLowerKind));
        break;
      case Target::kUpperBounds:
        ARROW_RETURN_NOT_OK(read_map(map, kUpperKind));
        break;
      case Target::kKeyMetadata:
        ARROW_RETURN_NOT_OK(ReadRaw(*n, d, &view));
        sink.KeyMetadata(view);
        break;
      case Target::kSplitOffsets:
        if (n->type != avro::Type::kArray) return Status::Invalid("split_offsets is not an array");
        ARROW_RETURN_NOT_OK(ReadIntArray(d, [&](int64_t v) { sink.SplitOffset(v); }));
        break;
      case Target::kEqualityIds:
        if (n->type != avro::Type::kArray) return Status::Invalid("equality_ids is not an array");
        ARROW_RETURN_NOT_OK(ReadIntArray(d, [&](int64_t v) { sink.EqualityId(v); }));
        break;
      case Target::kSortOrderId:
        ARROW_RETURN_NOT_OK(ReadInteger(*n, d, &l));
        sink.SortOrderId(l);
        break;
      case Target::kFirstRowId:
        ARROW_RETURN_NOT_OK(ReadInteger(*n, d, &l));
        sink.FirstRowId(l);
        break;
      case Target::kReferencedDataFile:
        ARROW_RETURN_NOT_OK(ReadRaw(*n, d, &view));
        sink.ReferencedDataFile(view);
        break;
      case Target::kContentOffset:
        ARROW_RETURN_NOT_OK(ReadInteger(*n, d, &l));
        sink.ContentOffset(l);
        break;
      case Target::kContentSize:
        ARROW_RETURN_NOT_OK(ReadInteger(*n, d, &l));
        sink.ContentSize(l);
        break;
      case Target::kSkip:
        break;
    }
  }
  return Status::OK();
}

}  // namespace floe::manifest
