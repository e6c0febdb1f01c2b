#include "floe/table/rolling_writer.h"

#include <algorithm>
#include <cstdio>

#include <arrow/record_batch.h>
#include <arrow/table.h>

#include "floe/manifest/partition_key.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/location_policy.h"
#include "floe/table/metadata_files.h"
#include "floe/table/partitioner.h"
#include "floe/util/ids.h"
#include "floe/util/number_parse.h"

namespace floe::table {

namespace {

constexpr int64_t kRollCheckRows = 65536;

}  // namespace

Result<RollingWriterOptions> RollingWriterOptions::FromProperties(const std::map<std::string, std::string>& props) {
  RollingWriterOptions options;
  auto it = props.find("write.target-file-size-bytes");
  if (it != props.end()) {
    auto bytes = ParseInt64(it->second);
    if (!bytes || *bytes <= 0) {
      return ValidationError("Invalid value for write.target-file-size-bytes: '", it->second, "'");
    }
    options.target_file_size_bytes = *bytes;
  }
  return options;
}

Result<std::unique_ptr<RollingDataWriter>> RollingDataWriter::Make(const Table& table) {
  ARROW_ASSIGN_OR_RAISE(auto options, RollingWriterOptions::FromProperties(table.metadata()->properties));
  return Make(table, options);
}

Result<std::unique_ptr<RollingDataWriter>> RollingDataWriter::Make(const Table& table,
                                                                   const RollingWriterOptions& options) {
  std::unique_ptr<RollingDataWriter> w(new RollingDataWriter(table));
  w->metadata_ = table.metadata();
  w->schema_ = w->metadata_->current_schema();
  w->spec_ = w->metadata_->default_spec();
  if (!w->schema_ || !w->spec_) return Status::Invalid("Table ", table.name(), " has no current schema or spec");
  if (options.row_lineage) w->schema_ = spec::WithRowLineage(*w->schema_);
  ARROW_RETURN_NOT_OK(CheckTableLocations(table, *w->metadata_));
  ARROW_ASSIGN_OR_RAISE(w->arrow_schema_, ToArrowSchema(*w->schema_));
  ARROW_ASSIGN_OR_RAISE(w->data_options_, DataWriterOptions::FromProperties(w->metadata_->properties));
  w->options_ = options;
  w->options_.max_open_files = std::max<int32_t>(1, options.max_open_files);
  w->write_id_ = NewUuid();
  return w;
}

RollingDataWriter::~RollingDataWriter() {
  if (!done_) Abort();
}

void RollingDataWriter::Abort() {
  done_ = true;
  for (auto& [key, file] : open_) file.writer->Abort();
  open_.clear();
  for (const auto& f : closed_) (void)table_.io()->DeleteFile(f.file_path, FileKind::kData);
  closed_.clear();
}

Status RollingDataWriter::Write(const arrow::RecordBatch& rows) {
  if (done_) return Status::Invalid("The writer of ", table_.name(), " is already finished");
  Status st = WriteRows(rows);
  if (!st.ok()) Abort();
  return st;
}

Status RollingDataWriter::WriteRows(const arrow::RecordBatch& rows) {
  if (rows.num_rows() == 0) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::FromRecordBatches({rows.Slice(0)}));
  ARROW_ASSIGN_OR_RAISE(auto conformed, ConformToSchema(*table, *schema_));
  ARROW_ASSIGN_OR_RAISE(auto slices, SplitByPartition(conformed, *schema_, *spec_));
  for (auto& slice : slices) {
    if (slice.rows->num_rows() == 0) continue;
    const std::string key = manifest::PartitionKey(spec_->spec_id(), slice.partition);
    // Large batches go in pieces, so a file rolls close to its target.
    arrow::TableBatchReader pieces(*slice.rows);
    pieces.set_chunksize(kRollCheckRows);
    std::shared_ptr<arrow::RecordBatch> piece;
    while (true) {
      ARROW_RETURN_NOT_OK(pieces.ReadNext(&piece));
      if (!piece) break;
      ARROW_ASSIGN_OR_RAISE(OpenFile * file, FileFor(key, slice.partition));
      file->last_write = ++clock_;
      ARROW_RETURN_NOT_OK(file->writer->Write(*piece));
      if (file->writer->EstimatedSize() >= options_.target_file_size_bytes) ARROW_RETURN_NOT_OK(CloseFile(key));
    }
  }
  return Status::OK();
}

