#include "floe/scan/hash_partitioner.h"

#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <arrow/api.h>
#include <arrow/compute/api_vector.h>
#include <arrow/io/file.h>
#include <arrow/ipc/reader.h>
#include <arrow/ipc/writer.h>
#include <arrow/util/byte_size.h>
#include <arrow/util/compression.h>

#include "floe/scan/row_hash.h"

namespace floe::scan {

Result<std::unique_ptr<SpillDirectory>> SpillDirectory::Make(const std::string& parent) {
  std::error_code ec;
  std::filesystem::path base =
      parent.empty() ? std::filesystem::temp_directory_path(ec) : std::filesystem::path(parent);
  if (ec) return Status::IOError("Cannot find the temporary directory: ", ec.message());
  std::string tmpl = (base / "floe-spill-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    return Status::IOError("Cannot create a spill directory under ", base.string(), ": ",
                           std::strerror(errno));
  }
  return std::unique_ptr<SpillDirectory>(new SpillDirectory(tmpl));
}

SpillDirectory::~SpillDirectory() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string SpillDirectory::NewFile() { return StrCat(path_, "/", next_++, ".arrows"); }

int PartitionOf(uint64_t hash, int level, int fan_out) {
  const uint64_t h = MixHash(hash ^ (0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(level + 1)));
  return static_cast<int>(((h >> 32) * static_cast<uint64_t>(fan_out)) >> 32);
}

struct HashPartitioner::Writer {
  std::shared_ptr<arrow::io::FileOutputStream> file;
  std::shared_ptr<arrow::ipc::RecordBatchWriter> writer;
};

HashPartitioner::HashPartitioner(std::shared_ptr<arrow::Schema> schema, SpillDirectory* directory,
                                 Options options)
    : schema_(std::move(schema)), directory_(directory), options_(std::move(options)) {
  fan_out_ = options_.fan_out;
  partitions_.resize(static_cast<size_t>(std::max(fan_out_, 1)));
  writers_.resize(partitions_.size());
}

HashPartitioner::~HashPartitioner() {
  for (auto& pair : writers_) {
    for (auto& w : pair) {
      if (w) (void)w->file->Close();
    }
  }
}

namespace {

// Bytes a batch's rows take, for a slice its share of the buffers it points into.
int64_t RowBytes(const arrow::RecordBatch& batch, int64_t whole_bytes, int64_t whole_rows) {
  if (whole_rows == 0) return 0;
  return whole_bytes * batch.num_rows() / whole_rows;
}

}  // namespace

Status HashPartitioner::Split(int side, const std::shared_ptr<arrow::RecordBatch>& batch) {
  const int64_t n = batch->num_rows();
  const auto& hashes =
      static_cast<const arrow::UInt64Array&>(*batch->column(batch->num_columns() - 1));
  // One gather puts each partition's rows together; each partition then holds a slice.
  std::vector<int> part(static_cast<size_t>(n));
  std::vector<int64_t> starts(static_cast<size_t>(fan_out_) + 1, 0);
  for (int64_t i = 0; i < n; ++i) {
    part[i] = PartitionOf(hashes.Value(i), options_.level, fan_out_);
    ++starts[part[i] + 1];
  }
  for (int p = 0; p < fan_out_; ++p) starts[p + 1] += starts[p];
  std::vector<int64_t> next(starts.begin(), starts.end() - 1);
  arrow::Int64Builder order_builder;
  ARROW_RETURN_NOT_OK(order_builder.Resize(n));
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[next[part[i]]++] = i;
  ARROW_RETURN_NOT_OK(order_builder.AppendValues(order));
  ARROW_ASSIGN_OR_RAISE(auto indices, order_builder.Finish());
  ARROW_ASSIGN_OR_RAISE(arrow::Datum taken, arrow::compute::Take(batch, indices));
  std::shared_ptr<arrow::RecordBatch> gathered = taken.record_batch();
  const int64_t bytes = arrow::util::TotalBufferSize(*gathered);
  for (int p = 0; p < fan_out_; ++p) {
    const int64_t length = starts[p + 1] - starts[p];
    if (length == 0) continue;
    auto slice = gathered->Slice(starts[p], length);
    PartitionSide& s = partitions_[p].sides[side];
    const int64_t slice_bytes = RowBytes(*slice, bytes, n);
    s.batches.push_back(std::move(slice));
    s.rows += length;
    s.bytes += slice_bytes;
    buffered_bytes_ += slice_bytes;
  }
  return Status::OK();
}

