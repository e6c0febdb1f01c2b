#include "floe/table/location_policy.h"

#include <filesystem>
#include <fstream>

#include "floe/table/commit.h"
#include "floe/table/metadata_files.h"
#include "floe/table/snapshot_producer.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

namespace fs = std::filesystem;
using floe::testing::People;

std::vector<std::string> FilesUnder(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void WriteText(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(NormalizeLocationTest, PathsAndFileUris) {
  ASSERT_OK_AND_ASSIGN(auto a, NormalizeLocation("/w//a/./b/../c/"));
  EXPECT_EQ(a, "/w/a/c");
  ASSERT_OK_AND_ASSIGN(auto b, NormalizeLocation("file:///w/a/../../x"));
  EXPECT_EQ(b, "/x");
  ASSERT_OK_AND_ASSIGN(auto c, NormalizeLocation("file:/w/a"));
  EXPECT_EQ(c, "/w/a");
  ASSERT_OK_AND_ASSIGN(auto d, NormalizeLocation("file://localhost/w/a"));
  EXPECT_EQ(d, "/w/a");
  ASSERT_OK_AND_ASSIGN(auto e, NormalizeLocation("/../.."));
  EXPECT_EQ(e, "/");
  ASSERT_RAISES_WITH_MESSAGE("File location must be an absolute path or a file: URI: w/a",
                             NormalizeLocation("w/a"));
  ASSERT_RAISES_WITH_MESSAGE("No FileIO for scheme 'gs'", NormalizeLocation("gs://b/w"));
  ASSERT_RAISES_WITH_MESSAGE("remote host 'h'", NormalizeLocation("file://h/w"));

  ASSERT_OK_AND_ASSIGN(auto f, CanonicalLocation("file:/w/a/../b/"));
  EXPECT_EQ(f, "file:///w/b");
  ASSERT_OK_AND_ASSIGN(auto g, CanonicalLocation("/w//b/."));
  EXPECT_EQ(g, "/w/b");
}

TEST(LocationPolicyTest, WarehouseAndAllowedRoots) {
  testing::TempDir dir;
  const std::string wh = dir.str() + "/wh";
  ASSERT_OK_AND_ASSIGN(auto policy, LocationPolicy::Make(wh, {}));
  EXPECT_TRUE(policy.Allows(wh));
  EXPECT_TRUE(policy.Allows(wh + "/db/t"));
  EXPECT_TRUE(policy.Allows("file://" + wh + "/db/t"));
  EXPECT_TRUE(policy.Allows(wh + "/db/../t"));
  EXPECT_FALSE(policy.Allows(wh + "/../x"));
  EXPECT_FALSE(policy.Allows(wh + "2/x"));  // a sibling sharing the prefix
  EXPECT_FALSE(policy.Allows(dir.str()));
  EXPECT_FALSE(policy.Allows("/"));
  EXPECT_FALSE(policy.Allows("relative/x"));
  EXPECT_FALSE(policy.Allows("s3://b/wh/x"));
  TableIdentifier t(Namespace({"db"}), "t");
  EXPECT_EQ(
      policy.Check(t, "Location", "/tmp/x").message(),
      "Location /tmp/x of table db.t is outside the warehouse " + wh + " (allowed roots: none)");
  EXPECT_EQ(policy.Check(t, "Location", "x").message(),
            "Location x of table db.t is not usable: File location must be an absolute path or "
            "a file: URI: x");

  ASSERT_OK_AND_ASSIGN(auto wider,
                       LocationPolicy::Make("file://" + wh, {dir.str() + "/extra", "file:/srv"}));
  EXPECT_TRUE(wider.Allows(dir.str() + "/extra/t"));
  EXPECT_TRUE(wider.Allows("/srv/a/b"));
  EXPECT_FALSE(wider.Allows("/srv2"));
  EXPECT_EQ(wider.Check(t, "write.data.path", "/tmp/x").message(),
            "write.data.path /tmp/x of table db.t is outside the warehouse file://" + wh +
                " (allowed roots: " + dir.str() + "/extra, file:/srv)");

  ASSERT_OK_AND_ASSIGN(auto none, LocationPolicy::Make("", {}));
  EXPECT_FALSE(none.Allows("/tmp/x"));
  EXPECT_EQ(none.Check(t, "Location", "/tmp/x").message(),
            "Location /tmp/x of table db.t is outside the warehouse (none configured) (allowed "
            "roots: none)");

  EXPECT_EQ(LocationPolicy::Make("wh", {}).status().message(),
            "Warehouse wh is not an absolute path, file: URI or s3:// location (File location "
            "must be an "
            "absolute path or a file: URI: wh)");
  EXPECT_EQ(LocationPolicy::Make("/wh", {"x"}).status().message(),
            "Allowed root x is not an absolute path, file: URI or s3:// location (File location "
            "must be an "
            "absolute path or a file: URI: x)");
}

TEST(NormalizeLocationTest, ObjectStoreLocations) {
  ASSERT_OK_AND_ASSIGN(auto a, NormalizeLocation("S3://bucket/wh/db/t/"));
  EXPECT_EQ(a, "s3://bucket/wh/db/t");
  ASSERT_OK_AND_ASSIGN(auto b, NormalizeLocation("s3a://bucket"));
  EXPECT_EQ(b, "s3a://bucket");
  ASSERT_OK_AND_ASSIGN(auto c, CanonicalLocation("s3n://bucket/wh/"));
  EXPECT_EQ(c, "s3n://bucket/wh");
  EXPECT_EQ(NormalizeLocation("s3://bucket/wh/../other").status().message(),
            "Object location must not hold empty, '.' or '..' segments: s3://bucket/wh/../other");
  EXPECT_EQ(NormalizeLocation("s3://bucket/wh//t").status().message(),
            "Object location must not hold empty, '.' or '..' segments: s3://bucket/wh//t");
  EXPECT_EQ(NormalizeLocation("s3:///wh").status().message(),
            "Object location has no bucket: s3:///wh");
}

TEST(LocationPolicyTest, ObjectStoreWarehouse) {
  ASSERT_OK_AND_ASSIGN(auto policy, LocationPolicy::Make("s3://bucket/wh", {"s3://other/root"}));
  EXPECT_TRUE(policy.Allows("s3://bucket/wh"));
  EXPECT_TRUE(policy.Allows("s3://bucket/wh/db/t"));
  EXPECT_TRUE(policy.Allows("s3a://bucket/wh/db/t"));  // the same objects as s3://
  EXPECT_TRUE(policy.Allows("s3://other/root/t"));
  EXPECT_FALSE(policy.Allows("s3://bucket/wh2/db/t"));  // a prefix, not a '/' boundary
  EXPECT_FALSE(policy.Allows("s3://bucket/w"));
  EXPECT_FALSE(policy.Allows("s3://bucket2/wh/db/t"));  // another bucket
  EXPECT_FALSE(policy.Allows("s3://bucket/wh/../x"));
  EXPECT_FALSE(policy.Allows("/bucket/wh/db/t"));
  EXPECT_FALSE(policy.Allows("file:///bucket/wh"));
  const TableIdentifier t(Namespace({"db"}), "t");
  EXPECT_EQ(policy.Check(t, "Location", "s3://bucket/wh/../x").message(),
            "Location s3://bucket/wh/../x of table db.t is not usable: Object location must not "
            "hold empty, '.' or '..' segments: s3://bucket/wh/../x");
  EXPECT_EQ(policy.Check(t, "Location", "s3://bucket2/wh/db/t").message(),
            "Location s3://bucket2/wh/db/t of table db.t is outside the warehouse s3://bucket/wh "
            "(allowed roots: s3://other/root)");

  // A local warehouse admits no object location, and the other way round.
  ASSERT_OK_AND_ASSIGN(auto local, LocationPolicy::Make("/wh", {}));
  EXPECT_FALSE(local.Allows("s3://wh/x"));
  ASSERT_OK_AND_ASSIGN(auto bucket_root, LocationPolicy::Make("s3://bucket", {}));
  EXPECT_TRUE(bucket_root.Allows("s3://bucket/any/t"));
  EXPECT_FALSE(bucket_root.Allows("/bucket/any/t"));
}

TEST(LocationPolicyTest, SymlinksAreFollowed) {
  testing::TempDir dir;
  fs::create_directories(dir.path() / "wh" / "db");
  fs::create_directories(dir.path() / "elsewhere");
  fs::create_directory_symlink(dir.path() / "elsewhere", dir.path() / "wh" / "db" / "link");
  ASSERT_OK_AND_ASSIGN(auto policy, LocationPolicy::Make(dir.str() + "/wh", {}));
  EXPECT_TRUE(policy.Allows(dir.str() + "/wh/db/t"));
  EXPECT_FALSE(policy.Allows(dir.str() + "/wh/db/link/t"));
  // The warehouse itself may be reached through a link.
  fs::create_directory_symlink(dir.path() / "wh", dir.path() / "wh-link");
  ASSERT_OK_AND_ASSIGN(auto linked, LocationPolicy::Make(dir.str() + "/wh-link", {}));
  EXPECT_TRUE(linked.Allows(dir.str() + "/wh/db/t"));
  EXPECT_TRUE(linked.Allows(dir.str() + "/wh-link/db/t"));
}

class ConfinementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(wh_.Open());
    ASSERT_OK_AND_ASSIGN(schema_, SchemaFromArrow(*People(0, 1)->schema()));
    outside_ = wh_.dir.path() / "outside";
    warehouse_ = wh_.dir.str() + "/wh";
  }

  std::string OutsideMessage(const std::string& what, const std::string& location) {
    return what + " " + location + " of table db.t is outside the warehouse " + warehouse_ +
           " (allowed roots: none)";
  }

  Status Create(const CreateTableOptions& options, const std::string& name = "t") {
    return wh_.tables->CreateTable(TableIdentifier(Namespace({"db"}), name), *schema_, options)
        .status();
  }

  // Replaces the table's current metadata by `edit` of it, written where `location` says,
  // as a hand edit of the JSON file would.
  void EditMetadata(Table& table, const std::function<void(spec::TableMetadata*)>& edit,
                    const std::string& location) {
    auto md = std::make_shared<spec::TableMetadata>(*table.metadata());
    md->metadata_log.push_back({md->last_updated_ms, table.metadata_location()});
    edit(md.get());
    WriteText(location, spec::WriteTableMetadata(*md));
    ASSERT_OK(
        wh_.catalog->SwapMetadataLocation(table.ident(), table.metadata_location(), location));
    ASSERT_OK(table.Refresh());
  }

  floe::testing::Warehouse wh_;
  spec::SchemaPtr schema_;
  fs::path outside_;
  std::string warehouse_;
  TableIdentifier ident_{Namespace({"db"}), "t"};
};

