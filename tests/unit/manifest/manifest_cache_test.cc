#include <filesystem>

#include "floe/manifest/manifest_cache.h"
#include "floe/manifest/manifest_writer.h"
#include "floe/spec/table_metadata.h"
#include "floe_test.h"

namespace floe::manifest {
namespace {

using spec::Literal;
using spec::Type;

class ManifestCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(io_, FileIO::MakeLocal());
    schema_ = std::make_shared<const spec::Schema>(
        0, std::vector<spec::NestedField>{spec::Required(1, "id", Type::Long()),
                                          spec::Optional(2, "name", Type::String())});
    spec_ = spec::PartitionSpec(0, {});
    metadata_.schemas = {schema_};
    metadata_.partition_specs = {spec_};
  }

  // A committed manifest of `files` one-row files with bounds on both columns.
  ManifestFile Write(const std::string& name, int files, int64_t sequence_number) {
    auto writer = ManifestWriter::Make(io_, dir_.str() + "/" + name, *schema_, spec_, 9).ValueOrDie();
    for (int i = 0; i < files; ++i) {
      DataFile f;
      f.file_path = dir_.str() + "/data/" + name + "-" + std::to_string(i) + ".parquet";
      f.record_count = 1;
      f.file_size_in_bytes = 100;
      f.lower_bounds = {{1, spec::ToSingleValueBinary(Literal::Long(i))}, {2, "a"}};
      f.upper_bounds = {{1, spec::ToSingleValueBinary(Literal::Long(i))}, {2, "z"}};
      EXPECT_OK(writer->Add(f));
    }
    ManifestFile mf = writer->Close().ValueOrDie();
    mf.sequence_number = sequence_number;
    mf.min_sequence_number = sequence_number;
    return mf;
  }

  int64_t ManifestReads() { return io_->counters().reads(FileKind::kManifest); }

  floe::testing::TempDir dir_;
  std::shared_ptr<FileIO> io_;
  spec::SchemaPtr schema_;
  spec::PartitionSpec spec_;
  spec::TableMetadata metadata_;
};

TEST_F(ManifestCacheTest, SecondReadOfAManifestOrListDoesNotOpenTheFile) {
  ManifestCache cache(int64_t{64} << 20);
  ManifestFile mf = Write("m.avro", 3, 4);
  const std::string list_path = dir_.str() + "/list.avro";
  ASSERT_OK(WriteManifestList(*io_, list_path, 9, std::nullopt, 4, {mf}));

  ASSERT_OK_AND_ASSIGN(auto first, cache.ReadManifest(*io_, mf, metadata_));
  const int64_t reads = ManifestReads();
  ASSERT_OK_AND_ASSIGN(auto second, cache.ReadManifest(*io_, mf, metadata_));
  EXPECT_EQ(ManifestReads(), reads);
  EXPECT_EQ(first.get(), second.get());
  ASSERT_EQ(second->size(), 3u);
  EXPECT_EQ(second->sequence_number(2), 4);

  const int64_t list_reads = io_->counters().reads(FileKind::kManifestList);
  ASSERT_OK_AND_ASSIGN(auto list1, cache.ReadManifestList(*io_, list_path));
  ASSERT_OK_AND_ASSIGN(auto list2, cache.ReadManifestList(*io_, list_path));
  EXPECT_EQ(io_->counters().reads(FileKind::kManifestList), list_reads + 1);
  ASSERT_EQ(list2->size(), 1u);
  EXPECT_EQ((*list2)[0].manifest_path, mf.manifest_path);
  EXPECT_EQ(cache.stats().hits, 2);
  EXPECT_EQ(cache.stats().misses, 2);
  EXPECT_EQ(cache.stats().items, 2);
}

TEST_F(ManifestCacheTest, ProjectionsAreCachedApart) {
  ManifestCache cache(int64_t{64} << 20);
  ManifestFile mf = Write("m.avro", 2, 1);
  ReadManifestOptions only_id;
  only_id.projection.metric_ids = std::vector<int32_t>{1};
  ASSERT_OK_AND_ASSIGN(auto projected, cache.ReadManifest(*io_, mf, metadata_, only_id));
  ASSERT_OK_AND_ASSIGN(auto full, cache.ReadManifest(*io_, mf, metadata_));
  EXPECT_EQ(projected->Entry(1).data_file.lower_bounds.size(), 1u);
  EXPECT_EQ(full->Entry(1).data_file.lower_bounds.size(), 2u);
  EXPECT_EQ(cache.stats().misses, 2);
  EXPECT_EQ(cache.stats().items, 2);
}

TEST_F(ManifestCacheTest, EvictsLeastRecentlyUsedPastTheBudget) {
  ManifestFile a = Write("a.avro", 50, 1), b = Write("b.avro", 50, 2), c = Write("c.avro", 50, 3);
  ManifestCache probe(int64_t{64} << 20);
  ASSERT_OK(probe.ReadManifest(*io_, a, metadata_).status());
  const int64_t one = probe.stats().bytes;
  // At least the paths, bounds, counts and sequence numbers the manifest holds.
  const int64_t path_bytes = static_cast<int64_t>((dir_.str() + "/data/a.avro-00.parquet").size());
  ASSERT_GT(one, 50 * (path_bytes + 4 + 5 * 8));

  // Room for two manifests of this size, not three.
  ManifestCache cache(one * 5 / 2);
  ASSERT_OK(cache.ReadManifest(*io_, a, metadata_).status());
  ASSERT_OK(cache.ReadManifest(*io_, b, metadata_).status());
  ASSERT_OK(cache.ReadManifest(*io_, a, metadata_).status());  // a is now the most recent
  ASSERT_OK(cache.ReadManifest(*io_, c, metadata_).status());  // evicts b
  EXPECT_EQ(cache.stats().items, 2);
  EXPECT_LE(cache.stats().bytes, one * 5 / 2);
  const int64_t reads = ManifestReads();
  ASSERT_OK(cache.ReadManifest(*io_, a, metadata_).status());
  ASSERT_OK(cache.ReadManifest(*io_, c, metadata_).status());
  EXPECT_EQ(ManifestReads(), reads);
  ASSERT_OK(cache.ReadManifest(*io_, b, metadata_).status());
  EXPECT_EQ(ManifestReads(), reads + 1);

  cache.SetCapacity(0);
  EXPECT_EQ(cache.stats().items, 0);
  EXPECT_EQ(cache.stats().bytes, 0);
}

TEST_F(ManifestCacheTest, RemovedOrReplacedFilesAreNotServedFromTheCache) {
  ManifestCache cache(int64_t{64} << 20);
  ManifestFile mf = Write("m.avro", 2, 1);
  ASSERT_OK(cache.ReadManifest(*io_, mf, metadata_).status());
  std::filesystem::remove(mf.manifest_path);
  auto missing = cache.ReadManifest(*io_, mf, metadata_);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), ::testing::HasSubstr(mf.manifest_path));

  // Another manifest under the same name (a different size) is read afresh.
  ManifestFile again = Write("m.avro", 5, 1);
  ASSERT_OK_AND_ASSIGN(auto entries, cache.ReadManifest(*io_, again, metadata_));
  EXPECT_EQ(entries->size(), 5u);
}

}  // namespace
}  // namespace floe::manifest
