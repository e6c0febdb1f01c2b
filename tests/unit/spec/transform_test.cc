#include <gtest/gtest.h>

#include "floe/spec/transform.h"
#include "floe_test.h"
#include "test_values.h"

namespace floe::spec {
namespace {

using floe::testing::Bytes;

constexpr int64_t kTs = 1510871468000000;  // 2017-11-16T22:31:08
constexpr int32_t kDate = 17486;           // 2017-11-16

TEST(TransformTest, ParseAndFormat) {
  for (const char* text :
       {"identity", "bucket[16]", "truncate[10]", "year", "month", "day", "hour", "void"}) {
    ASSERT_OK_AND_ASSIGN(Transform t, Transform::Parse(text));
    EXPECT_EQ(t.ToString(), text);
    EXPECT_NE(t.kind(), TransformKind::kUnknown) << text;
  }
  ASSERT_OK_AND_ASSIGN(Transform b, Transform::Parse("Bucket[16]"));
  EXPECT_EQ(b, Transform::Bucket(16));
  ASSERT_OK_AND_ASSIGN(Transform u, Transform::Parse("zorder[3]"));
  EXPECT_EQ(u.kind(), TransformKind::kUnknown);
  EXPECT_EQ(u.ToString(), "zorder[3]");
  ASSERT_OK_AND_ASSIGN(Transform u2, Transform::Parse("bucket[x]"));
  EXPECT_EQ(u2.kind(), TransformKind::kUnknown);
  EXPECT_FALSE(u == u2);
  ASSERT_RAISES_WITH_MESSAGE("Invalid number of buckets: 0", Transform::Parse("bucket[0]"));
  ASSERT_RAISES_WITH_MESSAGE("Invalid truncate width: 0", Transform::Parse("truncate[0]"));
  ASSERT_RAISES_WITH_MESSAGE("Invalid transform parameter",
                             Transform::Parse("bucket[99999999999]"));
}

TEST(TransformTest, Murmur3MatchesSpecAppendixB) {
  ASSERT_OK_AND_ASSIGN(std::string uuid, UuidFromString("f79c3e09-677c-4bbd-a479-3f349cb785e7"));
  struct Case {
    Literal value;
    int32_t hash;
  };
  std::vector<Case> cases = {
      {Literal::Int(34), 2017239379},
      {Literal::Long(34), 2017239379},
      {Literal::Decimal(arrow::Decimal128(1420), 4, 2), -500754589},
      {Literal::Date(kDate), -653330422},
      {Literal::Time(81068000000), -662762989},
      {Literal::Timestamp(kTs), -2047944441},
      {Literal::Timestamp(kTs + 1), -1207196810},
      {Literal::TimestampTz(kTs), -2047944441},
      {Literal::TimestampTz(kTs + 1), -1207196810},
      {Literal::String("iceberg"), 1210000089},
      {Literal::Uuid(uuid), 1488055340},
      {Literal::Fixed(Bytes({0, 1, 2, 3})), -188683207},
      {Literal::Binary(Bytes({0, 1, 2, 3})), -188683207},
      // Types not valid for bucketing, still defined by the appendix.
      {Literal::Boolean(true), 1392991556},
      {Literal::Float(1.0f), -142385009},
      {Literal::Float(0.0f), 1669671676},
      {Literal::Float(-0.0f), 1669671676},
      {Literal::Double(1.0), -142385009},
      {Literal::Double(-0.0), 1669671676},
  };
  for (const auto& c : cases) {
    ASSERT_OK_AND_ASSIGN(int32_t hash, BucketHash(c.value));
    EXPECT_EQ(hash, c.hash) << c.value.type()->ToString() << " " << c.value.ToString();
  }
  ASSERT_RAISES_WITH_MESSAGE("null", BucketHash(Literal::Null(Type::Int())));
}

TEST(TransformTest, BucketApply) {
  Transform bucket = Transform::Bucket(16);
  ASSERT_OK_AND_ASSIGN(Literal b, bucket.Apply(Literal::Int(34)));
  EXPECT_EQ(b, Literal::Int((2017239379 & 0x7fffffff) % 16));
  ASSERT_OK_AND_ASSIGN(Literal neg, bucket.Apply(Literal::Timestamp(kTs)));
  EXPECT_EQ(neg.get<int32_t>(), (-2047944441 & 0x7fffffff) % 16);
  ASSERT_OK_AND_ASSIGN(Literal null_out, bucket.Apply(Literal::Null(Type::String())));
  EXPECT_TRUE(null_out.is_null());
  EXPECT_EQ(*null_out.type(), *Type::Int());
  ASSERT_RAISES_WITH_MESSAGE("Invalid source type boolean for transform: bucket[16]",
                             bucket.Apply(Literal::Boolean(true)));
}

TEST(TransformTest, TruncateMatchesSpecExamples) {
  auto apply = [](Transform t, Literal v) { return *t.Apply(v); };
  Transform t10 = Transform::Truncate(10);
  EXPECT_EQ(apply(t10, Literal::Int(1)), Literal::Int(0));
  EXPECT_EQ(apply(t10, Literal::Int(-1)), Literal::Int(-10));
  EXPECT_EQ(apply(t10, Literal::Int(10)), Literal::Int(10));
  EXPECT_EQ(apply(t10, Literal::Long(1)), Literal::Long(0));
  EXPECT_EQ(apply(t10, Literal::Long(-1)), Literal::Long(-10));
  EXPECT_EQ(apply(Transform::Truncate(50), Literal::Decimal(arrow::Decimal128(1065), 4, 2)),
            Literal::Decimal(arrow::Decimal128(1050), 4, 2));
  EXPECT_EQ(apply(Transform::Truncate(50), Literal::Decimal(arrow::Decimal128(-1065), 4, 2)),
            Literal::Decimal(arrow::Decimal128(-1100), 4, 2));
  Transform t3 = Transform::Truncate(3);
  EXPECT_EQ(apply(t3, Literal::String("iceberg")), Literal::String("ice"));
  EXPECT_EQ(apply(t3, Literal::String("ab")), Literal::String("ab"));
  // Code points, not bytes: "é" is two bytes, "😀" four.
  EXPECT_EQ(apply(Transform::Truncate(2), Literal::String("\xc3\xa9\xf0\x9f\x98\x80z")),
            Literal::String("\xc3\xa9\xf0\x9f\x98\x80"));
  EXPECT_EQ(apply(t3, Literal::Binary(Bytes({1, 2, 3, 4, 5}))), Literal::Binary(Bytes({1, 2, 3})));
  ASSERT_RAISES_WITH_MESSAGE("Invalid source type", t3.Apply(Literal::Date(1)));
}

TEST(TransformTest, DateAndTimeTransforms) {
  auto apply = [](Transform t, Literal v) { return *t.Apply(v); };
  EXPECT_EQ(apply(Transform::Year(), Literal::Date(kDate)), Literal::Int(47));
  EXPECT_EQ(apply(Transform::Month(), Literal::Date(kDate)), Literal::Int(47 * 12 + 10));
  EXPECT_EQ(apply(Transform::Day(), Literal::Date(kDate)), Literal::Date(kDate));
  EXPECT_EQ(apply(Transform::Year(), Literal::Timestamp(kTs)), Literal::Int(47));
  EXPECT_EQ(apply(Transform::Month(), Literal::TimestampTz(kTs)), Literal::Int(574));
  EXPECT_EQ(apply(Transform::Day(), Literal::Timestamp(kTs)), Literal::Date(kDate));
  EXPECT_EQ(apply(Transform::Hour(), Literal::Timestamp(kTs)), Literal::Int(kDate * 24 + 22));
  // Before 1970 everything floors.
  EXPECT_EQ(apply(Transform::Year(), Literal::Timestamp(-1)), Literal::Int(-1));
  EXPECT_EQ(apply(Transform::Month(), Literal::Timestamp(-1)), Literal::Int(-1));
  EXPECT_EQ(apply(Transform::Day(), Literal::Timestamp(-1)), Literal::Date(-1));
  EXPECT_EQ(apply(Transform::Hour(), Literal::Timestamp(-1)), Literal::Int(-1));
  EXPECT_EQ(apply(Transform::Year(), Literal::Date(-365)), Literal::Int(-1));
  EXPECT_EQ(apply(Transform::Year(), Literal::Date(-366)), Literal::Int(-2));
  EXPECT_EQ(apply(Transform::Month(), Literal::Date(-31)), Literal::Int(-1));
  EXPECT_EQ(apply(Transform::Month(), Literal::Date(-32)), Literal::Int(-2));
  ASSERT_RAISES_WITH_MESSAGE("Invalid source type date for transform: hour",
                             Transform::Hour().Apply(Literal::Date(1)));
}

TEST(TransformTest, ResultTypes) {
  auto result = [](Transform t, TypePtr source) { return (*t.ResultType(source))->ToString(); };
  EXPECT_EQ(result(Transform::Identity(), Type::Decimal(9, 2)), "decimal(9,2)");
  EXPECT_EQ(result(Transform::Bucket(4), Type::String()), "int");
  EXPECT_EQ(result(Transform::Truncate(4), Type::String()), "string");
  EXPECT_EQ(result(Transform::Year(), Type::Timestamp()), "int");
  EXPECT_EQ(result(Transform::Month(), Type::Date()), "int");
  EXPECT_EQ(result(Transform::Day(), Type::TimestampTz()), "date");
  EXPECT_EQ(result(Transform::Hour(), Type::Timestamp()), "int");
  EXPECT_EQ(result(Transform::Void(), Type::Long()), "long");
  EXPECT_EQ(result(*Transform::Parse("zorder"), Type::Long()), "string");
  EXPECT_FALSE(Transform::Identity().CanTransform(*Type::List(1, Type::Int(), true)));
  EXPECT_TRUE(Transform::Void().CanTransform(*Type::List(1, Type::Int(), true)));
  EXPECT_FALSE(Transform::Truncate(1).CanTransform(*Type::Fixed(4)));
  EXPECT_TRUE(Transform::Bucket(1).CanTransform(*Type::Fixed(4)));
}

TEST(TransformTest, VoidAndIdentity) {
  ASSERT_OK_AND_ASSIGN(Literal v, Transform::Void().Apply(Literal::String("x")));
  EXPECT_TRUE(v.is_null());
  ASSERT_OK_AND_ASSIGN(Literal i, Transform::Identity().Apply(Literal::String("x")));
  EXPECT_EQ(i, Literal::String("x"));
}

TEST(TransformTest, HumanStrings) {
  EXPECT_EQ(Transform::Day().ToHumanString(Literal::Date(kDate)), "2017-11-16");
  EXPECT_EQ(Transform::Day().ToHumanString(Literal::Int(kDate)), "2017-11-16");
  EXPECT_EQ(Transform::Month().ToHumanString(Literal::Int(574)), "2017-11");
  EXPECT_EQ(Transform::Month().ToHumanString(Literal::Int(-1)), "1969-12");
  EXPECT_EQ(Transform::Year().ToHumanString(Literal::Int(47)), "2017");
  EXPECT_EQ(Transform::Hour().ToHumanString(Literal::Int(kDate * 24 + 22)), "2017-11-16-22");
  EXPECT_EQ(Transform::Hour().ToHumanString(Literal::Int(-1)), "1969-12-31-23");
  EXPECT_EQ(Transform::Identity().ToHumanString(Literal::String("a/b c")), "a/b c");
  EXPECT_EQ(Transform::Identity().ToHumanString(Literal::Timestamp(kTs)), "2017-11-16T22:31:08");
  EXPECT_EQ(Transform::Bucket(16).ToHumanString(Literal::Int(3)), "3");
  EXPECT_EQ(Transform::Truncate(50).ToHumanString(Literal::Decimal(arrow::Decimal128(1050), 4, 2)),
            "10.50");
  EXPECT_EQ(Transform::Day().ToHumanString(Literal::Null(Type::Date())), "null");
}

}  // namespace
}  // namespace floe::spec