TEST_F(ConfinementTest, CreateRefusesEveryEscape) {
  const std::string out = outside_.string();
  CreateTableOptions o;
  o.location = out + "/x";
  EXPECT_EQ(Create(o).message(), OutsideMessage("Location", out + "/x"));
  o.location = warehouse_ + "/../outside/x";
  EXPECT_EQ(Create(o).message(), OutsideMessage("Location", out + "/x"));
  o.location = "file://" + out + "/x";
  EXPECT_EQ(Create(o).message(), OutsideMessage("Location", "file://" + out + "/x"));
  o.location = "file:" + warehouse_ + "/db/../../outside/x";
  EXPECT_EQ(Create(o).message(), OutsideMessage("Location", "file://" + out + "/x"));
  o.location = "relative/x";
  EXPECT_EQ(Create(o).message(),
            "Location relative/x of table db.t is not usable: File location must be an absolute "
            "path or a file: URI: relative/x");

  CreateTableOptions p;
  p.properties["write.data.path"] = out + "/data";
  EXPECT_EQ(Create(p).message(), OutsideMessage("write.data.path", out + "/data"));
  p.properties = {{"write.metadata.path", warehouse_ + "/db/t/../../../outside/m"}};
  EXPECT_EQ(Create(p).message(), OutsideMessage("write.metadata.path", out + "/m"));
  p.properties = {{"write.folder-storage.path", "file:" + out}};
  EXPECT_EQ(Create(p).message(), OutsideMessage("write.folder-storage.path", "file://" + out));

  EXPECT_EQ(Create({}, "..").message(), "Invalid table name '..': a name must not be '.' or '..'");
  EXPECT_EQ(Create({}, "b\\t").message(),
            "Invalid table name 'b\\t': a name must not contain '\\'");
  EXPECT_EQ(wh_.tables->CreateTable(TableIdentifier(Namespace({"db", ".."}), "t"), *schema_, {})
                .status()
                .message(),
            "Invalid namespace name '..': a name must not be '.' or '..'");

  // Nothing was written anywhere, and the catalog holds no table.
  EXPECT_TRUE(FilesUnder(outside_).empty());
  EXPECT_TRUE(FilesUnder(warehouse_).empty());
  EXPECT_FALSE(fs::exists("relative"));
  ASSERT_OK_AND_ASSIGN(auto tables, wh_.catalog->ListTables(Namespace({"db"})));
  EXPECT_TRUE(tables.empty());
}

