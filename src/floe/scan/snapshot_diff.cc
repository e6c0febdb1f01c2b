#include "floe/scan/snapshot_diff.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <queue>
#include <unordered_map>

#include <arrow/api.h>
#include <arrow/compute/api_vector.h>

#include "floe/scan/hash_partitioner.h"
#include "floe/scan/row_group_stream.h"
#include "floe/scan/row_hash.h"
#include "floe/scan/table_scan.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/time_travel.h"
#include "floe/util/progress.h"

namespace floe::scan {

namespace {

constexpr int kFrom = 0, kTo = 1;
// Bytes per row the comparison holds besides the rows themselves (its sort entries).
constexpr int64_t kRefBytes = 16;
// Partitions split again at most this many times; past it (one key with more rows than the
// budget) a partition is compared in memory whatever its size.
constexpr int kMaxLevel = 4;
constexpr int kMaxFanOut = 128;

const spec::NestedField* TopLevel(const spec::Schema& schema, int32_t id) {
  for (const auto& f : schema.fields()) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

struct Columns {
  spec::SchemaPtr projection;  // compared fields, all optional
  std::vector<int> all;        // 0..n-1
  std::vector<int> keys;       // indices of the key columns
};

Result<Columns> CompareColumns(const table::Table& table, const spec::Schema& from,
                               const spec::Schema& to, int64_t from_id, int64_t to_id,
                               const DiffOptions& options, SnapshotDiff* diff) {
  Columns out;
  std::vector<spec::NestedField> fields;
  const spec::Schema& named = options.compare_schema ? *options.compare_schema : to;
  if (options.compare_schema) {
    for (spec::NestedField field : options.compare_schema->fields()) {
      field.required = false;
      diff->columns.push_back(field.name);
      fields.push_back(std::move(field));
    }
  } else {
    for (const auto& f : to.fields()) {
      const spec::NestedField* other = TopLevel(from, f.id);
      if (!other) {
        diff->columns_only_in_to.push_back(f.name);
        continue;
      }
      spec::NestedField field = f;
      // Widened types read with the wider (newer) type on both sides.
      if (from.schema_id() > to.schema_id()) field.type = other->type;
      field.required = false;
      diff->columns.push_back(field.name);
      fields.push_back(std::move(field));
    }
    for (const auto& f : from.fields()) {
      if (!TopLevel(to, f.id)) diff->columns_only_in_from.push_back(f.name);
    }
  }
  for (size_t i = 0; i < fields.size(); ++i) out.all.push_back(static_cast<int>(i));
  for (const auto& name : options.key_columns) {
    const spec::NestedField* f = named.FindFieldByName(name);
    if (!f) f = named.FindFieldByNameCaseInsensitive(name);
    int index = -1;
    for (size_t i = 0; f && i < fields.size(); ++i) {
      if (fields[i].id == f->id) index = static_cast<int>(i);
    }
    if (index < 0) {
      return ValidationError("Cannot diff ", table.name(), " by key column '", name,
                             "': it is not a column of both snapshot ", from_id, " and snapshot ",
                             to_id);
    }
    if (std::find(out.keys.begin(), out.keys.end(), index) == out.keys.end()) {
      out.keys.push_back(index);
      diff->key_columns.push_back(fields[index].name);
    }
  }
  out.projection = std::make_shared<const spec::Schema>(named.schema_id(), std::move(fields));
  ARROW_ASSIGN_OR_RAISE(auto arrow_schema, table::ToArrowSchema(*out.projection));
  for (const auto& f : arrow_schema->fields()) {
    Status st = CheckHashable(*f->type());
    if (!st.ok())
      return Status::NotImplemented("Cannot diff column '", f->name(), "' of ", table.name(), ": ",
                                    st.message());
  }
  return out;
}

// Keeps the `limit` rows (or before/after pairs) of smallest rank, as copies.
class Sample {
 public:
  Sample(int64_t limit, std::vector<int> columns) : limit_(limit), columns_(std::move(columns)) {}

  bool Wants(uint64_t rank, uint64_t tie) const {
    if (limit_ <= 0) return false;
    if (static_cast<int64_t>(heap_.size()) < limit_) return true;
    return std::make_pair(rank, tie) < std::make_pair(heap_.top().rank, heap_.top().tie);
  }

  Status Offer(uint64_t rank, uint64_t tie, const arrow::RecordBatch& a, int64_t i,
               const arrow::RecordBatch* b = nullptr, int64_t j = 0) {
    if (!Wants(rank, tie)) return Status::OK();
    Entry e{rank, tie, nullptr, nullptr};
    ARROW_ASSIGN_OR_RAISE(e.first, CopyRow(a, i));
    if (b) {
      ARROW_ASSIGN_OR_RAISE(e.second, CopyRow(*b, j));
    }
    heap_.push(std::move(e));
    if (static_cast<int64_t>(heap_.size()) > limit_) heap_.pop();
    return Status::OK();
  }

  // The rows, by rank; `second` gets the pairs' second rows.
  Status Finish(const std::shared_ptr<arrow::Schema>& schema, std::shared_ptr<arrow::Table>* first,
                std::shared_ptr<arrow::Table>* second) {
    std::vector<Entry> entries;
    while (!heap_.empty()) {
      entries.push_back(heap_.top());
      heap_.pop();
    }
    std::reverse(entries.begin(), entries.end());
    arrow::RecordBatchVector a, b;
    for (auto& e : entries) {
      a.push_back(e.first);
      if (e.second) b.push_back(e.second);
    }
    ARROW_ASSIGN_OR_RAISE(*first, arrow::Table::FromRecordBatches(schema, a));
    if (second) {
      ARROW_ASSIGN_OR_RAISE(*second, arrow::Table::FromRecordBatches(schema, b));
    }
    return Status::OK();
  }

 private:
  struct Entry {
    uint64_t rank, tie;
    std::shared_ptr<arrow::RecordBatch> first, second;
    bool operator<(const Entry& o) const {
      return std::make_pair(rank, tie) < std::make_pair(o.rank, o.tie);
    }
  };

  Result<std::shared_ptr<arrow::RecordBatch>> CopyRow(const arrow::RecordBatch& batch,
                                                      int64_t row) const {
    ARROW_ASSIGN_OR_RAISE(auto selected, batch.SelectColumns(columns_));
    auto index = arrow::MakeScalar(arrow::int64(), row).ValueOrDie();
    ARROW_ASSIGN_OR_RAISE(auto indices, arrow::MakeArrayFromScalar(*index, 1));
    ARROW_ASSIGN_OR_RAISE(arrow::Datum taken, arrow::compute::Take(selected, indices));
    return taken.record_batch();
  }

  int64_t limit_;
  std::vector<int> columns_;
  std::priority_queue<Entry> heap_;
};

// Orders `tables` (rows aligned) by the columns `by` of the first, where the types order.
void SortSample(std::vector<std::shared_ptr<arrow::Table>*> tables, const std::vector<int>& by) {
  if (!*tables[0] || (*tables[0])->num_rows() < 2) return;
  std::vector<arrow::compute::SortKey> keys;
  for (int c : by) keys.emplace_back(arrow::FieldRef(c));
  auto indices =
      arrow::compute::SortIndices(arrow::Datum(*tables[0]), arrow::compute::SortOptions(keys));
  if (!indices.ok()) return;  // e.g. a nested column: keep the rank order
  std::vector<std::shared_ptr<arrow::Table>> sorted;
  for (auto* t : tables) {
    auto taken = arrow::compute::Take(arrow::Datum(*t), arrow::Datum(*indices));
    if (!taken.ok()) return;
    sorted.push_back(taken->table());
  }
  for (size_t i = 0; i < tables.size(); ++i) *tables[i] = sorted[i];
}

class Differ {
 public:
  Differ(const std::shared_ptr<table::Table>& table, Columns columns, const DiffOptions& options,
         SnapshotDiff* diff)
      : table_(table),
        columns_(std::move(columns)),
        options_(options),
        diff_(diff),
        added_(options.sample_rows, columns_.all),
        removed_(options.sample_rows, columns_.all),
        changed_(options.sample_rows, columns_.all) {
    const int64_t budget = std::max<int64_t>(options.memory_budget_bytes, 1 << 20);
    buffer_bytes_ = budget / 4;
    target_bytes_ = budget / 3;
  }

  Status Run(const std::vector<FileScanTask>& from_tasks, const spec::SchemaPtr& from_schema,
             const std::vector<FileScanTask>& to_tasks, const spec::SchemaPtr& to_schema) {
    ARROW_ASSIGN_OR_RAISE(auto arrow_schema, table::ToArrowSchema(*columns_.projection));
    ARROW_ASSIGN_OR_RAISE(
        hashed_schema_, arrow_schema->AddField(arrow_schema->num_fields(),
                                               arrow::field("__row_hash", arrow::uint64(), false)));
    if (from_tasks.empty() && to_tasks.empty()) return Finish(arrow_schema);
    int64_t expected_rows = 0, file_bytes = 0;
    for (const auto* tasks : {&from_tasks, &to_tasks}) {
      for (const auto& t : *tasks) {
        expected_rows += t.file.record_count;
        file_bytes += t.file.file_size_in_bytes;
      }
    }
    expected_rows_ = std::max<int64_t>(expected_rows, 1);
    ARROW_ASSIGN_OR_RAISE(spill_, SpillDirectory::Make(options_.spill_directory));

    HashPartitioner::Options popts;
    popts.buffer_bytes = buffer_bytes_;
    popts.choose_fan_out = [this](int64_t bytes, int64_t rows) {
      const double per_row =
          static_cast<double>(bytes) / static_cast<double>(std::max<int64_t>(rows, 1)) + kRefBytes;
      const double expected = per_row * static_cast<double>(std::max(expected_rows_, rows));
      return FanOut(expected * 1.25);
    };
    HashPartitioner partitioner(hashed_schema_, spill_.get(), popts);
    {
      // Decoded rows take a few times their compressed size; batches stay a small part of the
      // budget.
      int64_t width = 0;
      for (const auto& f : arrow_schema->fields()) {
        const int w = f->type()->byte_width();
        width += w > 0 ? w : 32;  // strings, binary, nested: a guess
      }
      const int64_t row_bytes = std::max<int64_t>(width, 3 * file_bytes / expected_rows_);
      const int64_t batch_rows =
          std::clamp<int64_t>(target_bytes_ / 16 / row_bytes, 1024, 64 * 1024);
      ProgressTask progress(StrCat("Diff of ", table_->name(), ": reading ",
                                   from_tasks.size() + to_tasks.size(), " data files"),
                            expected_rows);
      ARROW_RETURN_NOT_OK(
          ReadSide(kFrom, from_tasks, from_schema, batch_rows, &partitioner, &progress));
      ARROW_RETURN_NOT_OK(ReadSide(kTo, to_tasks, to_schema, batch_rows, &partitioner, &progress));
      progress.Advance(
          std::max<int64_t>(0, expected_rows - diff_->rows_read_from - diff_->rows_read_to));
    }
    ARROW_ASSIGN_OR_RAISE(auto partitions, partitioner.Finish());
    spilled_bytes_ += partitioner.spilled_bytes();
    {
      ProgressTask progress(StrCat("Diff of ", table_->name(), ": comparing"),
                            static_cast<int64_t>(partitions.size()));
      for (auto& p : partitions) {
        ARROW_RETURN_NOT_OK(ComparePartition(std::move(p), 0));
        progress.Advance();
      }
    }
    return Finish(arrow_schema);
  }

 private:
  int FanOut(double bytes) const {
    const double parts = std::ceil(bytes / static_cast<double>(target_bytes_));
    return static_cast<int>(std::clamp<double>(parts, 2, kMaxFanOut));
  }

  Status Finish(const std::shared_ptr<arrow::Schema>& schema) {
    diff_->spilled_bytes = spilled_bytes_;
    diff_->partitions = partitions_compared_;
    diff_->partitions_split = partitions_split_;
    ARROW_RETURN_NOT_OK(added_.Finish(schema, &diff_->added_sample, nullptr));
    ARROW_RETURN_NOT_OK(removed_.Finish(schema, &diff_->removed_sample, nullptr));
    ARROW_RETURN_NOT_OK(changed_.Finish(schema, &diff_->changed_before, &diff_->changed_after));
    const std::vector<int>& order = columns_.keys.empty() ? columns_.all : columns_.keys;
    SortSample({&diff_->added_sample}, order);
    SortSample({&diff_->removed_sample}, order);
    SortSample({&diff_->changed_before, &diff_->changed_after}, order);
    return Status::OK();
  }

  Status ReadSide(int side, const std::vector<FileScanTask>& tasks, const spec::SchemaPtr& schema,
                  int64_t batch_rows, HashPartitioner* partitioner, ProgressTask* progress) {
    if (tasks.empty()) return Status::OK();
    ARROW_ASSIGN_OR_RAISE(ScanFilesPlan plan,
                          PlanScanFiles(*table_->metadata(), tasks, columns_.projection, *schema));
    RowGroupStreamOptions options;
    options.ordered = false;  // rows are partitioned by hash: any order will do
    options.batch_rows = batch_rows;
    options.output_columns = plan.output_columns;
    ARROW_ASSIGN_OR_RAISE(
        auto reader, MakeRowGroupStream(table_->io(), std::move(plan.files), plan.projection, {},
                                        schema, nullptr, options));
    const std::vector<int>& hashed = columns_.keys.empty() ? columns_.all : columns_.keys;
    std::vector<uint64_t> hashes;
    int64_t& rows = side == kFrom ? diff_->rows_read_from : diff_->rows_read_to;
    (side == kFrom ? diff_->files_read_from : diff_->files_read_to) =
        static_cast<int64_t>(tasks.size());
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
      if (!batch) break;
      if (batch->num_rows() == 0) continue;
      HashRows(*batch, hashed, 0, &hashes);
      arrow::UInt64Builder builder;
      ARROW_RETURN_NOT_OK(builder.AppendValues(hashes));
      ARROW_ASSIGN_OR_RAISE(auto hash_array, builder.Finish());
      std::vector<std::shared_ptr<arrow::Array>> arrays = batch->columns();
      arrays.push_back(std::move(hash_array));
      auto hashed_batch =
          arrow::RecordBatch::Make(hashed_schema_, batch->num_rows(), std::move(arrays));
      rows += batch->num_rows();
      progress->Advance(batch->num_rows());
      ARROW_RETURN_NOT_OK(partitioner->Add(side, hashed_batch));
    }
    return reader->Close();
  }

  static void Release(PartitionSide* side) {
    side->batches.clear();
    if (!side->spill_file.empty()) {
      std::error_code ec;
      std::filesystem::remove(side->spill_file, ec);
      side->spill_file.clear();
    }
  }

  Status ComparePartition(Partition part, int level) {
    if (part.rows() == 0) return Status::OK();
    const int64_t need = part.bytes() + part.rows() * kRefBytes;
    if (need > target_bytes_ && level < kMaxLevel) {
      ++partitions_split_;
      HashPartitioner::Options popts;
      popts.level = level + 1;
      popts.fan_out = FanOut(static_cast<double>(need) * 1.5);
      popts.buffer_bytes = buffer_bytes_;
      HashPartitioner split(hashed_schema_, spill_.get(), popts);
      for (int side : {kFrom, kTo}) {
        ARROW_RETURN_NOT_OK(ForEachBatch(
            part.sides[side],
            [&](const std::shared_ptr<arrow::RecordBatch>& b) { return split.Add(side, b); }));
        Release(&part.sides[side]);
      }
      ARROW_ASSIGN_OR_RAISE(auto children, split.Finish());
      spilled_bytes_ += split.spilled_bytes();
      const int64_t rows = part.rows();
      for (auto& child : children) {
        // Every row in one child: their hashes are all equal (one key), splitting cannot help.
        const int next = child.rows() == rows ? kMaxLevel : level + 1;
        ARROW_RETURN_NOT_OK(ComparePartition(std::move(child), next));
      }
      return Status::OK();
    }
    std::array<arrow::RecordBatchVector, 2> batches;
    for (int side : {kFrom, kTo}) {
      ARROW_RETURN_NOT_OK(
          ForEachBatch(part.sides[side], [&](const std::shared_ptr<arrow::RecordBatch>& b) {
            batches[side].push_back(b);
            return Status::OK();
          }));
      Release(&part.sides[side]);
    }
    ++partitions_compared_;
    return CompareInMemory(batches);
  }

  // A row of the partition: its hash (of key or whole row), side, batch and row.
  struct Ref {
    uint64_t hash;
    uint32_t batch;  // the side in the top bit
    uint32_t row;
    int side() const { return batch >> 31 ? kTo : kFrom; }
    uint32_t index() const { return batch & 0x7fffffffu; }
    bool operator<(const Ref& o) const {
      return hash != o.hash ? hash < o.hash : batch != o.batch ? batch < o.batch : row < o.row;
    }
  };

  const arrow::RecordBatch& BatchOf(const Ref& r) const {
    return *(*batches_)[r.side()][r.index()];
  }
  bool KeysEqual(const Ref& a, const Ref& b) const {
    return RowsEqual(BatchOf(a), a.row, BatchOf(b), b.row,
                     columns_.keys.empty() ? columns_.all : columns_.keys);
  }
  bool ValuesEqual(const Ref& a, const Ref& b) const {
    return RowsEqual(BatchOf(a), a.row, BatchOf(b), b.row, columns_.all);
  }
  uint64_t Tie(const Ref& r) const { return HashRow(BatchOf(r), columns_.all, r.row, 1); }

  Status Added(const Ref& r) {
    ++diff_->added;
    if (options_.on_rows) added_refs_.push_back(r);
    if (added_.Wants(r.hash, 0))
      ARROW_RETURN_NOT_OK(added_.Offer(r.hash, Tie(r), BatchOf(r), r.row));
    return Status::OK();
  }
  Status Removed(const Ref& r) {
    ++diff_->removed;
    if (options_.on_rows) removed_refs_.push_back(r);
    if (removed_.Wants(r.hash, 0))
      ARROW_RETURN_NOT_OK(removed_.Offer(r.hash, Tie(r), BatchOf(r), r.row));
    return Status::OK();
  }
  Status Changed(const Ref& before, const Ref& after) {
    ++diff_->changed;
    if (options_.on_rows) {
      before_refs_.push_back(before);
      after_refs_.push_back(after);
    }
    if (changed_.Wants(before.hash, 0)) {
      ARROW_RETURN_NOT_OK(changed_.Offer(before.hash, Tie(before), BatchOf(before), before.row,
                                         &BatchOf(after), after.row));
    }
    return Status::OK();
  }
  Status OneSide(const Ref& r) { return r.side() == kFrom ? Removed(r) : Added(r); }

  Status CompareInMemory(const std::array<arrow::RecordBatchVector, 2>& batches) {
    batches_ = &batches;
    std::vector<Ref> refs;
    size_t rows = 0;
    for (const auto& side : batches) {
      for (const auto& b : side) rows += static_cast<size_t>(b->num_rows());
    }
    refs.reserve(rows);
    for (int side : {kFrom, kTo}) {
      for (size_t b = 0; b < batches[side].size(); ++b) {
        const auto& batch = *batches[side][b];
        const auto& hashes =
            static_cast<const arrow::UInt64Array&>(*batch.column(batch.num_columns() - 1));
        const uint32_t code = static_cast<uint32_t>(b) | (side == kTo ? 0x80000000u : 0u);
        for (int64_t i = 0; i < batch.num_rows(); ++i)
          refs.push_back({hashes.Value(i), code, static_cast<uint32_t>(i)});
      }
    }
    std::sort(refs.begin(), refs.end());
    for (size_t i = 0; i < refs.size();) {
      size_t j = i + 1;
      while (j < refs.size() && refs[j].hash == refs[i].hash) ++j;
      if (j - i == 1) {
        ARROW_RETURN_NOT_OK(OneSide(refs[i]));
      } else if (j - i == 2 && refs[i].side() == kFrom && refs[i + 1].side() == kTo) {
        ARROW_RETURN_NOT_OK(Pair(refs[i], refs[i + 1]));
      } else {
        run_.assign(refs.begin() + i, refs.begin() + j);
        ARROW_RETURN_NOT_OK(Run(run_));
      }
      i = j;
    }
    if (options_.on_rows) ARROW_RETURN_NOT_OK(HandOver(batches));
    batches_ = nullptr;
    return Status::OK();
  }

  // The partition's differing rows to the caller's sink, gathered by reference.
  Status HandOver(const std::array<arrow::RecordBatchVector, 2>& batches) {
    DiffRows rows;
    ARROW_ASSIGN_OR_RAISE(rows.added, Gather(batches[kTo], &added_refs_));
    ARROW_ASSIGN_OR_RAISE(rows.removed, Gather(batches[kFrom], &removed_refs_));
    ARROW_ASSIGN_OR_RAISE(rows.changed_before, Gather(batches[kFrom], &before_refs_));
    ARROW_ASSIGN_OR_RAISE(rows.changed_after, Gather(batches[kTo], &after_refs_));
    return options_.on_rows(rows);
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Gather(const arrow::RecordBatchVector& side,
                                                     std::vector<Ref>* refs) const {
    std::vector<int64_t> offsets(side.size() + 1, 0);
    for (size_t b = 0; b < side.size(); ++b) offsets[b + 1] = offsets[b] + side[b]->num_rows();
    arrow::Int64Builder indices;
    ARROW_RETURN_NOT_OK(indices.Reserve(static_cast<int64_t>(refs->size())));
    for (const Ref& r : *refs) indices.UnsafeAppend(offsets[r.index()] + r.row);
    refs->clear();
    ARROW_ASSIGN_OR_RAISE(auto index_array, indices.Finish());
    ARROW_ASSIGN_OR_RAISE(auto rows, arrow::Table::FromRecordBatches(hashed_schema_, side));
    ARROW_ASSIGN_OR_RAISE(rows, rows->SelectColumns(columns_.all));
    ARROW_ASSIGN_OR_RAISE(arrow::Datum taken, arrow::compute::Take(rows, index_array));
    return taken.table()->CombineChunksToBatch();
  }

  // One row each side with the same hash: the common case of an unchanged or changed row.
  Status Pair(const Ref& from, const Ref& to) {
    if (!KeysEqual(from, to)) {
      ARROW_RETURN_NOT_OK(Removed(from));
      return Added(to);
    }
    if (columns_.keys.empty() || ValuesEqual(from, to)) return Status::OK();
    return Changed(from, to);
  }

  // Rows sharing a hash: grouped by equal key, then matched within each key.
  Status Run(const std::vector<Ref>& run) {
    std::vector<std::vector<Ref>> groups;
    for (const Ref& r : run) {
      auto it = std::find_if(groups.begin(), groups.end(),
                             [&](const std::vector<Ref>& g) { return KeysEqual(g[0], r); });
      if (it == groups.end()) {
        groups.push_back({r});
      } else {
        it->push_back(r);
      }
    }
    for (const auto& group : groups) ARROW_RETURN_NOT_OK(Group(group));
    return Status::OK();
  }

  Status Group(const std::vector<Ref>& group) {
    std::vector<Ref> from, to;
    for (const Ref& r : group) (r.side() == kFrom ? from : to).push_back(r);
    if (columns_.keys.empty()) {
      // Whole rows, all equal: only the difference in counts shows.
      for (size_t k = from.size(); k < to.size(); ++k) ARROW_RETURN_NOT_OK(Added(to[k]));
      for (size_t k = to.size(); k < from.size(); ++k) ARROW_RETURN_NOT_OK(Removed(from[k]));
      return Status::OK();
    }
    // Rows of this key identical on both sides cancel, duplicates counted.
    std::vector<bool> from_done(from.size()), to_done(to.size());
    if (!from.empty() && !to.empty()) {
      struct Member {
        uint64_t hash;
        int side;
        size_t index;
      };
      std::vector<Member> members;
      for (size_t k = 0; k < from.size(); ++k)
        members.push_back({HashRow(BatchOf(from[k]), columns_.all, from[k].row), kFrom, k});
      for (size_t k = 0; k < to.size(); ++k)
        members.push_back({HashRow(BatchOf(to[k]), columns_.all, to[k].row), kTo, k});
      std::stable_sort(members.begin(), members.end(),
                       [](const Member& a, const Member& b) { return a.hash < b.hash; });
      for (size_t i = 0; i < members.size();) {
        size_t j = i + 1;
        while (j < members.size() && members[j].hash == members[i].hash) ++j;
        // Rows with equal hashes are nearly always equal: each `from` row takes the first
        // equal `to` row not yet taken, and `first` skips those taken.
        std::vector<size_t> tos;
        for (size_t k = i; k < j; ++k) {
          if (members[k].side == kTo) tos.push_back(members[k].index);
        }
        size_t first = 0;
        for (size_t k = i; k < j; ++k) {
          if (members[k].side != kFrom) continue;
          const size_t f = members[k].index;
          for (size_t t = first; t < tos.size(); ++t) {
            if (to_done[tos[t]] || !ValuesEqual(from[f], to[tos[t]])) continue;
            from_done[f] = true;
            to_done[tos[t]] = true;
            while (first < tos.size() && to_done[tos[first]]) ++first;
            break;
          }
        }
        i = j;
      }
    }
    std::vector<Ref> left_from, left_to;
    for (size_t k = 0; k < from.size(); ++k) {
      if (!from_done[k]) left_from.push_back(from[k]);
    }
    for (size_t k = 0; k < to.size(); ++k) {
      if (!to_done[k]) left_to.push_back(to[k]);
    }
    const size_t pairs = std::min(left_from.size(), left_to.size());
    for (size_t k = 0; k < pairs; ++k) ARROW_RETURN_NOT_OK(Changed(left_from[k], left_to[k]));
    for (size_t k = pairs; k < left_from.size(); ++k) ARROW_RETURN_NOT_OK(Removed(left_from[k]));
    for (size_t k = pairs; k < left_to.size(); ++k) ARROW_RETURN_NOT_OK(Added(left_to[k]));
    return Status::OK();
  }

  std::shared_ptr<table::Table> table_;
  Columns columns_;
  const DiffOptions& options_;
  SnapshotDiff* diff_;
  Sample added_, removed_, changed_;
  std::shared_ptr<arrow::Schema> hashed_schema_;
  std::unique_ptr<SpillDirectory> spill_;
  int64_t buffer_bytes_ = 0, target_bytes_ = 0, expected_rows_ = 1;
  int64_t spilled_bytes_ = 0, partitions_compared_ = 0, partitions_split_ = 0;
  const std::array<arrow::RecordBatchVector, 2>* batches_ = nullptr;
  std::vector<Ref> run_;  // rows sharing a hash, grouped by Run
  std::vector<Ref> added_refs_, removed_refs_, before_refs_, after_refs_;  // for on_rows
};

}  // namespace

Result<SnapshotDiff> DiffSnapshots(const std::shared_ptr<table::Table>& table,
                                   std::optional<int64_t> from_snapshot_id, int64_t to_snapshot_id,
                                   const DiffOptions& options) {
  SnapshotDiff diff;
  diff.from_snapshot_id = from_snapshot_id.value_or(0);
  diff.to_snapshot_id = to_snapshot_id;
  auto md = table->metadata();
  for (std::optional<int64_t> id : {from_snapshot_id, std::optional<int64_t>(to_snapshot_id)}) {
    if (id && !md->SnapshotById(*id))
      return NotFound("Cannot find snapshot with ID ", *id, " in table ", table->name());
  }
  ARROW_ASSIGN_OR_RAISE(auto to_schema, table::SchemaForSnapshot(*md, to_snapshot_id));
  spec::SchemaPtr from_schema = to_schema;
  if (from_snapshot_id) {
    ARROW_ASSIGN_OR_RAISE(from_schema, table::SchemaForSnapshot(*md, *from_snapshot_id));
  }
  ARROW_ASSIGN_OR_RAISE(Columns columns,
                        CompareColumns(*table, *from_schema, *to_schema, diff.from_snapshot_id,
                                       to_snapshot_id, options, &diff));

  std::vector<FileScanTask> from_tasks;
  if (from_snapshot_id) {
    ARROW_ASSIGN_OR_RAISE(from_tasks, TableScan(table).UseSnapshot(*from_snapshot_id).PlanFiles());
  }
  ARROW_ASSIGN_OR_RAISE(auto to_tasks, TableScan(table).UseSnapshot(to_snapshot_id).PlanFiles());

  // A file both snapshots read with the same deletes holds the same rows in both.
  std::unordered_map<std::string, std::vector<size_t>> from_by_key;
  for (size_t i = 0; i < from_tasks.size(); ++i)
    from_by_key[FileTaskKey(from_tasks[i])].push_back(i);
  std::vector<bool> from_shared(from_tasks.size());
  std::vector<FileScanTask> to_read;
  for (auto& task : to_tasks) {
    auto it = from_by_key.find(FileTaskKey(task));
    if (it != from_by_key.end() && !it->second.empty()) {
      from_shared[it->second.back()] = true;
      it->second.pop_back();
      ++diff.unchanged_files;
    } else {
      to_read.push_back(std::move(task));
    }
  }
  std::vector<FileScanTask> from_read;
  for (size_t i = 0; i < from_tasks.size(); ++i) {
    if (!from_shared[i]) from_read.push_back(std::move(from_tasks[i]));
  }

  Differ differ(table, std::move(columns), options, &diff);
  ARROW_RETURN_NOT_OK(differ.Run(from_read, from_schema, to_read, to_schema));
  return diff;
}

}  // namespace floe::scan
