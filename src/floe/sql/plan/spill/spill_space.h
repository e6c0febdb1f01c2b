#pragma once

// Where operators that outgrow their memory put rows for later: one directory per statement
// under the temp directory (floe.temp_directory; the system's temp directory by default),
// named after the process, made on the first spill and removed with everything in it when
// the statement's last operator is done. Directories of processes that are gone (a crash, a
// kill) are removed the next time a floe process spills under the same root.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include <arrow/io/type_fwd.h>
#include <arrow/ipc/type_fwd.h>
#include <arrow/record_batch.h>

#include "floe/util/status.h"

namespace floe::sql {

// The session setting naming the temp directory.
inline constexpr char kTempDirectoryKey[] = "floe.temp_directory";

// The root when floe.temp_directory is not set: the process's (--temp-directory of floe sql
// and floe serve), else $TMPDIR, else /tmp.
std::string DefaultTempDirectory();

// Sets the process's temp directory ("" keeps $TMPDIR or /tmp) and removes what floe processes
// that no longer run left there. `sessions_may_move`: whether a session may choose another
// with SET floe.temp_directory; not under floe serve, whose clients must not pick the paths
// the server writes.
void SetProcessTempDirectory(std::string root, bool sessions_may_move);
bool SessionsMayMoveTempDirectory();

class SpillSpace {
 public:
  // `root`: empty for DefaultTempDirectory().
  explicit SpillSpace(std::string root);
  ~SpillSpace();
  SpillSpace(const SpillSpace&) = delete;
  SpillSpace& operator=(const SpillSpace&) = delete;

  // A new file's path (the directory is made on first use). `what` names the operator.
  Result<std::string> NewFile(const std::string& what);
  // The statement's directory, once made ("" before).
  std::string directory() const;
  const std::string& root() const { return root_; }
  // How many files were made.
  int64_t files_made() const;

 private:
  std::string root_;
  mutable std::mutex mutex_;
  std::string directory_;
  int64_t files_ = 0;
};

// Rows written to a spill file, read back once in the order written.
class SpillWriter {
 public:
  static Result<std::unique_ptr<SpillWriter>> Open(std::string path, const std::shared_ptr<arrow::Schema>& schema,
                                                   arrow::MemoryPool* pool);
  ~SpillWriter();
  Status Write(const arrow::RecordBatch& batch);
  Status Close();
  const std::string& path() const { return path_; }
  int64_t rows() const { return rows_; }
  int64_t bytes() const { return bytes_; }

 private:
  SpillWriter() = default;
  std::string path_;
  std::shared_ptr<arrow::io::OutputStream> file_;
  std::shared_ptr<arrow::ipc::RecordBatchWriter> writer_;
  int64_t rows_ = 0;
  int64_t bytes_ = 0;
  bool closed_ = false;
};

// The bytes a batch's rows take (held in memory, or written to a spill file).
int64_t BatchBytes(const arrow::RecordBatch& batch);

// Reads a closed spill file; the file is deleted when the reader is destroyed.
Result<std::shared_ptr<arrow::RecordBatchReader>> ReadSpillFile(const std::string& path, arrow::MemoryPool* pool);

}  // namespace floe::sql