// Names that hold '/' are one directory each, under the warehouse: writing and purging one
// touches nothing of the table whose path its name spells.
TEST_F(ConfinementTest, NamesWithSlashesStayOneDirectory) {
  ASSERT_OK_AND_ASSIGN(auto plain, wh_.tables->CreateTable(ident_, *schema_, {}));
  ASSERT_OK(AppendData(*plain, *People(0, 2)).status());
  const std::vector<std::string> plain_files = FilesUnder(warehouse_ + "/db/t");
  const TableIdentifier slashed(Namespace({"db"}), "../db/t");
  ASSERT_OK_AND_ASSIGN(auto table, wh_.tables->CreateTable(slashed, *schema_, {}));
  EXPECT_EQ(table->metadata()->location, warehouse_ + "/db/..~sdb~st");
  ASSERT_OK(AppendData(*table, *People(2, 3)).status());
  for (const auto& f : FilesUnder(warehouse_ + "/db/..~sdb~st")) {
    EXPECT_THAT(f, ::testing::StartsWith(warehouse_ + "/db/..~sdb~st/")) << f;
  }
  ASSERT_OK_AND_ASSIGN(auto dropped, wh_.tables->DropTable(slashed, /*purge=*/true));
  EXPECT_TRUE(dropped.refused.empty());
  EXPECT_TRUE(FilesUnder(warehouse_ + "/db/..~sdb~st").empty());
  EXPECT_EQ(FilesUnder(warehouse_ + "/db/t"), plain_files);
  EXPECT_TRUE(FilesUnder(outside_).empty());
}

