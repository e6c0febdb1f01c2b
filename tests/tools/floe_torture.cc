// floe_torture: concurrent writer processes against one table, a verifier of everything they
// were told, and crash runs that fail or kill a commit at each of its I/O steps.
//
//   floe_torture writers [--writers N] [--commits M]   N processes x M mixed commits, verified
//       [--catalog postgresql://...]                   on a fresh database of that server
//       [--restart-command CMD --restarts K]          CMD (a server restart) run K times
//                                                      while the writers commit
//   floe_torture crash                                 fail, then kill, at every commit step
//   floe_torture prepare <dir> [--catalog postgresql://...]   a fresh db.t, its catalog printed,
//   floe_torture writer <catalog> <index> <commits> <log>     then writers (and any engine that
//   floe_torture verify <catalog> <log>...                    logs alike), then the verifier
//       (FLOE_TORTURE_CATALOG_NAME names the catalog, lakehouse by default; another engine
//       logs "try append IDS" and "ack append SNAPSHOT IDS" or "fail append MESSAGE", its
//       rows' writer column -2)
//   floe_torture crash-child <catalog> <mode> <step> <first-id>       (a child of `crash`)
//
// Exit 0 when every check holds; otherwise the first violation is printed and it exits 1.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <arrow/api.h>
#include <parquet/arrow/reader.h>

#include "floe/catalog/sql_catalog.h"
#include "floe/manifest/manifest_reader.h"
#include "floe/scan/table_scan.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/snapshot_management.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/table_catalog.h"
#include "forwarding_catalog.h"
#include "postgres_database.h"

namespace floe::torture {
namespace {

const TableIdentifier kTable{Namespace({"db"}), "t"};
std::string self_path;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "floe_torture: %s\n", what.c_str());
  std::exit(1);
}

template <typename T>
T Check(Result<T> r, const std::string& what) {
  if (!r.ok()) Fail(what + ": " + r.status().ToString());
  return std::move(r).ValueUnsafe();
}

void Check(const Status& st, const std::string& what) {
  if (!st.ok()) Fail(what + ": " + st.ToString());
}

std::shared_ptr<arrow::Table> Rows(const std::vector<int64_t>& ids, int32_t writer) {
  arrow::Int64Builder id_builder;
  arrow::Int32Builder writer_builder;
  for (int64_t id : ids) {
    (void)id_builder.Append(id);
    (void)writer_builder.Append(writer);
  }
  auto schema = arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("writer", arrow::int32())});
  return arrow::Table::Make(schema, {id_builder.Finish().ValueOrDie(), writer_builder.Finish().ValueOrDie()});
}

struct Tables {
  std::shared_ptr<Catalog> catalog;
  std::shared_ptr<FileIO> io;
  std::unique_ptr<table::TableCatalog> tables;
};

// Every run keeps its warehouse beside the catalog file: <dir>/catalog.db and <dir>/wh. A
// run on PostgreSQL names its warehouse in FLOE_TORTURE_WAREHOUSE (writers inherit it).
Tables Open(const std::string& catalog_path, std::shared_ptr<Catalog> wrap(std::shared_ptr<Catalog>) = nullptr) {
  Tables t;
  const char* env_warehouse = std::getenv("FLOE_TORTURE_WAREHOUSE");
  const std::string warehouse = env_warehouse ? std::string(env_warehouse)
                                              : catalog_path.substr(0, catalog_path.rfind('/')) + "/wh";
  const char* env_name = std::getenv("FLOE_TORTURE_CATALOG_NAME");
  const std::string name = env_name ? env_name : "lakehouse";
  t.catalog = Check(SqlCatalog::Open(catalog_path, name, warehouse), "open catalog " + catalog_path);
  if (wrap) t.catalog = wrap(t.catalog);
  t.io = Check(FileIO::MakeLocal(), "file io");
  t.tables = std::make_unique<table::TableCatalog>(t.catalog, t.io);
  return t;
}

