#include "floe/io/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <utility>

#include <arrow/filesystem/localfs.h>
#include <arrow/io/file.h>

#include "floe/util/ids.h"

namespace floe {

namespace {

std::string ParentOf(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

std::string CollapseSlashes(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (char c : path) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out.push_back(c);
  }
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

Status ErrnoStatus(const std::string& what, int err) {
  return Status::IOError(what, ": ", std::strerror(err));
}

// Writes all of `bytes` to `fd` and makes them durable before the file is published.
Status WriteAllAndSync(int fd, std::string_view bytes) {
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("write failed", errno);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return ErrnoStatus("fsync failed", errno);
  return Status::OK();
}

void SyncDirectory(const std::string& dir) {
  // Best effort: some file systems cannot fsync a directory.
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

// Forwards to a file stream, consulting the fault injector before each write and naming the
// file in every error. Close() makes the file durable (fsync of the file, then of the
// directories that gained an entry) before the caller can publish it; a stream that is
// aborted, or destroyed without a successful Close(), removes its partial file so a failed
// write leaves nothing behind.
class CheckedOutputStream : public arrow::io::OutputStream {
 public:
  CheckedOutputStream(std::shared_ptr<arrow::io::FileOutputStream> inner, std::string location,
                      std::string path, std::vector<std::string> dirs_to_sync, FileKind kind,
                      std::shared_ptr<const FaultInjector> injector)
      : inner_(std::move(inner)),
        location_(std::move(location)),
        path_(std::move(path)),
        dirs_to_sync_(std::move(dirs_to_sync)),
        kind_(kind),
        injector_(std::move(injector)) {}

  ~CheckedOutputStream() override {
    if (!published_) (void)Abort();
  }

  Status Close() override {
    if (published_) return Status::OK();
    if (inner_->closed()) return Named(Status::IOError("stream was aborted"));
    Status st = Inject(FileOp::kSync);
    if (st.ok()) st = Named(inner_->Flush());
    if (st.ok() && ::fsync(inner_->file_descriptor()) != 0) {
      st = Named(ErrnoStatus("fsync failed", errno));
    }
    if (st.ok()) st = Named(inner_->Close());
    if (!st.ok()) {
      (void)Abort();
      return st;
    }
    for (const auto& dir : dirs_to_sync_) SyncDirectory(dir);
    published_ = true;
    return Status::OK();
  }

  Status Abort() override {
    if (published_) return Status::OK();
    published_ = true;  // nothing left to clean up after this
    Status st = inner_->closed() ? Status::OK() : inner_->Abort();
    ::unlink(path_.c_str());
    return Named(st);
  }

  Result<int64_t> Tell() const override { return inner_->Tell(); }
  bool closed() const override { return inner_->closed(); }
  Status Flush() override { return Named(inner_->Flush()); }

  Status Write(const void* data, int64_t nbytes) override {
    ARROW_RETURN_NOT_OK(Inject(FileOp::kStreamWrite));
    return Named(inner_->Write(data, nbytes));
  }
  Status Write(const std::shared_ptr<arrow::Buffer>& data) override {
    ARROW_RETURN_NOT_OK(Inject(FileOp::kStreamWrite));
    return Named(inner_->Write(data));
  }

 private:
  Status Inject(FileOp op) const {
    if (!injector_) return Status::OK();
    return Named((*injector_)(op, location_, kind_));
  }
  Status Named(const Status& st) const {
    return WithContext(st, StrCat("Cannot write file ", location_));
  }

  std::shared_ptr<arrow::io::FileOutputStream> inner_;
  std::string location_;
  std::string path_;
  std::vector<std::string> dirs_to_sync_;
  FileKind kind_;
  std::shared_ptr<const FaultInjector> injector_;
  bool published_ = false;
};

// Creates `dir` and its missing parents; returns the directories whose entries changed
// (the parent of each created directory, and `dir` itself), deepest first, for fsync.
Result<std::vector<std::string>> CreateDirectories(arrow::fs::FileSystem& fs,
                                                   const std::string& dir) {
  std::vector<std::string> missing;
  for (std::string d = dir; d != "/"; d = ParentOf(d)) {
    struct stat st;
    if (::stat(d.c_str(), &st) == 0) break;
    missing.push_back(d);
  }
  ARROW_RETURN_NOT_OK(fs.CreateDir(dir, /*recursive=*/true));
  std::vector<std::string> changed{dir};
  for (const auto& d : missing) changed.push_back(ParentOf(d));
  return changed;
}

}  // namespace

const char* FileKindName(FileKind kind) {
  switch (kind) {
    case FileKind::kMetadata:
      return "metadata";
    case FileKind::kManifestList:
      return "manifest-list";
    case FileKind::kManifest:
      return "manifest";
    case FileKind::kData:
      return "data";
    case FileKind::kDelete:
      return "delete";
    case FileKind::kOther:
      break;
  }
  return "other";
}

const char* FileOpName(FileOp op) {
  switch (op) {
    case FileOp::kRead:
      return "read";
    case FileOp::kWriteFile:
      return "write-file";
    case FileOp::kCreate:
      return "create";
    case FileOp::kStreamWrite:
      return "stream-write";
    case FileOp::kSync:
      return "sync";
    case FileOp::kDelete:
      return "delete";
    case FileOp::kDeleteDirectory:
      return "delete-directory";
  }
  return "unknown";
}

int64_t FileIOCounters::total_reads() const {
  int64_t n = 0;
  for (int64_t v : opened_for_read) n += v;
  return n;
}

int64_t FileIOCounters::total_creates() const {
  int64_t n = 0;
  for (int64_t v : created) n += v;
  return n;
}

Result<std::string> ToLocalPath(std::string_view location) {
  if (location.empty()) return ValidationError("Invalid file location: empty");
  if (location.front() == '/') return CollapseSlashes(location);

  constexpr std::string_view kFile = "file:";
  if (location.substr(0, kFile.size()) == kFile) {
    std::string_view rest = location.substr(kFile.size());
    if (rest.substr(0, 2) == "//") {
      rest.remove_prefix(2);
      auto slash = rest.find('/');
      std::string_view host = rest.substr(0, slash);
      if (!host.empty() && host != "localhost") {
        return ValidationError("Cannot use file URI with a remote host '", host, "': ", location);
      }
      if (slash == std::string_view::npos) return CollapseSlashes("/");
      rest = rest.substr(slash);
    }
    if (rest.empty() || rest.front() != '/') {
      return ValidationError("File URI must hold an absolute path: ", location);
    }
    return CollapseSlashes(rest);
  }

  auto colon = location.find(':');
  auto slash = location.find('/');
  if (colon != std::string_view::npos && colon > 0 &&
      (slash == std::string_view::npos || colon < slash)) {
    return Status::NotImplemented("No FileIO for scheme '", location.substr(0, colon),
                                  "' in location ", location,
                                  ": only local paths and file: URIs are supported");
  }
  return ValidationError("File location must be an absolute path or a file: URI: ", location);
}

FileIO::FileIO(std::shared_ptr<arrow::fs::FileSystem> fs) : fs_(std::move(fs)) {}
FileIO::~FileIO() = default;

Result<std::shared_ptr<FileIO>> FileIO::MakeLocal() {
  return std::shared_ptr<FileIO>(new FileIO(std::make_shared<arrow::fs::LocalFileSystem>()));
}

Result<std::string> FileIO::Resolve(const std::string& location) const {
  return ToLocalPath(location);
}

std::shared_ptr<const FaultInjector> FileIO::injector() const {
  std::lock_guard<std::mutex> lock(injector_mutex_);
  return injector_;
}

Status FileIO::Inject(FileOp op, const std::string& location, FileKind kind) const {
  auto hook = injector();
  if (!hook) return Status::OK();
  return (*hook)(op, location, kind);
}

void FileIO::SetFaultInjector(FaultInjector injector) {
  std::shared_ptr<const FaultInjector> hook;
  if (injector) hook = std::make_shared<const FaultInjector>(std::move(injector));
  std::lock_guard<std::mutex> lock(injector_mutex_);
  injector_ = std::move(hook);
}

void FileIO::Bump(std::array<std::atomic<int64_t>, kNumFileKinds>& counter, FileKind kind) {
  counter[static_cast<int>(kind)].fetch_add(1, std::memory_order_relaxed);
}

FileIOCounters FileIO::counters() const {
  FileIOCounters out;
  for (int i = 0; i < kNumFileKinds; ++i) {
    out.opened_for_read[i] = reads_[i].load(std::memory_order_relaxed);
    out.created[i] = creates_[i].load(std::memory_order_relaxed);
    out.deleted[i] = deletes_[i].load(std::memory_order_relaxed);
  }
  return out;
}

void FileIO::ResetCounters() {
  for (int i = 0; i < kNumFileKinds; ++i) {
    reads_[i].store(0, std::memory_order_relaxed);
    creates_[i].store(0, std::memory_order_relaxed);
    deletes_[i].store(0, std::memory_order_relaxed);
  }
}

Result<std::shared_ptr<arrow::io::RandomAccessFile>> FileIO::OpenInputFile(
    const std::string& location, FileKind kind) {
  const std::string context = StrCat("Cannot read file ", location);
  ARROW_RETURN_NOT_OK(WithContext(Inject(FileOp::kRead, location, kind), context));
  auto path = Resolve(location);
  if (!path.ok()) return WithContext(path.status(), context);
  auto file = fs_->OpenInputFile(*path);
  if (!file.ok()) {
    auto info = fs_->GetFileInfo(*path);
    if (info.ok() && info->type() == arrow::fs::FileType::NotFound) {
      return NotFound(context, ": file does not exist");
    }
    return WithContext(file.status(), context);
  }
  Bump(reads_, kind);
  return std::move(file).ValueUnsafe();
}

Result<std::shared_ptr<arrow::Buffer>> FileIO::ReadFile(const std::string& location,
                                                        FileKind kind) {
  ARROW_ASSIGN_OR_RAISE(auto file, OpenInputFile(location, kind));
  const std::string context = StrCat("Cannot read file ", location);
  auto size = file->GetSize();
  if (!size.ok()) return WithContext(size.status(), context);
  auto buffer = file->ReadAt(0, *size);
  if (!buffer.ok()) return WithContext(buffer.status(), context);
  if ((*buffer)->size() != *size) {
    return Status::IOError(context, ": expected ", *size, " bytes, read ", (*buffer)->size());
  }
  ARROW_RETURN_NOT_OK(WithContext(file->Close(), context));
  return std::move(buffer).ValueUnsafe();
}

Result<std::shared_ptr<arrow::io::OutputStream>> FileIO::OpenOutputStream(
    const std::string& location, FileKind kind) {
  const std::string context = StrCat("Cannot create file ", location);
  ARROW_RETURN_NOT_OK(WithContext(Inject(FileOp::kCreate, location, kind), context));
  auto path = Resolve(location);
  if (!path.ok()) return WithContext(path.status(), context);
  auto dirs = CreateDirectories(*fs_, ParentOf(*path));
  if (!dirs.ok()) return WithContext(dirs.status(), context);
  // O_EXCL makes "never overwrite" atomic; arrow's local streams always truncate.
  int fd = ::open(path->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST) return AlreadyExists(context, ": file already exists");
    return ErrnoStatus(context, errno);
  }
  auto stream = arrow::io::FileOutputStream::Open(fd);
  if (!stream.ok()) {
    ::close(fd);
    ::unlink(path->c_str());
    return WithContext(stream.status(), context);
  }
  Bump(creates_, kind);
  return std::make_shared<CheckedOutputStream>(std::move(stream).ValueUnsafe(), location, *path,
                                               std::move(dirs).ValueUnsafe(), kind, injector());
}

Status FileIO::WriteFile(const std::string& location, FileKind kind, std::string_view bytes) {
  const std::string context = StrCat("Cannot write file ", location);
  ARROW_RETURN_NOT_OK(WithContext(Inject(FileOp::kWriteFile, location, kind), context));
  auto path = Resolve(location);
  if (!path.ok()) return WithContext(path.status(), context);
  const std::string dir = ParentOf(*path);
  auto dirs = CreateDirectories(*fs_, dir);
  if (!dirs.ok()) return WithContext(dirs.status(), context);

  // Write a hidden temporary file, then link(2) it to the final name: the link is atomic and
  // fails if the name exists, so the file appears complete or not at all.
  const std::string name = path->substr(path->rfind('/') + 1);
  const std::string tmp = StrCat(dir, "/.", name, ".", NewUuid(), ".tmp");
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus(context, errno);
  Status st = WriteAllAndSync(fd, bytes);
  if (::close(fd) != 0 && st.ok()) st = ErrnoStatus("close failed", errno);
  if (!st.ok()) {
    ::unlink(tmp.c_str());
    return WithContext(st, context);
  }
  bool published = false;
  if (::link(tmp.c_str(), path->c_str()) == 0) {
    published = true;
  } else if (errno == EEXIST) {
    ::unlink(tmp.c_str());
    return AlreadyExists(context, ": file already exists");
  } else if (errno != EPERM && errno != EOPNOTSUPP && errno != ENOSYS && errno != EMLINK) {
    int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoStatus(context, err);
  }
  ::unlink(tmp.c_str());
  if (!published) {
    // No hard links on this file system: fall back to an exclusive create.
    fd = ::open(path->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
      if (errno == EEXIST) return AlreadyExists(context, ": file already exists");
      return ErrnoStatus(context, errno);
    }
    st = WriteAllAndSync(fd, bytes);
    if (::close(fd) != 0 && st.ok()) st = ErrnoStatus("close failed", errno);
    if (!st.ok()) {
      ::unlink(path->c_str());
      return WithContext(st, context);
    }
  }
  for (const auto& d : *dirs) SyncDirectory(d);
  Bump(creates_, kind);
  return Status::OK();
}

Result<int64_t> FileIO::FileSize(const std::string& location) {
  const std::string context = StrCat("Cannot get size of file ", location);
  auto path = Resolve(location);
  if (!path.ok()) return WithContext(path.status(), context);
  auto info = fs_->GetFileInfo(*path);
  if (!info.ok()) return WithContext(info.status(), context);
  if (info->type() == arrow::fs::FileType::NotFound) {
    return NotFound(context, ": file does not exist");
  }
  if (info->type() != arrow::fs::FileType::File) {
    return Status::IOError(context, ": not a regular file");
  }
  return info->size();
}

Result<bool> FileIO::Exists(const std::string& location) {
  auto path = Resolve(location);
  if (!path.ok()) return WithContext(path.status(), StrCat("Cannot check file ", location));
  auto info = fs_->GetFileInfo(*path);
  if (!info.ok()) return WithContext(info.status(), StrCat("Cannot check file ", location));
  return info->type() != arrow::fs::FileType::NotFound;
}

Status FileIO::DeleteFile(const std::string& location, FileKind kind) {
  const std::string context = StrCat("Cannot delete file ", location);
  ARROW_RETURN_NOT_OK(WithContext(Inject(FileOp::kDelete, location, kind), context));
  auto path = Resolve(location);
  if (!path.ok()) return WithContext(path.status(), context);
  Status st = fs_->DeleteFile(*path);
  if (st.ok()) {
    Bump(deletes_, kind);
    return st;
  }
  auto info = fs_->GetFileInfo(*path);
  if (info.ok() && info->type() == arrow::fs::FileType::NotFound) return Status::OK();
  return WithContext(st, context);
}

Status FileIO::DeleteDirectory(const std::string& location) {
  const std::string context = StrCat("Cannot delete directory ", location);
  ARROW_RETURN_NOT_OK(
      WithContext(Inject(FileOp::kDeleteDirectory, location, FileKind::kOther), context));
  auto path = Resolve(location);
  if (!path.ok()) return WithContext(path.status(), context);
  if (*path == "/") return Status::Invalid(context, ": refusing to delete the root directory");
  auto info = fs_->GetFileInfo(*path);
  if (!info.ok()) return WithContext(info.status(), context);
  if (info->type() == arrow::fs::FileType::NotFound) return Status::OK();
  if (info->type() != arrow::fs::FileType::Directory) {
    return Status::IOError(context, ": not a directory");
  }
  return WithContext(fs_->DeleteDir(*path), context);
}

Result<std::vector<FileEntry>> FileIO::ListFiles(const std::string& location) {
  const std::string context = StrCat("Cannot list files under ", location);
  auto path = Resolve(location);
  if (!path.ok()) return WithContext(path.status(), context);
  arrow::fs::FileSelector selector;
  selector.base_dir = *path;
  selector.recursive = true;
  selector.allow_not_found = true;
  auto infos = fs_->GetFileInfo(selector);
  if (!infos.ok()) return WithContext(infos.status(), context);
  std::vector<FileEntry> out;
  for (const auto& info : *infos) {
    if (info.type() != arrow::fs::FileType::File) continue;
    const int64_t mtime_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(info.mtime().time_since_epoch()).count();
    out.push_back(FileEntry{info.path(), info.size(), mtime_ms});
  }
  std::sort(out.begin(), out.end(),
            [](const FileEntry& a, const FileEntry& b) { return a.path < b.path; });
  return out;
}

}  // namespace floe
