#pragma once

// FileIO: the one way floe touches table files. Locations are the strings Iceberg metadata
// stores (absolute paths, file: URIs, and s3://, s3a:// or s3n:// URIs for object storage:
// see object_store.h); every error names the location it failed on.

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/buffer.h>
#include <arrow/filesystem/filesystem.h>
#include <arrow/io/interfaces.h>

#include "floe/util/status.h"

namespace floe {

// What a file is to Iceberg; used for counters and fault injection only.
enum class FileKind : int {
  kMetadata = 0,
  kManifestList,
  kManifest,
  kData,
  kDelete,
  kOther,
};
inline constexpr int kNumFileKinds = 6;
const char* FileKindName(FileKind kind);

// The operations a fault injector is consulted on.
enum class FileOp {
  kRead,             // ReadFile / OpenInputFile
  kWriteFile,        // WriteFile
  kCreate,           // OpenOutputStream
  kStreamWrite,      // each Write() on a stream from OpenOutputStream
  kSync,             // Close() of such a stream, which fsyncs it before it counts as written
  kDelete,           // DeleteFile
  kDeleteDirectory,  // DeleteDirectory (kind is kOther)
};
const char* FileOpName(FileOp op);

// Called before an operation; a non-OK status fails that operation with this status
// (context naming the file is added). Must be thread-safe if FileIO is shared.
using FaultInjector = std::function<Status(FileOp op, const std::string& location, FileKind kind)>;

// A snapshot of the counters, indexed by FileKind.
struct FileIOCounters {
  std::array<int64_t, kNumFileKinds> opened_for_read{};
  std::array<int64_t, kNumFileKinds> created{};
  std::array<int64_t, kNumFileKinds> deleted{};

  int64_t reads(FileKind kind) const { return opened_for_read[static_cast<int>(kind)]; }
  int64_t creates(FileKind kind) const { return created[static_cast<int>(kind)]; }
  int64_t deletes(FileKind kind) const { return deleted[static_cast<int>(kind)]; }
  int64_t total_reads() const;
  int64_t total_creates() const;
};

struct FileEntry {
  std::string path;  // absolute local path; for object storage, a URI (s3://bucket/key)
  int64_t size = 0;
  int64_t last_modified_ms = 0;  // modification time, milliseconds since the epoch
};

// Turns an absolute path or a file: URI ("file:/x", "file:///x", "file://localhost/x")
// into a local absolute path. Iceberg writers store locations unescaped (Hadoop's Path
// does not percent-encode), so no percent-decoding is done.
Result<std::string> ToLocalPath(std::string_view location);

struct ObjectStoreOptions;

// Hadoop's local file system (Spark's and Iceberg's Java servers', on a local warehouse) writes a
// checksum ".x.crc" beside each file x: its location, and whether a path names one.
std::string HadoopChecksumOf(const std::string& location);
bool IsHadoopChecksum(std::string_view path);

class FileIO : public std::enable_shared_from_this<FileIO> {
 public:
  // Local files, and the object store `options` describe (completed from the environment;
  // object_store.h). The S3 client is made on first use of an s3:// location.
  static Result<std::shared_ptr<FileIO>> Make(const ObjectStoreOptions& options);
  // Make() with no options: local files, and object storage configured by the environment.
  static Result<std::shared_ptr<FileIO>> MakeLocal();
  // This FileIO's object-store options with those of Iceberg's FileIO properties in `config`
  // (s3.access-key-id, s3.secret-access-key, s3.session-token, s3.endpoint,
  // s3.path-style-access, client.region), as a catalog vends them for one table; this FileIO
  // itself when `config` names none.
  Result<std::shared_ptr<FileIO>> ForTable(const std::map<std::string, std::string>& config);
  // The object-store options as given to Make().
  const ObjectStoreOptions& object_store() const { return *options_; }

  FileIO(const FileIO&) = delete;
  FileIO& operator=(const FileIO&) = delete;
  ~FileIO();

  // Missing files fail with a NotFound status. `size`, when the metadata gives it (a
  // manifest's length, a data file's file_size_in_bytes), spares object storage the request
  // that would ask for it: one dependent round trip less before the first byte.
  Result<std::shared_ptr<arrow::Buffer>> ReadFile(const std::string& location, FileKind kind,
                                                  std::optional<int64_t> size = std::nullopt);
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputFile(const std::string& location,
                                                                     FileKind kind,
                                                                     std::optional<int64_t> size = std::nullopt);

  // Creates parent directories. Fails with AlreadyExists if the file exists: Iceberg never
  // rewrites a file in place. Close() fsyncs the file and the directories that gained an
  // entry; a stream aborted, or released without a successful Close(), deletes its file.
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutputStream(const std::string& location,
                                                                    FileKind kind);

  // Writes a whole file atomically: readers never see a partial file, and an existing file
  // is never replaced (AlreadyExists naming the location), so two writers racing for the
  // same metadata file cannot both succeed.
  Status WriteFile(const std::string& location, FileKind kind, std::string_view bytes);

  Result<int64_t> FileSize(const std::string& location);
  // The size and modification time of the file at `location` (one stat, or one HEAD on object
  // storage); a missing file fails with NotFound. Counts as a read of `kind` for fault
  // injection, not for the counters: nothing is opened.
  Result<FileEntry> Stat(const std::string& location, FileKind kind);
  Result<bool> Exists(const std::string& location);

  // A missing file is not an error: cleanup after a failed commit may race other cleanup.
  Status DeleteFile(const std::string& location, FileKind kind);
  // Recursive; a missing directory is not an error.
  Status DeleteDirectory(const std::string& location);
  // All files under `location`, recursively, sorted by path, with their sizes and
  // modification times; empty if it does not exist. Directories are not listed.
  Result<std::vector<FileEntry>> ListFiles(const std::string& location);

  FileIOCounters counters() const;
  void ResetCounters();

  // Pass an empty function to remove the injector.
  void SetFaultInjector(FaultInjector injector);

 private:
  FileIO(std::shared_ptr<arrow::fs::FileSystem> fs, std::shared_ptr<const ObjectStoreOptions> options);

  Result<std::string> Resolve(const std::string& location) const;
  Status Inject(FileOp op, const std::string& location, FileKind kind) const;
  std::shared_ptr<const FaultInjector> injector() const;
  static void Bump(std::array<std::atomic<int64_t>, kNumFileKinds>& counter, FileKind kind);

  std::shared_ptr<arrow::fs::FileSystem> fs_;
  std::shared_ptr<const ObjectStoreOptions> options_;  // as given to Make()
  std::array<std::atomic<int64_t>, kNumFileKinds> reads_{};
  std::array<std::atomic<int64_t>, kNumFileKinds> creates_{};
  std::array<std::atomic<int64_t>, kNumFileKinds> deletes_{};
  mutable std::mutex injector_mutex_;
  std::shared_ptr<const FaultInjector> injector_;
};

}  // namespace floe