// A fresh warehouse with db.t holding ids 0..9; retries generous enough for many writers.
// The catalog is <dir>/catalog.db, or a new database on the PostgreSQL server `postgres`.
std::string CreateTable(const std::string& dir, const std::string& postgres = "") {
  std::string catalog_path = dir + "/catalog.db";
  if (!postgres.empty()) {
    catalog_path = Check(testing::CreatePostgresDatabase(postgres, "floe_torture"), "create a database");
    setenv("FLOE_TORTURE_WAREHOUSE", (dir + "/wh").c_str(), 1);
  }
  Tables t = Open(catalog_path);
  Check(t.catalog->CreateNamespace(kTable.ns, {}), "create namespace");
  auto schema = Check(table::SchemaFromArrow(*Rows({}, 0)->schema()), "schema");
  table::CreateTableOptions options;
  options.properties["commit.retry.num-retries"] = "60";
  options.properties["commit.retry.min-wait-ms"] = "5";
  options.properties["commit.retry.max-wait-ms"] = "400";
  auto created = Check(t.tables->CreateTable(kTable, *schema, options), "create table");
  std::vector<int64_t> initial;
  for (int64_t i = 0; i < 10; ++i) initial.push_back(i);
  Check(table::AppendData(*created, *Rows(initial, -1)), "first append");
  return catalog_path;
}

std::string JoinIds(const std::vector<int64_t>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? "," : "") + std::to_string(ids[i]);
  return out.empty() ? "-" : out;
}

std::vector<int64_t> SplitIds(const std::string& text) {
  std::vector<int64_t> out;
  if (text == "-") return out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) out.push_back(std::stoll(part));
  return out;
}

// ---------------------------------------------------------------------------------------
// Reading what a snapshot holds, with every file it reaches checked for existence.

class Reader {
 public:
  Reader(FileIO& io, const spec::TableMetadata& md) : io_(io), md_(md) {}

