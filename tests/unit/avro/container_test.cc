#include <random>
#include <string>
#include <vector>

#include <arrow/io/file.h>
#include <arrow/io/memory.h>

#include "avro_test_util.h"
#include "floe/avro/codec.h"
#include "floe/avro/container_reader.h"
#include "floe/avro/container_writer.h"

namespace floe::avro {
namespace {

using testing::ToBuffer;

constexpr const char* kPath = "/warehouse/db/t/metadata/m0.avro";

constexpr const char* kSchema =
    R"({"type":"record","name":"manifest_entry","fields":[)"
    R"({"name":"status","type":"int","field-id":0},)"
    R"({"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},)"
    R"({"name":"data_file","type":{"type":"record","name":"r2","fields":[)"
    R"({"name":"file_path","type":"string","field-id":100},)"
    R"({"name":"partition","type":{"type":"record","name":"r102","fields":[)"
    R"({"name":"day","type":["null",{"type":"int","logicalType":"date"}],"field-id":1000}]},"field-id":102},)"
    R"({"name":"record_count","type":"long","field-id":103},)"
    R"({"name":"lower_bounds","type":["null",{"type":"array","items":{"type":"record","name":"k126_v127","fields":[)"
    R"({"name":"key","type":"int","field-id":126},{"name":"value","type":"bytes","field-id":127}]},"logicalType":"map"}],"field-id":125},)"
    R"({"name":"props","type":{"type":"map","values":"string"}},)"
    R"({"name":"checksum","type":{"type":"fixed","name":"md5","size":16}},)"
    R"({"name":"ratio","type":["null","float","double"]},)"
    R"({"name":"kind","type":{"type":"enum","name":"Kind","symbols":["DATA","DELETES"]}},)"
    R"({"name":"flag","type":"boolean"}]},"field-id":2}]})";

const Codec kCodecs[] = {Codec::kNull, Codec::kDeflate, Codec::kSnappy, Codec::kZstandard};

std::shared_ptr<const Schema> TestSchema() { return Schema::Parse(kSchema).ValueOrDie(); }

Value Entry(int64_t i) {
  std::vector<Value> bounds;
  for (int k = 0; k < static_cast<int>(i % 4); ++k) {
    bounds.push_back(Value::Record({Value::Int(k), Value::Bytes(std::string(k, '\x7f'))}));
  }
  return Value::Record({
      Value::Int(static_cast<int32_t>(i % 3)),
      i % 5 == 0 ? Value::Union(0, Value::Null()) : Value::Union(1, Value::Long(i << 20)),
      Value::Record({
          Value::String("s3://bucket/db/t/data/part-" + std::to_string(i) + ".parquet"),
          Value::Record({Value::Union(1, Value::Int(static_cast<int32_t>(19000 + i % 30)))}),
          Value::Long(i * 7),
          Value::Union(1, Value::Array(std::move(bounds))),
          Value::Map({{"writer", Value::String("floe")}, {"i", Value::String(std::to_string(i))}}),
          Value::Fixed(std::string(16, static_cast<char>(i))),
          i % 2 == 0 ? Value::Union(2, Value::Double(i / 3.0))
                     : Value::Union(1, Value::Float(static_cast<float>(i))),
          Value::Enum(static_cast<int32_t>(i % 2)),
          Value::Bool(i % 2 == 1),
      }),
  });
}

const Metadata kMetadata = {
    {"schema", R"({"type":"struct","schema-id":0,"fields":[]})"},
    {"partition-spec", "[]"},
    {"partition-spec-id", "0"},
    {"format-version", "2"},
    {"content", "data"},
    {"binary", std::string("\x00\xff\x01", 3)},
};

