#include "floe/io/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <utility>

#include <arrow/filesystem/localfs.h>
#include <arrow/filesystem/s3fs.h>
#include <arrow/io/file.h>
#include <arrow/util/io_util.h>

#include "floe/io/object_store.h"
#include "floe/io/read_pool.h"
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

// What the local and the object-store streams share: every write consults the fault
// injector first, and every error names the location.
template <typename Inner>
class InjectedStream : public arrow::io::OutputStream {
 public:
  InjectedStream(std::shared_ptr<Inner> inner, std::string location, FileKind kind,
                 std::shared_ptr<const FaultInjector> injector)
      : inner_(std::move(inner)),
        location_(std::move(location)),
        kind_(kind),
        injector_(std::move(injector)) {}

  Result<int64_t> Tell() const override { return inner_->Tell(); }
  Status Flush() override { return Named(inner_->Flush()); }

  Status Write(const void* data, int64_t nbytes) override {
    ARROW_RETURN_NOT_OK(Inject(FileOp::kStreamWrite));
    return Named(inner_->Write(data, nbytes));
  }
  Status Write(const std::shared_ptr<arrow::Buffer>& data) override {
    ARROW_RETURN_NOT_OK(Inject(FileOp::kStreamWrite));
    return Named(inner_->Write(data));
  }

 protected:
  Status Inject(FileOp op) const {
    if (!injector_) return Status::OK();
    return Named((*injector_)(op, location_, kind_));
  }
  Status Named(const Status& st) const {
    return WithContext(st, StrCat("Cannot write file ", location_));
  }

  std::shared_ptr<Inner> inner_;
  std::string location_;
  FileKind kind_;
  std::shared_ptr<const FaultInjector> injector_;
};

// Forwards to a file stream, consulting the fault injector before each write and naming the
// file in every error. Close() makes the file durable (fsync of the file, then of the
// directories that gained an entry) before the caller can publish it; a stream that is
// aborted, or destroyed without a successful Close(), removes its partial file so a failed
// write leaves nothing behind.
class CheckedOutputStream : public InjectedStream<arrow::io::FileOutputStream> {
 public:
  CheckedOutputStream(std::shared_ptr<arrow::io::FileOutputStream> inner, std::string location,
                      std::string path, std::vector<std::string> dirs_to_sync, FileKind kind,
                      std::shared_ptr<const FaultInjector> injector)
      : InjectedStream(std::move(inner), std::move(location), kind, std::move(injector)),
        path_(std::move(path)),
        dirs_to_sync_(std::move(dirs_to_sync)) {}

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

  bool closed() const override { return inner_->closed(); }

 private:
  std::string path_;
  std::vector<std::string> dirs_to_sync_;
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

// ---- object storage ----

bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

// Arrow's S3 library is initialised once, on first use; FinalizeObjectStore ends it.
Status EnsureS3Initialized() {
  static std::once_flag once;
  static Status status;
  std::call_once(once, [] {
    arrow::fs::S3GlobalOptions global = arrow::fs::S3GlobalOptions::Defaults();
    global.log_level = arrow::fs::S3LogLevel::Fatal;
    status = arrow::fs::InitializeS3(global);
  });
  return status;
}

Result<std::shared_ptr<arrow::fs::FileSystem>> MakeS3FileSystem(const ObjectStoreOptions& o) {
  ARROW_RETURN_NOT_OK(EnsureS3Initialized());
  if (arrow::fs::IsS3Finalized()) return Status::Invalid("the S3 library was finalized");
  arrow::fs::S3Options s3;
  if (!o.access_key_id.empty()) {
    s3.ConfigureAccessKey(o.access_key_id, o.secret_access_key, o.session_token);
  } else {
    s3.ConfigureDefaultCredentials();
  }
  s3.region = o.region;
  std::string endpoint = o.endpoint;
  if (StartsWithNoCase(endpoint, "http://")) {
    s3.scheme = "http";
    endpoint = endpoint.substr(7);
  } else if (StartsWithNoCase(endpoint, "https://")) {
    endpoint = endpoint.substr(8);
  }
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  const bool path_style = o.path_style.value_or(!endpoint.empty());
  if (path_style && endpoint.empty()) {
    endpoint =
        StrCat("s3.", o.region.empty() ? std::string("us-east-1") : o.region, ".amazonaws.com");
  }
  s3.endpoint_override = endpoint;
  s3.force_virtual_addressing = !path_style;
  if (o.connect_timeout_seconds > 0) s3.connect_timeout = o.connect_timeout_seconds;
  if (o.request_timeout_seconds > 0) s3.request_timeout = o.request_timeout_seconds;
  if (o.max_attempts > 0) {
    s3.retry_strategy = arrow::fs::S3RetryStrategy::GetAwsStandardRetryStrategy(o.max_attempts);
  }
  // Objects up to one part (10 MiB) are uploaded by a single PUT at Close(), so a failed or
  // aborted write never starts an upload; larger ones become multipart uploads.
  s3.allow_delayed_open = true;
  ARROW_ASSIGN_OR_RAISE(auto fs, arrow::fs::S3FileSystem::Make(
                                     s3, arrow::io::IOContext(arrow::default_memory_pool(), ObjectStorePool())));
  return std::static_pointer_cast<arrow::fs::FileSystem>(fs);
}

// The file systems one FileIO routes between: the local one (this object) and the object
// store, whose client is made on first use.
class RoutingFileSystem : public arrow::fs::LocalFileSystem {
 public:
  explicit RoutingFileSystem(ObjectStoreOptions options) : options_(std::move(options)) {}

