#include "floe/sql/metadata/metadata_tables.h"

#include <map>
#include <set>

#include <arrow/api.h>

#include "floe/manifest/manifest_reader.h"
#include "floe/spec/table_partition_type.h"
#include "floe/sql/metadata/audit_log_table.h"
#include "floe/table/arrow_literal.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/audit_log.h"
#include "floe/table/history.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

namespace {

auto Ts() { return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"); }

Result<std::shared_ptr<arrow::Table>> Snapshots(const spec::TableMetadata& md) {
  arrow::TimestampBuilder committed(Ts(), arrow::default_memory_pool());
  arrow::Int64Builder id, parent;
  arrow::StringBuilder op, list;
  auto map_type = arrow::map(arrow::utf8(), arrow::utf8());
  arrow::MapBuilder summary(arrow::default_memory_pool(), std::make_shared<arrow::StringBuilder>(),
                            std::make_shared<arrow::StringBuilder>(), map_type);
  auto* keys = static_cast<arrow::StringBuilder*>(summary.key_builder());
  auto* values = static_cast<arrow::StringBuilder*>(summary.item_builder());
  for (const auto& row : table::SnapshotRows(md)) {
    ARROW_RETURN_NOT_OK(committed.Append(row.committed_at_ms * 1000));
    ARROW_RETURN_NOT_OK(id.Append(row.snapshot_id));
    ARROW_RETURN_NOT_OK(row.parent_id ? parent.Append(*row.parent_id) : parent.AppendNull());
    ARROW_RETURN_NOT_OK(op.Append(row.operation));
    ARROW_RETURN_NOT_OK(list.Append(row.manifest_list));
    ARROW_RETURN_NOT_OK(summary.Append());
    for (const auto& [k, v] : row.summary) {
      ARROW_RETURN_NOT_OK(keys->Append(k));
      ARROW_RETURN_NOT_OK(values->Append(v));
    }
  }
  auto schema = arrow::schema({arrow::field("committed_at", Ts()), arrow::field("snapshot_id", arrow::int64()),
                               arrow::field("parent_id", arrow::int64()), arrow::field("operation", arrow::utf8()),
                               arrow::field("manifest_list", arrow::utf8()), arrow::field("summary", map_type)});
  ARROW_ASSIGN_OR_RAISE(auto a, committed.Finish());
  ARROW_ASSIGN_OR_RAISE(auto b, id.Finish());
  ARROW_ASSIGN_OR_RAISE(auto c, parent.Finish());
  ARROW_ASSIGN_OR_RAISE(auto d, op.Finish());
  ARROW_ASSIGN_OR_RAISE(auto e, list.Finish());
  ARROW_ASSIGN_OR_RAISE(auto f, summary.Finish());
  return arrow::Table::Make(schema, {a, b, c, d, e, f});
}

Result<std::shared_ptr<arrow::Table>> History(const spec::TableMetadata& md) {
  arrow::TimestampBuilder made(Ts(), arrow::default_memory_pool());
  arrow::Int64Builder id, parent;
  arrow::BooleanBuilder ancestor;
  for (const auto& row : table::HistoryRows(md)) {
    ARROW_RETURN_NOT_OK(made.Append(row.made_current_at_ms * 1000));
    ARROW_RETURN_NOT_OK(id.Append(row.snapshot_id));
    ARROW_RETURN_NOT_OK(row.parent_id ? parent.Append(*row.parent_id) : parent.AppendNull());
    ARROW_RETURN_NOT_OK(ancestor.Append(row.is_current_ancestor));
  }
  auto schema = arrow::schema({arrow::field("made_current_at", Ts()), arrow::field("snapshot_id", arrow::int64()),
                               arrow::field("parent_id", arrow::int64()),
                               arrow::field("is_current_ancestor", arrow::boolean())});
  ARROW_ASSIGN_OR_RAISE(auto a, made.Finish());
  ARROW_ASSIGN_OR_RAISE(auto b, id.Finish());
  ARROW_ASSIGN_OR_RAISE(auto c, parent.Finish());
  ARROW_ASSIGN_OR_RAISE(auto d, ancestor.Finish());
  return arrow::Table::Make(schema, {a, b, c, d});
}

Result<std::shared_ptr<arrow::Table>> Refs(const spec::TableMetadata& md) {
  arrow::StringBuilder name, type;
  arrow::Int64Builder id, max_ref_age, max_snapshot_age;
  arrow::Int32Builder min_snapshots;
  for (const auto& [n, ref] : md.refs) {
    ARROW_RETURN_NOT_OK(name.Append(n));
    ARROW_RETURN_NOT_OK(type.Append(ref.is_branch() ? "BRANCH" : "TAG"));
    ARROW_RETURN_NOT_OK(id.Append(ref.snapshot_id));
    ARROW_RETURN_NOT_OK(ref.max_ref_age_ms ? max_ref_age.Append(*ref.max_ref_age_ms) : max_ref_age.AppendNull());
    ARROW_RETURN_NOT_OK(ref.min_snapshots_to_keep ? min_snapshots.Append(*ref.min_snapshots_to_keep) : min_snapshots.AppendNull());
    ARROW_RETURN_NOT_OK(ref.max_snapshot_age_ms ? max_snapshot_age.Append(*ref.max_snapshot_age_ms) : max_snapshot_age.AppendNull());
  }
  auto schema = arrow::schema({arrow::field("name", arrow::utf8()), arrow::field("type", arrow::utf8()),
                               arrow::field("snapshot_id", arrow::int64()),
                               arrow::field("max_reference_age_in_ms", arrow::int64()),
                               arrow::field("min_snapshots_to_keep", arrow::int32()),
                               arrow::field("max_snapshot_age_in_ms", arrow::int64())});
  ARROW_ASSIGN_OR_RAISE(auto a, name.Finish());
  ARROW_ASSIGN_OR_RAISE(auto b, type.Finish());
  ARROW_ASSIGN_OR_RAISE(auto c, id.Finish());
  ARROW_ASSIGN_OR_RAISE(auto d, max_ref_age.Finish());
  ARROW_ASSIGN_OR_RAISE(auto e, min_snapshots.Finish());
  ARROW_ASSIGN_OR_RAISE(auto f, max_snapshot_age.Finish());
  return arrow::Table::Make(schema, {a, b, c, d, e, f});
}

// The snapshot that was current when `timestamp_ms` was written.
std::optional<int64_t> SnapshotAt(const spec::TableMetadata& md, int64_t timestamp_ms) {
  std::optional<int64_t> id;
  for (const auto& e : md.snapshot_log) {
    if (e.timestamp_ms <= timestamp_ms) id = e.snapshot_id;
  }
  return id;
}

Result<std::shared_ptr<arrow::Table>> MetadataLog(const table::Table& t) {
  auto md = t.metadata();
  arrow::TimestampBuilder ts(Ts(), arrow::default_memory_pool());
  arrow::StringBuilder file;
  arrow::Int64Builder snapshot, seq;
  arrow::Int32Builder schema_id;
  auto add = [&](int64_t timestamp_ms, const std::string& path, std::optional<int64_t> snap) -> Status {
    ARROW_RETURN_NOT_OK(ts.Append(timestamp_ms * 1000));
    ARROW_RETURN_NOT_OK(file.Append(path));
    ARROW_RETURN_NOT_OK(snap ? snapshot.Append(*snap) : snapshot.AppendNull());
    const spec::Snapshot* s = snap ? md->SnapshotById(*snap) : nullptr;
    ARROW_RETURN_NOT_OK(s && s->schema_id ? schema_id.Append(*s->schema_id) : schema_id.AppendNull());
    ARROW_RETURN_NOT_OK(s ? seq.Append(s->sequence_number) : seq.AppendNull());
    return Status::OK();
  };
  for (const auto& e : md->metadata_log) ARROW_RETURN_NOT_OK(add(e.timestamp_ms, e.metadata_file, SnapshotAt(*md, e.timestamp_ms)));
  ARROW_RETURN_NOT_OK(add(md->last_updated_ms, t.metadata_location(), md->current_snapshot_id));
  auto schema = arrow::schema({arrow::field("timestamp", Ts()), arrow::field("file", arrow::utf8()),
                               arrow::field("latest_snapshot_id", arrow::int64()),
                               arrow::field("latest_schema_id", arrow::int32()),
                               arrow::field("latest_sequence_number", arrow::int64())});
  ARROW_ASSIGN_OR_RAISE(auto a, ts.Finish());
  ARROW_ASSIGN_OR_RAISE(auto b, file.Finish());
  ARROW_ASSIGN_OR_RAISE(auto c, snapshot.Finish());
  ARROW_ASSIGN_OR_RAISE(auto d, schema_id.Finish());
  ARROW_ASSIGN_OR_RAISE(auto e, seq.Finish());
  return arrow::Table::Make(schema, {a, b, c, d, e});
}

// The partition tuple as a struct scalar of the table's partition type (every spec's fields,
// NULL where the file's spec has none of them).
Result<std::shared_ptr<arrow::Scalar>> PartitionScalar(const manifest::DataFile& f, const spec::TableMetadata& md,
                                                       const spec::Type& table_type,
                                                       const std::shared_ptr<arrow::DataType>& type) {
  arrow::ScalarVector values;
  for (const auto& v : spec::CoercePartition(table_type, md, f.spec_id, f.partition)) {
    ARROW_ASSIGN_OR_RAISE(auto s, table::LiteralToScalar(v));
    // A value written before its source column was widened (int -> long) shows in the new type.
    const auto& want = type->field(static_cast<int>(values.size()))->type();
    if (!s->type->Equals(*want)) {
      ARROW_ASSIGN_OR_RAISE(s, s->CastTo(want));
    }
    values.push_back(s);
  }
  return std::make_shared<arrow::StructScalar>(values, type);
}

struct Entry {
  manifest::ManifestFile manifest;
  manifest::ManifestEntry entry;
};

// The manifests of the given snapshots, each once (all_* tables read every snapshot).
Result<std::vector<manifest::ManifestFile>> DistinctManifests(const table::Table& t,
                                                              const std::vector<const spec::Snapshot*>& snaps) {
  std::vector<manifest::ManifestFile> out;
  std::set<std::string> seen;
  for (const spec::Snapshot* snap : snaps) {
    if (!snap || snap->manifest_list.empty()) continue;
    ARROW_ASSIGN_OR_RAISE(auto manifests, manifest::ReadManifestList(*t.io(), snap->manifest_list));
    for (auto& mf : manifests) {
      if (seen.insert(mf.manifest_path).second) out.push_back(std::move(mf));
    }
  }
  return out;
}

std::vector<const spec::Snapshot*> AllSnapshots(const spec::TableMetadata& md) {
  std::vector<const spec::Snapshot*> out;
  for (const auto& s : md.snapshots) out.push_back(&s);
  return out;
}

// The entries of the manifests; deleted ones only when `with_deleted`.
Result<std::vector<Entry>> ReadEntries(const table::Table& t, const std::vector<manifest::ManifestFile>& manifests,
                                       bool with_deleted) {
  std::vector<Entry> out;
  auto md = t.metadata();
  for (const auto& mf : manifests) {
    ARROW_ASSIGN_OR_RAISE(auto entries, manifest::ReadManifest(*t.io(), mf, *md));
    for (auto& e : entries) {
      if (with_deleted || e.status != manifest::EntryStatus::kDeleted) out.push_back({mf, std::move(e)});
    }
  }
  return out;
}

Result<std::vector<Entry>> LiveEntries(const table::Table& t, const spec::Snapshot* snap) {
  ARROW_ASSIGN_OR_RAISE(auto manifests, DistinctManifests(t, {snap}));
  return ReadEntries(t, manifests, false);
}

// Spark's files tables: one row a file of `entries` whose content passes `content_filter`
// (-1 any, 0 data, 1 deletes).
Result<std::shared_ptr<arrow::Table>> FilesOf(const table::Table& t, const std::vector<Entry>& entries,
                                              int content_filter) {
  auto md = t.metadata();
  arrow::Int32Builder content, spec_id;
  arrow::StringBuilder path, format;
  arrow::Int64Builder records, size;
  arrow::ScalarVector partitions;
  ARROW_ASSIGN_OR_RAISE(auto table_type, spec::TablePartitionType(*md));
  std::shared_ptr<arrow::DataType> partition_type;
  if (!table_type->fields().empty()) {
    ARROW_ASSIGN_OR_RAISE(partition_type, table::ToArrowType(*table_type));
  }
  for (const auto& e : entries) {
    const auto& f = e.entry.data_file;
    int c = static_cast<int>(f.content);
    if (content_filter == 0 && c != 0) continue;
    if (content_filter == 1 && c == 0) continue;
    ARROW_RETURN_NOT_OK(content.Append(c));
    ARROW_RETURN_NOT_OK(path.Append(f.file_path));
    ARROW_RETURN_NOT_OK(format.Append(f.file_format));
    ARROW_RETURN_NOT_OK(spec_id.Append(f.spec_id));
    ARROW_RETURN_NOT_OK(records.Append(f.record_count));
    ARROW_RETURN_NOT_OK(size.Append(f.file_size_in_bytes));
    if (partition_type) {
      ARROW_ASSIGN_OR_RAISE(auto p, PartitionScalar(f, *md, *table_type, partition_type));
      partitions.push_back(p);
    }
  }
  arrow::FieldVector fields = {arrow::field("content", arrow::int32()), arrow::field("file_path", arrow::utf8()),
                               arrow::field("file_format", arrow::utf8()), arrow::field("spec_id", arrow::int32())};
  ARROW_ASSIGN_OR_RAISE(auto a, content.Finish());
  ARROW_ASSIGN_OR_RAISE(auto b, path.Finish());
  ARROW_ASSIGN_OR_RAISE(auto c, format.Finish());
  ARROW_ASSIGN_OR_RAISE(auto d, spec_id.Finish());
  arrow::ArrayVector arrays = {a, b, c, d};
  if (partition_type && !static_cast<const arrow::StructType&>(*partition_type).fields().empty()) {
    fields.push_back(arrow::field("partition", partition_type));
    std::unique_ptr<arrow::ArrayBuilder> builder;
    ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), partition_type, &builder));
    for (const auto& p : partitions) ARROW_RETURN_NOT_OK(builder->AppendScalar(*p));
    ARROW_ASSIGN_OR_RAISE(auto parr, builder->Finish());
    arrays.push_back(parr);
  }
  fields.push_back(arrow::field("record_count", arrow::int64()));
  fields.push_back(arrow::field("file_size_in_bytes", arrow::int64()));
  ARROW_ASSIGN_OR_RAISE(auto r, records.Finish());
  ARROW_ASSIGN_OR_RAISE(auto s, size.Finish());
  arrays.push_back(r);
  arrays.push_back(s);
  // The per-column metrics, as Spark's files table has them (bounds in their binary form).
  std::vector<const manifest::DataFile*> kept;
  for (const auto& e : entries) {
    int kind = static_cast<int>(e.entry.data_file.content);
    if ((content_filter == 0 && kind != 0) || (content_filter == 1 && kind == 0)) continue;
    kept.push_back(&e.entry.data_file);
  }
  // One map<int, V> column of a metric kept per field id: NULL where the manifest has no map
  // (as Spark shows floe's and Java's position delete files), {} where it has an empty one.
  auto metric_map = [&](const char* name, auto member, uint8_t bit, auto value_builder) -> Status {
    using ValueBuilder = typename decltype(value_builder)::element_type;
    auto type = arrow::map(arrow::int32(), value_builder->type());
    arrow::MapBuilder builder(arrow::default_memory_pool(), std::make_shared<arrow::Int32Builder>(),
                              value_builder, type);
    for (const auto* f : kept) {
      if ((f->*member).empty() && !(f->empty_metric_maps & bit)) {
        ARROW_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      ARROW_RETURN_NOT_OK(builder.Append());
      for (const auto& [id, v] : f->*member) {
        ARROW_RETURN_NOT_OK(static_cast<arrow::Int32Builder*>(builder.key_builder())->Append(id));
        ARROW_RETURN_NOT_OK(static_cast<ValueBuilder*>(builder.item_builder())->Append(v));
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto array, builder.Finish());
    fields.push_back(arrow::field(name, type));
    arrays.push_back(array);
    return Status::OK();
  };
  using DF = manifest::DataFile;
  auto longs = [] { return std::make_shared<arrow::Int64Builder>(); };
  auto bytes = [] { return std::make_shared<arrow::BinaryBuilder>(); };
  ARROW_RETURN_NOT_OK(metric_map("column_sizes", &DF::column_sizes, manifest::kColumnSizesMap, longs()));
  ARROW_RETURN_NOT_OK(metric_map("value_counts", &DF::value_counts, manifest::kValueCountsMap, longs()));
  ARROW_RETURN_NOT_OK(metric_map("null_value_counts", &DF::null_value_counts, manifest::kNullValueCountsMap, longs()));
  ARROW_RETURN_NOT_OK(metric_map("nan_value_counts", &DF::nan_value_counts, manifest::kNanValueCountsMap, longs()));
  ARROW_RETURN_NOT_OK(metric_map("lower_bounds", &DF::lower_bounds, manifest::kLowerBoundsMap, bytes()));
  ARROW_RETURN_NOT_OK(metric_map("upper_bounds", &DF::upper_bounds, manifest::kUpperBoundsMap, bytes()));
  arrow::ListBuilder offsets(arrow::default_memory_pool(), std::make_shared<arrow::Int64Builder>());
  arrow::ListBuilder equality(arrow::default_memory_pool(), std::make_shared<arrow::Int32Builder>());
  arrow::Int32Builder sort_order;
  arrow::Int64Builder first_row_id, content_offset, content_size;
  arrow::StringBuilder referenced;
  auto optional_long = [](arrow::Int64Builder& builder, const std::optional<int64_t>& v) {
    return v ? builder.Append(*v) : builder.AppendNull();
  };
  for (const auto* f : kept) {
    ARROW_RETURN_NOT_OK(optional_long(first_row_id, f->first_row_id));
    ARROW_RETURN_NOT_OK(f->referenced_data_file ? referenced.Append(*f->referenced_data_file) : referenced.AppendNull());
    ARROW_RETURN_NOT_OK(optional_long(content_offset, f->content_offset));
    ARROW_RETURN_NOT_OK(optional_long(content_size, f->content_size_in_bytes));
    ARROW_RETURN_NOT_OK(f->split_offsets.empty() ? offsets.AppendNull() : offsets.Append());
    for (int64_t o : f->split_offsets) {
      ARROW_RETURN_NOT_OK(static_cast<arrow::Int64Builder*>(offsets.value_builder())->Append(o));
    }
    ARROW_RETURN_NOT_OK(f->equality_ids.empty() ? equality.AppendNull() : equality.Append());
    for (int32_t id : f->equality_ids) {
      ARROW_RETURN_NOT_OK(static_cast<arrow::Int32Builder*>(equality.value_builder())->Append(id));
    }
    ARROW_RETURN_NOT_OK(f->sort_order_id ? sort_order.Append(*f->sort_order_id) : sort_order.AppendNull());
  }
  ARROW_ASSIGN_OR_RAISE(auto offsets_array, offsets.Finish());
  ARROW_ASSIGN_OR_RAISE(auto equality_array, equality.Finish());
  ARROW_ASSIGN_OR_RAISE(auto sort_array, sort_order.Finish());
  fields.push_back(arrow::field("split_offsets", offsets_array->type()));
  arrays.push_back(offsets_array);
  fields.push_back(arrow::field("equality_ids", equality_array->type()));
  arrays.push_back(equality_array);
  fields.push_back(arrow::field("sort_order_id", arrow::int32()));
  arrays.push_back(sort_array);
  // Row lineage and deletion vectors (v3), after the other columns as in Iceberg's files tables.
  ARROW_ASSIGN_OR_RAISE(auto first_row_id_array, first_row_id.Finish());
  ARROW_ASSIGN_OR_RAISE(auto referenced_array, referenced.Finish());
  ARROW_ASSIGN_OR_RAISE(auto content_offset_array, content_offset.Finish());
  ARROW_ASSIGN_OR_RAISE(auto content_size_array, content_size.Finish());
  fields.push_back(arrow::field("first_row_id", arrow::int64()));
  arrays.push_back(first_row_id_array);
  fields.push_back(arrow::field("referenced_data_file", arrow::utf8()));
  arrays.push_back(referenced_array);
  fields.push_back(arrow::field("content_offset", arrow::int64()));
  arrays.push_back(content_offset_array);
  fields.push_back(arrow::field("content_size_in_bytes", arrow::int64()));
  arrays.push_back(content_size_array);
  return arrow::Table::Make(arrow::schema(fields), arrays);
}

Result<std::shared_ptr<arrow::Table>> Files(const table::Table& t, const spec::Snapshot* snap, int content_filter) {
  ARROW_ASSIGN_OR_RAISE(auto entries, LiveEntries(t, snap));
  return FilesOf(t, entries, content_filter);
}

// Iceberg's all_*_files: the live files of every snapshot's manifests (a file listed by several
// manifests appears once for each, as in Iceberg).
Result<std::shared_ptr<arrow::Table>> AllFiles(const table::Table& t, int content_filter) {
  ARROW_ASSIGN_OR_RAISE(auto manifests, DistinctManifests(t, AllSnapshots(*t.metadata())));
  ARROW_ASSIGN_OR_RAISE(auto entries, ReadEntries(t, manifests, false));
  return FilesOf(t, entries, content_filter);
}

// Spark's entries tables: every entry of the manifests (added 1, existing 0, deleted 2), with its
// file as the `data_file` struct of the files table's columns.
Result<std::shared_ptr<arrow::Table>> EntriesOf(const table::Table& t, const std::vector<manifest::ManifestFile>& manifests) {
  ARROW_ASSIGN_OR_RAISE(auto entries, ReadEntries(t, manifests, true));
  ARROW_ASSIGN_OR_RAISE(auto files, FilesOf(t, entries, -1));
  arrow::Int32Builder status;
  arrow::Int64Builder snapshot, seq, file_seq;
  for (const auto& e : entries) {
    ARROW_RETURN_NOT_OK(status.Append(static_cast<int32_t>(e.entry.status)));
    ARROW_RETURN_NOT_OK(e.entry.snapshot_id ? snapshot.Append(*e.entry.snapshot_id) : snapshot.AppendNull());
    ARROW_RETURN_NOT_OK(e.entry.sequence_number ? seq.Append(*e.entry.sequence_number) : seq.AppendNull());
    ARROW_RETURN_NOT_OK(e.entry.file_sequence_number ? file_seq.Append(*e.entry.file_sequence_number)
                                                     : file_seq.AppendNull());
  }
  ARROW_ASSIGN_OR_RAISE(auto files_batch, files->CombineChunksToBatch());
  ARROW_ASSIGN_OR_RAISE(auto data_file, files_batch->ToStructArray());
  arrow::ArrayVector arrays(5);
  ARROW_ASSIGN_OR_RAISE(arrays[0], status.Finish());
  ARROW_ASSIGN_OR_RAISE(arrays[1], snapshot.Finish());
  ARROW_ASSIGN_OR_RAISE(arrays[2], seq.Finish());
  ARROW_ASSIGN_OR_RAISE(arrays[3], file_seq.Finish());
  arrays[4] = data_file;
  auto schema = arrow::schema({arrow::field("status", arrow::int32()), arrow::field("snapshot_id", arrow::int64()),
                               arrow::field("sequence_number", arrow::int64()),
                               arrow::field("file_sequence_number", arrow::int64()),
                               arrow::field("data_file", data_file->type())});
  return arrow::Table::Make(schema, arrays);
}

// The partition summaries of a manifest as Iceberg's manifests table shows them: bounds in the
// transform's human form (a day as 2024-01-15, a bucket as its number).
Status AppendPartitionSummaries(const table::Table& t, const manifest::ManifestFile& m, arrow::ListBuilder* list) {
  ARROW_RETURN_NOT_OK(list->Append());
  auto* item = static_cast<arrow::StructBuilder*>(list->value_builder());
  auto* contains_null = static_cast<arrow::BooleanBuilder*>(item->field_builder(0));
  auto* contains_nan = static_cast<arrow::BooleanBuilder*>(item->field_builder(1));
  auto* lower = static_cast<arrow::StringBuilder*>(item->field_builder(2));
  auto* upper = static_cast<arrow::StringBuilder*>(item->field_builder(3));
  auto md = t.metadata();
  const spec::PartitionSpec* ps = md->SpecById(m.partition_spec_id);
  std::shared_ptr<const spec::Type> ptype;
  if (ps) {
    auto type = ps->PartitionType(*md->current_schema());
    if (type.ok()) ptype = *type;
  }
  for (size_t i = 0; i < m.partitions.size(); ++i) {
    const auto& s = m.partitions[i];
    ARROW_RETURN_NOT_OK(item->Append());
    ARROW_RETURN_NOT_OK(contains_null->Append(s.contains_null));
    ARROW_RETURN_NOT_OK(s.contains_nan ? contains_nan->Append(*s.contains_nan) : contains_nan->AppendNull());
    for (const auto& [bound, builder] : {std::pair{&s.lower_bound, lower}, std::pair{&s.upper_bound, upper}}) {
      std::optional<std::string> text;
      if (*bound && ptype && i < ptype->fields().size() && i < ps->fields().size()) {
        auto value = spec::FromSingleValueBinary(ptype->fields()[i].type, **bound);
        if (value.ok()) text = ps->fields()[i].transform.ToHumanString(*value);
      }
      ARROW_RETURN_NOT_OK(text ? builder->Append(*text) : builder->AppendNull());
    }
  }
  return Status::OK();
}

// One row a manifest of `manifests`; `reference_snapshots`, when given, adds the column
// all_manifests has: the snapshot whose manifest list named it.
Result<std::shared_ptr<arrow::Table>> ManifestsOf(const table::Table& t,
                                                  const std::vector<manifest::ManifestFile>& manifests,
                                                  const std::vector<int64_t>* reference_snapshots) {
  arrow::Int32Builder content, spec_id, added, existing, deleted, added_d, existing_d, deleted_d;
  arrow::StringBuilder path;
  arrow::Int64Builder length, snapshot;
  auto summary_type = arrow::struct_({arrow::field("contains_null", arrow::boolean(), false),
                                      arrow::field("contains_nan", arrow::boolean()),
                                      arrow::field("lower_bound", arrow::utf8()),
                                      arrow::field("upper_bound", arrow::utf8())});
  std::unique_ptr<arrow::ArrayBuilder> summaries_builder;
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), arrow::list(summary_type), &summaries_builder));
  auto* summaries = static_cast<arrow::ListBuilder*>(summaries_builder.get());
  for (const auto& m : manifests) {
    bool data = m.content == manifest::ManifestContent::kData;
    ARROW_RETURN_NOT_OK(content.Append(static_cast<int>(m.content)));
    ARROW_RETURN_NOT_OK(path.Append(m.manifest_path));
    ARROW_RETURN_NOT_OK(length.Append(m.manifest_length));
    ARROW_RETURN_NOT_OK(spec_id.Append(m.partition_spec_id));
    ARROW_RETURN_NOT_OK(snapshot.Append(m.added_snapshot_id));
    ARROW_RETURN_NOT_OK(added.Append(data ? m.added_files_count : 0));
    ARROW_RETURN_NOT_OK(existing.Append(data ? m.existing_files_count : 0));
    ARROW_RETURN_NOT_OK(deleted.Append(data ? m.deleted_files_count : 0));
    ARROW_RETURN_NOT_OK(added_d.Append(data ? 0 : m.added_files_count));
    ARROW_RETURN_NOT_OK(existing_d.Append(data ? 0 : m.existing_files_count));
    ARROW_RETURN_NOT_OK(deleted_d.Append(data ? 0 : m.deleted_files_count));
    ARROW_RETURN_NOT_OK(AppendPartitionSummaries(t, m, summaries));
  }
  auto i32 = arrow::int32();
  auto schema = arrow::schema({arrow::field("content", i32), arrow::field("path", arrow::utf8()),
                               arrow::field("length", arrow::int64()), arrow::field("partition_spec_id", i32),
                               arrow::field("added_snapshot_id", arrow::int64()),
                               arrow::field("added_data_files_count", i32), arrow::field("existing_data_files_count", i32),
                               arrow::field("deleted_data_files_count", i32), arrow::field("added_delete_files_count", i32),
                               arrow::field("existing_delete_files_count", i32),
                               arrow::field("deleted_delete_files_count", i32),
                               arrow::field("partition_summaries", arrow::list(summary_type))});
  arrow::ArrayVector arrays(12);
  ARROW_ASSIGN_OR_RAISE(arrays[0], content.Finish());
  ARROW_ASSIGN_OR_RAISE(arrays[1], path.Finish());
  ARROW_ASSIGN_OR_RAISE(arrays[2], length.Finish());
  ARROW_ASSIGN_OR_RAISE(arrays[3], spec_id.Finish());
  ARROW_ASSIGN_OR_RAISE(arrays[4], snapshot.Finish());
  ARROW_ASSIGN_OR_RAISE(arrays[5], added.Finish());
  ARROW_ASSIGN_OR_RAISE(arrays[6], existing.Finish());
  ARROW_ASSIGN_OR_RAISE(arrays[7], deleted.Finish());
  ARROW_ASSIGN_OR_RAISE(arrays[8], added_d.Finish());
  ARROW_ASSIGN_OR_RAISE(arrays[9], existing_d.Finish());
  ARROW_ASSIGN_OR_RAISE(arrays[10], deleted_d.Finish());
  ARROW_ASSIGN_OR_RAISE(arrays[11], summaries->Finish());
  if (reference_snapshots) {
    arrow::Int64Builder refs;
    ARROW_RETURN_NOT_OK(refs.AppendValues(*reference_snapshots));
    ARROW_ASSIGN_OR_RAISE(auto r, refs.Finish());
    ARROW_ASSIGN_OR_RAISE(schema, schema->AddField(schema->num_fields(), arrow::field("reference_snapshot_id", arrow::int64())));
    arrays.push_back(r);
  }
  return arrow::Table::Make(schema, arrays);
}

