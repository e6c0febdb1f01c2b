#include "floe/scan/changelog_scan.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include <arrow/api.h>
#include <arrow/compute/api_vector.h>

#include "floe/scan/metadata_columns.h"
#include "floe/scan/row_group_stream.h"
#include "floe/scan/row_hash.h"
#include "floe/scan/table_scan.h"
#include "floe/table/arrow_schema.h"
#include "floe/util/ascii.h"
#include "floe/util/number_parse.h"
#include "floe/util/str_cat.h"

namespace floe::scan {

namespace {

enum class Change { kDelete, kUpdateBefore, kUpdateAfter, kInsert };

const char* ChangeName(Change c) {
  switch (c) {
    case Change::kDelete:
      return kChangeDelete;
    case Change::kUpdateBefore:
      return kChangeUpdateBefore;
    case Change::kUpdateAfter:
      return kChangeUpdateAfter;
    case Change::kInsert:
      return kChangeInsert;
  }
  return kChangeInsert;
}

// A row of one of the batches read, and what it is.
struct ChangeRow {
  int batch = 0;
  int64_t row = 0;
  Change change = Change::kInsert;
  int32_t ordinal = 0;
  bool dropped = false;  // cancelled as carry-over or net of a later change
  size_t partner = 0;    // of an update image: the other image's index
  // Row lineage (format v3): the row's _row_id and _last_updated_sequence_number, when its
  // file has them. `by_lineage`: its row id matched an image of the other kind in its
  // snapshot, which settled what it is (carry-over or one side of an update).
  bool lineage = false;
  bool by_lineage = false;
  int64_t row_id = 0;
  int64_t last_updated = 0;
};

// Everything read for the changelog: batches of the table's columns, and the rows chosen.
class ChangeCollector {
 public:
  // Row lineage is read from format v3 on (older tables have none).
  ChangeCollector(std::shared_ptr<table::Table> table, spec::SchemaPtr schema)
      : table_(std::move(table)), schema_(std::move(schema)) {
    std::vector<spec::NestedField> fields = schema_->fields();
    columns_ = static_cast<int>(fields.size());
    fields.push_back(*MetadataColumn("_file"));
    fields.push_back(*MetadataColumn("_pos"));
    if (table_->metadata()->format_version >= 3) {
      fields.push_back(*MetadataColumn("_row_id"));
      fields.push_back(*MetadataColumn("_last_updated_sequence_number"));
      lineage_ = true;
    }
    located_ = std::make_shared<const spec::Schema>(schema_->schema_id(), std::move(fields));
    positions_ = std::make_shared<const spec::Schema>(
        schema_->schema_id(),
        std::vector<spec::NestedField>{*MetadataColumn("_file"), *MetadataColumn("_pos")});
    for (int i = 0; i < columns_; ++i) all_columns_.push_back(i);
  }

  // Positions by data file.
  using Positions = std::unordered_map<std::string, std::unordered_set<int64_t>>;

  const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches() const { return batches_; }
  std::vector<ChangeRow>& rows() { return rows_; }
  const std::vector<ChangeRow>& rows() const { return rows_; }
  const std::vector<int>& all_columns() const { return all_columns_; }

  // The rows of `tasks` (each file with its deletes), every one a `change` of snapshot
  // `ordinal`, with their row lineage; with `skip`, those whose file and position it holds
  // are left out.
  Status Read(const std::vector<FileScanTask>& tasks, Change change, int32_t ordinal,
              const Positions* skip = nullptr) {
    if (tasks.empty()) return Status::OK();
    return ForEachBatch(
        tasks, located_, [&](const std::shared_ptr<arrow::RecordBatch>& batch) -> Status {
          const auto& files = static_cast<const arrow::StringArray&>(*batch->column(columns_));
          const auto& positions =
              static_cast<const arrow::Int64Array&>(*batch->column(columns_ + 1));
          const arrow::Int64Array* row_ids = nullptr;
          const arrow::Int64Array* updated = nullptr;
          if (lineage_) {
            row_ids = static_cast<const arrow::Int64Array*>(batch->column(columns_ + 2).get());
            updated = static_cast<const arrow::Int64Array*>(batch->column(columns_ + 3).get());
          }
          const int index = static_cast<int>(batches_.size());
          bool any = false;
          for (int64_t i = 0; i < batch->num_rows(); ++i) {
            if (skip && IsIn(*skip, files.GetView(i), positions.Value(i))) continue;
            ChangeRow r;
            r.batch = index;
            r.row = i;
            r.change = change;
            r.ordinal = ordinal;
            if (row_ids && row_ids->IsValid(i) && updated->IsValid(i)) {
              r.lineage = true;
              r.row_id = row_ids->Value(i);
              r.last_updated = updated->Value(i);
            }
            rows_.push_back(r);
            any = true;
          }
          if (any) {
            std::vector<int> data(static_cast<size_t>(columns_));
            for (int k = 0; k < columns_; ++k) data[static_cast<size_t>(k)] = k;
            ARROW_ASSIGN_OR_RAISE(auto table_columns, batch->SelectColumns(data));
            batches_.push_back(std::move(table_columns));
          }
          return Status::OK();
        });
  }

