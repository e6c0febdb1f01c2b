// Statements other than queries: DDL, DML, ALTER TABLE, CALL, SET, and scripts.

#include "sql_test_util.h"

namespace floe::sql {
namespace {

using testing::Canonical;
using testing::RoundTrip;

template <typename T>
const T& NodeOf(const Statement& s) {
  return std::get<T>(s.node);
}

template <typename T>
const T& ActionOf(const Statement& s) {
  return std::get<T>(std::get<AlterTable>(s.node).action);
}

TEST(StatementTest, Namespaces) {
  ASSERT_OK_AND_ASSIGN(Statement s,
                       RoundTrip("CREATE DATABASE IF NOT EXISTS lakehouse.gold COMMENT 'reports' "
                                 "LOCATION 's3://b/gold' WITH DBPROPERTIES ('owner' = 'bi', a.b = 1)"));
  const auto& c = NodeOf<CreateNamespace>(s);
  EXPECT_TRUE(c.if_not_exists);
  EXPECT_EQ(ToSql(c.name), "lakehouse.gold");
  EXPECT_EQ(*c.comment, "reports");
  EXPECT_EQ(*c.location, "s3://b/gold");
  EXPECT_EQ(c.properties, (std::vector<Property>{{"owner", "bi"}, {"a.b", "1"}}));
  EXPECT_EQ(ToSql(s),
            "CREATE NAMESPACE IF NOT EXISTS lakehouse.gold COMMENT 'reports' LOCATION 's3://b/gold' "
            "WITH DBPROPERTIES ('owner' = 'bi', 'a.b' = '1')");
  EXPECT_EQ(Canonical("create schema s"), "CREATE NAMESPACE s");
  EXPECT_EQ(Canonical("CREATE NAMESPACE a.b.c"), "CREATE NAMESPACE a.b.c");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("DROP SCHEMA IF EXISTS s CASCADE"));
  EXPECT_TRUE(NodeOf<DropNamespace>(s).if_exists);
  EXPECT_TRUE(NodeOf<DropNamespace>(s).cascade);
  EXPECT_EQ(Canonical("DROP DATABASE s RESTRICT"), "DROP NAMESPACE s");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("SHOW DATABASES FROM lakehouse LIKE 'g*'"));
  EXPECT_EQ(ToSql(*NodeOf<ShowNamespaces>(s).in), "lakehouse");
  EXPECT_EQ(*NodeOf<ShowNamespaces>(s).pattern, "g*");
  EXPECT_EQ(Canonical("SHOW NAMESPACES"), "SHOW NAMESPACES");
  EXPECT_EQ(Canonical("SHOW SCHEMAS 'a*'"), "SHOW NAMESPACES LIKE 'a*'");
  EXPECT_EQ(Canonical("SHOW TABLES"), "SHOW TABLES");
  EXPECT_EQ(Canonical("show tables in lakehouse.gold like 'daily*'"),
            "SHOW TABLES IN lakehouse.gold LIKE 'daily*'");
  EXPECT_EQ(Canonical("SHOW TABLES FROM gold"), "SHOW TABLES IN gold");
  EXPECT_EQ(Canonical("USE gold"), "USE gold");
  EXPECT_EQ(Canonical("USE NAMESPACE lakehouse.gold"), "USE lakehouse.gold");
  EXPECT_EQ(Canonical("USE namespace"), "USE namespace");
}

