#include "floe/cli/demo.h"

#include <arrow/table.h>

#include "floe/cli/cli_main.h"
#include "floe/cli/result_format.h"
#include "floe/sql/types/value_text.h"
#include "floe/util/str_cat.h"

namespace floe::cli {

namespace {

class Demo {
 public:
  Demo(sql::Session& session, std::ostream& out) : session_(session), out_(out) {}

  void Heading(const std::string& text) { out_ << "\n== " << text << " ==\n\n"; }
  void Say(const std::string& text) { out_ << text << "\n"; }

  // Runs a statement quietly (setup steps).
  Status Quiet(const std::string& sql) { return session_.Execute(sql).status(); }

  // Runs a statement, printing it and its rows as show(truncate=False) does.
  Result<std::shared_ptr<arrow::Table>> Show(const std::string& sql) {
    out_ << sql << "\n";
    ARROW_ASSIGN_OR_RAISE(auto result, session_.Execute(sql));
    if (result.rows) {
      ARROW_ASSIGN_OR_RAISE(auto text, sql::ValueText::Make(session_.Setting("spark.sql.session.timeZone", "UTC")));
      out_ << ShowString(*result.rows, text, 20, 0);
    }
    out_ << "\n";
    return result.rows;
  }

  Result<std::string> Single(const std::string& sql) {
    ARROW_ASSIGN_OR_RAISE(auto result, session_.Execute(sql));
    if (!result.rows || result.rows->num_rows() != 1) return Status::Invalid("expected one row from ", sql);
    ARROW_ASSIGN_OR_RAISE(auto text, sql::ValueText::Make("UTC"));
    ARROW_ASSIGN_OR_RAISE(auto table, result.rows->CombineChunks());
    return text.Format(*table->column(0)->chunk(0), 0);
  }