TEST_F(ConfinementTest, LocationsAreStoredNormalised) {
  CreateTableOptions o;
  o.location = "file:" + warehouse_ + "//db/./x/../t/";
  o.properties["write.data.path"] = warehouse_ + "/db/t/../t-data/";
  ASSERT_OK_AND_ASSIGN(auto table, wh_.tables->CreateTable(ident_, *schema_, o));
  EXPECT_EQ(table->metadata()->location, "file://" + warehouse_ + "/db/t");
  EXPECT_EQ(table->metadata()->properties.at("write.data.path"), warehouse_ + "/db/t-data");
  ASSERT_OK(AppendData(*table, *People(0, 2)).status());
  ASSERT_OK_AND_ASSIGN(auto data, wh_.io->ListFiles(warehouse_ + "/db/t-data"));
  EXPECT_EQ(data.size(), 1u);
}

TEST_F(ConfinementTest, AllowedRootsAdmitTables) {
  ASSERT_OK_AND_ASSIGN(
      std::shared_ptr<Catalog> catalog,
      SqlCatalog::Open(wh_.catalog_path(), "lakehouse", warehouse_, {outside_.string()}));
  TableCatalog tables(catalog, wh_.io);
  CreateTableOptions o;
  o.location = outside_.string() + "/t";
  ASSERT_OK_AND_ASSIGN(auto table, tables.CreateTable(ident_, *schema_, o));
  ASSERT_OK(AppendData(*table, *People(0, 3)).status());
  EXPECT_EQ(FilesUnder(outside_ / "t").size(), 5u);  // 2 metadata, a list, a manifest, data
  // Still nowhere else.
  o.location = wh_.dir.str() + "/other";
  EXPECT_EQ(
      tables.CreateTable(TableIdentifier(Namespace({"db"}), "u"), *schema_, o).status().message(),
      "Location " + o.location + " of table db.u is outside the warehouse " + warehouse_ +
          " (allowed roots: " + outside_.string() + ")");
}