TEST(StatementTest, CreateTable) {
  ASSERT_OK_AND_ASSIGN(
      Statement s,
      RoundTrip("CREATE TABLE IF NOT EXISTS lakehouse.gold.t (id bigint NOT NULL COMMENT 'key', "
                "ts timestamp, amount decimal(18, 2), tags array<string>, "
                "attrs map<string, string>, point struct<x: double, y: double>) USING iceberg "
                "PARTITIONED BY (days(ts), bucket(16, id), truncate(4, name), category, "
                "years(a), months(b), hours(c), year(d), month(e), day(f), hour(g), "
                "truncate(name, 10), point.x) "
                "LOCATION '/w/t' COMMENT 'the table' "
                "TBLPROPERTIES ('format-version' = '2', 'write.parquet.compression-codec' = 'zstd')"));
  const auto& c = NodeOf<CreateTable>(s);
  EXPECT_EQ(c.mode, CreateMode::kCreate);
  EXPECT_TRUE(c.if_not_exists);
  ASSERT_EQ(c.columns.size(), 6u);
  EXPECT_EQ(c.columns[0].name.name, "id");
  EXPECT_EQ(c.columns[0].type.kind, TypeKind::kBigInt);
  EXPECT_TRUE(c.columns[0].not_null);
  EXPECT_EQ(*c.columns[0].comment, "key");
  EXPECT_EQ(c.columns[5].type.kind, TypeKind::kStruct);
  EXPECT_EQ(*c.provider, "iceberg");
  ASSERT_EQ(c.partitioned_by.size(), 13u);
  EXPECT_EQ(c.partitioned_by[0].transform, TransformKind::kDay);
  EXPECT_EQ(c.partitioned_by[1].transform, TransformKind::kBucket);
  EXPECT_EQ(c.partitioned_by[1].param, 16);
  EXPECT_EQ(c.partitioned_by[1].column[0].name, "id");
  EXPECT_EQ(c.partitioned_by[2].transform, TransformKind::kTruncate);
  EXPECT_EQ(c.partitioned_by[2].param, 4);
  EXPECT_EQ(c.partitioned_by[3].transform, TransformKind::kIdentity);
  EXPECT_EQ(c.partitioned_by[11].param, 10);
  EXPECT_EQ(c.partitioned_by[12].column.size(), 2u);
  EXPECT_EQ(*c.location, "/w/t");
  EXPECT_EQ(*c.comment, "the table");
  EXPECT_EQ(c.properties.size(), 2u);
  EXPECT_FALSE(c.as_query);
  EXPECT_EQ(ToSql(s),
            "CREATE TABLE IF NOT EXISTS lakehouse.gold.t (id BIGINT NOT NULL COMMENT 'key', "
            "ts TIMESTAMP, amount DECIMAL(18, 2), tags ARRAY<STRING>, attrs MAP<STRING, STRING>, "
            "point STRUCT<x: DOUBLE, y: DOUBLE>) USING iceberg PARTITIONED BY (days(ts), "
            "bucket(16, id), truncate(4, name), category, years(a), months(b), hours(c), "
            "years(d), months(e), days(f), hours(g), truncate(10, name), point.x) "
            "LOCATION '/w/t' COMMENT 'the table' TBLPROPERTIES ('format-version' = '2', "
            "'write.parquet.compression-codec' = 'zstd')");

  ASSERT_OK_AND_ASSIGN(s, RoundTrip("CREATE OR REPLACE TABLE t USING iceberg AS SELECT * FROM u"));
  EXPECT_EQ(NodeOf<CreateTable>(s).mode, CreateMode::kCreateOrReplace);
  EXPECT_TRUE(NodeOf<CreateTable>(s).as_query);
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("REPLACE TABLE t (a int) USING iceberg"));
  EXPECT_EQ(NodeOf<CreateTable>(s).mode, CreateMode::kReplace);
  EXPECT_EQ(Canonical("CREATE TABLE t TBLPROPERTIES (a='1') AS (SELECT 1 AS a)"),
            "CREATE TABLE t TBLPROPERTIES ('a' = '1') AS SELECT 1 AS a");
  EXPECT_EQ(Canonical("CREATE TABLE t SELECT 1"), "CREATE TABLE t AS SELECT 1");
  EXPECT_EQ(Canonical("CREATE TABLE \"Quoted Name\" (\"a b\" int)"),
            "CREATE TABLE `Quoted Name` (`a b` INT)");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("DROP TABLE IF EXISTS db.t PURGE"));
  EXPECT_TRUE(NodeOf<DropTable>(s).if_exists);
  EXPECT_TRUE(NodeOf<DropTable>(s).purge);
  EXPECT_EQ(Canonical("drop table t"), "DROP TABLE t");
}