  // The ids in snapshot `id` (a multiset, sorted).
  std::vector<int64_t> Ids(int64_t id) {
    const spec::Snapshot* s = md_.SnapshotById(id);
    if (!s) Fail("snapshot " + std::to_string(id) + " is not in the metadata");
    std::vector<int64_t> out;
    auto manifests = manifest::ReadManifestList(io_, s->manifest_list);
    if (!manifests.ok()) Fail("snapshot " + std::to_string(id) + ": " + manifests.status().ToString());
    for (const auto& mf : *manifests) {
      const auto& entries = Entries(mf);
      for (const auto& e : entries) {
        if (e.status == manifest::EntryStatus::kDeleted) continue;
        const auto& ids = FileIds(e.data_file.file_path);
        out.insert(out.end(), ids.begin(), ids.end());
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  const std::vector<manifest::ManifestEntry>& Entries(const manifest::ManifestFile& mf) {
    auto it = manifests_.find(mf.manifest_path);
    if (it != manifests_.end()) return it->second;
    auto entries = manifest::ReadManifest(io_, mf, md_);
    if (!entries.ok()) Fail("manifest " + mf.manifest_path + ": " + entries.status().ToString());
    return manifests_.emplace(mf.manifest_path, std::move(entries).ValueUnsafe()).first->second;
  }

  const std::vector<int64_t>& FileIds(const std::string& path) {
    auto it = files_.find(path);
    if (it != files_.end()) return it->second;
    auto file = io_.OpenInputFile(path, FileKind::kData);
    if (!file.ok()) Fail("data file " + path + ": " + file.status().ToString());
    auto reader = parquet::arrow::OpenFile(*file, arrow::default_memory_pool());
    if (!reader.ok()) Fail("data file " + path + ": " + reader.status().ToString());
    std::shared_ptr<arrow::Table> rows;
    Check((*reader)->ReadTable(&rows), "read " + path);
    std::vector<int64_t> ids;
    for (const auto& chunk : rows->GetColumnByName("id")->chunks()) {
      const auto& a = static_cast<const arrow::Int64Array&>(*chunk);
      for (int64_t i = 0; i < a.length(); ++i) ids.push_back(a.Value(i));
    }
    return files_.emplace(path, std::move(ids)).first->second;
  }

  FileIO& io_;
  const spec::TableMetadata& md_;
  std::map<std::string, std::vector<manifest::ManifestEntry>> manifests_;
  std::map<std::string, std::vector<int64_t>> files_;
};

// One history: unique ids, parents present, sequence numbers rising along each chain, a
// snapshot log of known snapshots ending at the current one, main at the current snapshot,
// every metadata-log file present.
void CheckLineage(FileIO& io, const spec::TableMetadata& md) {
  std::set<int64_t> ids;
  for (const auto& s : md.snapshots) {
    if (!ids.insert(s.snapshot_id).second) Fail("duplicate snapshot id " + std::to_string(s.snapshot_id));
  }
  for (const auto& s : md.snapshots) {
    if (!s.parent_snapshot_id) continue;
    const spec::Snapshot* p = md.SnapshotById(*s.parent_snapshot_id);
    if (!p) Fail("snapshot " + std::to_string(s.snapshot_id) + " has a missing parent");
    if (p->sequence_number >= s.sequence_number) {
      Fail("snapshot " + std::to_string(s.snapshot_id) + " does not follow its parent's sequence number");
    }
  }
  int64_t last_time = 0;
  for (const auto& e : md.snapshot_log) {
    if (!md.SnapshotById(e.snapshot_id)) Fail("snapshot log names unknown snapshot " + std::to_string(e.snapshot_id));
    if (e.timestamp_ms < last_time) Fail("snapshot log goes back in time");
    last_time = e.timestamp_ms;
  }
  if (md.snapshot_log.empty() || md.snapshot_log.back().snapshot_id != md.current_snapshot_id) {
    Fail("snapshot log does not end at the current snapshot");
  }
  auto main = md.refs.find(spec::kMainBranch);
  if (main == md.refs.end() || main->second.snapshot_id != md.current_snapshot_id) {
    Fail("main does not point at the current snapshot");
  }
  for (const auto& e : md.metadata_log) {
    if (!Check(io.Exists(e.metadata_file), "exists")) Fail("metadata file missing: " + e.metadata_file);
  }
}

// ---------------------------------------------------------------------------------------
// writers: mixed appends, overwrites, tag changes and rollbacks from many processes.

// Set when the catalog's server is restarted during the run.
bool restarting = false;

bool ExpectedFailure(const std::string& message) {
  for (const char* phrase : {"Found conflicting", "Cannot determine history", "gave up after",
                             "not an ancestor of the current state", "Cannot set ", "unknown snapshot"}) {
    if (message.find(phrase) != std::string::npos) return true;
  }
  // An outcome the catalog could not learn after its connection was lost; the verifier
  // treats such a commit as maybe applied.
  return restarting && message.find("Cannot tell whether") != std::string::npos;
}

int Writer(const std::string& catalog_path, int index, int commits, const std::string& log_path) {
  Tables t = Open(catalog_path);
  std::FILE* log = std::fopen(log_path.c_str(), "w");
  if (!log) Fail("cannot write " + log_path);
  auto say = [&](const std::string& line) {
    std::fprintf(log, "%s\n", line.c_str());
    std::fflush(log);
  };
  std::mt19937 rng(1000 + index);
  for (int i = 0; i < commits; ++i) {
    auto table = Check(t.tables->LoadTable(kTable), "load table");
    const int pick = static_cast<int>(rng() % 100);
    auto md = table->metadata();
    if (pick < 55) {
      std::vector<int64_t> ids;
      const int n = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < n; ++k) ids.push_back((index + 1) * 100000 + i * 10 + k);
      say("try append " + JoinIds(ids));
      auto r = table::AppendData(*table, *Rows(ids, index));
      say(r.ok() ? "ack append " + std::to_string(*r) + " " + JoinIds(ids) : "fail append " + r.status().message());
    } else if (pick < 75) {
      // INSERT OVERWRITE t SELECT * FROM t: rewrite exactly what was read.
      auto rows = Check(scan::TableScan(table).ToArrowTable(), "read for overwrite");
      auto r = table::OverwriteData(*table, *rows, table::OverwriteFilter::All());
      say(r.ok() ? "ack overwrite " + std::to_string(*r) : "fail overwrite " + r.status().message());
    } else if (pick < 90) {
      table::RefOptions options;
      options.mode = table::RefWriteMode::kCreateOrReplace;
      options.snapshot_id = md->current_snapshot_id;
      const std::string tag = "w" + std::to_string(index);
      Status st = table::CreateOrReplaceTag(*table, tag, options);
      say(st.ok() ? "ack tag " + tag + " " + std::to_string(*md->current_snapshot_id) : "fail tag " + tag + " " + st.message());
    } else {
      const spec::Snapshot* current = md->current_snapshot();
      if (!current || !current->parent_snapshot_id) continue;
      auto r = table::RollbackToSnapshot(*table, *current->parent_snapshot_id);
      say(r.ok() ? "ack rollback " + std::to_string(*current->parent_snapshot_id)
                 : "fail rollback " + r.status().message());
    }
  }
  std::fclose(log);
  return 0;
}

struct Log {
  std::map<int64_t, std::vector<int64_t>> acked_appends;  // snapshot -> ids
  std::set<int64_t> tried_ids;
  std::set<int64_t> acked_overwrites;
  std::map<std::string, int64_t> last_tag;
  std::set<std::string> uncertain_tags;
  int acked = 0, failed = 0, unknown = 0;
};

Log ReadLogs(const std::vector<std::string>& paths) {
  Log log;
  for (const auto& path : paths) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      std::stringstream words(line);
      std::string verdict, kind;
      words >> verdict >> kind;
      if (verdict == "try") {
        std::string ids;
        words >> ids;
        for (int64_t id : SplitIds(ids)) log.tried_ids.insert(id);
      } else if (verdict == "fail") {
        ++log.failed;
        if (line.find("Cannot tell whether") != std::string::npos) {
          ++log.unknown;
          std::printf("unknown outcome, reported: %s\n", line.c_str());
          // A tag moved or not: its last acknowledged target no longer binds it.
          if (kind == "tag") {
            std::string tag;
            words >> tag;
            log.uncertain_tags.insert(tag);
          }
        }
        if (!ExpectedFailure(line)) Fail("a commit failed for a reason other than a conflict: " + line);
      } else if (verdict == "ack") {
        ++log.acked;
        if (kind == "append") {
          int64_t snapshot;
          std::string ids;
          words >> snapshot >> ids;
          log.acked_appends[snapshot] = SplitIds(ids);
        } else if (kind == "overwrite") {
          int64_t snapshot;
          words >> snapshot;
          log.acked_overwrites.insert(snapshot);
        } else if (kind == "tag") {
          std::string tag;
          int64_t snapshot;
          words >> tag >> snapshot;
          log.last_tag[tag] = snapshot;
        }
      }
    }
  }
  return log;
}