  Result<std::shared_ptr<arrow::fs::FileSystem>> ObjectStore() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!s3_) {
      auto made = MakeS3FileSystem(options_);
      if (!made.ok()) {
        return WithContext(made.status(), "Cannot connect to the object store");
      }
      s3_ = std::move(made).ValueUnsafe();
    }
    return s3_;
  }

 private:
  const ObjectStoreOptions options_;
  std::mutex mu_;
  std::shared_ptr<arrow::fs::FileSystem> s3_;
};

// Where a location's operations go: the file system, and the path in its terms
// ("/w/x" locally, "bucket/key" on the object store).
struct Target {
  std::shared_ptr<arrow::fs::FileSystem> fs;
  std::string path;
  bool object_store = false;
  std::string scheme;  // the object store's scheme as the location gave it
};

Result<Target> Route(const std::shared_ptr<arrow::fs::FileSystem>& fs, const std::string& location,
                     bool allow_bucket = false) {
  Target t;
  if (!IsObjectStoreLocation(location)) {
    ARROW_ASSIGN_OR_RAISE(t.path, ToLocalPath(location));
    t.fs = fs;
    return t;
  }
  ARROW_ASSIGN_OR_RAISE(auto parsed, ParseObjectStoreLocation(location));
  if (parsed.key.empty() && !allow_bucket) {
    return ValidationError("Object location names a bucket, not an object: ", location);
  }
  ARROW_ASSIGN_OR_RAISE(t.fs, static_cast<RoutingFileSystem&>(*fs).ObjectStore());
  t.path = parsed.key.empty() ? parsed.bucket : parsed.bucket + "/" + parsed.key;
  t.object_store = true;
  t.scheme = parsed.scheme;
  return t;
}

// An upload to the object store: the fault injector is consulted before each write and
// before Close(), and every error names the location. Abort(), a failed Close() and
// release without Close() abandon the upload (Arrow's own stream completes it when
// destroyed), so nothing appears under the key.
class CheckedObjectStream : public InjectedStream<arrow::io::OutputStream> {
 public:
  CheckedObjectStream(std::shared_ptr<arrow::io::OutputStream> inner, std::string location,
                      FileKind kind, std::shared_ptr<const FaultInjector> injector)
      : InjectedStream(std::move(inner), std::move(location), kind, std::move(injector)) {}

  ~CheckedObjectStream() override {
    if (!done_) (void)Abort();
  }

  Status Close() override {
    if (done_) {
      return aborted_ ? Named(Status::IOError("stream was aborted")) : Status::OK();
    }
    Status st = Inject(FileOp::kSync);
    if (st.ok()) st = Named(inner_->Close());
    if (!st.ok()) {
      (void)Abort();
      return st;
    }
    done_ = true;
    return Status::OK();
  }

  Status Abort() override {
    if (done_) return Status::OK();
    done_ = true;
    aborted_ = true;
    if (inner_->closed()) return Status::OK();
    // Let parts already on their way finish first: a part upload still running when the
    // upload is aborted fails and is retried against an upload that no longer exists.
    (void)inner_->Flush();
    return Named(inner_->Abort());
  }

  bool closed() const override { return done_; }