TEST(StatementTest, UndropAndShowDroppedTables) {
  ASSERT_OK_AND_ASSIGN(Statement s, RoundTrip("UNDROP TABLE lakehouse.db.t"));
  EXPECT_EQ(ToSql(NodeOf<UndropTable>(s).name), "lakehouse.db.t");
  EXPECT_EQ(Canonical("undrop table `my t`"), "UNDROP TABLE `my t`");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("SHOW DROPPED TABLES IN db LIKE 'a*'"));
  EXPECT_EQ(*NodeOf<ShowDroppedTables>(s).pattern, "a*");
  EXPECT_EQ(Canonical("show dropped tables from db"), "SHOW DROPPED TABLES IN db");
  EXPECT_EQ(Canonical("SHOW DROPPED TABLES"), "SHOW DROPPED TABLES");
  // `dropped` alone is still a name.
  EXPECT_EQ(Canonical("SELECT dropped FROM t"), "SELECT dropped FROM t");
  EXPECT_FALSE(ParseStatement("UNDROP t").ok());
  EXPECT_FALSE(ParseStatement("UNDROP TABLE").ok());
}

TEST(StatementTest, AlterTableProperties) {
  ASSERT_OK_AND_ASSIGN(Statement s,
                       RoundTrip("ALTER TABLE t SET TBLPROPERTIES ('k' = 'v', 'n' = 5, b = true)"));
  EXPECT_EQ(ActionOf<SetProperties>(s).properties,
            (std::vector<Property>{{"k", "v"}, {"n", "5"}, {"b", "true"}}));
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("ALTER TABLE t UNSET TBLPROPERTIES IF EXISTS ('k', a.b)"));
  EXPECT_TRUE(ActionOf<UnsetProperties>(s).if_exists);
  EXPECT_EQ(ActionOf<UnsetProperties>(s).keys, (std::vector<std::string>{"k", "a.b"}));
  EXPECT_EQ(ToSql(s), "ALTER TABLE t UNSET TBLPROPERTIES IF EXISTS ('k', 'a.b')");
}

TEST(StatementTest, AlterTableColumns) {
  ASSERT_OK_AND_ASSIGN(Statement s, RoundTrip("ALTER TABLE t ADD COLUMNS (a int, b string NOT NULL "
                                              "COMMENT 'bee' FIRST, p.c double AFTER a)"));
  const auto& add = ActionOf<AddColumns>(s);
  ASSERT_EQ(add.columns.size(), 3u);
  EXPECT_TRUE(add.columns[1].not_null);
  EXPECT_TRUE(add.columns[1].position->first);
  EXPECT_EQ(add.columns[2].name.size(), 2u);
  EXPECT_EQ(add.columns[2].position->after[0].name, "a");
  EXPECT_EQ(Canonical("ALTER TABLE t ADD COLUMN c timestamp AFTER a"),
            "ALTER TABLE t ADD COLUMNS (c TIMESTAMP AFTER a)");
  EXPECT_EQ(Canonical("ALTER TABLE t ADD COLUMN a int, b int"),
            "ALTER TABLE t ADD COLUMNS (a INT, b INT)");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("ALTER TABLE t RENAME COLUMN pickup_borough TO borough"));
  EXPECT_EQ(ActionOf<RenameColumn>(s).column[0].name, "pickup_borough");
  EXPECT_EQ(ActionOf<RenameColumn>(s).new_name.name, "borough");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("ALTER TABLE t DROP COLUMNS IF EXISTS (a, s.b)"));
  EXPECT_TRUE(ActionOf<DropColumns>(s).if_exists);
  EXPECT_EQ(ActionOf<DropColumns>(s).columns.size(), 2u);
  EXPECT_EQ(Canonical("ALTER TABLE t DROP COLUMN a"), "ALTER TABLE t DROP COLUMNS (a)");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("ALTER TABLE t ALTER COLUMN id TYPE bigint"));
  EXPECT_EQ(ActionOf<AlterColumn>(s).action, AlterColumnAction::kType);
  EXPECT_EQ(ActionOf<AlterColumn>(s).type.kind, TypeKind::kBigInt);
  EXPECT_EQ(Canonical("ALTER TABLE t ALTER id SET NOT NULL"),
            "ALTER TABLE t ALTER COLUMN id SET NOT NULL");
  EXPECT_EQ(Canonical("ALTER TABLE t ALTER COLUMN id DROP NOT NULL"),
            "ALTER TABLE t ALTER COLUMN id DROP NOT NULL");
  EXPECT_EQ(Canonical("ALTER TABLE t ALTER COLUMN id COMMENT 'x'"),
            "ALTER TABLE t ALTER COLUMN id COMMENT 'x'");
  EXPECT_EQ(Canonical("ALTER TABLE t ALTER COLUMN id AFTER b"),
            "ALTER TABLE t ALTER COLUMN id AFTER b");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("ALTER TABLE db.t RENAME TO db.u"));
  EXPECT_EQ(ToSql(ActionOf<RenameTable>(s).new_name), "db.u");
  EXPECT_EQ(Canonical("ALTER TABLE t ADD PARTITION FIELD bucket(8, id) AS shard"),
            "ALTER TABLE t ADD PARTITION FIELD bucket(8, id) AS shard");
  EXPECT_EQ(Canonical("ALTER TABLE t DROP PARTITION FIELD days(ts)"),
            "ALTER TABLE t DROP PARTITION FIELD days(ts)");
  EXPECT_EQ(Canonical("ALTER TABLE t REPLACE PARTITION FIELD ts_day WITH hours(ts) AS h"),
            "ALTER TABLE t REPLACE PARTITION FIELD ts_day WITH hours(ts) AS h");
}