  // Copies the rows from `first_row` on that are not dropped into batches of their own, and
  // lets go of the batches read from `first_batch` on: what a snapshot's carry-over dropped
  // is not held while the next snapshots are read.
  Status Compact(size_t first_row, size_t first_batch) {
    std::map<int, std::vector<size_t>> by_batch;
    for (size_t i = first_row; i < rows_.size(); ++i) {
      if (!rows_[i].dropped) by_batch[rows_[i].batch].push_back(i);
    }
    std::vector<std::shared_ptr<arrow::RecordBatch>> kept;
    for (const auto& [batch, indices] : by_batch) {
      arrow::Int64Builder take;
      for (size_t i : indices) ARROW_RETURN_NOT_OK(take.Append(rows_[i].row));
      ARROW_ASSIGN_OR_RAISE(auto positions, take.Finish());
      ARROW_ASSIGN_OR_RAISE(arrow::Datum taken, arrow::compute::Take(batches_[batch], positions));
      const int index = static_cast<int>(batches_.size() + kept.size());
      for (size_t k = 0; k < indices.size(); ++k) {
        rows_[indices[k]].batch = index;
        rows_[indices[k]].row = static_cast<int64_t>(k);
      }
      kept.push_back(taken.record_batch());
    }
    for (size_t b = first_batch; b < batches_.size(); ++b) batches_[b] = nullptr;
    batches_.insert(batches_.end(), kept.begin(), kept.end());
    return Status::OK();
  }

  // The positions of the rows `tasks` hold (only those columns read).
  Result<Positions> Locations(const std::vector<FileScanTask>& tasks) {
    Positions out;
    if (tasks.empty()) return out;
    ARROW_RETURN_NOT_OK(
        ForEachBatch(tasks, positions_, [&](const std::shared_ptr<arrow::RecordBatch>& batch) {
          const auto& files = static_cast<const arrow::StringArray&>(*batch->column(0));
          const auto& positions = static_cast<const arrow::Int64Array&>(*batch->column(1));
          std::unordered_set<int64_t>* file = nullptr;
          std::string_view last;
          for (int64_t i = 0; i < batch->num_rows(); ++i) {
            if (!file || files.GetView(i) != last) {
              last = files.GetView(i);
              file = &out[std::string(last)];
            }
            file->insert(positions.Value(i));
          }
          return Status::OK();
        }));
    return out;
  }

 private:
  static bool IsIn(const Positions& positions, std::string_view file, int64_t pos) {
    auto it = positions.find(std::string(file));
    return it != positions.end() && it->second.count(pos) > 0;
  }

  template <typename F>
  Status ForEachBatch(const std::vector<FileScanTask>& tasks, const spec::SchemaPtr& projection,
                      F&& f) {
    ARROW_ASSIGN_OR_RAISE(ScanFilesPlan plan,
                          PlanScanFiles(*table_->metadata(), tasks, projection, *schema_));
    RowGroupStreamOptions options;
    options.output_columns = plan.output_columns;
    ARROW_ASSIGN_OR_RAISE(
        auto reader, MakeRowGroupStream(table_->io(), std::move(plan.files), plan.projection, {},
                                        schema_, nullptr, options));
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
      if (!batch) break;
      if (batch->num_rows() > 0) ARROW_RETURN_NOT_OK(f(batch));
    }
    return reader->Close();
  }