Result<RollingDataWriter::OpenFile*> RollingDataWriter::FileFor(const std::string& key,
                                                                const std::vector<spec::Literal>& partition) {
  auto it = open_.find(key);
  if (it != open_.end()) return &it->second;
  if (static_cast<int64_t>(open_.size()) >= options_.max_open_files) {
    auto lru = std::min_element(open_.begin(), open_.end(), [](const auto& a, const auto& b) {
      return a.second.last_write < b.second.last_write;
    });
    ARROW_RETURN_NOT_OK(CloseFile(lru->first));
  }
  auto [ordinal_it, first] = ordinals_.try_emplace(key, static_cast<int64_t>(ordinals_.size()));
  (void)first;
  const int64_t ordinal = ordinal_it->second;
  std::string dir = DataDirectory(*metadata_);
  if (!spec_->fields().empty()) dir += "/" + spec_->PartitionPath(partition);
  // Iceberg's names: <partition>-<task>-<write id>-<file count>.parquet.
  char name[128];
  std::snprintf(name, sizeof(name), "/%05lld-%lld-%s-%05lld.parquet", static_cast<long long>(ordinal),
                static_cast<long long>(ordinal), write_id_.c_str(), static_cast<long long>(++file_count_));
  ARROW_ASSIGN_OR_RAISE(auto writer, ParquetDataFileWriter::Open(*table_.io(), dir + name, arrow_schema_,
                                                                 *schema_, data_options_));
  OpenFile file;
  file.ordinal = ordinal;
  file.partition = partition;
  file.writer = std::move(writer);
  auto [inserted, ok] = open_.emplace(key, std::move(file));
  (void)ok;
  ShareBuffer();
  return &inserted->second;
}

void RollingDataWriter::ShareBuffer() {
  const int64_t share = std::max<int64_t>(1, options_.buffer_bytes / std::max<int64_t>(1, open_.size()));
  // A file also flushes a row group by a quarter of its target: the compression of the
  // rows written then tells how many more fit, so files come out close to the target.
  const int64_t quarter = std::max<int64_t>(1, options_.target_file_size_bytes / 4);
  const int64_t bytes = std::min({data_options_.row_group_bytes, share, quarter});
  for (auto& [key, file] : open_) file.writer->set_row_group_bytes(bytes);
}

Status RollingDataWriter::CloseFile(const std::string& key) {
  auto it = open_.find(key);
  if (it == open_.end()) return Status::OK();
  OpenFile file = std::move(it->second);
  open_.erase(it);
  ShareBuffer();
  ARROW_ASSIGN_OR_RAISE(auto written, file.writer->Close());
  written.partition = std::move(file.partition);
  written.spec_id = spec_->spec_id();
  closed_.push_back(std::move(written));
  return Status::OK();
}

Result<std::vector<manifest::DataFile>> RollingDataWriter::Finish() {
  if (done_) return Status::Invalid("The writer of ", table_.name(), " is already finished");
  // The files still open close in the order their partitions first appeared.
  std::vector<std::pair<int64_t, std::string>> order;
  for (const auto& [key, file] : open_) order.emplace_back(file.ordinal, key);
  std::sort(order.begin(), order.end());
  for (const auto& [ordinal, key] : order) {
    Status st = CloseFile(key);
    if (!st.ok()) {
      Abort();
      return st;
    }
  }
  done_ = true;
  return std::move(closed_);
}

Result<int64_t> AppendStream(Table& table, arrow::RecordBatchReader& rows, const WriteOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto writer, RollingDataWriter::Make(table));
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(rows.ReadNext(&batch));
    if (!batch) break;
    ARROW_RETURN_NOT_OK(writer->Write(*batch));
  }
  ARROW_ASSIGN_OR_RAISE(auto files, writer->Finish());
  return AppendFiles(table, std::move(files), options);
}

}  // namespace floe::table