// The audit log holds exactly one row per move of the table's pointer, in the catalog's
// order: each row starts where the one before ended, the first creates the table, the last
// ends at the current pointer, and its chain of metadata files ends with the table's own
// metadata log. Refused changes (which move nothing) are not moves. Returns the moves.
size_t CheckAuditLog(Catalog& catalog, const table::Table& table) {
  AuditQuery query;
  query.table = kTable;
  std::vector<AuditEntry> rows = Check(catalog.ReadAuditLog(query), "read the audit log");
  std::reverse(rows.begin(), rows.end());  // oldest first
  std::vector<std::string> chain;
  std::set<std::string> seen;
  for (const auto& row : rows) {
    if (row.kind == audit_kind::kRefused) continue;
    const std::string where = "audit log entry " + std::to_string(row.seq);
    if (!row.metadata_location) Fail(where + " has no new metadata file");
    if (chain.empty() ? row.previous_metadata_location.has_value()
                      : row.previous_metadata_location != chain.back()) {
      Fail(where + " does not start where the entry before it ended");
    }
    if (!seen.insert(*row.metadata_location).second) Fail(where + " repeats a pointer move");
    chain.push_back(*row.metadata_location);
  }
  if (chain.empty() || chain.back() != table.metadata_location()) {
    Fail("the audit log does not end at the table's pointer " + table.metadata_location());
  }
  const auto& log = table.metadata()->metadata_log;
  if (log.size() + 1 > chain.size()) Fail("the audit log has fewer moves than the metadata log");
  for (size_t i = 0; i < log.size(); ++i) {
    if (chain[chain.size() - 1 - log.size() + i] != log[i].metadata_file) {
      Fail("the audit log's chain of metadata files differs from the metadata log at " + log[i].metadata_file);
    }
  }
  return chain.size();
}

void Verify(const std::string& catalog_path, const std::vector<std::string>& logs);

