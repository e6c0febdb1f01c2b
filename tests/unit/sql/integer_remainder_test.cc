// Spark's `%` on integers: the constant-divisor path (a multiply in place of a division)
// against the plain division, at the edges where the two could part.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/compute/exec.h>
#include <arrow/scalar.h>
#include <arrow/type_traits.h>

#include "floe/sql/types/integer_remainder.h"

namespace floe::sql {
namespace {

namespace cp = arrow::compute;

// Java's remainder: the dividend's sign, and x % -1 == 0.
template <typename T>
T JavaRemainder(T n, T d) {
  if (d == -1) return 0;
  return static_cast<T>(n % d);
}

template <typename ArrowType>
std::vector<typename ArrowType::c_type> Dividends() {
  using T = typename ArrowType::c_type;
  using L = std::numeric_limits<T>;
  std::vector<T> v = {0, 1, -1, 2, -2, 9, 10, 11, -9, -10, -11, L::max(), L::min(), static_cast<T>(L::max() - 1),
                      static_cast<T>(L::min() + 1)};
  if constexpr (sizeof(T) == 8) {
    for (int64_t edge : {int64_t{UINT32_MAX}, int64_t{UINT32_MAX} + 1, int64_t{UINT32_MAX} - 1, int64_t{1} << 31,
                         (int64_t{1} << 31) - 1, (int64_t{1} << 31) + 1}) {
      v.push_back(edge);
      v.push_back(-edge);
    }
  }
  std::mt19937_64 random(42);
  for (int i = 0; i < 2000; ++i) {
    const uint64_t bits = random();
    // Small, 32-bit and full-width magnitudes alike.
    const int shift = static_cast<int>(random() % (8 * sizeof(T)));
    v.push_back(static_cast<T>(static_cast<int64_t>(bits) >> shift));
  }
  return v;
}

template <typename ArrowType>
void CheckDivisor(typename ArrowType::c_type d) {
  using T = typename ArrowType::c_type;
  const std::vector<T> dividends = Dividends<ArrowType>();
  typename arrow::TypeTraits<ArrowType>::BuilderType builder;
  ASSERT_TRUE(builder.AppendValues(dividends).ok());
  ASSERT_TRUE(builder.AppendNull().ok());
  std::shared_ptr<arrow::Array> input;
  ASSERT_TRUE(builder.Finish(&input).ok());
  auto type = arrow::TypeTraits<ArrowType>::type_singleton();
  auto schema = arrow::schema({arrow::field("n", type)});
  auto expr = IntegerRemainder(cp::field_ref("n"), cp::literal(std::make_shared<arrow::NumericScalar<ArrowType>>(d)));
  auto bound = expr.Bind(*schema);
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  auto batch = cp::ExecBatch({arrow::Datum(input)}, input->length());
  auto result = cp::ExecuteScalarExpression(*bound, batch);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const std::shared_ptr<arrow::Array> array = result->make_array();
  const auto& out = static_cast<const arrow::NumericArray<ArrowType>&>(*array);
  ASSERT_EQ(out.length(), static_cast<int64_t>(dividends.size()) + 1);
  for (size_t i = 0; i < dividends.size(); ++i) {
    ASSERT_TRUE(out.IsValid(static_cast<int64_t>(i)));
    ASSERT_EQ(out.Value(static_cast<int64_t>(i)), JavaRemainder<T>(dividends[i], d))
        << +dividends[i] << " % " << +d;
  }
  EXPECT_TRUE(out.IsNull(static_cast<int64_t>(dividends.size())));
}

template <typename ArrowType>
void CheckDivisors() {
  using T = typename ArrowType::c_type;
  using L = std::numeric_limits<T>;
  for (T d : {T{1}, T{-1}, T{2}, T{-2}, T{3}, T{7}, T{10}, T{-10}, T{100}, L::max(), L::min(),
              static_cast<T>(L::min() + 1)}) {
    SCOPED_TRACE(+d);
    CheckDivisor<ArrowType>(d);
  }
}

TEST(IntegerRemainderTest, ConstantDivisorMatchesDivisionForEveryWidth) {
  CheckDivisors<arrow::Int8Type>();
  CheckDivisors<arrow::Int16Type>();
  CheckDivisors<arrow::Int32Type>();
  CheckDivisors<arrow::Int64Type>();
}

TEST(IntegerRemainderTest, DivisorsAroundThirtyTwoBits) {
  // Up to 2^32 - 1 in magnitude the multiply serves; beyond, the division does.
  for (int64_t d : {int64_t{UINT32_MAX}, -int64_t{UINT32_MAX}, int64_t{UINT32_MAX} + 1, int64_t{1} << 31,
                    -(int64_t{1} << 31), int64_t{1000000007}, int64_t{1} << 40}) {
    SCOPED_TRACE(d);
    CheckDivisor<arrow::Int64Type>(d);
  }
}

TEST(IntegerRemainderTest, ZeroDivisorIsNull) {
  arrow::Int64Builder builder;
  ASSERT_TRUE(builder.AppendValues({5, -5}).ok());
  std::shared_ptr<arrow::Array> input;
  ASSERT_TRUE(builder.Finish(&input).ok());
  auto schema = arrow::schema({arrow::field("n", arrow::int64())});
  auto bound = IntegerRemainder(cp::field_ref("n"), cp::literal(int64_t{0})).Bind(*schema);
  ASSERT_TRUE(bound.ok());
  auto result = cp::ExecuteScalarExpression(*bound, cp::ExecBatch({arrow::Datum(input)}, 2));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->make_array()->null_count(), 2);
}

}  // namespace
}  // namespace floe::sql