Status HashPartitioner::Add(int side, const std::shared_ptr<arrow::RecordBatch>& batch) {
  if (batch->num_rows() == 0) return Status::OK();
  const int64_t bytes = arrow::util::TotalBufferSize(*batch);
  seen_bytes_ += bytes;
  seen_rows_ += batch->num_rows();
  if (fan_out_ == 0) {
    PartitionSide& s = partitions_[0].sides[side];
    s.batches.push_back(batch);
    s.rows += batch->num_rows();
    s.bytes += bytes;
    buffered_bytes_ += bytes;
    if (buffered_bytes_ <= options_.buffer_bytes) return Status::OK();
    // The rows no longer fit: choose the partitions and spread what is buffered over them.
    fan_out_ = std::max(
        2, options_.choose_fan_out ? options_.choose_fan_out(seen_bytes_, seen_rows_) : 16);
    std::vector<Partition> unsplit(1);
    std::swap(unsplit, partitions_);
    partitions_.resize(static_cast<size_t>(fan_out_));
    writers_.resize(partitions_.size());
    buffered_bytes_ = 0;
    for (int sd = 0; sd < 2; ++sd) {
      for (auto& b : unsplit[0].sides[sd].batches) {
        ARROW_RETURN_NOT_OK(Split(sd, b));
        b.reset();
      }
    }
  } else {
    ARROW_RETURN_NOT_OK(Split(side, batch));
  }
  if (buffered_bytes_ > options_.buffer_bytes) ARROW_RETURN_NOT_OK(Spill());
  return Status::OK();
}

Status HashPartitioner::Spill() {
  arrow::ipc::IpcWriteOptions write_options = arrow::ipc::IpcWriteOptions::Defaults();
  if (arrow::util::Codec::IsAvailable(arrow::Compression::LZ4_FRAME)) {
    ARROW_ASSIGN_OR_RAISE(write_options.codec,
                          arrow::util::Codec::Create(arrow::Compression::LZ4_FRAME));
  }
  for (size_t p = 0; p < partitions_.size(); ++p) {
    for (int side = 0; side < 2; ++side) {
      PartitionSide& s = partitions_[p].sides[side];
      if (s.batches.empty()) continue;
      auto& w = writers_[p][side];
      if (!w) {
        w = std::make_unique<Writer>();
        s.spill_file = directory_->NewFile();
        ARROW_ASSIGN_OR_RAISE(w->file, arrow::io::FileOutputStream::Open(s.spill_file));
        ARROW_ASSIGN_OR_RAISE(w->writer,
                              arrow::ipc::MakeStreamWriter(w->file, schema_, write_options));
      }
      ARROW_ASSIGN_OR_RAISE(auto joined, arrow::ConcatenateRecordBatches(s.batches));
      s.batches.clear();
      ARROW_RETURN_NOT_OK(w->writer->WriteRecordBatch(*joined));
    }
  }
  int64_t written = 0;
  for (auto& pair : writers_) {
    for (auto& w : pair) {
      if (!w) continue;
      ARROW_ASSIGN_OR_RAISE(int64_t at, w->file->Tell());
      written += at;
    }
  }
  spilled_bytes_ = written;
  buffered_bytes_ = 0;
  spilled_ = true;
  return Status::OK();
}

Result<std::vector<Partition>> HashPartitioner::Finish() {
  if (spilled_) {
    ARROW_RETURN_NOT_OK(Spill());
    for (auto& pair : writers_) {
      for (auto& w : pair) {
        if (!w) continue;
        ARROW_RETURN_NOT_OK(w->writer->Close());
        ARROW_RETURN_NOT_OK(w->file->Close());
        w.reset();
      }
    }
  }
  std::vector<Partition> out;
  std::swap(out, partitions_);
  return out;
}

Status ForEachBatch(const PartitionSide& side,
                    const std::function<Status(const std::shared_ptr<arrow::RecordBatch>&)>& fn) {
  for (const auto& batch : side.batches) ARROW_RETURN_NOT_OK(fn(batch));
  if (side.spill_file.empty()) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto file, arrow::io::ReadableFile::Open(side.spill_file));
  ARROW_ASSIGN_OR_RAISE(auto reader, arrow::ipc::RecordBatchStreamReader::Open(file));
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (!batch) break;
    ARROW_RETURN_NOT_OK(fn(batch));
  }
  return file->Close();
}

}  // namespace floe::scan