Result<std::shared_ptr<arrow::Table>> Manifests(const table::Table& t, const spec::Snapshot* snap) {
  std::vector<manifest::ManifestFile> manifests;
  if (snap && !snap->manifest_list.empty()) {
    ARROW_ASSIGN_OR_RAISE(manifests, manifest::ReadManifestList(*t.io(), snap->manifest_list));
  }
  return ManifestsOf(t, manifests, nullptr);
}

// Every snapshot's manifest list, row by row: a manifest shared by several snapshots appears
// once for each, with the snapshot that lists it.
Result<std::shared_ptr<arrow::Table>> AllManifests(const table::Table& t) {
  std::vector<manifest::ManifestFile> manifests;
  std::vector<int64_t> references;
  for (const auto& s : t.metadata()->snapshots) {
    if (s.manifest_list.empty()) continue;
    ARROW_ASSIGN_OR_RAISE(auto listed, manifest::ReadManifestList(*t.io(), s.manifest_list));
    for (auto& m : listed) {
      manifests.push_back(std::move(m));
      references.push_back(s.snapshot_id);
    }
  }
  return ManifestsOf(t, manifests, &references);
}

// Iceberg's partitions table: the live data and delete files of the snapshot by partition,
// with the snapshot that last added one (ties keep the first seen, as Java's strict `>`).
Result<std::shared_ptr<arrow::Table>> Partitions(const table::Table& t, const spec::Snapshot* snap) {
  auto md = t.metadata();
  ARROW_ASSIGN_OR_RAISE(auto entries, LiveEntries(t, snap));
  struct Agg {
    std::shared_ptr<arrow::Scalar> partition;
    int32_t spec_id = 0;
    int64_t records = 0, size = 0, pos_records = 0, eq_records = 0;
    int32_t files = 0, pos_files = 0, eq_files = 0;
    std::optional<int64_t> last_snapshot, last_ts;
  };
  std::map<std::string, Agg> groups;
  std::vector<std::string> order;
  // Files group by their partition in the table's partition type, whatever spec wrote them,
  // as Spark groups them; spec_id is that of the file updated last.
  ARROW_ASSIGN_OR_RAISE(auto table_type, spec::TablePartitionType(*md));
  std::shared_ptr<arrow::DataType> ptype;
  const bool partitioned = !table_type->fields().empty();
  if (partitioned) {
    ARROW_ASSIGN_OR_RAISE(ptype, table::ToArrowType(*table_type));
  }
  for (const auto& e : entries) {
    const auto& f = e.entry.data_file;
    // Keyed by the shown tuple, so a value from before its column was widened meets its equal.
    std::shared_ptr<arrow::Scalar> partition;
    if (partitioned) {
      ARROW_ASSIGN_OR_RAISE(partition, PartitionScalar(f, *md, *table_type, ptype));
    }
    std::string key;
    if (partition) {
      for (const auto& v : static_cast<const arrow::StructScalar&>(*partition).value) {
        const std::string text = v->is_valid ? v->ToString() : "";
        key += v->is_valid ? StrCat("V", text.size(), ":", text) : std::string("N");
      }
    }
    auto [it, inserted] = groups.try_emplace(key);
    if (inserted) {
      order.push_back(key);
      it->second.spec_id = f.spec_id;
      it->second.partition = std::move(partition);
    }
    auto& g = it->second;
    // An expired snapshot leaves the partition's last update unknown, as in Java.
    const spec::Snapshot* s = e.entry.snapshot_id ? md->SnapshotById(*e.entry.snapshot_id) : nullptr;
    if (s && (!g.last_ts || s->timestamp_ms > *g.last_ts)) {
      g.last_ts = s->timestamp_ms;
      g.last_snapshot = s->snapshot_id;
      g.spec_id = f.spec_id;
    }
    switch (f.content) {
      case manifest::FileContent::kData:
        g.records += f.record_count;
        g.size += f.file_size_in_bytes;
        ++g.files;
        break;
      case manifest::FileContent::kPositionDeletes:
        g.pos_records += f.record_count;
        ++g.pos_files;
        break;
      case manifest::FileContent::kEqualityDeletes:
        g.eq_records += f.record_count;
        ++g.eq_files;
        break;
    }
  }
  arrow::Int32Builder spec_id, files, pos_files, eq_files;
  arrow::Int64Builder records, size, pos_records, eq_records, last_snapshot;
  arrow::TimestampBuilder last_ts(Ts(), arrow::default_memory_pool());
  for (const auto& k : order) {
    const auto& g = groups[k];
    ARROW_RETURN_NOT_OK(spec_id.Append(g.spec_id));
    ARROW_RETURN_NOT_OK(records.Append(g.records));
    ARROW_RETURN_NOT_OK(files.Append(g.files));
    ARROW_RETURN_NOT_OK(size.Append(g.size));
    ARROW_RETURN_NOT_OK(pos_records.Append(g.pos_records));
    ARROW_RETURN_NOT_OK(pos_files.Append(g.pos_files));
    ARROW_RETURN_NOT_OK(eq_records.Append(g.eq_records));
    ARROW_RETURN_NOT_OK(eq_files.Append(g.eq_files));
    ARROW_RETURN_NOT_OK(g.last_ts ? last_ts.Append(*g.last_ts * 1000) : last_ts.AppendNull());
    ARROW_RETURN_NOT_OK(g.last_snapshot ? last_snapshot.Append(*g.last_snapshot) : last_snapshot.AppendNull());
  }
  arrow::FieldVector fields;
  arrow::ArrayVector arrays;
  if (partitioned && ptype) {
    std::unique_ptr<arrow::ArrayBuilder> builder;
    ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), ptype, &builder));
    for (const auto& k : order) ARROW_RETURN_NOT_OK(builder->AppendScalar(*groups[k].partition));
    ARROW_ASSIGN_OR_RAISE(auto parr, builder->Finish());
    fields.push_back(arrow::field("partition", ptype));
    arrays.push_back(parr);
    fields.push_back(arrow::field("spec_id", arrow::int32()));
    ARROW_ASSIGN_OR_RAISE(auto s, spec_id.Finish());
    arrays.push_back(s);
  }
  std::vector<std::pair<const char*, arrow::ArrayBuilder*>> columns = {
      {"record_count", &records},
      {"file_count", &files},
      {"total_data_file_size_in_bytes", &size},
      {"position_delete_record_count", &pos_records},
      {"position_delete_file_count", &pos_files},
      {"equality_delete_record_count", &eq_records},
      {"equality_delete_file_count", &eq_files},
      {"last_updated_at", &last_ts},
      {"last_updated_snapshot_id", &last_snapshot}};
  for (auto [name, builder] : columns) {
    ARROW_ASSIGN_OR_RAISE(auto array, builder->Finish());
    fields.push_back(arrow::field(name, array->type()));
    arrays.push_back(array);
  }
  return arrow::Table::Make(arrow::schema(fields), arrays);
}

}  // namespace

