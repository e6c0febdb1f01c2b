#include "floe/sql/integer_remainder.h"

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace floe::sql {
namespace {

TEST(ModulusTest, MatchesTheDivisionInstructionForEveryKindOfDivisor) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  std::vector<uint64_t> divisors = {1, 2, 3, 7, 10, 1000, 641, (uint64_t{1} << 32) - 1, uint64_t{1} << 32,
                                    (uint64_t{1} << 32) + 1, uint64_t{1} << 63, (uint64_t{1} << 63) + 1,
                                    kMax - 1, kMax};
  std::mt19937_64 random(42);
  for (int i = 0; i < 200; ++i) divisors.push_back(random() >> (random() % 64));
  for (int i = 0; i < 64; ++i) divisors.push_back(uint64_t{1} << i);
  std::vector<uint64_t> numbers = {0, 1, 2, 9, 10, 11, kMax, kMax - 1, uint64_t{1} << 63, (uint64_t{1} << 63) - 1};
  for (int i = 0; i < 2000; ++i) numbers.push_back(random() >> (random() % 64));
  for (uint64_t d : divisors) {
    if (d == 0) continue;
    const Modulus m(d);
    for (uint64_t n : numbers) ASSERT_EQ(m.Of(n), n % d) << n << " mod " << d;
    // Around multiples of the divisor, where an inexact reciprocal would show first.
    for (uint64_t k : {uint64_t{1}, uint64_t{3}, kMax / d}) {
      const uint64_t base = k * d;
      for (uint64_t n : {base - 1, base, base + 1}) ASSERT_EQ(m.Of(n), n % d) << n << " mod " << d;
    }
  }
}

}  // namespace
}  // namespace floe::sql
