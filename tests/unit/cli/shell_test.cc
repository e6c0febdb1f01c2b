#include "floe/cli/shell.h"

#include <deque>
#include <fstream>
#include <map>
#include <sstream>

#include <arrow/api.h>
#include <arrow/json/from_string.h>

#include "floe/cli/sql_command.h"
#include "floe_test.h"

namespace floe::cli {
namespace {

// A stand-in for Session: answers from a script of canned results and records what ran.
class FakeSession {
 public:
  FakeSession() {
    auto id = arrow::json::ArrayFromJSONString(arrow::int32(), "[2]").ValueOrDie();
    auto ts = arrow::json::ArrayFromJSONString(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                                               "[1705314600000000]")
                  .ValueOrDie();
    two_ = arrow::Table::Make(arrow::schema({arrow::field("(1 + 1)", arrow::int32())}), {id});
    now_ = arrow::Table::Make(arrow::schema({arrow::field("ts", ts->type())}), {ts});
  }

  Executor executor() {
    Executor e;
    e.execute = [this](const std::string& statement) -> Result<sql::StatementResult> {
      ran.push_back(statement);
      std::string sql = statement;
      for (char& c : sql) c = c == '\n' ? ' ' : c;
      sql::StatementResult result;
      result.statement = statement;
      if (sql.rfind("SELECT 1 + 1", 0) == 0) {
        result.rows = two_;
      } else if (sql == "SELECT ts") {
        result.rows = now_;
      } else if (sql.rfind("SET TIME ZONE ", 0) == 0) {
        zone = sql.substr(14);
        zone = zone.substr(1, zone.size() - 2);
      } else if (sql.rfind("CREATE", 0) == 0) {
        result.message = "Created table lakehouse.db.t";
      } else if (sql.rfind("INSERT", 0) == 0) {
        // no message
      } else {
        return Status::Invalid("Syntax error at line 1, column 1: ", statement);
      }
      return result;
    };
    e.time_zone = [this] { return zone; };
    return e;
  }

  std::vector<std::string> ran;
  std::string zone = "UTC";

 private:
  std::shared_ptr<arrow::Table> two_, now_;
};

class ScriptedReader : public LineReader {
 public:
  explicit ScriptedReader(std::vector<std::string> lines) : lines_(lines.begin(), lines.end()) {}
  std::optional<std::string> ReadLine(const std::string& prompt) override {
    prompts.push_back(prompt);
    if (lines_.empty()) return std::nullopt;
    std::string line = lines_.front();
    lines_.pop_front();
    return line;
  }
  void AddHistory(const std::string& entry) override { history.push_back(entry); }

  std::vector<std::string> prompts;
  std::vector<std::string> history;