int Writers(int writers, int commits, const std::string& postgres, const std::string& restart_command,
            int restarts) {
  char dir_template[] = "/tmp/floe-torture-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string catalog_path = CreateTable(dir, postgres);
  restarting = restarts > 0;
  std::vector<pid_t> children;
  std::vector<std::string> logs;
  for (int w = 0; w < writers; ++w) {
    logs.push_back(dir + "/writer-" + std::to_string(w) + ".log");
    pid_t pid = fork();
    if (pid < 0) Fail("fork failed");
    if (pid == 0) {
      const std::string index = std::to_string(w), n = std::to_string(commits);
      execl(self_path.c_str(), self_path.c_str(), "writer", catalog_path.c_str(), index.c_str(), n.c_str(),
            logs.back().c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    children.push_back(pid);
  }
  // Restarts spread over the run, while the writers are in the middle of their commits.
  for (int r = 0; r < restarts; ++r) {
    usleep(700 * 1000);
    if (std::system(restart_command.c_str()) != 0) Fail("the restart command failed: " + restart_command);
    std::printf("restarted the catalog's server (%d of %d)\n", r + 1, restarts);
    std::fflush(stdout);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) Fail("a writer process did not exit cleanly");
  }
  Verify(catalog_path, logs);
  std::printf("writers: %d processes x %d commits\n", writers, commits);
  std::string cleanup = "rm -rf '" + dir + "'";
  (void)std::system(cleanup.c_str());
  return 0;
}

// Everything the writers were told, against the table they leave: its lineage, the audit
// log, each snapshot's rows and each acknowledged change.
void Verify(const std::string& catalog_path, const std::vector<std::string>& logs) {
  Log log = ReadLogs(logs);
  Tables t = Open(catalog_path);
  auto table = Check(t.tables->LoadTable(kTable), "load table");
  auto md = table->metadata();
  CheckLineage(*t.io, *md);
  const size_t moves = CheckAuditLog(*t.catalog, *table);
  for (const auto& [snapshot, ids] : log.acked_appends) {
    if (!md->SnapshotById(snapshot)) Fail("acknowledged append " + std::to_string(snapshot) + " is not in the table");
  }
  for (int64_t snapshot : log.acked_overwrites) {
    if (!md->SnapshotById(snapshot)) Fail("acknowledged overwrite " + std::to_string(snapshot) + " is not in the table");
  }
  for (const auto& [tag, snapshot] : log.last_tag) {
    if (log.uncertain_tags.count(tag)) continue;
    auto ref = md->refs.find(tag);
    if (ref == md->refs.end() || ref->second.snapshot_id != snapshot) {
      Fail("tag " + tag + " does not point at " + std::to_string(snapshot) + ", its last acknowledged target");
    }
  }

  // Every snapshot holds exactly its parent's rows plus what it appended; an overwrite
  // holds exactly its parent's rows (it rewrote what it read).
  Reader reader(*t.io, *md);
  int appends = 0, overwrites = 0;
  for (const auto& s : md->snapshots) {
    std::vector<int64_t> rows = reader.Ids(s.snapshot_id);
    std::vector<int64_t> expected;
    if (s.parent_snapshot_id) expected = reader.Ids(*s.parent_snapshot_id);
    if (s.operation == "append") {
      ++appends;
      std::vector<int64_t> added;
      auto acked = log.acked_appends.find(s.snapshot_id);
      if (acked != log.acked_appends.end()) {
        added = acked->second;
      } else if (s.parent_snapshot_id) {
        // An append whose acknowledgement was lost: its rows must be ones a writer tried.
        std::set_difference(rows.begin(), rows.end(), expected.begin(), expected.end(), std::back_inserter(added));
        for (int64_t id : added) {
          if (!log.tried_ids.count(id)) Fail("snapshot " + std::to_string(s.snapshot_id) + " holds an unknown row");
        }
      } else {
        for (int64_t i = 0; i < 10; ++i) added.push_back(i);
      }
      expected.insert(expected.end(), added.begin(), added.end());
      std::sort(expected.begin(), expected.end());
    } else if (s.operation == "overwrite") {
      ++overwrites;
    } else {
      Fail("unexpected operation " + s.operation);
    }
    if (rows != expected) {
      Fail("snapshot " + std::to_string(s.snapshot_id) + " (" + s.operation + ") holds " +
           std::to_string(rows.size()) + " rows, expected " + std::to_string(expected.size()));
    }
  }
  // The current state: an acknowledged append is there exactly when it is an ancestor.
  std::set<int64_t> ancestors;
  for (std::optional<int64_t> id = md->current_snapshot_id; id; id = md->SnapshotById(*id)->parent_snapshot_id) {
    ancestors.insert(*id);
  }
  std::vector<int64_t> current = reader.Ids(*md->current_snapshot_id);
  std::set<int64_t> present(current.begin(), current.end());
  int kept = 0;
  for (const auto& [snapshot, ids] : log.acked_appends) {
    for (int64_t id : ids) {
      if (present.count(id) != ancestors.count(snapshot)) {
        Fail("row " + std::to_string(id) + " of append " + std::to_string(snapshot) + " is " +
             (present.count(id) ? "present though rolled back" : "missing"));
      }
    }
    kept += static_cast<int>(ancestors.count(snapshot));
  }
  if (log.unknown) std::printf("writers: %d commits reported an unknown outcome\n", log.unknown);
  std::printf("writers: the audit log holds one row for each of the %zu pointer moves, in order\n", moves);
  std::printf("writers: %zu logs: %d acknowledged (%zu appends, %zu overwrites), %d refused; "
              "%zu snapshots (%d appends, %d overwrites) verified row by row; %d acknowledged appends in the "
              "current state, the rest rolled back\n",
              logs.size(), log.acked, log.acked_appends.size(), log.acked_overwrites.size(), log.failed,
              md->snapshots.size(), appends, overwrites, kept);
}

// ---------------------------------------------------------------------------------------
// crash: every I/O step of a commit, failed in process and then killed in a child.

// Counts the steps of a commit (each FileIO operation, and the catalog swap before it is
// sent and after it is answered) and fails or kills the process at one of them.
struct Steps {
  enum class Action { kNone, kFail, kKill } action = Action::kNone;
  int target = 0;
  bool fail_cleanup = false;  // after the injected failure, every delete fails too
  std::atomic<int> count{0};
  std::atomic<bool> failed{false};
  std::string failed_step;

  Status Step(const std::string& what) {
    if (failed && fail_cleanup && what.rfind("delete", 0) == 0) return Status::IOError("injected cleanup failure");
    if (action == Action::kNone || ++count != target) return Status::OK();
    if (action == Action::kKill) raise(SIGKILL);
    failed = true;
    failed_step = what;
    return Status::IOError("injected failure at step ", target, " (", what, ")");
  }
  void Arm(Action a, int step, bool cleanup = false) {
    action = a;
    target = step;
    fail_cleanup = cleanup;
    count = 0;
    failed = false;
    failed_step.clear();
  }
};
Steps steps;

class SteppingCatalog : public testing::ForwardingCatalog {
 public:
  using ForwardingCatalog::ForwardingCatalog;
  Status SwapMetadataLocation(const TableIdentifier& ident, const std::string& expected,
                              const std::string& location) override {
    ARROW_RETURN_NOT_OK(steps.Step("swap sent"));
    ARROW_RETURN_NOT_OK(inner_->SwapMetadataLocation(ident, expected, location));
    // The swap happened but its answer is lost on the way back.
    Status lost = steps.Step("swap answered");
    if (!lost.ok()) return CommitStateUnknown(lost.message());
    return Status::OK();
  }
};

std::shared_ptr<Catalog> Stepping(std::shared_ptr<Catalog> inner) {
  return std::make_shared<SteppingCatalog>(std::move(inner));
}

Tables OpenStepping(const std::string& catalog_path) {
  Tables t = Open(catalog_path, Stepping);
  // A stream's later writes only make a partial file longer: its first write stands for them.
  auto written = std::make_shared<std::set<std::string>>();
  t.io->SetFaultInjector([written](FileOp op, const std::string& location, FileKind kind) {
    if (op == FileOp::kStreamWrite && !written->insert(location).second) return Status::OK();
    return steps.Step(std::string(FileOpName(op)) + " " + FileKindName(kind) + " " +
                      location.substr(location.rfind('/') + 1));
  });
  return t;
}

// One write of the kind `mode`: append ids [first, first + 3), or rewrite the table.
Status Write(Tables& t, const std::string& mode, int64_t first) {
  ARROW_ASSIGN_OR_RAISE(auto table, t.tables->LoadTable(kTable));
  if (mode == "append") return table::AppendData(*table, *Rows({first, first + 1, first + 2}, 0)).status();
  ARROW_ASSIGN_OR_RAISE(auto rows, scan::TableScan(table).ToArrowTable());
  return table::OverwriteData(*table, *rows, table::OverwriteFilter::All()).status();
}

struct State {
  std::string pointer;
  std::optional<int64_t> current;
  std::vector<int64_t> ids;
  std::set<std::string> files;
};

State Observe(const std::string& catalog_path) {
  Tables t = Open(catalog_path);
  State s;
  auto table = Check(t.tables->LoadTable(kTable), "load table");
  auto md = table->metadata();
  CheckLineage(*t.io, *md);
  CheckAuditLog(*t.catalog, *table);  // never a pointer move without its row, nor the reverse
  s.pointer = table->metadata_location();
  s.current = md->current_snapshot_id;
  Reader reader(*t.io, *md);  // fails on any file the current snapshot reaches but lacks
  s.ids = reader.Ids(*s.current);
  for (const auto& e : Check(t.io->ListFiles(md->location), "list")) s.files.insert(e.path);
  return s;
}

// The table after a failed or killed write is exactly as before or exactly as after.
bool Advanced(const State& before, const State& now, const std::string& mode, int64_t first,
              const std::string& where) {
  if (now.pointer == before.pointer) {
    if (now.ids != before.ids) Fail(where + ": rows changed without a commit");
    return false;
  }
  std::vector<int64_t> expected = before.ids;
  if (mode == "append") {
    expected.insert(expected.end(), {first, first + 1, first + 2});
    std::sort(expected.begin(), expected.end());
  }
  if (now.ids != expected) Fail(where + ": the new state holds the wrong rows");
  return true;
}

int CrashChild(const std::string& catalog_path, const std::string& mode, int step, int64_t first) {
  Tables t = OpenStepping(catalog_path);
  steps.Arm(Steps::Action::kKill, step);
  Status st = Write(t, mode, first);
  if (!st.ok()) Fail("write failed without a fault: " + st.ToString());
  return 0;
}

int Crash() {
  char dir_template[] = "/tmp/floe-crash-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string catalog_path = CreateTable(dir);
  int64_t next_id = 1000;
  int failures = 0, kills = 0, resolved = 0, cleanup_failures = 0;
  std::map<std::string, int> steps_per_mode;
  for (const std::string mode : {"append", "overwrite"}) {
    // In process: fail step n (then also fail the cleanup) until the write needs fewer steps.
    for (bool fail_cleanup : {false, true}) {
      for (int n = 1;; ++n) {
        State before = Observe(catalog_path);
        Tables t = OpenStepping(catalog_path);
        steps.Arm(Steps::Action::kFail, n, fail_cleanup);
        const int64_t first = next_id;
        next_id += 10;
        Status st = Write(t, mode, first);
        const bool injected = steps.failed;
        const std::string step = steps.failed_step;
        steps.Arm(Steps::Action::kNone, 0);
        const std::string where = mode + " failing step " + std::to_string(n) + " (" + step + ")" +
                                  (fail_cleanup ? " and its cleanup" : "");
        if (std::getenv("FLOE_TORTURE_VERBOSE")) std::fprintf(stderr, "%s: %s\n", where.c_str(), st.ToString().c_str());
        if (!injected) {
          if (!st.ok()) Fail(mode + " failed with no fault injected: " + st.ToString());
          steps_per_mode[mode] = n - 1;
          Advanced(before, Observe(catalog_path), mode, first, mode + " without faults");
          break;
        }
        State now = Observe(catalog_path);
        if (step == "swap answered") {
          // The commit landed but the catalog cannot say so: the writer learns it from the
          // table's metadata log, which now follows its base with its own metadata file.
          if (!st.ok()) Fail(where + ": expected the lost answer to resolve as committed, got " + st.ToString());
          if (!Advanced(before, now, mode, first, where)) Fail(where + ": the swap did not land");
          ++resolved;
          continue;
        }
        if (st.ok()) {
          // A failed read or write that a retry or fallback absorbed: the new state.
          Advanced(before, now, mode, first, where);
          continue;
        }
        if (Advanced(before, now, mode, first, where)) Fail(where + ": failed, yet the table changed");
        if (!fail_cleanup && now.files != before.files) {
          std::string extra;
          for (const auto& f : now.files) {
            if (!before.files.count(f)) extra += " " + f;
          }
          Fail(where + ": left files behind:" + extra);
        }
        fail_cleanup ? ++cleanup_failures : ++failures;
      }
    }
    // In a child killed at step n: the table reads the old or the new state.
    for (int n = 1;; ++n) {
      State before = Observe(catalog_path);
      const int64_t first = next_id;
      next_id += 10;
      pid_t pid = fork();
      if (pid < 0) Fail("fork failed");
      if (pid == 0) {
        const std::string step = std::to_string(n), first_id = std::to_string(first);
        execl(self_path.c_str(), self_path.c_str(), "crash-child", catalog_path.c_str(), mode.c_str(),
              step.c_str(), first_id.c_str(), static_cast<char*>(nullptr));
        _exit(127);
      }
      int status = 0;
      waitpid(pid, &status, 0);
      State now = Observe(catalog_path);
      const std::string where = mode + " killed at step " + std::to_string(n);
      if (std::getenv("FLOE_TORTURE_VERBOSE")) std::fprintf(stderr, "%s: status %d\n", where.c_str(), status);
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        Advanced(before, now, mode, first, mode + " not killed");
        break;
      }
      if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) Fail(where + ": the child failed on its own");
      Advanced(before, now, mode, first, where);
      ++kills;
    }
  }
  std::printf("crash: append takes %d steps, overwrite %d; %d failed steps left the table as it was and no "
              "file behind, %d failed cleanups left it as it was, %d lost answers resolved as committed from the "
              "metadata log, %d kills left the old or the new state\n",
              steps_per_mode["append"], steps_per_mode["overwrite"], failures, cleanup_failures, resolved, kills);
  std::string cleanup = "rm -rf '" + dir + "'";
  (void)std::system(cleanup.c_str());
  return 0;
}

}  // namespace
}  // namespace floe::torture