const std::vector<MetadataTableEntry>& AllMetadataTables() {
  using Snap = const spec::Snapshot*;
  static const std::vector<MetadataTableEntry> tables = {
      {"all_data_files", "the live data files of every snapshot",
       [](const table::Table& t, Snap) { return AllFiles(t, 0); }},
      {"all_delete_files", "the live delete files of every snapshot",
       [](const table::Table& t, Snap) { return AllFiles(t, 1); }},
      {"all_entries", "the manifest entries of every snapshot",
       [](const table::Table& t, Snap) -> Result<std::shared_ptr<arrow::Table>> {
         ARROW_ASSIGN_OR_RAISE(auto manifests, DistinctManifests(t, AllSnapshots(*t.metadata())));
         return EntriesOf(t, manifests);
       }},
      {"all_files", "the live data and delete files of every snapshot",
       [](const table::Table& t, Snap) { return AllFiles(t, -1); }},
      {"all_manifests", "the manifests of every snapshot, with the snapshot that lists each",
       [](const table::Table& t, Snap) { return AllManifests(t); }},
      {"audit_log", "every change of the table's metadata pointer, by any engine, newest first",
       [](const table::Table& t, Snap) -> Result<std::shared_ptr<arrow::Table>> {
         AuditQuery query;
         query.table = t.ident();
         ARROW_ASSIGN_OR_RAISE(auto rows, table::ReadAuditLog(*t.catalog(), *t.io(), query));
         return AuditLogTable(rows);
       }},
      {"data_files", "the data files of the snapshot", [](const table::Table& t, Snap s) { return Files(t, s, 0); }},
      {"delete_files", "the delete files of the snapshot",
       [](const table::Table& t, Snap s) { return Files(t, s, 1); }},
      {"entries", "the manifest entries of the snapshot (added, existing and deleted)",
       [](const table::Table& t, Snap s) -> Result<std::shared_ptr<arrow::Table>> {
         ARROW_ASSIGN_OR_RAISE(auto manifests, DistinctManifests(t, {s}));
         return EntriesOf(t, manifests);
       }},
      {"files", "the data and delete files of the snapshot", [](const table::Table& t, Snap s) { return Files(t, s, -1); }},
      {"history", "every change of the current snapshot", [](const table::Table& t, Snap) { return History(*t.metadata()); }},
      {"manifests", "the manifests of the snapshot", [](const table::Table& t, Snap s) { return Manifests(t, s); }},
      {"metadata_log_entries", "the table's metadata files", [](const table::Table& t, Snap) { return MetadataLog(t); }},
      {"partitions", "the snapshot's partitions with their counts",
       [](const table::Table& t, Snap s) { return Partitions(t, s); }},
      {"refs", "branches and tags", [](const table::Table& t, Snap) { return Refs(*t.metadata()); }},
      {"snapshots", "every snapshot the table keeps", [](const table::Table& t, Snap) { return Snapshots(*t.metadata()); }},
  };
  return tables;
}

const MetadataTableEntry* FindMetadataTable(const std::string& lower_name) {
  for (const auto& e : AllMetadataTables()) {
    if (e.name == lower_name) return &e;
  }
  return nullptr;
}

bool IsMetadataTableName(const std::string& lower_name) { return FindMetadataTable(lower_name) != nullptr; }

Result<std::shared_ptr<arrow::Table>> MetadataTable(const table::Table& t, const std::string& name,
                                                    std::optional<int64_t> snapshot_id) {
  const MetadataTableEntry* entry = FindMetadataTable(name);
  if (!entry) return NotFound("Metadata table ", name, " of ", t.name(), " does not exist");
  auto md = t.metadata();
  const spec::Snapshot* snap = snapshot_id ? md->SnapshotById(*snapshot_id) : md->current_snapshot();
  return entry->build(t, snap);
}

}  // namespace floe::sql