TEST(StatementTest, AlterTableRefs) {
  ASSERT_OK_AND_ASSIGN(
      Statement s,
      RoundTrip("ALTER TABLE t CREATE TAG IF NOT EXISTS `audit-2024-q2` AS OF VERSION 9001 "
                "RETAIN 365 DAYS"));
  const auto& tag = ActionOf<CreateRef>(s);
  EXPECT_EQ(tag.kind, RefKind::kTag);
  EXPECT_TRUE(tag.create);
  EXPECT_FALSE(tag.replace);
  EXPECT_TRUE(tag.if_not_exists);
  EXPECT_EQ(tag.name.name, "audit-2024-q2");
  EXPECT_EQ(*tag.as_of_version, 9001);
  EXPECT_EQ(*tag.retain, (RefDuration{365, TimeUnit::kDays}));
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("ALTER TABLE t CREATE OR REPLACE TAG q2 RETAIN 12 HOURS"));
  EXPECT_TRUE(ActionOf<CreateRef>(s).create);
  EXPECT_TRUE(ActionOf<CreateRef>(s).replace);
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("ALTER TABLE t REPLACE TAG q2 AS OF VERSION 1"));
  EXPECT_FALSE(ActionOf<CreateRef>(s).create);
  EXPECT_TRUE(ActionOf<CreateRef>(s).replace);

  ASSERT_OK_AND_ASSIGN(s, RoundTrip("ALTER TABLE t CREATE BRANCH IF NOT EXISTS b1 AS OF VERSION 7 "
                                    "RETAIN 7 DAYS WITH SNAPSHOT RETENTION 2 SNAPSHOTS 3 DAYS"));
  const auto& branch = ActionOf<CreateRef>(s);
  EXPECT_EQ(branch.kind, RefKind::kBranch);
  EXPECT_EQ(*branch.as_of_version, 7);
  EXPECT_EQ(*branch.retain, (RefDuration{7, TimeUnit::kDays}));
  EXPECT_EQ(*branch.min_snapshots_to_keep, 2);
  EXPECT_EQ(*branch.max_snapshot_age, (RefDuration{3, TimeUnit::kDays}));
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("ALTER TABLE t CREATE BRANCH b WITH SNAPSHOT RETENTION 5 SNAPSHOTS"));
  EXPECT_EQ(*ActionOf<CreateRef>(s).min_snapshots_to_keep, 5);
  EXPECT_FALSE(ActionOf<CreateRef>(s).max_snapshot_age);
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("ALTER TABLE t REPLACE BRANCH b WITH SNAPSHOT RETENTION 30 MINUTES"));
  EXPECT_FALSE(ActionOf<CreateRef>(s).min_snapshots_to_keep);
  EXPECT_EQ(*ActionOf<CreateRef>(s).max_snapshot_age, (RefDuration{30, TimeUnit::kMinutes}));
  EXPECT_EQ(Canonical("ALTER TABLE t CREATE OR REPLACE BRANCH b"),
            "ALTER TABLE t CREATE OR REPLACE BRANCH b");

  ASSERT_OK_AND_ASSIGN(s, RoundTrip("ALTER TABLE t DROP TAG IF EXISTS q2"));
  EXPECT_EQ(ActionOf<DropRef>(s).kind, RefKind::kTag);
  EXPECT_TRUE(ActionOf<DropRef>(s).if_exists);
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("ALTER TABLE t DROP BRANCH b"));
  EXPECT_EQ(ActionOf<DropRef>(s).kind, RefKind::kBranch);

  // Trino's procedures on a table.
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("ALTER TABLE t EXECUTE rollback_to_snapshot(9001)"));
  const auto& exec = ActionOf<ExecuteProcedure>(s);
  EXPECT_EQ(exec.procedure.name, "rollback_to_snapshot");
  ASSERT_EQ(exec.args.size(), 1u);
  EXPECT_FALSE(exec.args[0].name);
  EXPECT_EQ(Canonical("ALTER TABLE t EXECUTE expire_snapshots(retention_threshold => '7d')"),
            "ALTER TABLE t EXECUTE expire_snapshots(retention_threshold => '7d')");
  EXPECT_EQ(Canonical("ALTER TABLE t EXECUTE optimize"), "ALTER TABLE t EXECUTE optimize()");
}

