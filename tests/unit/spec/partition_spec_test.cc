#include <gtest/gtest.h>

#include "floe/spec/partition_spec.h"
#include "floe_test.h"

namespace floe::spec {
namespace {

Schema TestSchema() {
  return Schema(0, {Required(1, "id", Type::Long()), Required(2, "ts", Type::TimestampTz()),
                    Optional(3, "data", Type::String())});
}

PartitionSpec TestSpec() {
  return PartitionSpec(1, {{2, 1000, "ts_day", Transform::Day()},
                           {1, 1001, "id_bucket", Transform::Bucket(16)},
                           {3, 1002, "data", Transform::Identity()}});
}

TEST(PartitionSpecTest, PartitionType) {
  ASSERT_OK_AND_ASSIGN(TypePtr type, TestSpec().PartitionType(TestSchema()));
  ASSERT_EQ(type->fields().size(), 3u);
  EXPECT_EQ(type->fields()[0], Optional(1000, "ts_day", Type::Date()));
  EXPECT_EQ(type->fields()[1], Optional(1001, "id_bucket", Type::Int()));
  EXPECT_EQ(type->fields()[2], Optional(1002, "data", Type::String()));
  PartitionSpec bad(2, {{9, 1000, "x", Transform::Identity()}});
  ASSERT_RAISES_WITH_MESSAGE("Cannot find source column for partition field x",
                             bad.PartitionType(TestSchema()));
  PartitionSpec wrong(3, {{3, 1000, "h", Transform::Hour()}});
  ASSERT_RAISES_WITH_MESSAGE("Invalid source type string for transform: hour",
                             wrong.PartitionType(TestSchema()));
}

TEST(PartitionSpecTest, PartitionPathEscapesLikeJava) {
  std::vector<Literal> values = {Literal::Date(17486), Literal::Int(3),
                                 Literal::String("a/b c&d=é")};
  EXPECT_EQ(TestSpec().PartitionPath(values),
            "ts_day=2017-11-16/id_bucket=3/data=a%2Fb+c%26d%3D%C3%A9");
  std::vector<Literal> nulls = {Literal::Null(Type::Date()), Literal::Null(Type::Int()),
                                Literal::Null(Type::String())};
  EXPECT_EQ(TestSpec().PartitionPath(nulls), "ts_day=null/id_bucket=null/data=null");
  PartitionSpec odd(0, {{3, 1000, "my col", Transform::Identity()}});
  EXPECT_EQ(odd.PartitionPath({Literal::String("x.y-z*_~")}), "my+col=x.y-z*_%7E");
}

TEST(PartitionSpecTest, UnpartitionedAndIds) {
  EXPECT_TRUE(PartitionSpec::Unpartitioned().is_unpartitioned());
  EXPECT_EQ(PartitionSpec::Unpartitioned().LastAssignedFieldId(), 999);
  EXPECT_FALSE(TestSpec().is_unpartitioned());
  EXPECT_EQ(TestSpec().LastAssignedFieldId(), 1002);
  PartitionSpec voided(2, {{1, 1004, "id", Transform::Void()}});
  EXPECT_TRUE(voided.is_unpartitioned());
  EXPECT_EQ(voided.LastAssignedFieldId(), 1004);
}

TEST(PartitionSpecTest, Compatibility) {
  PartitionSpec same(7, TestSpec().fields());
  EXPECT_TRUE(TestSpec().CompatibleWith(same));
  EXPECT_FALSE(TestSpec() == same);
  PartitionSpec other(1, {{2, 1000, "ts_day", Transform::Hour()}});
  EXPECT_FALSE(TestSpec().CompatibleWith(other));
}

}  // namespace
}  // namespace floe::spec