int main(int argc, char** argv) {
  using namespace floe::torture;
  self_path = argv[0];
  if (self_path.find('/') == std::string::npos) self_path = "/proc/self/exe";
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "writer" && argc == 6) return Writer(argv[2], std::atoi(argv[3]), std::atoi(argv[4]), argv[5]);
  if (mode == "writers") {
    int writers = 16, commits = 25, restarts = 0;
    std::string postgres, restart_command;
    for (int i = 2; i + 1 < argc; i += 2) {
      std::string flag = argv[i];
      if (flag == "--writers") writers = std::atoi(argv[i + 1]);
      else if (flag == "--commits") commits = std::atoi(argv[i + 1]);
      else if (flag == "--catalog") postgres = argv[i + 1];
      else if (flag == "--restart-command") restart_command = argv[i + 1];
      else if (flag == "--restarts") restarts = std::atoi(argv[i + 1]);
      else Fail("unknown flag " + flag);
    }
    if (restarts > 0 && restart_command.empty()) Fail("--restarts needs --restart-command");
    return Writers(writers, commits, postgres, restart_command, restarts);
  }
  if (mode == "prepare" && (argc == 3 || (argc == 5 && std::string(argv[3]) == "--catalog"))) {
    std::printf("%s\n", CreateTable(argv[2], argc == 5 ? argv[4] : "").c_str());
    return 0;
  }
  if (mode == "verify" && argc >= 4) {
    Verify(argv[2], std::vector<std::string>(argv + 3, argv + argc));
    return 0;
  }
  if (mode == "crash-child" && argc == 6) return CrashChild(argv[2], argv[3], std::atoi(argv[4]), std::atoll(argv[5]));
  if (mode == "crash" && argc == 2) return Crash();
  std::fprintf(stderr,
               "usage: floe_torture writers [--writers N] [--commits M] [--catalog postgresql://...] "
               "[--restart-command CMD --restarts K] | crash | prepare DIR [--catalog postgresql://...] | "
               "verify CATALOG LOG...\n");
  return 2;
}