TEST(StatementTest, DescribeAndShow) {
  ASSERT_OK_AND_ASSIGN(Statement s, RoundTrip("DESC TABLE EXTENDED db.t"));
  EXPECT_TRUE(NodeOf<Describe>(s).extended);
  EXPECT_EQ(Canonical("DESCRIBE db.t"), "DESCRIBE TABLE db.t");
  EXPECT_EQ(Canonical("describe formatted t"), "DESCRIBE TABLE EXTENDED t");
  EXPECT_EQ(Canonical("SHOW CREATE TABLE db.t"), "SHOW CREATE TABLE db.t");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("SHOW TBLPROPERTIES db.t ('format-version')"));
  EXPECT_EQ(*NodeOf<ShowTblProperties>(s).key, "format-version");
  EXPECT_EQ(Canonical("SHOW TBLPROPERTIES t (write.format.default)"),
            "SHOW TBLPROPERTIES t ('write.format.default')");
  EXPECT_EQ(Canonical("SHOW TBLPROPERTIES t"), "SHOW TBLPROPERTIES t");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("EXPLAIN EXTENDED SELECT * FROM t"));
  EXPECT_EQ(NodeOf<Explain>(s).mode, ExplainMode::kExtended);
  EXPECT_TRUE(NodeOf<Explain>(s).statement->As<Query>());
  EXPECT_EQ(Canonical("EXPLAIN INSERT INTO t VALUES (1)"), "EXPLAIN INSERT INTO TABLE t VALUES (1)");
}