 private:
  bool done_ = false;
  bool aborted_ = false;
};

// A new object's upload. "Never replace" is, on the object store, a check before the upload
// (see object_store.h).
Result<std::shared_ptr<arrow::io::OutputStream>> OpenNewObject(const Target& t,
                                                               const std::string& context) {
  // A HEAD of the key alone: GetFileInfo, finding no object, would also list the prefix to
  // tell a directory, one more round trip before every object written.
  auto existing = t.fs->OpenInputFile(t.path);
  if (existing.ok()) return AlreadyExists(context, ": file already exists");
  if (arrow::internal::ErrnoFromStatus(existing.status()) != ENOENT) {
    return WithContext(existing.status(), context);
  }
  auto stream = t.fs->OpenOutputStream(t.path);
  if (!stream.ok()) return WithContext(stream.status(), context);
  return stream;
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
                                  ": only local paths, file: URIs and s3:// (s3a://, s3n://) "
                                  "locations are supported");
  }
  return ValidationError("File location must be an absolute path or a file: URI: ", location);
}

ObjectStoreOptions WithEnvironment(ObjectStoreOptions options) {
  auto env = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value == nullptr ? std::string() : std::string(value);
  };
  if (options.endpoint.empty()) options.endpoint = env("AWS_ENDPOINT_URL_S3");
  if (options.endpoint.empty()) options.endpoint = env("AWS_ENDPOINT_URL");
  if (options.region.empty()) options.region = env("AWS_REGION");
  if (options.region.empty()) options.region = env("AWS_DEFAULT_REGION");
  if (options.access_key_id.empty() && !env("AWS_ACCESS_KEY_ID").empty()) {
    options.access_key_id = env("AWS_ACCESS_KEY_ID");
    options.secret_access_key = env("AWS_SECRET_ACCESS_KEY");
    options.session_token = env("AWS_SESSION_TOKEN");
  }
  return options;
}

std::string ObjectStoreLocation::ToString() const {
  return key.empty() ? StrCat(scheme, "://", bucket) : StrCat(scheme, "://", bucket, "/", key);
}

bool IsObjectStoreLocation(std::string_view location) {
  return StartsWithNoCase(location, "s3:") || StartsWithNoCase(location, "s3a:") ||
         StartsWithNoCase(location, "s3n:");
}

