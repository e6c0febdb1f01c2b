// The function registry: every entry documented and reachable by a unique name.

#include <set>

#include "floe/sql/functions/function_registry.h"
#include "sql_test_util.h"

namespace floe::sql {
namespace {

// Checks one entry's names and doc; `seen` collects names over every kind of function.
template <typename Entry>
void CheckEntry(const Entry& entry, std::set<std::string>* seen) {
  ASSERT_FALSE(entry.names.empty());
  for (const auto& name : entry.names) {
    EXPECT_EQ(name, Lower(name)) << "names are looked up in lower case";
    EXPECT_TRUE(seen->insert(name).second) << "registered twice: " << name;
  }
  const std::string& name = entry.names[0];
  EXPECT_NE(entry.doc.usage.find("_FUNC_"), std::string::npos) << name << " has no usage line naming it";
  EXPECT_NE(entry.doc.usage.find(" - "), std::string::npos) << name << "'s usage lacks Spark's ' - ' form";
  // Spark's functions name Spark's class; floe's own (table_changes) name floe's.
  const bool spark = entry.doc.class_name.rfind("org.apache.spark.sql.catalyst.", 0) == 0;
  const bool floe_own = entry.doc.class_name.rfind("floe.sql.", 0) == 0;
  EXPECT_TRUE(spark || floe_own) << name << ": " << entry.doc.class_name;
}

TEST(FunctionRegistryTest, EveryEntryHasUsageAndAUniqueName) {
  std::set<std::string> seen;
  for (const auto& f : ScalarFunctions()) {
    CheckEntry(f, &seen);
    EXPECT_TRUE(f.return_type && f.impl) << f.names[0];
    EXPECT_LE(f.arity.min, f.arity.max) << f.names[0];
  }
  for (const auto& f : AggregateFunctions()) {
    CheckEntry(f, &seen);
    EXPECT_TRUE(f.kernel && f.result_type) << f.names[0];
  }
  for (const auto& f : TableFunctions()) {
    CheckEntry(f, &seen);
    EXPECT_TRUE(f.impl) << f.names[0];
  }
  EXPECT_EQ(AllFunctionNames(), std::vector<std::string>(seen.begin(), seen.end()));
}

TEST(FunctionRegistryTest, LookupByNameAndAlias) {
  ASSERT_NE(FindScalarFunction("ceiling"), nullptr);
  EXPECT_EQ(FindScalarFunction("ceiling"), FindScalarFunction("ceil"));
  EXPECT_EQ(FindScalarFunction("sum"), nullptr);
  ASSERT_NE(FindAggregateFunction("mean"), nullptr);
  EXPECT_EQ(FindAggregateFunction("mean"), FindAggregateFunction("avg"));
  EXPECT_TRUE(IsAggregateFunction("every"));
  EXPECT_FALSE(IsAggregateFunction("abs"));
  EXPECT_NE(FindTableFunction("range"), nullptr);
  EXPECT_EQ(FindFunctionDoc("nope"), nullptr);
}

TEST(FunctionRegistryTest, ExtendedUsageInSparksLayout) {
  FunctionDoc doc;
  doc.usage = "_FUNC_(expr) - Returns it.";
  doc.examples = {{"SELECT _FUNC_(1);", "1"}, {"SELECT _FUNC_(2);", "a\nb"}};
  doc.since = "1.0.0";
  EXPECT_EQ(doc.Usage("f"), "f(expr) - Returns it.");
  EXPECT_EQ(doc.Extended("f"),
            "\n    Examples:\n      > SELECT f(1);\n       1\n      > SELECT f(2);\n       a\n       b\n  \n"
            "    Since: 1.0.0\n");
  FunctionDoc bare;
  EXPECT_EQ(bare.Extended("g"), "\n    No example/argument for g.\n");
}

TEST(FunctionRegistryTest, UnknownNamesSuggestTheClosest) {
  EXPECT_EQ(UnresolvedRoutineMessage("uper"),
            "[UNRESOLVED_ROUTINE] Cannot resolve routine `uper` on search path [`system`.`builtin`, "
            "`system`.`session`]. Did you mean `upper`?");
  EXPECT_EQ(UnresolvedRoutineMessage("COUNTT"),
            "[UNRESOLVED_ROUTINE] Cannot resolve routine `COUNTT` on search path [`system`.`builtin`, "
            "`system`.`session`]. Did you mean `count`?");
  // Nothing close enough: no suggestion.
  EXPECT_EQ(UnresolvedRoutineMessage("frobnicate_everything"),
            "[UNRESOLVED_ROUTINE] Cannot resolve routine `frobnicate_everything` on search path "
            "[`system`.`builtin`, `system`.`session`].");
}

TEST(FunctionRegistryTest, SparkTypeNames) {
  EXPECT_EQ(SparkTypeName(*arrow::int32()), "int");
  EXPECT_EQ(SparkTypeName(*arrow::null()), "void");
  EXPECT_EQ(SparkTypeName(*arrow::decimal128(10, 2)), "decimal(10,2)");
  EXPECT_EQ(SparkTypeName(*arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")), "timestamp");
  EXPECT_EQ(SparkTypeName(*arrow::timestamp(arrow::TimeUnit::MICRO)), "timestamp_ntz");
  EXPECT_EQ(SparkTypeName(*arrow::list(arrow::field("element", arrow::utf8()))), "array<string>");
  EXPECT_EQ(SparkTypeName(*arrow::map(arrow::utf8(), arrow::int64())), "map<string,bigint>");
  EXPECT_EQ(SparkTypeName(*arrow::struct_({arrow::field("a", arrow::int32()), arrow::field("b", arrow::float64())})),
            "struct<a:int,b:double>");
}

TEST(FunctionRegistryTest, ParsesShowAndDescribeFunction) {
  auto show = testing::RoundTrip("SHOW FUNCTIONS LIKE 'a*|b*'");
  ASSERT_TRUE(show.ok()) << show.status().ToString();
  ASSERT_NE(show->As<ShowFunctions>(), nullptr);
  EXPECT_EQ(show->As<ShowFunctions>()->pattern, "a*|b*");
  auto user = testing::RoundTrip("show user functions 'x'");
  ASSERT_TRUE(user.ok()) << user.status().ToString();
  EXPECT_EQ(user->As<ShowFunctions>()->scope, FunctionScope::kUser);
  EXPECT_EQ(ToSql(*user), "SHOW USER FUNCTIONS LIKE 'x'");
  auto all = testing::RoundTrip("SHOW ALL FUNCTIONS");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->As<ShowFunctions>()->scope, FunctionScope::kAll);

  auto describe = testing::RoundTrip("DESC FUNCTION EXTENDED abs");
  ASSERT_TRUE(describe.ok()) << describe.status().ToString();
  ASSERT_NE(describe->As<DescribeFunction>(), nullptr);
  EXPECT_TRUE(describe->As<DescribeFunction>()->extended);
  EXPECT_EQ(ToSql(*describe), "DESCRIBE FUNCTION EXTENDED abs");
  auto quoted = testing::RoundTrip("DESCRIBE FUNCTION 'upper'");
  ASSERT_TRUE(quoted.ok()) << quoted.status().ToString();
  EXPECT_EQ(quoted->As<DescribeFunction>()->name.parts.at(0).name, "upper");
  // A function called `extended`, and a table called `function`.
  auto named_extended = testing::RoundTrip("DESCRIBE FUNCTION extended");
  ASSERT_TRUE(named_extended.ok()) << named_extended.status().ToString();
  EXPECT_FALSE(named_extended->As<DescribeFunction>()->extended);
  auto table = testing::RoundTrip("DESCRIBE function");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_NE(table->As<Describe>(), nullptr);
}

}  // namespace
}  // namespace floe::sql