// Writes `n` entries into an in-memory file.
std::string WriteFile(Codec codec, int64_t n, size_t block_size = 64 * 1024,
                      Metadata metadata = kMetadata) {
  auto sink = arrow::io::BufferOutputStream::Create().ValueOrDie();
  ContainerWriterOptions options;
  options.block_size = block_size;
  auto writer =
      ContainerWriter::Make(sink, TestSchema(), codec, std::move(metadata), options).ValueOrDie();
  for (int64_t i = 0; i < n; ++i) EXPECT_OK(writer->Write(Entry(i)));
  EXPECT_OK(writer->Close());
  auto buffer = sink->Finish().ValueOrDie();
  EXPECT_EQ(writer->bytes_written(), buffer->size());
  EXPECT_EQ(writer->values_written(), n);
  return buffer->ToString();
}

// Reads every value; the error, if any, must name the file.
Status ReadEverything(const std::string& bytes, int64_t* count = nullptr) {
  ARROW_ASSIGN_OR_RAISE(auto reader, ContainerReader::Open(ToBuffer(bytes), kPath));
  Value v;
  int64_t n = 0;
  while (true) {
    ARROW_ASSIGN_OR_RAISE(bool more, reader->Next(&v));
    if (!more) break;
    ++n;
  }
  if (count != nullptr) *count = n;
  return Status::OK();
}

class ContainerCodecTest : public ::testing::TestWithParam<Codec> {};

TEST_P(ContainerCodecTest, RoundTripsManyBlocks) {
  const int64_t n = 2000;
  const std::string bytes = WriteFile(GetParam(), n, /*block_size=*/4096);
  ASSERT_EQ(bytes.substr(0, 4), std::string("Obj\x01", 4));

  ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(ToBuffer(bytes), kPath));
  EXPECT_EQ(reader->codec(), GetParam());
  EXPECT_EQ(reader->schema()->ToJson(), kSchema);
  EXPECT_EQ(reader->schema()->root().fields[2].field_id(), 2);
  // avro.schema and avro.codec first, then the caller's entries in order.
  const Metadata& meta = reader->metadata();
  ASSERT_EQ(meta.size(), kMetadata.size() + 2);
  EXPECT_EQ(meta[0].first, "avro.schema");
  EXPECT_EQ(meta[0].second, kSchema);
  EXPECT_EQ(meta[1].first, "avro.codec");
  EXPECT_EQ(meta[1].second, CodecName(GetParam()));
  for (size_t i = 0; i < kMetadata.size(); ++i) EXPECT_EQ(meta[i + 2], kMetadata[i]);
  ASSERT_NE(reader->FindMetadata("format-version"), nullptr);
  EXPECT_EQ(*reader->FindMetadata("format-version"), "2");
  EXPECT_EQ(reader->FindMetadata("missing"), nullptr);

  Value v;
  int64_t i = 0;
  int64_t max_block = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(bool more, reader->Next(&v));
    if (!more) break;
    ASSERT_EQ(v, Entry(i)) << "entry " << i;
    max_block = std::max(max_block, reader->block_number());
    ++i;
  }
  EXPECT_EQ(i, n);
  EXPECT_GT(max_block, 10);
  // Reading past the end stays at the end.
  ASSERT_OK_AND_ASSIGN(bool more, reader->Next(&v));
  EXPECT_FALSE(more);
}

TEST_P(ContainerCodecTest, EmptyAndSingleValueFiles) {
  ASSERT_OK_AND_ASSIGN(auto reader,
                       ContainerReader::Open(ToBuffer(WriteFile(GetParam(), 0)), kPath));
  ASSERT_OK_AND_ASSIGN(auto values, reader->ReadAll());
  EXPECT_TRUE(values.empty());
  ASSERT_OK_AND_ASSIGN(reader, ContainerReader::Open(ToBuffer(WriteFile(GetParam(), 1)), kPath));
  ASSERT_OK_AND_ASSIGN(values, reader->ReadAll());
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0], Entry(0));
}

TEST_P(ContainerCodecTest, BlockLevelReading) {
  const std::string bytes = WriteFile(GetParam(), 300, /*block_size=*/2048);
  ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(ToBuffer(bytes), kPath));
  int64_t blocks = 0, values = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(bool more, reader->NextBlock());
    if (!more) break;
    ++blocks;
    EXPECT_EQ(reader->block_number(), blocks);
    values += reader->values_left_in_block();
  }
  EXPECT_GT(blocks, 5);
  EXPECT_EQ(values, 300);
}