TEST(StatementTest, Insert) {
  ASSERT_OK_AND_ASSIGN(Statement s, RoundTrip("INSERT INTO t (a, b) VALUES (1, 'x'), (2, 'y')"));
  const auto& ins = NodeOf<Insert>(s);
  EXPECT_FALSE(ins.overwrite);
  EXPECT_EQ(ins.columns.size(), 2u);
  ASSERT_NE(ins.query.As<Values>(), nullptr);
  EXPECT_EQ(ins.query.As<Values>()->rows.size(), 2u);
  EXPECT_EQ(ToSql(s), "INSERT INTO TABLE t (a, b) VALUES (1, 'x'), (2, 'y')");
  ASSERT_OK_AND_ASSIGN(
      s, RoundTrip("INSERT OVERWRITE TABLE t PARTITION (dt = '2025-06-15', hour) SELECT a, hour FROM u"));
  const auto& ow = NodeOf<Insert>(s);
  EXPECT_TRUE(ow.overwrite);
  ASSERT_EQ(ow.partition.size(), 2u);
  EXPECT_TRUE(ow.partition[0].value);
  EXPECT_FALSE(ow.partition[1].value);
  EXPECT_EQ(Canonical("INSERT INTO t (SELECT 1)"), "INSERT INTO TABLE t SELECT 1");
  EXPECT_EQ(Canonical("INSERT INTO t (a) (SELECT 1 LIMIT 1)"), "INSERT INTO TABLE t (a) SELECT 1 LIMIT 1");
  EXPECT_EQ(Canonical("INSERT INTO t.branch_audit SELECT * FROM u"),
            "INSERT INTO TABLE t.branch_audit SELECT * FROM u");
  EXPECT_EQ(Canonical("INSERT INTO t WITH x AS (SELECT 1) SELECT * FROM x"),
            "INSERT INTO TABLE t WITH x AS (SELECT 1) SELECT * FROM x");
}

TEST(StatementTest, DeleteUpdateMerge) {
  ASSERT_OK_AND_ASSIGN(Statement s, RoundTrip("DELETE FROM db.t AS x WHERE x.a < 0"));
  EXPECT_EQ(NodeOf<Delete>(s).alias->name, "x");
  EXPECT_TRUE(NodeOf<Delete>(s).where);
  EXPECT_EQ(Canonical("DELETE FROM t"), "DELETE FROM t");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("UPDATE t SET a = a + 1, s.b = 'x' WHERE id = 1"));
  const auto& up = NodeOf<Update>(s);
  EXPECT_FALSE(up.alias);
  ASSERT_EQ(up.assignments.size(), 2u);
  EXPECT_EQ(up.assignments[1].target.size(), 2u);
  EXPECT_EQ(Canonical("UPDATE t u SET u.a = 1"), "UPDATE t AS u SET u.a = 1");

  ASSERT_OK_AND_ASSIGN(
      s, RoundTrip("MERGE INTO db.t AS t USING (SELECT * FROM s) AS src ON t.id = src.id "
                   "WHEN MATCHED AND src.op = 'd' THEN DELETE "
                   "WHEN MATCHED THEN UPDATE SET t.v = src.v, t.w = 1 "
                   "WHEN NOT MATCHED AND src.v > 0 THEN INSERT (id, v) VALUES (src.id, src.v) "
                   "WHEN NOT MATCHED BY SOURCE AND t.v < 0 THEN DELETE "
                   "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET t.v = 0"));
  const auto& m = NodeOf<Merge>(s);
  EXPECT_EQ(m.target_alias->name, "t");
  EXPECT_NE(m.source.As<SubqueryRef>(), nullptr);
  ASSERT_EQ(m.clauses.size(), 5u);
  EXPECT_EQ(m.clauses[0].match, MergeMatch::kMatched);
  EXPECT_EQ(m.clauses[0].action, MergeActionKind::kDelete);
  EXPECT_TRUE(m.clauses[0].condition);
  EXPECT_EQ(m.clauses[1].action, MergeActionKind::kUpdate);
  EXPECT_EQ(m.clauses[1].assignments.size(), 2u);
  EXPECT_EQ(m.clauses[2].match, MergeMatch::kNotMatched);
  EXPECT_EQ(m.clauses[2].action, MergeActionKind::kInsert);
  EXPECT_EQ(m.clauses[2].insert_columns.size(), 2u);
  EXPECT_EQ(m.clauses[2].insert_values.size(), 2u);
  EXPECT_EQ(m.clauses[3].match, MergeMatch::kNotMatchedBySource);
  EXPECT_EQ(m.clauses[4].action, MergeActionKind::kUpdate);
  EXPECT_EQ(Canonical("MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET * "
                      "WHEN NOT MATCHED BY TARGET THEN INSERT *"),
            "MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET * "
            "WHEN NOT MATCHED THEN INSERT *");
}