Result<ObjectStoreLocation> ParseObjectStoreLocation(std::string_view location) {
  if (!IsObjectStoreLocation(location)) {
    return ValidationError("Not an s3:// location: ", location);
  }
  ObjectStoreLocation out;
  const size_t colon = location.find(':');
  for (char c : location.substr(0, colon)) {
    out.scheme.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  std::string_view rest = location.substr(colon + 1);
  if (rest.substr(0, 2) != "//") {
    return ValidationError("Object location must look like ", out.scheme,
                           "://bucket/key: ", location);
  }
  rest.remove_prefix(2);
  const size_t slash = rest.find('/');
  out.bucket = std::string(rest.substr(0, slash));
  if (out.bucket.empty()) return ValidationError("Object location has no bucket: ", location);
  if (slash != std::string_view::npos) {
    std::string_view key = rest.substr(slash + 1);
    while (!key.empty() && key.back() == '/') key.remove_suffix(1);
    out.key = std::string(key);
  }
  return out;
}

FileIO::FileIO(std::shared_ptr<arrow::fs::FileSystem> fs,
               std::shared_ptr<const ObjectStoreOptions> options)
    : fs_(std::move(fs)), options_(std::move(options)) {}
FileIO::~FileIO() = default;

Result<std::shared_ptr<FileIO>> FileIO::Make(const ObjectStoreOptions& options) {
  return std::shared_ptr<FileIO>(
      new FileIO(std::make_shared<RoutingFileSystem>(WithEnvironment(options)),
                 std::make_shared<const ObjectStoreOptions>(options)));
}

Result<std::shared_ptr<FileIO>> FileIO::ForTable(const std::map<std::string, std::string>& config) {
  ObjectStoreOptions options = *options_;
  bool changed = false;
  auto take = [&](const char* key, std::string* field) {
    auto it = config.find(key);
    if (it == config.end() || it->second.empty()) return;
    *field = it->second;
    changed = true;
  };
  take("s3.access-key-id", &options.access_key_id);
  take("s3.secret-access-key", &options.secret_access_key);
  take("s3.session-token", &options.session_token);
  take("s3.endpoint", &options.endpoint);
  take("client.region", &options.region);
  if (auto it = config.find("s3.path-style-access"); it != config.end()) {
    options.path_style = it->second == "true";
    changed = true;
  }
  if (!changed) return shared_from_this();
  return Make(options);
}

std::string HadoopChecksumOf(const std::string& location) {
  const size_t slash = location.rfind('/');
  if (slash == std::string::npos) return "." + location + ".crc";
  return location.substr(0, slash + 1) + "." + location.substr(slash + 1) + ".crc";
}

bool IsHadoopChecksum(std::string_view path) {
  const size_t slash = path.rfind('/');
  const std::string_view name = path.substr(slash == std::string_view::npos ? 0 : slash + 1);
  return name.size() > 5 && name.front() == '.' && name.substr(name.size() - 4) == ".crc";
}

Result<std::shared_ptr<FileIO>> FileIO::MakeLocal() { return Make(ObjectStoreOptions{}); }

Status FinalizeObjectStore() {
  if (!arrow::fs::IsS3Initialized()) return Status::OK();
  return arrow::fs::FinalizeS3();
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
    const std::string& location, FileKind kind, std::optional<int64_t> size) {
  const std::string context = StrCat("Cannot read file ", location);
  ARROW_RETURN_NOT_OK(WithContext(Inject(FileOp::kRead, location, kind), context));
  auto target = Route(fs_, location);
  if (!target.ok()) return WithContext(target.status(), context);
  const std::string* path = &target->path;
  arrow::Result<std::shared_ptr<arrow::io::RandomAccessFile>> file;
  if (size && *size >= 0) {
    arrow::fs::FileInfo info(*path, arrow::fs::FileType::File);
    info.set_size(*size);
    file = target->fs->OpenInputFile(info);
  } else {
    file = target->fs->OpenInputFile(*path);
  }
  if (!file.ok()) {
    auto info = target->fs->GetFileInfo(*path);
    if (info.ok() && info->type() == arrow::fs::FileType::NotFound) {
      return NotFound(context, ": file does not exist");
    }
    return WithContext(file.status(), context);
  }
  Bump(reads_, kind);
  return std::move(file).ValueUnsafe();
}

Result<std::shared_ptr<arrow::Buffer>> FileIO::ReadFile(const std::string& location,
                                                        FileKind kind, std::optional<int64_t> known_size) {
  ARROW_ASSIGN_OR_RAISE(auto file, OpenInputFile(location, kind, known_size));
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
  auto target = Route(fs_, location);
  if (!target.ok()) return WithContext(target.status(), context);
  if (target->object_store) {
    ARROW_ASSIGN_OR_RAISE(auto stream, OpenNewObject(*target, context));
    Bump(creates_, kind);
    return std::make_shared<CheckedObjectStream>(std::move(stream), location, kind, injector());
  }
  const std::string* path = &target->path;
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
  auto target = Route(fs_, location);
  if (!target.ok()) return WithContext(target.status(), context);
  if (target->object_store) {
    // One PUT (objects up to 10 MiB) or a multipart upload: the object appears whole or not
    // at all.
    ARROW_ASSIGN_OR_RAISE(auto stream, OpenNewObject(*target, context));
    Status st = stream->Write(bytes.data(), static_cast<int64_t>(bytes.size()));
    if (st.ok()) st = stream->Close();
    if (!st.ok()) {
      (void)stream->Abort();
      return WithContext(st, context);
    }
    Bump(creates_, kind);
    return Status::OK();
  }
  const std::string* path = &target->path;
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

namespace {
int64_t MillisecondsSinceEpoch(arrow::fs::TimePoint t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

Result<arrow::fs::FileInfo> RegularFileInfo(arrow::fs::FileSystem& fs, const std::string& path,
                                            const std::string& context) {
  auto info = fs.GetFileInfo(path);
  if (!info.ok()) return WithContext(info.status(), context);
  if (info->type() == arrow::fs::FileType::NotFound) {
    return NotFound(context, ": file does not exist");
  }
  if (info->type() != arrow::fs::FileType::File) {
    return Status::IOError(context, ": not a regular file");
  }
  return std::move(info).ValueUnsafe();
}
}  // namespace

Result<int64_t> FileIO::FileSize(const std::string& location) {
  const std::string context = StrCat("Cannot get size of file ", location);
  auto target = Route(fs_, location);
  if (!target.ok()) return WithContext(target.status(), context);
  ARROW_ASSIGN_OR_RAISE(auto info, RegularFileInfo(*target->fs, target->path, context));
  return info.size();
}

Result<FileEntry> FileIO::Stat(const std::string& location, FileKind kind) {
  const std::string context = StrCat("Cannot read file ", location);
  ARROW_RETURN_NOT_OK(WithContext(Inject(FileOp::kRead, location, kind), context));
  auto target = Route(fs_, location);
  if (!target.ok()) return WithContext(target.status(), context);
  ARROW_ASSIGN_OR_RAISE(auto info, RegularFileInfo(*target->fs, target->path, context));
  return FileEntry{location, info.size(), MillisecondsSinceEpoch(info.mtime())};
}

Result<bool> FileIO::Exists(const std::string& location) {
  auto target = Route(fs_, location);
  if (!target.ok()) return WithContext(target.status(), StrCat("Cannot check file ", location));
  auto info = target->fs->GetFileInfo(target->path);
  if (!info.ok()) return WithContext(info.status(), StrCat("Cannot check file ", location));
  return info->type() != arrow::fs::FileType::NotFound;
}

Status FileIO::DeleteFile(const std::string& location, FileKind kind) {
  const std::string context = StrCat("Cannot delete file ", location);
  ARROW_RETURN_NOT_OK(WithContext(Inject(FileOp::kDelete, location, kind), context));
  auto target = Route(fs_, location);
  if (!target.ok()) return WithContext(target.status(), context);
  Status st = target->fs->DeleteFile(target->path);
  if (st.ok()) {
    Bump(deletes_, kind);
    return st;
  }
  auto info = target->fs->GetFileInfo(target->path);
  if (info.ok() && info->type() == arrow::fs::FileType::NotFound) return Status::OK();
  return WithContext(st, context);
}

Status FileIO::DeleteDirectory(const std::string& location) {
  const std::string context = StrCat("Cannot delete directory ", location);
  ARROW_RETURN_NOT_OK(
      WithContext(Inject(FileOp::kDeleteDirectory, location, FileKind::kOther), context));
  auto target = Route(fs_, location);
  if (!target.ok()) return WithContext(target.status(), context);
  const std::string* path = &target->path;
  if (*path == "/") return Status::Invalid(context, ": refusing to delete the root directory");
  auto info = target->fs->GetFileInfo(*path);
  if (!info.ok()) return WithContext(info.status(), context);
  if (info->type() == arrow::fs::FileType::NotFound) return Status::OK();
  if (info->type() != arrow::fs::FileType::Directory) {
    return Status::IOError(context, ": not a directory");
  }
  return WithContext(target->fs->DeleteDir(*path), context);
}

Result<std::vector<FileEntry>> FileIO::ListFiles(const std::string& location) {
  const std::string context = StrCat("Cannot list files under ", location);
  auto target = Route(fs_, location, /*allow_bucket=*/true);
  if (!target.ok()) return WithContext(target.status(), context);
  arrow::fs::FileSelector selector;
  selector.base_dir = target->path;
  selector.recursive = true;
  selector.allow_not_found = true;
  auto infos = target->fs->GetFileInfo(selector);
  if (!infos.ok()) return WithContext(infos.status(), context);
  std::vector<FileEntry> out;
  for (const auto& info : *infos) {
    if (info.type() != arrow::fs::FileType::File) continue;
    const int64_t mtime_ms = MillisecondsSinceEpoch(info.mtime());
    // Object store entries are listed as URIs in the scheme the location used.
    std::string path =
        target->object_store ? StrCat(target->scheme, "://", info.path()) : info.path();
    out.push_back(FileEntry{std::move(path), info.size(), mtime_ms});
  }
  if (out.empty() && target->object_store) {
    // An empty listing of a bucket that does not exist is a mistake, not an empty table.
    const std::string bucket = target->path.substr(0, target->path.find('/'));
    auto info = target->fs->GetFileInfo(bucket);
    if (!info.ok()) return WithContext(info.status(), context);
    if (info->type() == arrow::fs::FileType::NotFound) {
      return NotFound(context, ": bucket ", bucket, " does not exist");
    }
  }
  std::sort(out.begin(), out.end(),
            [](const FileEntry& a, const FileEntry& b) { return a.path < b.path; });
  return out;
}

}  // namespace floe