TEST_P(ContainerCodecTest, RandomTruncationsAndByteFlipsNeverCrash) {
  const std::string good = WriteFile(GetParam(), 60, /*block_size=*/1024);
  std::mt19937_64 rng(20240601 + static_cast<int>(GetParam()));
  int errors = 0;
  for (int iter = 0; iter < 400; ++iter) {
    std::string bad = good;
    if (iter % 2 == 0) {
      bad.resize(std::uniform_int_distribution<size_t>(0, good.size() - 1)(rng));
    } else {
      const int flips = 1 + iter % 3;
      for (int f = 0; f < flips; ++f) {
        const size_t pos = std::uniform_int_distribution<size_t>(0, bad.size() - 1)(rng);
        bad[pos] = static_cast<char>(bad[pos] ^ (1 << (rng() % 8)));
      }
    }
    Status st = ReadEverything(bad);
    if (!st.ok()) {
      ++errors;
      ASSERT_THAT(st.message(), ::testing::HasSubstr(std::string("Invalid Avro file ") + kPath))
          << "iteration " << iter;
    } else {
      // Every truncation loses at least the last sync marker.
      ASSERT_NE(iter % 2, 0) << "truncated file read without error at iteration " << iter;
    }
  }
  EXPECT_GE(errors, 200);
}

INSTANTIATE_TEST_SUITE_P(Codecs, ContainerCodecTest, ::testing::ValuesIn(kCodecs),
                         [](const ::testing::TestParamInfo<Codec>& param_info) {
                           return std::string(CodecName(param_info.param));
                         });

TEST(ContainerTest, HeaderLayoutIsExact) {
  auto schema = Schema::Parse(R"("long")").ValueOrDie();
  auto sink = arrow::io::BufferOutputStream::Create().ValueOrDie();
  ContainerWriterOptions options;
  options.sync_marker = std::array<uint8_t, 16>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  ASSERT_OK_AND_ASSIGN(auto writer,
                       ContainerWriter::Make(sink, schema, Codec::kNull, {{"k", "v"}}, options));
  ASSERT_OK(writer->Write(Value::Long(1)));
  ASSERT_OK(writer->Write(Value::Long(-1)));
  ASSERT_OK(writer->Close());
  ASSERT_OK_AND_ASSIGN(auto buffer, sink->Finish());
  const std::string sync("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f", 16);
  const std::string expected = std::string("Obj\x01", 4) +
                               "\x06"                                  // 3 metadata entries
                               "\x16" "avro.schema" "\x0c\"long\""     //
                               "\x14" "avro.codec" "\x08null"          //
                               "\x02" "k" "\x02" "v" +                 //
                               std::string("\x00", 1) + sync +         // end of map, sync
                               "\x04\x04\x02\x01" + sync;              // 2 objects, 2 bytes
  EXPECT_EQ(buffer->ToString(), expected);
  // Writes after Close fail.
  ASSERT_RAISES_WITH_MESSAGE("closed", writer->Write(Value::Long(1)));
}

TEST(ContainerTest, WriterChecksItsInputs) {
  auto sink = arrow::io::BufferOutputStream::Create().ValueOrDie();
  ASSERT_RAISES_WITH_MESSAGE("'avro.codec' is set by the writer",
                             ContainerWriter::Make(sink, TestSchema(), Codec::kNull,
                                                   {{"avro.codec", "null"}}));
  ASSERT_OK_AND_ASSIGN(auto writer, ContainerWriter::Make(sink, TestSchema()));
  ASSERT_RAISES_WITH_MESSAGE("cannot write an Avro long value as record",
                             writer->Write(Value::Long(1)));
  ASSERT_OK(writer->Write(Entry(1)));
  ASSERT_OK(writer->Close());
  ASSERT_OK_AND_ASSIGN(auto buffer, sink->Finish());
  ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(buffer, kPath));
  ASSERT_OK_AND_ASSIGN(auto values, reader->ReadAll());
  ASSERT_EQ(values.size(), 1u);  // the rejected value left nothing behind
}

