// The SQL engine target's tables (see fuzz_support.h); only sql_engine_fuzz links this.
#include <filesystem>
#include <memory>
#include <system_error>

#include "floe/sql/plan/spill/spill_space.h"
#include "floe/sql/session.h"
#include "fuzz_support.h"

namespace floe::fuzz {

namespace fs = std::filesystem;

namespace {

// db.t gets three snapshots (the middle one tagged), a branch and a schema change, so
// time travel, metadata tables and schema-by-snapshot reads all have something to do.
constexpr const char* kEngineSetup[] = {
    "CREATE NAMESPACE db",
    "CREATE TABLE db.t (id bigint, name string, ts timestamp, amount decimal(10,2)) "
    "USING iceberg PARTITIONED BY (days(ts))",
    "INSERT INTO db.t VALUES (1, 'ann', TIMESTAMP '2025-01-01 09:00:00', 10.50), "
    "(2, NULL, TIMESTAMP '2025-01-01 17:30:00', NULL), (3, 'cy', TIMESTAMP '2025-01-02 08:00:00', -3.25)",
    "ALTER TABLE db.t CREATE TAG v1",
    "ALTER TABLE db.t ADD COLUMN note string",
    "INSERT INTO db.t VALUES (4, 'dee', TIMESTAMP '2025-01-03 12:00:00', 0.01, 'late')",
    "ALTER TABLE db.t CREATE BRANCH dev",
    "INSERT INTO db.t.branch_dev VALUES (5, 'eve', NULL, 99.99, NULL)",
    "INSERT OVERWRITE db.t SELECT * FROM db.t WHERE id <> 2",
    "CREATE TABLE db.u (k int, v string) USING iceberg",
    "INSERT INTO db.u VALUES (1, 'x'), (3, 'y'), (NULL, 'z')",
};

struct Engine {
  fs::path work;      // the catalog and warehouse statements run against
  fs::path pristine;  // their state right after set-up
  std::unique_ptr<sql::Session> session;
};

Engine& TheEngine() {
  static Engine engine;
  return engine;
}

sql::SessionOptions EngineOptions(const fs::path& work) {
  sql::SessionOptions options;
  options.catalog_uri = (work / "catalog.db").string();
  options.warehouse = (work / "warehouse").string();
  return options;
}

}  // namespace

void InitEngine() {
  Engine& e = TheEngine();
  e.work = fs::path(ScratchDir()) / "engine";
  e.pristine = fs::path(ScratchDir()) / "engine-pristine";
  fs::create_directories(e.work);
  // Statements spill under the scratch directory, and an input's SET floe.temp_directory is
  // refused as a server refuses its clients': no input picks where the fuzzer writes.
  sql::SetProcessTempDirectory((fs::path(ScratchDir()) / "spill").string(), /*sessions_may_move=*/false);
  auto session = Check(sql::Session::Make(EngineOptions(e.work)), "session");
  for (const char* statement : kEngineSetup) {
    Check(session->Execute(statement), statement);
  }
  session.reset();  // closes the catalog before it is copied
  fs::copy(e.work, e.pristine, fs::copy_options::recursive);
}

sql::Session& RestoreEngine() {
  Engine& e = TheEngine();
  e.session.reset();
  // libFuzzer's timers interrupt system calls now and then: retry on EINTR.
  std::error_code ec;
  for (int attempt = 0; attempt < 100; ++attempt) {
    ec.clear();
    fs::remove_all(e.work, ec);
    if (!ec) fs::copy(e.pristine, e.work, fs::copy_options::recursive, ec);
    if (ec != std::errc::interrupted) break;
  }
  if (ec) Die("restoring " + e.work.string() + ": " + ec.message());
  e.session = Check(sql::Session::Make(EngineOptions(e.work)), "session");
  return *e.session;
}

}  // namespace floe::fuzz