  std::shared_ptr<table::Table> table_;
  spec::SchemaPtr schema_;
  spec::SchemaPtr located_;    // the schema's columns, then _file, _pos (and row lineage)
  spec::SchemaPtr positions_;  // _file and _pos alone
  int columns_ = 0;
  bool lineage_ = false;  // _row_id and _last_updated_sequence_number follow _file and _pos
  std::vector<int> all_columns_;
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches_;
  std::vector<ChangeRow> rows_;
};

// Calls `f(group)` for each set of rows among `which` (indices into `rows`) with equal values
// in `columns`, a group's rows in the order of `which`. Rows are hashed a batch at a time and
// sorted by hash, so equal rows meet without a table of groups.
template <typename F>
void ForEachEqualGroup(const ChangeCollector& c, const std::vector<ChangeRow>& rows,
                       const std::vector<size_t>& which, const std::vector<int>& columns, F&& f) {
  std::unordered_map<int, std::vector<uint64_t>> hashes;
  std::vector<std::pair<uint64_t, size_t>> keyed;
  keyed.reserve(which.size());
  for (size_t pos = 0; pos < which.size(); ++pos) {
    const ChangeRow& r = rows[which[pos]];
    auto it = hashes.find(r.batch);
    if (it == hashes.end()) {
      it = hashes.emplace(r.batch, std::vector<uint64_t>()).first;
      HashRows(*c.batches()[r.batch], columns, 0, &it->second);
    }
    keyed.emplace_back(it->second[r.row], pos);
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<size_t> group;
  std::vector<bool> taken;
  for (size_t a = 0; a < keyed.size();) {
    size_t b = a + 1;
    while (b < keyed.size() && keyed[b].first == keyed[a].first) ++b;
    taken.assign(b - a, false);
    for (size_t i = a; i < b; ++i) {
      if (taken[i - a]) continue;
      group.assign(1, which[keyed[i].second]);
      const ChangeRow& first = rows[group[0]];
      for (size_t j = i + 1; j < b; ++j) {
        const ChangeRow& r = rows[which[keyed[j].second]];
        if (!taken[j - a] && RowsEqual(*c.batches()[r.batch], r.row, *c.batches()[first.batch],
                                       first.row, columns)) {
          group.push_back(which[keyed[j].second]);
          taken[j - a] = true;
        }
      }
      f(group);
    }
    a = b;
  }
}

// Row lineage (format v3), within one snapshot: a DELETE and an INSERT image of one _row_id
// are one row. With the same _last_updated_sequence_number it was written again unchanged
// (carry-over: both dropped); with another, it was updated: with `updates` the pair becomes
// UPDATE_BEFORE and UPDATE_AFTER, else it stays a DELETE and an INSERT.
void MatchLineage(ChangeCollector& c, const std::vector<size_t>& snapshot_rows, bool updates) {
  auto& rows = c.rows();
  struct Images {
    size_t deleted = 0, inserted = 0;
    int deletes = 0, inserts = 0;
  };
  std::unordered_map<int64_t, Images> by_id;
  for (size_t i : snapshot_rows) {
    const ChangeRow& r = rows[i];
    if (!r.lineage || r.dropped) continue;
    Images& images = by_id[r.row_id];
    if (r.change == Change::kDelete) {
      images.deleted = i;
      ++images.deletes;
    } else if (r.change == Change::kInsert) {
      images.inserted = i;
      ++images.inserts;
    }
  }
  // A row id on two images of one kind (no writer that keeps lineage makes them) tells
  // nothing: those images match by values.
  for (size_t i : snapshot_rows) {
    ChangeRow& r = rows[i];
    if (!r.lineage || r.dropped) continue;
    const Images& images = by_id[r.row_id];
    if (images.deletes > 1 || images.inserts > 1) r.lineage = false;
  }
  for (const auto& [id, images] : by_id) {
    if (images.deletes != 1 || images.inserts != 1) continue;
    ChangeRow& before = rows[images.deleted];
    ChangeRow& after = rows[images.inserted];
    before.by_lineage = after.by_lineage = true;
    if (before.last_updated == after.last_updated) {
      before.dropped = after.dropped = true;
    } else if (updates) {
      before.change = Change::kUpdateBefore;
      after.change = Change::kUpdateAfter;
      before.partner = images.inserted;
      after.partner = images.deleted;
    }
  }
}

// Within one snapshot an identical DELETE and INSERT cancel, pair by pair, among the rows
// lineage did not settle. Two images that both have row lineage are different rows (their
// row ids differ), so a pair needs one image without it (a file written before the table's
// v3): on v2 tables every image.
void RemoveCarryOver(ChangeCollector& c, const std::vector<size_t>& snapshot_rows) {
  auto& rows = c.rows();
  std::vector<size_t> open;
  for (size_t i : snapshot_rows) {
    if (!rows[i].dropped && !rows[i].by_lineage) open.push_back(i);
  }
  std::vector<size_t> deletes, inserts, deletes_traced, inserts_traced;
  ForEachEqualGroup(c, rows, open, c.all_columns(), [&](const std::vector<size_t>& group) {
    if (group.size() < 2) return;
    deletes.clear();
    inserts.clear();
    deletes_traced.clear();
    inserts_traced.clear();
    for (size_t i : group) {
      const bool deleted = rows[i].change == Change::kDelete;
      if (rows[i].lineage) {
        (deleted ? deletes_traced : inserts_traced).push_back(i);
      } else {
        (deleted ? deletes : inserts).push_back(i);
      }
    }
    auto cancel = [&](std::vector<size_t>& a, std::vector<size_t>& b) {
      const size_t pairs = std::min(a.size(), b.size());
      for (size_t k = 0; k < pairs; ++k) rows[a[k]].dropped = rows[b[k]].dropped = true;
      a.erase(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(pairs));
      b.erase(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(pairs));
    };
    cancel(deletes, inserts);
    cancel(deletes, inserts_traced);
    cancel(deletes_traced, inserts);
  });
}

// Over the whole range (Spark's net changes): rows of equal values in every column, taken in
// snapshot order with a snapshot's DELETEs before its INSERTs, keep a running count from the
// first, up for its kind and down for the other; where it reaches zero all rows so far cancel
// and the next row starts again. What is left is that many copies of the last starting row.
void RemoveNetCarryOver(ChangeCollector& c) {
  auto& rows = c.rows();
  std::vector<size_t> all(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) all[i] = i;
  ForEachEqualGroup(c, rows, all, c.all_columns(), [&](std::vector<size_t> group) {
    std::stable_sort(group.begin(), group.end(), [&](size_t a, size_t b) {
      if (rows[a].ordinal != rows[b].ordinal) return rows[a].ordinal < rows[b].ordinal;
      return rows[a].change == Change::kDelete && rows[b].change != Change::kDelete;
    });
    size_t anchor = 0;
    int64_t count = 0;
    for (size_t k = 0; k < group.size(); ++k) {
      const ChangeRow& r = rows[group[k]];
      if (count == 0) {
        anchor = k;
        count = 1;
      } else {
        count += r.change == rows[group[anchor]].change ? 1 : -1;
      }
    }
    // The anchor's copies: the anchor itself and, as stand-ins, the rows after it (any row
    // of the group holds the same values).
    for (size_t k = 0; k < group.size(); ++k) rows[group[k]].dropped = true;
    for (int64_t n = 0; n < count; ++n) {
      ChangeRow& keep = rows[group[anchor + static_cast<size_t>(n)]];
      keep.dropped = false;
      keep.change = rows[group[anchor]].change;
      keep.ordinal = rows[group[anchor]].ordinal;
    }
  });
}

// Within one snapshot a DELETE and an INSERT of equal identifier values are one update;
// further INSERTs of those values stay INSERTs, but two DELETEs cannot be told apart. Rows
// row lineage paired already are left as they are.
Status ComputeUpdates(ChangeCollector& c, const std::vector<size_t>& snapshot_rows,
                      const std::vector<int>& keys, const std::vector<std::string>& key_names) {
  if (keys.empty()) return Status::OK();
  auto& rows = c.rows();
  std::vector<size_t> live;
  for (size_t i : snapshot_rows) {
    if (!rows[i].dropped && !rows[i].by_lineage) live.push_back(i);
  }
  bool ambiguous = false;
  std::vector<size_t> deletes, inserts;
  ForEachEqualGroup(c, rows, live, keys, [&](const std::vector<size_t>& group) {
    if (group.size() < 2) return;
    deletes.clear();
    inserts.clear();
    for (size_t i : group) (rows[i].change == Change::kDelete ? deletes : inserts).push_back(i);
    ambiguous |= deletes.size() > 1;
    if (deletes.size() != 1 || inserts.empty()) return;
    rows[deletes[0]].change = Change::kUpdateBefore;
    rows[inserts[0]].change = Change::kUpdateAfter;
    rows[deletes[0]].partner = inserts[0];
    rows[inserts[0]].partner = deletes[0];
  });
  if (ambiguous) {
    std::string names;
    for (const auto& k : key_names) names += k + ",";
    return Status::Invalid(
        "Cannot compute updates because there are multiple rows with the same identifier fields([",
        names, kChangeOrdinalColumn, "]). Please make sure the rows are unique.");
  }
  return Status::OK();
}

// The chosen rows, in `order`, with the change columns after the table's.
Result<std::shared_ptr<arrow::Table>> BuildChangelogTable(const ChangeCollector& c,
                                                          const spec::Schema& schema,
                                                          const std::vector<int64_t>& snapshots,
                                                          const std::vector<size_t>& order) {
  ARROW_ASSIGN_OR_RAISE(auto data_schema, table::ToArrowSchema(schema));
  std::vector<int64_t> offsets;
  int64_t total = 0;
  std::vector<std::shared_ptr<arrow::RecordBatch>> held;
  for (const auto& b : c.batches()) {
    offsets.push_back(total);
    if (!b) continue;  // compacted away
    total += b->num_rows();
    held.push_back(b);
  }
  arrow::Int64Builder take;
  arrow::StringBuilder types;
  arrow::Int32Builder ordinals;
  arrow::Int64Builder ids;
  for (size_t i : order) {
    const ChangeRow& r = c.rows()[i];
    ARROW_RETURN_NOT_OK(take.Append(offsets[r.batch] + r.row));
    ARROW_RETURN_NOT_OK(types.Append(ChangeName(r.change)));
    ARROW_RETURN_NOT_OK(ordinals.Append(r.ordinal));
    ARROW_RETURN_NOT_OK(ids.Append(snapshots[r.ordinal]));
  }
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  if (held.empty()) {
    for (const auto& f : data_schema->fields()) {
      ARROW_ASSIGN_OR_RAISE(auto empty, arrow::MakeEmptyArray(f->type()));
      columns.push_back(std::make_shared<arrow::ChunkedArray>(empty));
    }
  } else {
    ARROW_ASSIGN_OR_RAISE(auto all, arrow::Table::FromRecordBatches(held));
    ARROW_ASSIGN_OR_RAISE(auto indices, take.Finish());
    ARROW_ASSIGN_OR_RAISE(arrow::Datum taken, arrow::compute::Take(all, indices));
    columns = taken.table()->columns();
  }
  std::vector<std::shared_ptr<arrow::Field>> fields = data_schema->fields();
  fields.push_back(arrow::field(kChangeTypeColumn, arrow::utf8(), false));
  fields.push_back(arrow::field(kChangeOrdinalColumn, arrow::int32(), false));
  fields.push_back(arrow::field(kCommitSnapshotIdColumn, arrow::int64(), false));
  ARROW_ASSIGN_OR_RAISE(auto type_array, types.Finish());
  ARROW_ASSIGN_OR_RAISE(auto ordinal_array, ordinals.Finish());
  ARROW_ASSIGN_OR_RAISE(auto id_array, ids.Finish());
  for (const auto& a : {type_array, ordinal_array, id_array}) {
    columns.push_back(std::make_shared<arrow::ChunkedArray>(a));
  }
  return arrow::Table::Make(arrow::schema(std::move(fields)), std::move(columns),
                            static_cast<int64_t>(order.size()));
}

}  // namespace

Result<ChangelogOptions> ChangelogRangeFromReadOptions(
    const table::Table& table, const std::vector<std::pair<std::string, std::string>>& options) {
  std::map<std::string, std::string> given;
  for (const auto& [key, value] : options) given[AsciiLower(key)] = value;
  for (const char* point : {"snapshot-id", "as-of-timestamp", "branch", "tag"}) {
    if (given.count(point)) {
      return Status::Invalid(
          "Cannot set neither snapshot-id, as-of-timestamp, branch and tag for changelogs");
    }
  }
  auto number = [&](const char* key) -> Result<std::optional<int64_t>> {
    auto it = given.find(key);
    if (it == given.end()) return std::nullopt;
    std::optional<int64_t> n = ParseInt64(it->second);
    if (!n) return Status::Invalid("For input string: \"", it->second, "\"");
    return n;
  };
  ARROW_ASSIGN_OR_RAISE(auto start_id, number("start-snapshot-id"));
  ARROW_ASSIGN_OR_RAISE(auto end_id, number("end-snapshot-id"));
  ARROW_ASSIGN_OR_RAISE(auto start_ts, number("start-timestamp"));
  ARROW_ASSIGN_OR_RAISE(auto end_ts, number("end-timestamp"));
  if (start_id && start_ts) {
    return Status::Invalid("Cannot set both start-snapshot-id and start-timestamp for changelogs");
  }
  if (end_id && end_ts) {
    return Status::Invalid("Cannot set both end-snapshot-id and end-timestamp for changelogs");
  }
  if (start_ts && end_ts && *start_ts >= *end_ts) {
    return Status::Invalid(
        "Cannot set start-timestamp to be greater than end-timestamp for changelogs");
  }
  auto md = table.metadata();
  // The current snapshot's ancestors, newest first.
  std::vector<const spec::Snapshot*> lineage;
  for (auto id = md->current_snapshot_id; id;) {
    const spec::Snapshot* s = md->SnapshotById(*id);
    if (!s) break;
    lineage.push_back(s);
    id = s->parent_snapshot_id;
  }
  ChangelogOptions out;
  out.from_exclusive = start_id;
  out.to_inclusive = end_id;
  if (start_ts) {
    if (lineage.empty() || *start_ts > lineage.front()->timestamp_ms) {
      out.empty = true;
      return out;
    }
    // The oldest ancestor at or after the time: itself excluded when exactly at it.
    const spec::Snapshot* first = nullptr;
    for (const spec::Snapshot* s : lineage) {
      if (s->timestamp_ms >= *start_ts) first = s;
    }
    out.from_exclusive = first->timestamp_ms == *start_ts
                             ? std::optional<int64_t>(first->snapshot_id)
                             : first->parent_snapshot_id;
  }
  if (end_ts) {
    for (const spec::Snapshot* s : lineage) {
      if (s->timestamp_ms <= *end_ts) {
        out.to_inclusive = s->snapshot_id;
        break;
      }
    }
    out.empty = (!out.from_exclusive && !out.to_inclusive) ||
                (out.from_exclusive && out.from_exclusive == out.to_inclusive);
  }
  return out;
}

Result<std::vector<int64_t>> ChangelogSnapshots(const table::Table& table,
                                                const ChangelogOptions& options) {
  auto md = table.metadata();
  std::vector<int64_t> out;
  if (options.empty) return out;
  std::optional<int64_t> to = options.to_inclusive ? options.to_inclusive : md->current_snapshot_id;
  const auto& from = options.from_exclusive;
  auto not_ancestor = [&]() {
    return ValidationError("Starting snapshot (exclusive) ", *from,
                           " is not a parent ancestor of end snapshot ",
                           to ? std::to_string(*to) : std::string("null"));
  };
  if (!to) {
    if (from) return not_ancestor();
    return out;
  }
  const spec::Snapshot* s = md->SnapshotById(*to);
  if (!s) return NotFound("Cannot find the end snapshot: ", *to);
  // From `to` back to the snapshot whose parent is `from` (which need not exist any more),
  // or, without `from`, to the first snapshot or the first whose parent has expired.
  while (true) {
    if (s->operation != "replace") out.push_back(s->snapshot_id);
    if (from && s->parent_snapshot_id == from) break;
    const spec::Snapshot* parent =
        s->parent_snapshot_id ? md->SnapshotById(*s->parent_snapshot_id) : nullptr;
    if (!parent) {
      if (from) return not_ancestor();
      break;
    }
    s = parent;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

namespace {

// What a changelog reads with: the current schema, the key columns, the snapshots.
struct ChangelogPlan {
  spec::SchemaPtr schema;
  std::vector<int> keys;
  std::vector<std::string> key_names;
  std::vector<int64_t> snapshots;
};

Result<ChangelogPlan> PlanChangelog(const table::Table& table, const ChangelogOptions& options) {
  if (options.net_changes && options.compute_updates) {
    return Status::Invalid("Not support net changes with update images");
  }
  ChangelogPlan plan;
  plan.schema = table.metadata()->current_schema();
  if (!plan.schema) return Status::IOError("Table ", table.name(), " has no current schema");
  if (options.compute_updates) {
    // Format v3 pairs updates by row lineage, identifier columns or not.
    if (options.identifier_columns.empty() && table.metadata()->format_version < 3) {
      return Status::Invalid(
          "Cannot compute the update images because identifier columns are not set");
    }
    const auto& fields = plan.schema->fields();
    for (const auto& name : options.identifier_columns) {
      int found = -1;
      for (size_t i = 0; i < fields.size(); ++i) {
        if (AsciiLower(fields[i].name) == AsciiLower(name)) found = static_cast<int>(i);
      }
      if (found < 0) {
        return NotFound("Cannot find identifier column '", name, "' in table ", table.name());
      }
      plan.keys.push_back(found);
      plan.key_names.push_back(name);
    }
  }
  ARROW_ASSIGN_OR_RAISE(plan.snapshots, ChangelogSnapshots(table, options));
  return plan;
}

// The changes of the snapshot at `ordinal` against its parent, read into `collector`; the
// indices of its rows. Without net changes its carry-over is removed and its rows compacted.
Result<std::vector<size_t>> ReadSnapshotChanges(const std::shared_ptr<table::Table>& table,
                                                const ChangelogPlan& plan, size_t ordinal,
                                                const ChangelogOptions& options,
                                                ChangeCollector& collector) {
  const spec::Snapshot* s = table->metadata()->SnapshotById(plan.snapshots[ordinal]);
  std::vector<FileScanTask> before;
  if (s->parent_snapshot_id) {
    ARROW_ASSIGN_OR_RAISE(before, TableScan(table).UseSnapshot(*s->parent_snapshot_id).PlanFiles());
  }
  ARROW_ASSIGN_OR_RAISE(auto after, TableScan(table).UseSnapshot(s->snapshot_id).PlanFiles());
  // Files by path; equal keys (same deletes) hold the same rows and are not read.
  std::map<std::string, FileScanTask*> after_by_path;
  std::unordered_map<std::string, int> after_keys;
  for (auto& t : after) {
    after_by_path[t.file.file_path] = &t;
    ++after_keys[FileTaskKey(t)];
  }
  std::vector<FileScanTask> removed, inserted, rechecked_before, rechecked_after;
  std::unordered_set<std::string> before_paths;
  for (auto& t : before) {
    before_paths.insert(t.file.file_path);
    auto same = after_keys.find(FileTaskKey(t));
    if (same != after_keys.end() && same->second > 0) {
      --same->second;
      continue;
    }
    auto it = after_by_path.find(t.file.file_path);
    if (it == after_by_path.end()) {
      removed.push_back(t);
    } else {
      rechecked_before.push_back(t);
      rechecked_after.push_back(*it->second);
    }
  }
  for (auto& t : after) {
    if (!before_paths.count(t.file.file_path)) inserted.push_back(t);
  }
  const size_t first = collector.rows().size();
  const size_t first_batch = collector.batches().size();
  const auto ord = static_cast<int32_t>(ordinal);
  ARROW_RETURN_NOT_OK(collector.Read(removed, Change::kDelete, ord));
  ARROW_ASSIGN_OR_RAISE(auto still_live, collector.Locations(rechecked_after));
  ARROW_RETURN_NOT_OK(collector.Read(rechecked_before, Change::kDelete, ord, &still_live));
  ARROW_RETURN_NOT_OK(collector.Read(inserted, Change::kInsert, ord));
  std::vector<size_t> rows(collector.rows().size() - first);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = first + i;
  // Net changes cancel over the whole range instead.
  if (!options.net_changes) {
    MatchLineage(collector, rows, options.compute_updates);
    RemoveCarryOver(collector, rows);
  }
  if (options.compute_updates) {
    ARROW_RETURN_NOT_OK(ComputeUpdates(collector, rows, plan.keys, plan.key_names));
  }
  if (!options.net_changes) ARROW_RETURN_NOT_OK(collector.Compact(first, first_batch));
  return rows;
}

// The output order of one snapshot's rows still kept: deletes, update pairs (before, after),
// inserts.
void AppendInOrder(const ChangeCollector& c, const std::vector<size_t>& rows,
                   std::vector<size_t>* order) {
  std::vector<size_t> kept;
  for (size_t i : rows) {
    if (!c.rows()[i].dropped) kept.push_back(i);
  }
  for (Change wanted : {Change::kDelete, Change::kUpdateBefore, Change::kInsert}) {
    for (size_t i : kept) {
      const ChangeRow& r = c.rows()[i];
      if (r.change != wanted) continue;
      order->push_back(i);
      if (wanted == Change::kUpdateBefore) order->push_back(r.partner);
    }
  }
}

// Without net changes each snapshot's rows stand alone: read, matched and handed out one
// snapshot at a time, so only one snapshot's changed files are held.
class SnapshotChangesReader : public arrow::RecordBatchReader {
 public:
  SnapshotChangesReader(std::shared_ptr<table::Table> table, ChangelogPlan plan,
                        ChangelogOptions options, std::shared_ptr<arrow::Schema> schema)
      : table_(std::move(table)),
        plan_(std::move(plan)),
        options_(std::move(options)),
        schema_(std::move(schema)) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = nullptr;
    while (next_ < plan_.snapshots.size()) {
      const size_t ordinal = next_++;
      ChangeCollector collector(table_, plan_.schema);
      ARROW_ASSIGN_OR_RAISE(auto rows,
                            ReadSnapshotChanges(table_, plan_, ordinal, options_, collector));
      std::vector<size_t> order;
      AppendInOrder(collector, rows, &order);
      if (order.empty()) continue;
      ARROW_ASSIGN_OR_RAISE(auto changes,
                            BuildChangelogTable(collector, *plan_.schema, plan_.snapshots, order));
      ARROW_ASSIGN_OR_RAISE(*out, changes->CombineChunksToBatch());
      return Status::OK();
    }
    return Status::OK();
  }

 private:
  std::shared_ptr<table::Table> table_;
  ChangelogPlan plan_;
  ChangelogOptions options_;
  std::shared_ptr<arrow::Schema> schema_;
  size_t next_ = 0;
};

}  // namespace

Result<std::shared_ptr<arrow::Table>> ReadChangelog(const std::shared_ptr<table::Table>& table,
                                                    const ChangelogOptions& options) {
  ARROW_ASSIGN_OR_RAISE(ChangelogPlan plan, PlanChangelog(*table, options));
  ChangeCollector collector(table, plan.schema);
  std::vector<std::vector<size_t>> by_snapshot;
  for (size_t ordinal = 0; ordinal < plan.snapshots.size(); ++ordinal) {
    ARROW_ASSIGN_OR_RAISE(auto rows, ReadSnapshotChanges(table, plan, ordinal, options, collector));
    by_snapshot.push_back(std::move(rows));
  }
  if (options.net_changes) RemoveNetCarryOver(collector);
  std::vector<size_t> order;
  for (const auto& rows : by_snapshot) AppendInOrder(collector, rows, &order);
  return BuildChangelogTable(collector, *plan.schema, plan.snapshots, order);
}

Result<std::shared_ptr<arrow::RecordBatchReader>> StreamChangelog(
    const std::shared_ptr<table::Table>& table, const ChangelogOptions& options) {
  if (options.net_changes) {
    ARROW_ASSIGN_OR_RAISE(auto rows, ReadChangelog(table, options));
    return std::make_shared<arrow::TableBatchReader>(rows);
  }
  ARROW_ASSIGN_OR_RAISE(ChangelogPlan plan, PlanChangelog(*table, options));
  // The schema of the rows: that of an empty changelog.
  ChangeCollector none(table, plan.schema);
  ARROW_ASSIGN_OR_RAISE(auto empty, BuildChangelogTable(none, *plan.schema, plan.snapshots, {}));
  return std::make_shared<SnapshotChangesReader>(table, std::move(plan), options, empty->schema());
}

}  // namespace floe::scan