TEST_F(ConfinementTest, EveryCommitIsChecked) {
  ASSERT_OK_AND_ASSIGN(auto table, wh_.tables->CreateTable(ident_, *schema_, {}));
  const std::string before = table->metadata_location();
  for (const char* key : kLocationProperties) {
    Status st =
        Commit(*table,
               [&](const spec::TableMetadataPtr& base,
                   std::vector<std::string>*) -> Result<std::shared_ptr<spec::TableMetadata>> {
                 auto md = std::make_shared<spec::TableMetadata>(*base);
                 md->properties[key] = outside_.string() + "/p";
                 return md;
               });
    EXPECT_EQ(st.message(), OutsideMessage(key, outside_.string() + "/p"));
  }
  Status st =
      Commit(*table,
             [&](const spec::TableMetadataPtr& base,
                 std::vector<std::string>*) -> Result<std::shared_ptr<spec::TableMetadata>> {
               auto md = std::make_shared<spec::TableMetadata>(*base);
               md->location = "file://" + warehouse_ + "/../outside/t";
               return md;
             });
  EXPECT_EQ(st.message(), OutsideMessage("Location", "file://" + warehouse_ + "/../outside/t"));
  EXPECT_EQ(table->metadata_location(), before);
  ASSERT_OK_AND_ASSIGN(auto pointer, wh_.catalog->LoadMetadataLocation(ident_));
  EXPECT_EQ(pointer, before);
  EXPECT_TRUE(FilesUnder(outside_).empty());
}

TEST_F(ConfinementTest, WritesUnderHandEditedPathsAreRefusedBeforeAnyFile) {
  ASSERT_OK_AND_ASSIGN(auto table, wh_.tables->CreateTable(ident_, *schema_, {}));
  EditMetadata(
      *table,
      [&](spec::TableMetadata* md) { md->properties["write.data.path"] = outside_.string(); },
      warehouse_ + "/db/t/metadata/00001-edited.metadata.json");
  EXPECT_EQ(AppendData(*table, *People(0, 3)).status().message(),
            OutsideMessage("write.data.path", outside_.string()));
  EXPECT_TRUE(FilesUnder(outside_).empty());
  EXPECT_TRUE(table->metadata()->snapshots.empty());
}

TEST_F(ConfinementTest, PurgeDeletesOnlyUnderTheTable) {
  ASSERT_OK_AND_ASSIGN(auto table, wh_.tables->CreateTable(ident_, *schema_, {}));
  ASSERT_OK(AppendData(*table, *People(0, 3)).status());
  ASSERT_OK(AppendData(*table, *People(3, 3)).status());
  const std::string location = table->metadata()->location;

  // Files outside the table that its metadata will name.
  const fs::path data = outside_ / "data.parquet";
  const fs::path list = outside_ / "snap.avro";
  const fs::path old_metadata = outside_ / "00000-old.metadata.json";
  const fs::path current = outside_ / "current.metadata.json";
  const fs::path sibling = wh_.dir.path() / "wh" / "db" / "t2" / "data" / "f.parquet";
  WriteText(data, "not parquet");
  WriteText(old_metadata, "{}");
  WriteText(sibling, "another table's file");
  const std::string first_list = table->metadata()->snapshots[0].manifest_list;
  fs::copy_file(first_list, list);

  // A manifest, written by floe inside the table, naming data files outside it.
  manifest::DataFile outside_file;
  outside_file.file_path = data.string();
  outside_file.record_count = 1;
  outside_file.file_size_in_bytes = 11;
  manifest::DataFile sibling_file = outside_file;
  sibling_file.file_path = warehouse_ + "/db/t/../t2/data/f.parquet";
  ASSERT_OK(AppendFiles(*table, {outside_file, sibling_file}).status());
  // The metadata log, a manifest list pointer and the current metadata file itself.
  EditMetadata(
      *table,
      [&](spec::TableMetadata* md) {
        md->metadata_log.push_back({md->last_updated_ms, old_metadata.string()});
        md->snapshots[0].manifest_list = list.string();
      },
      current.string());

  ASSERT_OK_AND_ASSIGN(auto dropped, wh_.tables->DropTable(ident_, /*purge=*/true));
  const std::vector<std::string> refused = {current.string(), old_metadata.string(), list.string(),
                                            data.string(),
                                            warehouse_ + "/db/t/../t2/data/f.parquet"};
  EXPECT_THAT(dropped.refused, ::testing::UnorderedElementsAreArray(refused));
  for (const auto& f : {data, list, old_metadata, current, sibling}) {
    EXPECT_TRUE(fs::exists(f)) << f;
  }
  // Inside the table, only the manifest list the edit stopped naming is left.
  EXPECT_THAT(FilesUnder(location), ::testing::ElementsAre(first_list));
  std::string warning = dropped.Warning();
  EXPECT_THAT(warning, ::testing::StartsWith(
                           "Warning: dropped table db.t but kept 5 files its metadata names "
                           "outside the table location " +
                           location + ":\n  "));
  for (const auto& f : refused) EXPECT_THAT(warning, ::testing::HasSubstr("\n  " + f));
  ASSERT_OK_AND_ASSIGN(bool exists, wh_.catalog->TableExists(ident_));
  EXPECT_FALSE(exists);
}