 private:
  sql::Session& session_;
  std::ostream& out_;
};

const char kReport[] = "lakehouse.gold.daily_revenue_report";

}  // namespace

Result<DemoSnapshots> RunDemo(sql::Session& session, std::ostream& out) {
  Demo demo(session, out);
  demo.Say("floe demo: a daily revenue report, a bad write, an audit and a rollback.");
  demo.Say("Tables live in the catalog `lakehouse`; every step is one SQL statement.");

  // Fresh tables each run, so the story always starts from one snapshot.
  for (const char* ns : {"analytics", "gold", "ref"}) {
    ARROW_RETURN_NOT_OK(demo.Quiet(StrCat("CREATE NAMESPACE IF NOT EXISTS lakehouse.", ns)));
  }
  for (const char* t : {"lakehouse.analytics.orders", kReport, "lakehouse.ref.currency_rates"}) {
    ARROW_RETURN_NOT_OK(demo.Quiet(StrCat("DROP TABLE IF EXISTS ", t, " PURGE")));
  }
  ARROW_RETURN_NOT_OK(demo.Quiet(
      "CREATE TABLE lakehouse.analytics.orders (order_id BIGINT, updated_at TIMESTAMP, amount DECIMAL(12, 2), "
      "status STRING, currency STRING) USING iceberg"));
  // 842 orders on 2025-06-14 worth 184320.50 and 915 on 2025-06-15 worth 201450.75, in
  // roubles, plus cancelled orders the report must leave out.
  ARROW_RETURN_NOT_OK(demo.Quiet(
      "INSERT INTO lakehouse.analytics.orders SELECT id, timestamp_millis(1749859200000 + id * 60000), "
      "CASE WHEN id = 0 THEN 225.60 ELSE 218.90 END, 'completed', 'RUB' FROM range(842)"));
  ARROW_RETURN_NOT_OK(demo.Quiet(
      "INSERT INTO lakehouse.analytics.orders SELECT 10000 + id, timestamp_millis(1749945600000 + id * 60000), "
      "CASE WHEN id = 0 THEN 224.51 ELSE 220.16 END, 'completed', 'RUB' FROM range(915)"));
  ARROW_RETURN_NOT_OK(demo.Quiet(
      "INSERT INTO lakehouse.analytics.orders SELECT 20000 + id, timestamp_millis(1749859200000 + id * 3600000), "
      "999.99, 'cancelled', 'RUB' FROM range(40)"));
  ARROW_RETURN_NOT_OK(demo.Quiet(
      "CREATE TABLE lakehouse.ref.currency_rates (currency_code STRING, rate DECIMAL(10, 4), is_current BOOLEAN) "
      "USING iceberg"));
  ARROW_RETURN_NOT_OK(demo.Quiet(
      "INSERT INTO lakehouse.ref.currency_rates VALUES ('RUB', 1.0000, false), ('RUB', 1.0000, true)"));

  demo.Heading("The report: daily revenue from the orders");
  ARROW_RETURN_NOT_OK(demo.Show(StrCat("CREATE TABLE IF NOT EXISTS ", kReport, " (\n"
                                       "    report_date    DATE,\n    total_orders   BIGINT,\n"
                                       "    total_revenue  DECIMAL(18, 2)\n)\nUSING iceberg"))
                          .status());
  ARROW_RETURN_NOT_OK(demo.Show(StrCat("INSERT OVERWRITE ", kReport, "\nSELECT\n"
                                       "    CAST(updated_at AS DATE) AS report_date,\n"
                                       "    COUNT(*)                 AS total_orders,\n"
                                       "    SUM(amount)              AS total_revenue\n"
                                       "FROM lakehouse.analytics.orders\nWHERE status != 'cancelled'\n"
                                       "GROUP BY CAST(updated_at AS DATE)"))
                          .status());
  ARROW_RETURN_NOT_OK(demo.Show(StrCat("SELECT * FROM ", kReport, " ORDER BY report_date")).status());
  ARROW_RETURN_NOT_OK(
      demo.Show(StrCat("SELECT snapshot_id, committed_at, operation\nFROM ", kReport, ".snapshots\nORDER BY committed_at"))
          .status());
  ARROW_ASSIGN_OR_RAISE(std::string clean, demo.Single(StrCat("SELECT snapshot_id FROM ", kReport, ".snapshots")));

  demo.Heading("The bad write: a faulty join doubles the report");
  demo.Say("The join with currency_rates forgets `AND r.is_current`: every rouble order matches twice.\n");
  ARROW_RETURN_NOT_OK(demo.Show(StrCat("MERGE INTO ", kReport, " t\nUSING (\n    SELECT\n"
                                       "        CAST(o.updated_at AS DATE) AS report_date,\n"
                                       "        COUNT(*)                   AS total_orders,\n"
                                       "        SUM(o.amount * r.rate)     AS total_revenue\n"
                                       "    FROM lakehouse.analytics.orders o\n    JOIN lakehouse.ref.currency_rates r\n"
                                       "        ON o.currency = r.currency_code\n    WHERE o.status != 'cancelled'\n"
                                       "    GROUP BY CAST(o.updated_at AS DATE)\n) s\n"
                                       "ON t.report_date = s.report_date\nWHEN MATCHED THEN UPDATE SET\n"
                                       "    t.total_orders  = s.total_orders,\n"
                                       "    t.total_revenue = s.total_revenue"))
                          .status());
  ARROW_RETURN_NOT_OK(demo.Show(StrCat("SELECT * FROM ", kReport, " ORDER BY report_date")).status());

  demo.Heading("The audit: what changed, and what the report said before");
  ARROW_RETURN_NOT_OK(demo.Show(StrCat("SELECT\n    snapshot_id, parent_id, committed_at, operation,\n"
                                       "    summary['total-records'] AS total_records\nFROM ", kReport,
                                       ".snapshots\nORDER BY committed_at"))
                          .status());
  ARROW_RETURN_NOT_OK(demo.Show(StrCat("SELECT * FROM ", kReport, " VERSION AS OF ", clean, "\nORDER BY report_date")).status());
  ARROW_RETURN_NOT_OK(demo.Show(StrCat("SELECT\n    cur.report_date,\n    cur.total_revenue                      AS revenue_now_corrupted,\n"
                                       "    old.total_revenue                      AS revenue_before_incident,\n"
                                       "    cur.total_revenue - old.total_revenue  AS diff\nFROM ", kReport, " cur\nJOIN ",
                                       kReport, " VERSION AS OF ", clean, " AS old\n    ON cur.report_date = old.report_date\n"
                                       "ORDER BY cur.report_date"))
                          .status());

  demo.Heading("The rollback: back to the good snapshot, redo, and back again");
  ARROW_RETURN_NOT_OK(demo.Show(StrCat("CALL lakehouse.system.rollback_to_snapshot('gold.daily_revenue_report', ", clean, ")")).status());
  ARROW_RETURN_NOT_OK(demo.Show(StrCat("SELECT * FROM ", kReport, " ORDER BY report_date")).status());
  ARROW_RETURN_NOT_OK(demo.Show(StrCat("SELECT made_current_at, snapshot_id, parent_id, is_current_ancestor\nFROM ", kReport,
                                       ".history\nORDER BY made_current_at"))
                          .status());
  demo.Say("The rollback wrote no data and no manifest: one new metadata file moved current-snapshot-id.");
  demo.Say("Redo and undo to show nothing was lost:\n");
  ARROW_ASSIGN_OR_RAISE(std::string bad, demo.Single(StrCat("SELECT snapshot_id FROM ", kReport,
                                                            ".history WHERE NOT is_current_ancestor")));
  ARROW_RETURN_NOT_OK(demo.Show(StrCat("CALL lakehouse.system.set_current_snapshot(\n    'gold.daily_revenue_report', snapshot_id => ",
                                       bad, "\n)"))
                          .status());
  ARROW_RETURN_NOT_OK(demo.Show(StrCat("SELECT * FROM ", kReport, " ORDER BY report_date")).status());
  ARROW_RETURN_NOT_OK(demo.Show(StrCat("CALL lakehouse.system.rollback_to_snapshot('gold.daily_revenue_report', ", clean, ")")).status());
  ARROW_RETURN_NOT_OK(demo.Show(StrCat("SELECT count(*) AS snapshots FROM ", kReport, ".snapshots")).status());
  ARROW_RETURN_NOT_OK(demo.Show(StrCat("SELECT made_current_at, snapshot_id, parent_id, is_current_ancestor\nFROM ", kReport,
                                       ".history\nORDER BY made_current_at"))
                          .status());
  demo.Say("Two snapshots, five history entries: rollbacks move a pointer and keep every snapshot readable.");
  return DemoSnapshots{clean, bad};
}

Status RunDemoCommandLine(const std::vector<std::string>& catalog_flags,
                          const DemoSnapshots& snapshots, std::ostream& out) {
  const std::string table = "gold.daily_revenue_report";
  out << "\n== From a terminal: the lineage, the diff and a guarded rollback ==\n\n";
  out << "The same audit with the floe command (each also takes --json; on a terminal, rollback\n"
         "and set-current ask before they move anything, and on a pipe they refuse without --yes).\n";
  const std::vector<std::vector<std::string>> steps = {
      {"set-current", table, "--snapshot-id", snapshots.bad, "--yes"},
      {"history", table, "--graph"},
      {"diff", table, snapshots.clean, snapshots.bad, "--key", "report_date"},
      {"rollback", table, "--to-snapshot", snapshots.clean, "--yes"},
  };
  for (const auto& step : steps) {
    out << "\n$ floe";
    for (const auto& arg : step) out << " " << arg;
    out << "\n" << std::flush;
    std::vector<std::string> args = {"floe"};
    args.insert(args.end(), step.begin(), step.end());
    args.insert(args.end(), catalog_flags.begin(), catalog_flags.end());
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    const int status = RunCli(static_cast<int>(argv.size()), argv.data());
    out << std::flush;
    if (status != 0) return Status::Invalid("floe ", step.front(), " exited with status ", status);
  }
  return Status::OK();
}

}  // namespace floe::cli
