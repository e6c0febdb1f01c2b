#pragma once

// Spark's `%` on integers as one Arrow compute function: the remainder of the quotient
// truncated toward zero (it has the dividend's sign, as in Java), x % -1 is 0 even at the
// type's minimum, and x % 0 is NULL (Spark without ANSI mode). One pass over the rows, where
// divide, multiply, subtract and a NULL test took four.

#include <cstdint>

#include <arrow/compute/expression.h>

namespace floe::sql {

// A call computing `a % b` over two operands of one signed integer type (int8 to int64).
// Registers the function on first use.
arrow::compute::Expression IntegerRemainder(arrow::compute::Expression a, arrow::compute::Expression b);

// Remainders by one divisor without a division per value: `n mod d` is the high part of
// (frac(n / d) scaled to 128 bits) * d, where frac(n / d) is n times a 128-bit reciprocal
// of d taken modulo 2^128. Exact for every 64-bit n and every d of at least 1.
class Modulus {
  __extension__ using U128 = unsigned __int128;

 public:
  explicit Modulus(uint64_t d) : d_(d), reciprocal_(d > 1 ? ~U128{0} / d + 1 : 0) {}
  uint64_t Of(uint64_t n) const {
    if (d_ <= 1) return 0;
    const U128 fraction = reciprocal_ * n;
    const U128 low = ((fraction & ~uint64_t{0}) * d_) >> 64;
    return static_cast<uint64_t>((low + (fraction >> 64) * d_) >> 64);
  }

 private:
  uint64_t d_;
  U128 reciprocal_;
};

}  // namespace floe::sql