TEST_F(ConfinementTest, PurgeOfATableWhoseLocationWasMovedOutsideDeletesNothing) {
  ASSERT_OK_AND_ASSIGN(auto table, wh_.tables->CreateTable(ident_, *schema_, {}));
  ASSERT_OK(AppendData(*table, *People(0, 3)).status());
  const auto inside = FilesUnder(warehouse_ + "/db/t");
  // Edited to claim the whole warehouse parent, then the warehouse itself, as its location.
  for (const std::string& claimed : {wh_.dir.str(), warehouse_}) {
    ASSERT_OK_AND_ASSIGN(auto t, wh_.tables->LoadTable(ident_));
    EditMetadata(
        *t, [&](spec::TableMetadata* md) { md->location = claimed; },
        warehouse_ + "/db/t/metadata/edited-" + std::to_string(claimed.size()) + ".metadata.json");
  }
  ASSERT_OK_AND_ASSIGN(auto dropped, wh_.tables->DropTable(ident_, /*purge=*/true));
  EXPECT_EQ(dropped.refused.size(), inside.size() + 2);
  EXPECT_EQ(FilesUnder(warehouse_ + "/db/t").size(), inside.size() + 2);
}

TEST_F(ConfinementTest, MissingMetadataIsNotAMissingTable) {
  ASSERT_OK_AND_ASSIGN(auto table, wh_.tables->CreateTable(ident_, *schema_, {}));
  const std::string path = table->metadata_location();
  fs::remove(path);
  Status st = wh_.tables->LoadTable(ident_).status();
  EXPECT_EQ(st.message(), "Failed to read table metadata " + path + ": file not found");
  EXPECT_FALSE(IsNotFound(st));
  // Without purge the entry goes quietly; with purge, the user hears that nothing was deleted.
  ASSERT_OK_AND_ASSIGN(auto dropped, wh_.tables->DropTable(ident_, /*purge=*/false));
  EXPECT_EQ(dropped.Warning(), "");
  ASSERT_OK(wh_.catalog->CreateTableEntry(ident_, path));
  ASSERT_OK_AND_ASSIGN(dropped, wh_.tables->DropTable(ident_, /*purge=*/true));
  EXPECT_EQ(dropped.Warning(),
            "Warning: dropped table db.t without deleting its files: Failed "
            "to read table metadata " +
                path + ": file not found");
  ASSERT_OK_AND_ASSIGN(bool exists, wh_.catalog->TableExists(ident_));
  EXPECT_FALSE(exists);
}

TEST_F(ConfinementTest, ACatalogWithoutWarehouseNeedsALocation) {
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<Catalog> catalog,
                       SqlCatalog::Open(wh_.catalog_path(), "lakehouse", ""));
  TableCatalog tables(catalog, wh_.io);
  EXPECT_EQ(tables.CreateTable(ident_, *schema_, {}).status().message(),
            "Cannot create table db.t: catalog lakehouse has no warehouse; give the table a "
            "LOCATION");
  CreateTableOptions o;
  o.location = warehouse_ + "/db/t";
  EXPECT_EQ(tables.CreateTable(ident_, *schema_, o).status().message(),
            "Location " + o.location +
                " of table db.t is outside the warehouse (none configured) (allowed roots: none)");
}

}  // namespace
}  // namespace floe::table