TEST(ContainerTest, WritesAndReadsARealFile) {
  floe::testing::TempDir dir;
  const std::string path = (dir.path() / "m.avro").string();
  {
    ASSERT_OK_AND_ASSIGN(auto out, arrow::io::FileOutputStream::Open(path));
    ASSERT_OK_AND_ASSIGN(auto writer,
                         ContainerWriter::Make(out, TestSchema(), Codec::kDeflate, kMetadata));
    for (int64_t i = 0; i < 100; ++i) ASSERT_OK(writer->Write(Entry(i)));
    ASSERT_OK(writer->Close());
    ASSERT_OK(out->Close());
  }
  ASSERT_OK_AND_ASSIGN(auto in, arrow::io::ReadableFile::Open(path));
  ASSERT_OK_AND_ASSIGN(int64_t size, in->GetSize());
  ASSERT_OK_AND_ASSIGN(auto buffer, in->Read(size));
  ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(buffer, path));
  ASSERT_OK_AND_ASSIGN(auto values, reader->ReadAll());
  ASSERT_EQ(values.size(), 100u);
  EXPECT_EQ(values[99], Entry(99));
}

TEST(ContainerTest, CorruptFilesGiveErrorsNamingTheFile) {
  const std::string good = WriteFile(Codec::kNull, 40, /*block_size=*/512);
  ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(ToBuffer(good), kPath));
  const std::string sync(reinterpret_cast<const char*>(good.data()) + good.find(kMetadata[5].second) +
                             kMetadata[5].second.size() + 1,
                         16);
  // Block boundaries: each block ends with the sync marker.
  std::vector<size_t> sync_ends;
  for (size_t pos = good.find(sync); pos != std::string::npos; pos = good.find(sync, pos + 1)) {
    sync_ends.push_back(pos + 16);
  }
  ASSERT_GE(sync_ends.size(), 4u);  // header plus at least three blocks
  const std::string prefix = std::string("Invalid Avro file ") + kPath + ": ";

  ASSERT_RAISES_WITH_MESSAGE(prefix + "not an Avro object container (bad magic)",
                             ReadEverything("Obj\x02" + good.substr(4)));
  ASSERT_RAISES_WITH_MESSAGE(prefix + "not an Avro object container (bad magic)",
                             ReadEverything("Ob"));
  ASSERT_RAISES_WITH_MESSAGE(prefix + "not an Avro object container (bad magic)",
                             ReadEverything(""));
  // Every cut inside the header.
  for (size_t len = 4; len < sync_ends[0]; ++len) {
    SCOPED_TRACE(len);
    ASSERT_RAISES_WITH_MESSAGE(prefix + "truncated", ReadEverything(good.substr(0, len)));
  }
  // The header alone is a valid empty file.
  int64_t count = -1;
  ASSERT_OK(ReadEverything(good.substr(0, sync_ends[0]), &count));
  EXPECT_EQ(count, 0);
  // Cut inside the third block, after its size.
  ASSERT_RAISES_WITH_MESSAGE(prefix + "truncated block 3",
                             ReadEverything(good.substr(0, sync_ends[2] + 10)));
  ASSERT_RAISES_WITH_MESSAGE(prefix + "truncated block 2",
                             ReadEverything(good.substr(0, sync_ends[2] - 1)));
  // A flipped byte in the sync marker after block 2.
  std::string flipped = good;
  flipped[sync_ends[2] - 5] ^= 0x01;
  ASSERT_RAISES_WITH_MESSAGE(prefix + "sync marker mismatch after block 2",
                             ReadEverything(flipped));
  // Values from blocks before the damage are still delivered.
  {
    ASSERT_OK_AND_ASSIGN(auto r, ContainerReader::Open(ToBuffer(flipped), kPath));
    Value v;
    int64_t n = 0;
    Status st;
    while (true) {
      auto more = r->Next(&v);
      if (!more.ok()) {
        st = more.status();
        break;
      }
      if (!*more) break;
      ++n;
    }
    EXPECT_FALSE(st.ok());
    EXPECT_GT(n, 0);
    // The error sticks.
    ASSERT_RAISES_WITH_MESSAGE("sync marker mismatch after block 2", r->Next(&v));
  }
  // A block claiming more objects than it holds.
  std::string overcount = good;
  overcount[sync_ends[0]] = static_cast<char>(overcount[sync_ends[0]] + 2);
  ASSERT_RAISES_WITH_MESSAGE(prefix, ReadEverything(overcount));
  // Junk after the last block.
  ASSERT_RAISES_WITH_MESSAGE(prefix + "truncated block", ReadEverything(good + "\x02"));
}

