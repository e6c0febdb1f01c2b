#pragma once

// Puffin files (Iceberg's Puffin spec): the magic "PFA1", blobs, then a footer of the magic, a
// UTF-8 JSON payload describing the blobs (FileMetadata), the payload's size (4 bytes,
// little-endian), 4 bytes of flags and the magic again. Format-version 3 tables keep their
// deletion vectors in them (deletion_vector.h).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/io/type_fwd.h>

#include "floe/io/file_io.h"
#include "floe/util/status.h"

namespace floe::manifest {

inline constexpr std::string_view kDeletionVectorBlobType = "deletion-vector-v1";
// The field a deletion vector is computed for: the _pos metadata column.
inline constexpr int32_t kRowPositionFieldId = 2147483645;

// A blob's entry in the footer (BlobMetadata).
struct PuffinBlobMetadata {
  std::string type;
  std::vector<int32_t> fields;  // field ids the blob was computed from
  int64_t snapshot_id = -1;     // -1 for deletion vectors: unknown when the file is written
  int64_t sequence_number = -1;
  int64_t offset = 0;  // where the blob's bytes start in the file
  int64_t length = 0;  // how many there are (after compression, if compressed)
  std::optional<std::string> compression_codec;  // absent: not compressed
  std::map<std::string, std::string> properties;
};

// The footer's payload (FileMetadata).
struct PuffinFooter {
  std::vector<PuffinBlobMetadata> blobs;
  std::map<std::string, std::string> properties;
};

// The metadata Iceberg Java gives a deletion vector's blob: type deletion-vector-v1, field
// _pos, snapshot id and sequence number -1, properties referenced-data-file and cardinality.
PuffinBlobMetadata DeletionVectorBlobMetadata(const std::string& referenced_data_file,
                                              int64_t cardinality);

// Writes one Puffin file through FileIO::OpenOutputStream (kind kDelete): the file is new,
// never replaced, and is durable once Finish() returns. A writer dropped before Finish()
// leaves no file.
class PuffinWriter {
 public:
  struct BlobPlacement {
    int64_t offset = 0;
    int64_t length = 0;
  };
  struct FileSize {
    int64_t file_size = 0;    // the whole file
    int64_t footer_size = 0;  // the footer, both magics included
  };

  // `properties` are the footer's; "created-by" is "floe" unless they name another.
  static Result<std::unique_ptr<PuffinWriter>> Make(
      FileIO& io, std::string location, std::map<std::string, std::string> properties = {});
  ~PuffinWriter();
  PuffinWriter(const PuffinWriter&) = delete;
  PuffinWriter& operator=(const PuffinWriter&) = delete;

  // Writes `bytes` as the next blob, as given (a compression codec in `metadata` only says
  // how they were compressed). The blob's offset and length are the writer's to fill in.
  Result<BlobPlacement> Add(PuffinBlobMetadata metadata, std::string_view bytes);
  // Writes the footer (uncompressed) and closes the file.
  Result<FileSize> Finish();

  const std::string& location() const { return location_; }

 private:
  PuffinWriter() = default;
  Status CheckWritable() const;
  Status Failed(Status status);

  std::string location_;
  std::shared_ptr<arrow::io::OutputStream> sink_;
  PuffinFooter footer_;
  int64_t position_ = 0;
  bool finished_ = false;
  bool failed_ = false;
};

// Reads the footer of the Puffin file at `path`. A file that is not a well-formed Puffin
// file (magic, sizes, flags, JSON, blobs outside the file) is an IOError naming it; a footer
// compressed with LZ4, which floe does not read, is one too.
Result<PuffinFooter> ReadPuffinFooter(FileIO& io, const std::string& path);

}  // namespace floe::manifest
