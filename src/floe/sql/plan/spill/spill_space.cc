#include "floe/sql/plan/spill/spill_space.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <system_error>

#include <arrow/io/buffered.h>
#include <arrow/io/file.h>
#include <arrow/ipc/reader.h>
#include <arrow/ipc/writer.h>
#include <arrow/util/byte_size.h>

#include "floe/util/str_cat.h"

namespace floe::sql {

namespace fs = std::filesystem;

namespace {

constexpr char kPrefix[] = "floe-spill-";

// Removes what processes that no longer run left under `root`, once per root and process.
void RemoveAbandoned(const std::string& root) {
  static std::mutex mutex;
  static std::set<std::string> done;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!done.insert(root).second) return;
  }
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    std::string rest = name.substr(sizeof(kPrefix) - 1);
    size_t dash = rest.find('-');
    const std::string digits = rest.substr(0, dash);
    char* parsed_end = nullptr;
    long pid = std::strtol(digits.c_str(), &parsed_end, 10);
    if (dash == std::string::npos || pid <= 0 || *parsed_end != '\0' || pid == getpid()) continue;
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code ignored;
    fs::remove_all(it->path(), ignored);
  }
}

std::atomic<int64_t> next_space{0};

class DeletingReader final : public arrow::RecordBatchReader {
 public:
  DeletingReader(std::shared_ptr<arrow::RecordBatchReader> inner, std::shared_ptr<arrow::io::ReadableFile> file)
      : inner_(std::move(inner)), file_(std::move(file)) {}
  ~DeletingReader() override { (void)file_->Close(); }
  std::shared_ptr<arrow::Schema> schema() const override { return inner_->schema(); }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override { return inner_->ReadNext(batch); }
  arrow::Status Close() override { return file_->Close(); }

 private:
  std::shared_ptr<arrow::RecordBatchReader> inner_;
  std::shared_ptr<arrow::io::ReadableFile> file_;
};

Status WriteFailed(const std::string& path, const Status& st) {
  if (st.IsOutOfMemory()) return st;
  return Status::IOError("Cannot write spill file ", path, " (", kTempDirectoryKey, "): ", st.message());
}

}  // namespace

namespace {
std::mutex process_root_mutex;
std::string process_root;
std::atomic<bool> sessions_may_move{true};
}  // namespace

void SetProcessTempDirectory(std::string root, bool may_move) {
  {
    std::lock_guard<std::mutex> lock(process_root_mutex);
    process_root = std::move(root);
    sessions_may_move.store(may_move);
  }
  // What processes that are gone left there goes now, not at the first spill.
  RemoveAbandoned(DefaultTempDirectory());
}

bool SessionsMayMoveTempDirectory() { return sessions_may_move.load(); }

std::string DefaultTempDirectory() {
  {
    std::lock_guard<std::mutex> lock(process_root_mutex);
    if (!process_root.empty()) return process_root;
  }
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? std::string(tmp) : std::string("/tmp");
}

SpillSpace::SpillSpace(std::string root) : root_(root.empty() ? DefaultTempDirectory() : std::move(root)) {}

SpillSpace::~SpillSpace() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (directory_.empty()) return;
  std::error_code ignored;
  fs::remove_all(directory_, ignored);
}

Result<std::string> SpillSpace::NewFile(const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (directory_.empty()) {
    std::error_code ec;
    fs::create_directories(root_, ec);
    if (ec) return Status::IOError("Cannot spill to ", kTempDirectoryKey, " '", root_, "': ", ec.message());
    RemoveAbandoned(root_);
    std::string dir = (fs::path(root_) / StrCat(kPrefix, getpid(), "-", next_space.fetch_add(1))).string();
    fs::create_directory(dir, ec);
    if (ec) return Status::IOError("Cannot spill to ", kTempDirectoryKey, " '", root_, "': ", ec.message());
    directory_ = dir;
  }
  return (fs::path(directory_) / StrCat(what, "-", files_++, ".arrows")).string();
}

int64_t SpillSpace::files_made() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return files_;
}

std::string SpillSpace::directory() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return directory_;
}

Result<std::unique_ptr<SpillWriter>> SpillWriter::Open(std::string path, const std::shared_ptr<arrow::Schema>& schema,
                                                       arrow::MemoryPool* pool) {
  std::unique_ptr<SpillWriter> out(new SpillWriter());
  out->path_ = std::move(path);
  auto file = arrow::io::FileOutputStream::Open(out->path_);
  if (!file.ok()) return WriteFailed(out->path_, file.status());
  auto buffered = arrow::io::BufferedOutputStream::Create(64 << 10, pool, *file);
  if (!buffered.ok()) return WriteFailed(out->path_, buffered.status());
  out->file_ = *buffered;
  auto options = arrow::ipc::IpcWriteOptions::Defaults();
  options.memory_pool = pool;
  auto writer = arrow::ipc::MakeStreamWriter(out->file_, schema, options);
  if (!writer.ok()) return WriteFailed(out->path_, writer.status());
  out->writer_ = *writer;
  return out;
}

SpillWriter::~SpillWriter() {
  if (!closed_) (void)Close();
}

Status SpillWriter::Write(const arrow::RecordBatch& batch) {
  if (batch.num_rows() == 0) return Status::OK();
  Status st = writer_->WriteRecordBatch(batch);
  if (!st.ok()) return WriteFailed(path_, st);
  rows_ += batch.num_rows();
  bytes_ += BatchBytes(batch);
  return Status::OK();
}

Status SpillWriter::Close() {
  if (closed_ || !writer_) return Status::OK();
  closed_ = true;
  Status st = writer_->Close();
  if (st.ok()) st = file_->Close();
  if (!st.ok()) return WriteFailed(path_, st);
  return Status::OK();
}

int64_t BatchBytes(const arrow::RecordBatch& batch) {
  // What the batch's rows take, not the whole buffers a slice of a larger batch shares.
  auto bytes = arrow::util::ReferencedBufferSize(batch);
  return bytes.ok() ? *bytes : arrow::util::TotalBufferSize(batch);
}

Result<std::shared_ptr<arrow::RecordBatchReader>> ReadSpillFile(const std::string& path, arrow::MemoryPool* pool) {
  ARROW_ASSIGN_OR_RAISE(auto file, arrow::io::ReadableFile::Open(path, pool));
  // Unlinked now, its space comes back when the reader closes it.
  std::error_code ignored;
  fs::remove(path, ignored);
  auto options = arrow::ipc::IpcReadOptions::Defaults();
  options.memory_pool = pool;
  ARROW_ASSIGN_OR_RAISE(auto reader, arrow::ipc::RecordBatchStreamReader::Open(file, options));
  return std::make_shared<DeletingReader>(std::move(reader), std::move(file));
}

}  // namespace floe::sql