TEST(StatementTest, Call) {
  ASSERT_OK_AND_ASSIGN(Statement s,
                       RoundTrip("CALL lakehouse.system.set_current_snapshot("
                                 "'analytics.orders', snapshot_id => 5847203991234567890)"));
  const auto& call = NodeOf<Call>(s);
  EXPECT_EQ(ToSql(call.procedure), "lakehouse.system.set_current_snapshot");
  ASSERT_EQ(call.args.size(), 2u);
  EXPECT_FALSE(call.args[0].name);
  EXPECT_EQ(call.args[1].name->name, "snapshot_id");
  EXPECT_EQ(*call.args[1].value.As<Literal>(),
            (Literal{LiteralKind::kInteger, "5847203991234567890"}));
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("CALL lakehouse.system.rollback_to_snapshot(table => "
                                    "'default.t', snapshot_id => 1)"));
  EXPECT_EQ(NodeOf<Call>(s).args[0].name->name, "table");
  EXPECT_EQ(ToSql(s), "CALL lakehouse.system.rollback_to_snapshot(table => 'default.t', "
                      "snapshot_id => 1)");
  EXPECT_EQ(Canonical("CALL system.ancestors_of('db.t')"), "CALL system.ancestors_of('db.t')");
  EXPECT_EQ(Canonical("CALL cat.system.rollback_to_timestamp('db.t', TIMESTAMP '2025-06-15 14:50:00')"),
            "CALL cat.system.rollback_to_timestamp('db.t', TIMESTAMP '2025-06-15 14:50:00')");
  EXPECT_EQ(Canonical("CALL cat.system.expire_snapshots(older_than => now() - INTERVAL 5 DAYS, "
                      "retain_last => 2)"),
            "CALL cat.system.expire_snapshots(older_than => now() - INTERVAL 5 DAY, retain_last => 2)");
  EXPECT_EQ(Canonical("CALL p()"), "CALL p()");
}

TEST(StatementTest, SetAndReset) {
  ASSERT_OK_AND_ASSIGN(Statement s, RoundTrip("SET spark.sql.session.timeZone = Europe/Moscow"));
  EXPECT_EQ(*NodeOf<SetConfig>(s).key, "spark.sql.session.timeZone");
  EXPECT_EQ(*NodeOf<SetConfig>(s).value, "Europe/Moscow");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("SET spark.sql.session.timeZone='UTC'"));
  EXPECT_EQ(*NodeOf<SetConfig>(s).value, "UTC");
  EXPECT_EQ(ToSql(s), "SET spark.sql.session.timeZone = UTC");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("SET `my key` = 'a b;c'"));
  EXPECT_EQ(*NodeOf<SetConfig>(s).key, "my key");
  EXPECT_EQ(*NodeOf<SetConfig>(s).value, "a b;c");
  EXPECT_EQ(ToSql(s), "SET `my key` = 'a b;c'");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("SET spark.wap.branch"));
  EXPECT_EQ(*NodeOf<SetConfig>(s).key, "spark.wap.branch");
  EXPECT_FALSE(NodeOf<SetConfig>(s).value);
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("SET"));
  EXPECT_FALSE(NodeOf<SetConfig>(s).key);
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("SET TIME ZONE 'Europe/Moscow'"));
  EXPECT_EQ(NodeOf<SetTimeZone>(s).kind, TimeZoneKind::kName);
  EXPECT_EQ(NodeOf<SetTimeZone>(s).zone, "Europe/Moscow");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("SET TIME ZONE LOCAL"));
  EXPECT_EQ(NodeOf<SetTimeZone>(s).kind, TimeZoneKind::kLocal);
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("SET TIME ZONE INTERVAL '08:30' HOUR TO MINUTE"));
  EXPECT_EQ(NodeOf<SetTimeZone>(s).kind, TimeZoneKind::kInterval);
  EXPECT_EQ(NodeOf<SetTimeZone>(s).interval.fields[0].to_unit, "MINUTE");
  EXPECT_EQ(Canonical("SET TIME ZONE INTERVAL 3 HOURS"), "SET TIME ZONE INTERVAL 3 HOUR");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("RESET spark.sql.session.timeZone"));
  EXPECT_EQ(*NodeOf<Reset>(s).key, "spark.sql.session.timeZone");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("RESET"));
  EXPECT_FALSE(NodeOf<Reset>(s).key);
}