 private:
  std::deque<std::string> lines_;
};

const char* kTwo =
    "+-------+\n"
    "|(1 + 1)|\n"
    "+-------+\n"
    "|      2|\n"
    "+-------+\n";

TEST(ShellTest, RowsGoToStdoutMessagesToStderr) {
  FakeSession fake;
  std::ostringstream out, err;
  Shell shell(fake.executor(), ShellOptions(), out, err);
  EXPECT_TRUE(shell.RunScript("CREATE TABLE t (a INT); INSERT INTO t VALUES (1); SELECT 1 + 1;"));
  EXPECT_EQ(out.str(), kTwo);
  EXPECT_EQ(err.str(), "Created table lakehouse.db.t\n");
  EXPECT_THAT(fake.ran, ::testing::ElementsAre("CREATE TABLE t (a INT)", "INSERT INTO t VALUES (1)",
                                               "SELECT 1 + 1"));
}

TEST(ShellTest, QuietDropsMessages) {
  FakeSession fake;
  std::ostringstream out, err;
  ShellOptions options;
  options.quiet = true;
  Shell shell(fake.executor(), options, out, err);
  EXPECT_TRUE(shell.RunScript("CREATE TABLE t (a INT)"));
  EXPECT_EQ(err.str(), "");
}

TEST(ShellTest, StopsAtTheFirstFailure) {
  FakeSession fake;
  std::ostringstream out, err;
  Shell shell(fake.executor(), ShellOptions(), out, err);
  EXPECT_FALSE(shell.RunScript("SELECT 1 + 1;\nSELEC 2;\nSELECT 1 + 1;", "script.sql"));
  EXPECT_EQ(out.str(), kTwo);
  EXPECT_EQ(err.str(), "Error: Syntax error at line 1, column 1: SELEC 2\n  at script.sql:2\n");
  EXPECT_EQ(fake.ran.size(), 2u);
}

TEST(ShellTest, ContinueRunsTheRestButStillFails) {
  FakeSession fake;
  std::ostringstream out, err;
  ShellOptions options;
  options.continue_on_error = true;
  Shell shell(fake.executor(), options, out, err);
  EXPECT_FALSE(shell.RunScript("SELEC 2; SELECT 1 + 1"));
  EXPECT_EQ(out.str(), kTwo);
  EXPECT_EQ(err.str(), "Error: Syntax error at line 1, column 1: SELEC 2\n");
}

TEST(ShellTest, ScriptsSplitWhereTheParserDoes) {
  FakeSession fake;
  std::ostringstream out, err;
  ShellOptions options;
  options.continue_on_error = true;
  Shell shell(fake.executor(), options, out, err);
  // Quotes and comments hide ';'; a statement the lexer rejects fails alone, at its line;
  // trailing comments are not part of the statement.
  EXPECT_FALSE(shell.RunScript(
      "-- setup\nINSERT INTO t VALUES ('a;b'); /* ; */\nSELEC # 2;\nSELECT 1 + 1 -- done\n",
      "script.sql"));
  EXPECT_THAT(fake.ran, ::testing::ElementsAre("INSERT INTO t VALUES ('a;b')", "SELEC # 2",
                                               "SELECT 1 + 1"));
  EXPECT_EQ(err.str(), "Error: Syntax error at line 1, column 1: SELEC # 2\n  at script.sql:3\n");
  EXPECT_EQ(out.str(), kTwo);
}

TEST(ShellTest, FormatsAndSessionZone) {
  FakeSession fake;
  std::ostringstream out, err;
  ShellOptions options;
  options.format.format = OutputFormat::kCsv;
  Shell shell(fake.executor(), options, out, err);
  EXPECT_TRUE(shell.RunScript("SELECT ts; SET TIME ZONE 'Europe/Moscow'; SELECT ts"));
  EXPECT_EQ(out.str(), "ts\n2024-01-15 10:30:00\nts\n2024-01-15 13:30:00\n");
}

TEST(ShellTest, InteractiveStatementsSpanLines) {
  FakeSession fake;
  std::ostringstream out, err;
  Shell shell(fake.executor(), ShellOptions(), out, err);
  ScriptedReader reader(
      {"SELECT 1 + 1", "  ;", "", "SELEC 2;", "SELECT 1 + 1; SELECT", "1 + 1;", "quit"});
  EXPECT_FALSE(shell.RunInteractive(reader));
  EXPECT_THAT(reader.prompts, ::testing::ElementsAre("floe> ", "   -> ", "floe> ", "floe> ",
                                                     "floe> ", "   -> ", "floe> "));
  EXPECT_THAT(reader.history, ::testing::ElementsAre("SELECT 1 + 1;", "SELEC 2;", "SELECT 1 + 1;",
                                                     "SELECT 1 + 1;"));
  EXPECT_EQ(out.str(), std::string(kTwo) + kTwo + kTwo);
  EXPECT_EQ(err.str(), "Error: Syntax error at line 1, column 1: SELEC 2\n");
}

TEST(ShellTest, InteractiveEndsAtEofAndDropsAnUnfinishedStatement) {
  FakeSession fake;
  std::ostringstream out, err;
  Shell shell(fake.executor(), ShellOptions(), out, err);
  ScriptedReader reader({"SELECT 1 + 1"});
  EXPECT_TRUE(shell.RunInteractive(reader));
  EXPECT_TRUE(fake.ran.empty());
  // Quit words only count at the start of a statement.
  ScriptedReader reader2({"SELECT", "exit;", "\\q"});
  EXPECT_FALSE(shell.RunInteractive(reader2));
  EXPECT_THAT(fake.ran, ::testing::ElementsAre("SELECT\nexit"));
}

TEST(SqlCommandTest, CatalogLocationPrecedence) {
  std::map<std::string, std::string> env;
  auto get_env = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  CatalogLocation d = ResolveCatalogLocation("", "", get_env);
  EXPECT_EQ(d.catalog_uri, "warehouse/catalog.db");
  EXPECT_EQ(d.warehouse, (std::filesystem::current_path() / "warehouse").string());

  env["FLOE_CATALOG"] = "sqlite:///tmp/c.db";
  env["FLOE_WAREHOUSE"] = "/data/wh/";
  CatalogLocation e = ResolveCatalogLocation("", "", get_env);
  EXPECT_EQ(e.catalog_uri, "sqlite:///tmp/c.db");
  EXPECT_EQ(e.warehouse, "/data/wh");

  CatalogLocation f = ResolveCatalogLocation("/x/cat.db", "file:///y", get_env);
  EXPECT_EQ(f.catalog_uri, "/x/cat.db");
  EXPECT_EQ(f.warehouse, "file:///y");
}

TEST(SqlCommandTest, PrepareCreatesDirectories) {
  testing::TempDir dir;
  CatalogLocation location{dir.str() + "/meta/catalog.db", dir.str() + "/wh/a"};
  ASSERT_OK(PrepareCatalogLocation(location));
  EXPECT_TRUE(std::filesystem::is_directory(dir.path() / "wh" / "a"));
  EXPECT_TRUE(std::filesystem::is_directory(dir.path() / "meta"));
}

TEST(SqlCommandTest, CommandsAndFilesRunInOrder) {
  testing::TempDir dir;
  std::string file = dir.str() + "/script.sql";
  std::ofstream(file) << "-- a file\nCREATE TABLE t (a INT);\nSELECT 1 + 1;\n";
  FakeSession fake;
  std::ostringstream out, err;
  Shell shell(fake.executor(), ShellOptions(), out, err);
  SqlSources sources;
  sources.inputs = {{SqlInput::Kind::kCommand, "INSERT INTO t VALUES (1)"},
                    {SqlInput::Kind::kFile, file},
                    {SqlInput::Kind::kCommand, "SELECT 1 + 1"}};
  EXPECT_EQ(RunSqlSources(shell, sources, err), kExitOk);
  EXPECT_THAT(fake.ran, ::testing::ElementsAre("INSERT INTO t VALUES (1)", "CREATE TABLE t (a INT)",
                                               "SELECT 1 + 1", "SELECT 1 + 1"));
}

TEST(SqlCommandTest, FailuresSetTheExitStatus) {
  testing::TempDir dir;
  std::string file = dir.str() + "/bad.sql";
  std::ofstream(file) << "SELECT 1 + 1;\n\nSELEC 2;\nSELECT 1 + 1;\n";
  FakeSession fake;
  std::ostringstream out, err;
  Shell shell(fake.executor(), ShellOptions(), out, err);
  SqlSources sources;
  sources.inputs = {{SqlInput::Kind::kFile, file}, {SqlInput::Kind::kCommand, "SELECT 1 + 1"}};
  EXPECT_EQ(RunSqlSources(shell, sources, err), kExitFailed);
  EXPECT_EQ(fake.ran.size(), 2u);
  EXPECT_THAT(err.str(), ::testing::HasSubstr("  at " + file + ":3\n"));

  std::ostringstream err2;
  SqlSources missing;
  missing.inputs = {{SqlInput::Kind::kFile, dir.str() + "/nope.sql"}};
  EXPECT_EQ(RunSqlSources(shell, missing, err2), kExitFailed);
  EXPECT_THAT(err2.str(), ::testing::StartsWith("Error: Cannot read " + dir.str() + "/nope.sql"));
}

TEST(SqlCommandTest, ContinueGoesOnAcrossInputs) {
  FakeSession fake;
  std::ostringstream out, err;
  ShellOptions options;
  options.continue_on_error = true;
  Shell shell(fake.executor(), options, out, err);
  SqlSources sources;
  sources.inputs = {{SqlInput::Kind::kCommand, "SELEC 1"},
                    {SqlInput::Kind::kCommand, "SELECT 1 + 1"}};
  EXPECT_EQ(RunSqlSources(shell, sources, err), kExitFailed);
  EXPECT_EQ(fake.ran.size(), 2u);
}

TEST(SqlCommandTest, StdinScriptAndInteractive) {
  FakeSession fake;
  std::ostringstream out, err;
  Shell shell(fake.executor(), ShellOptions(), out, err);
  std::istringstream in("SELECT 1 + 1;\nSELECT 1 + 1");
  SqlSources piped;
  piped.stdin_stream = &in;
  EXPECT_EQ(RunSqlSources(shell, piped, err), kExitOk);
  EXPECT_EQ(fake.ran.size(), 2u);

  SqlSources terminal;
  terminal.stdin_is_terminal = true;
  terminal.make_reader = [] {
    return std::make_unique<ScriptedReader>(std::vector<std::string>{"SELEC 1;", "SELECT 1 + 1;"});
  };
  // Interactive sessions report failures as they happen and exit 0.
  EXPECT_EQ(RunSqlSources(shell, terminal, err), kExitOk);
  EXPECT_EQ(fake.ran.size(), 4u);
}

}  // namespace
}  // namespace floe::cli