// Builds a header by hand, for metadata the writer refuses to produce.
std::string HandHeader(const Metadata& metadata) {
  Encoder e;
  e.WriteRaw(std::string("Obj\x01", 4));
  e.WriteBlockCount(static_cast<int64_t>(metadata.size()));
  for (const auto& [k, v] : metadata) {
    e.WriteString(k);
    e.WriteBytes(v);
  }
  e.WriteBlockCount(0);
  e.WriteFixed(std::string(16, 'S'));
  return e.buffer();
}

TEST(ContainerTest, BadHeaders) {
  const std::string prefix = std::string("Invalid Avro file ") + kPath + ": ";
  ASSERT_RAISES_WITH_MESSAGE(prefix + "unsupported codec 'lzo'",
                             ReadEverything(HandHeader({{"avro.schema", "\"int\""},
                                                        {"avro.codec", "lzo"}})));
  ASSERT_RAISES_WITH_MESSAGE(prefix + "header has no avro.schema",
                             ReadEverything(HandHeader({{"avro.codec", "null"}})));
  ASSERT_RAISES_WITH_MESSAGE(prefix + "bad avro.schema: Invalid Avro schema",
                             ReadEverything(HandHeader({{"avro.schema", "{\"type\":"}})));
  ASSERT_RAISES_WITH_MESSAGE(prefix + "duplicate header metadata key 'a'",
                             ReadEverything(HandHeader({{"avro.schema", "\"int\""},
                                                        {"a", "1"},
                                                        {"a", "2"}})));
  // No avro.codec means null; metadata blocks may use negative counts with sizes.
  Encoder e;
  e.WriteRaw(std::string("Obj\x01", 4));
  e.WriteBlockCount(-1);
  e.WriteLong(1 + 11 + 1 + 5);
  e.WriteString("avro.schema");
  e.WriteBytes("\"int\"");
  e.WriteBlockCount(0);
  e.WriteFixed(std::string(16, 'S'));
  e.WriteLong(1);
  e.WriteLong(1);
  e.WriteInt(-3);
  e.WriteFixed(std::string(16, 'S'));
  ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(ToBuffer(e.buffer()), kPath));
  EXPECT_EQ(reader->codec(), Codec::kNull);
  ASSERT_OK_AND_ASSIGN(auto values, reader->ReadAll());
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0], Value::Int(-3));
}

// Builds a single-block file around an already-encoded (and maybe compressed) block.
std::string OneBlockFile(Codec codec, const std::string& block, int64_t count) {
  Encoder e;
  e.WriteRaw(HandHeader({{"avro.schema", "\"string\""}, {"avro.codec", CodecName(codec)}}));
  e.WriteLong(count);
  e.WriteLong(static_cast<int64_t>(block.size()));
  e.WriteRaw(block);
  e.WriteFixed(std::string(16, 'S'));
  return e.buffer();
}