TEST(StatementTest, Scripts) {
  std::string script =
      "-- setup; not a split\n"
      "CREATE TABLE t (a int);\n"
      "INSERT INTO t VALUES (1), (2) ; ; \n"
      "/* a ; in a comment */ SELECT 'x;y', `a;b` FROM t;\n"
      "SET k = v";
  std::vector<StatementSpan> spans = SplitStatements(script);
  ASSERT_EQ(spans.size(), 4u);
  EXPECT_EQ(spans[0].text, "CREATE TABLE t (a int)");
  EXPECT_EQ(spans[0].pos.line, 2);
  EXPECT_EQ(spans[0].pos.column, 1);
  EXPECT_EQ(spans[1].text, "INSERT INTO t VALUES (1), (2)");
  EXPECT_EQ(spans[2].text, "SELECT 'x;y', `a;b` FROM t");
  EXPECT_EQ(spans[2].pos.line, 4);
  EXPECT_EQ(spans[2].pos.column, 24);
  EXPECT_EQ(spans[3].text, "SET k = v");
  ASSERT_OK_AND_ASSIGN(auto statements, ParseScript(script));
  ASSERT_EQ(statements.size(), 4u);
  EXPECT_TRUE(statements[0].statement.As<CreateTable>());
  EXPECT_TRUE(statements[1].statement.As<Insert>());
  EXPECT_TRUE(statements[2].statement.As<Query>());
  EXPECT_EQ(*statements[3].statement.As<SetConfig>()->value, "v");
  EXPECT_EQ(statements[2].pos.line, 4);
  EXPECT_EQ(statements[2].text, "SELECT 'x;y', `a;b` FROM t");
  ASSERT_OK_AND_ASSIGN(auto empty, ParseScript("  ;; -- nothing\n"));
  EXPECT_TRUE(empty.empty());
  // A trailing ';' is fine for a single statement.
  ASSERT_OK(ParseStatement("SELECT 1;"));
}

TEST(StatementTest, PositionsAndCopies) {
  ASSERT_OK_AND_ASSIGN(Statement s, ParseStatement("SELECT a,\n  b + 1\nFROM  db.t"));
  const Select& select = std::get<Select>(std::get<Query>(s.node).body);
  EXPECT_EQ(select.items[1].expr.pos.line, 2);
  EXPECT_EQ(select.items[1].expr.pos.column, 5);  // the operator
  const Binary* plus = select.items[1].expr.As<Binary>();
  EXPECT_EQ(plus->left->pos.column, 3);
  const TableRef* t = select.from[0].As<TableRef>();
  EXPECT_EQ(t->name.pos.line, 3);
  EXPECT_EQ(t->name.pos.column, 7);
  EXPECT_EQ(t->name.parts[1].pos.column, 10);
  // Trees are values: copies are deep and compare equal.
  Statement copy = s;
  EXPECT_EQ(copy, s);
  std::get<Select>(std::get<Query>(copy.node).body).items.pop_back();
  EXPECT_FALSE(copy == s);
  EXPECT_EQ(std::get<Select>(std::get<Query>(s.node).body).items.size(), 2u);
}

}  // namespace
}  // namespace floe::sql