TEST(ContainerTest, SnappyCrcIsVerified) {
  const std::string prefix = std::string("Invalid Avro file ") + kPath + ": ";
  Encoder data;
  data.WriteString("hello");
  data.WriteString("world");
  ASSERT_OK_AND_ASSIGN(auto codec, BlockCodec::Make(Codec::kSnappy));
  std::string block;
  ASSERT_OK(codec->Compress(data.buffer(), &block));
  // The CRC is big-endian over the uncompressed bytes.
  const uint32_t crc = Crc32(data.buffer().data(), data.size());
  EXPECT_EQ(static_cast<uint8_t>(block[block.size() - 4]), crc >> 24);
  EXPECT_EQ(static_cast<uint8_t>(block[block.size() - 1]), crc & 0xff);
  ASSERT_OK(ReadEverything(OneBlockFile(Codec::kSnappy, block, 2)));

  std::string bad_crc = block;
  bad_crc.back() ^= 0x40;
  ASSERT_RAISES_WITH_MESSAGE(prefix + "snappy CRC mismatch in block 1",
                             ReadEverything(OneBlockFile(Codec::kSnappy, bad_crc, 2)));
  ASSERT_RAISES_WITH_MESSAGE(prefix, ReadEverything(OneBlockFile(Codec::kSnappy, "abc", 2)));
  ASSERT_RAISES_WITH_MESSAGE(prefix, ReadEverything(OneBlockFile(Codec::kSnappy, "\xff\xff\xff\xff\x0f" "abcd", 2)));
}

TEST(ContainerTest, CompressedGarbageAndBombsAreErrors) {
  const std::string prefix = std::string("Invalid Avro file ") + kPath + ": ";
  for (Codec codec : {Codec::kDeflate, Codec::kZstandard}) {
    SCOPED_TRACE(CodecName(codec));
    ASSERT_RAISES_WITH_MESSAGE(prefix, ReadEverything(OneBlockFile(codec, "not compressed", 1)));
    // Valid compressed data, cut short.
    ASSERT_OK_AND_ASSIGN(auto c, BlockCodec::Make(codec));
    Encoder data;
    for (int i = 0; i < 1000; ++i) data.WriteString("value " + std::to_string(i));
    std::string block;
    ASSERT_OK(c->Compress(data.buffer(), &block));
    ASSERT_OK(ReadEverything(OneBlockFile(codec, block, 1000)));
    ASSERT_RAISES_WITH_MESSAGE(prefix, ReadEverything(OneBlockFile(codec, block.substr(0, block.size() / 2), 1000)));

    // 64 MiB of zeros compresses to little; a 16 MiB limit rejects it.
    std::string zeros(64 << 20, '\0');
    std::string bomb;
    ASSERT_OK(c->Compress(zeros, &bomb));
    ContainerReaderOptions options;
    options.max_block_size = 16 << 20;
    ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(ToBuffer(OneBlockFile(codec, bomb, 1)),
                                                            kPath, options));
    Value v;
    ASSERT_RAISES_WITH_MESSAGE("exceeds the limit of 16777216 bytes in block 1", reader->Next(&v));
  }
}

TEST(ContainerTest, ZeroSizeItemsAreBoundedPerBlock) {
  const std::string prefix = std::string("Invalid Avro file ") + kPath + ": ";
  // Each object is an array of 1000 nulls, three bytes; 2000 of them exceed the default
  // per-block budget of 2^20 items although each value alone is fine.
  auto schema = Schema::Parse(R"({"type":"array","items":"null"})").ValueOrDie();
  std::vector<Value> nulls(1000);
  auto sink = arrow::io::BufferOutputStream::Create().ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto writer, ContainerWriter::Make(sink, schema));
  for (int i = 0; i < 2000; ++i) ASSERT_OK(writer->Write(Value::Array(nulls)));
  ASSERT_OK(writer->Close());
  ASSERT_OK_AND_ASSIGN(auto buffer, sink->Finish());
  ASSERT_RAISES_WITH_MESSAGE("too many zero-size items",
                             ReadEverything(buffer->ToString()));
  ContainerReaderOptions options;
  options.max_zero_size_items_per_block = 4 << 20;
  ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(buffer, kPath, options));
  ASSERT_OK_AND_ASSIGN(auto values, reader->ReadAll());
  EXPECT_EQ(values.size(), 2000u);

  // A "null" file whose block claims 2^40 objects in no bytes.
  Encoder e;
  e.WriteRaw(HandHeader({{"avro.schema", "\"null\""}}));
  e.WriteLong(int64_t{1} << 40);
  e.WriteLong(0);
  e.WriteFixed(std::string(16, 'S'));
  ASSERT_RAISES_WITH_MESSAGE(prefix + "block 1 claims 1099511627776 objects in 0 bytes",
                             ReadEverything(e.buffer()));
}

TEST(CodecTest, Crc32KnownValues) {
  EXPECT_EQ(Crc32("123456789", 9), 0xCBF43926u);
  EXPECT_EQ(Crc32("", 0), 0u);
  EXPECT_EQ(Crc32("The quick brown fox jumps over the lazy dog", 43), 0x414FA339u);
  // Against a bit-at-a-time reference, across lengths and alignments, and chained.
  std::mt19937 rng(7);
  std::string data(100, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  for (size_t start = 0; start < 9; ++start) {
    for (size_t len = 0; start + len <= data.size(); len += 7) {
      uint32_t ref = 0xffffffffu;
      for (size_t i = start; i < start + len; ++i) {
        ref ^= static_cast<uint8_t>(data[i]);
        for (int k = 0; k < 8; ++k) ref = (ref & 1) ? 0xEDB88320u ^ (ref >> 1) : ref >> 1;
      }
      ref = ~ref;
      ASSERT_EQ(Crc32(data.data() + start, len), ref) << start << " " << len;
      const size_t half = len / 2;
      ASSERT_EQ(Crc32(data.data() + start + half, len - half, Crc32(data.data() + start, half)), ref);
    }
  }
}

TEST(CodecTest, NamesRoundTrip) {
  for (Codec c : kCodecs) {
    ASSERT_OK_AND_ASSIGN(Codec back, CodecFromName(CodecName(c)));
    EXPECT_EQ(back, c);
  }
  ASSERT_RAISES_WITH_MESSAGE("unsupported codec 'bzip2'", CodecFromName("bzip2"));
}

TEST(CodecTest, DeflateIsRawWithoutZlibHeader) {
  ASSERT_OK_AND_ASSIGN(auto codec, BlockCodec::Make(Codec::kDeflate));
  std::string out;
  ASSERT_OK(codec->Compress("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", &out));
  // A zlib stream starts with 0x78; raw deflate with a block header (here fixed Huffman).
  ASSERT_FALSE(out.empty());
  EXPECT_NE(static_cast<uint8_t>(out[0]), 0x78);
  std::string back;
  ASSERT_OK(codec->Decompress(out, 1 << 20, &back));
  EXPECT_EQ(back, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
}

TEST(CodecTest, DeflateBlocksLargerThanTheFirstGuessGrowTheOutput) {
  // Compresses about 50:1, so the output outgrows four times the input several times over.
  std::string text;
  for (int i = 0; text.size() < (3 << 20); ++i) text += "row " + std::to_string(i % 97) + ";";
  for (int level : {0, 1, 6, 9}) {
    SCOPED_TRACE(level);
    ASSERT_OK_AND_ASSIGN(auto codec, BlockCodec::Make(Codec::kDeflate, level));
    std::string packed, back;
    ASSERT_OK(codec->Compress(text, &packed));
    ASSERT_OK(codec->Decompress(packed, 16 << 20, &back));
    EXPECT_EQ(back, text);
    ASSERT_RAISES_WITH_MESSAGE("decompressed block exceeds the limit of 1048576 bytes",
                               codec->Decompress(packed, 1 << 20, &back));
  }
  ASSERT_RAISES_WITH_MESSAGE("deflate compression level 10 is not between 0 and 9",
                             BlockCodec::Make(Codec::kDeflate, 10));
}

}  // namespace
}  // namespace floe::avro
