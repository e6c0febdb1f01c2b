#include "floe/sql/types/integer_remainder.h"

#include <algorithm>
#include <cstdint>
#include <mutex>

#include <arrow/compute/api.h>
#include <arrow/compute/kernel.h>
#include <arrow/compute/registry.h>
#include <arrow/scalar.h>
#include <arrow/util/bit_util.h>
#include <arrow/util/bitmap_ops.h>

namespace floe::sql {

namespace cp = arrow::compute;

namespace {

constexpr char kFunction[] = "floe_integer_remainder";

// One operand of a call: an array's values and validity, or one scalar for every row.
template <typename ArrowType>
struct Operand {
  using T = typename ArrowType::c_type;

  explicit Operand(const cp::ExecValue& v) {
    if (v.is_scalar()) {
      scalar = true;
      valid = v.scalar->is_valid;
      if (valid) value = static_cast<const arrow::NumericScalar<ArrowType>&>(*v.scalar).value;
    } else {
      values = v.array.GetValues<T>(1);
      if (v.array.null_count != 0) validity = v.array.buffers[0].data;
      offset = v.array.offset;
    }
  }
  bool Valid(int64_t i) const {
    return scalar ? valid : validity == nullptr || arrow::bit_util::GetBit(validity, offset + i);
  }
  T Value(int64_t i) const { return scalar ? value : values[i]; }

  bool scalar = false;
  bool valid = true;  // of a scalar
  T value = 0;        // of a scalar
  const T* values = nullptr;
  const uint8_t* validity = nullptr;  // null when no value is null
  int64_t offset = 0;
};

// n % d as Java has it: x % -1 is 0 (in C++ the minimum % -1 overflows).
template <typename T>
T Remainder(T n, T d) {
  return d == T{-1} ? T{0} : static_cast<T>(n % d);
}

__extension__ using Uint128 = unsigned __int128;

// A constant divisor other than 0 and -1: a dividend whose magnitude fits 32 bits takes a
// multiply in place of a division (Lemire, Kaser and Kurz, "Faster remainder by direct
// computation", 2019); a division costs tens of cycles, and grouping by `id % 10` made
// one per row.
template <typename T>
class ConstantRemainder {
 public:
  explicit ConstantRemainder(T d) : d_(d), magnitude_(Magnitude(d)), fast_(magnitude_ <= UINT32_MAX) {
    if (fast_) inverse_ = UINT64_MAX / magnitude_ + 1;
  }

  T operator()(T n) const {
    const uint64_t u = Magnitude(n);
    if (!fast_ || u > UINT32_MAX) return static_cast<T>(n % d_);
    const uint64_t r = static_cast<uint64_t>((static_cast<Uint128>(inverse_ * u) * magnitude_) >> 64);
    // The remainder has the dividend's sign, and is smaller than the divisor in magnitude.
    return n < 0 ? static_cast<T>(-static_cast<int64_t>(r)) : static_cast<T>(r);
  }

 private:
  static uint64_t Magnitude(T v) {
    const int64_t w = v;
    return w < 0 ? uint64_t{0} - static_cast<uint64_t>(w) : static_cast<uint64_t>(w);
  }

  T d_;
  uint64_t magnitude_;
  bool fast_;
  uint64_t inverse_ = 0;
};

template <typename ArrowType>
arrow::Status Exec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  using T = typename ArrowType::c_type;
  const Operand<ArrowType> a(batch[0]), b(batch[1]);
  arrow::ArraySpan* o = out->array_span_mutable();
  T* values = o->GetValues<T>(1);
  uint8_t* validity = o->buffers[0].data;
  const int64_t n = batch.length;
  const int64_t at = o->offset;
  if (b.scalar) {
    // A constant divisor, the usual case: the rows' validity is the dividend's.
    if (!b.valid || b.value == 0) {
      std::fill(values, values + n, T{0});
      arrow::bit_util::SetBitsTo(validity, at, n, false);
    } else {
      const T d = b.value;
      if (a.scalar) {
        std::fill(values, values + n, a.valid ? Remainder(a.value, d) : T{0});
        arrow::bit_util::SetBitsTo(validity, at, n, a.valid);
      } else {
        // Values under NULL slots are computed too; they are never read.
        if (d == T{-1}) {
          std::fill(values, values + n, T{0});
        } else {
          const ConstantRemainder<T> remainder(d);
          for (int64_t i = 0; i < n; ++i) values[i] = remainder(a.values[i]);
        }
        if (a.validity) {
          arrow::internal::CopyBitmap(a.validity, a.offset, n, validity, at);
        } else {
          arrow::bit_util::SetBitsTo(validity, at, n, true);
        }
      }
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const T d = b.Value(i);
      const bool valid = a.Valid(i) && b.Valid(i) && d != 0;
      values[i] = valid ? Remainder(a.Value(i), d) : T{0};
      arrow::bit_util::SetBitTo(validity, at + i, valid);
    }
  }
  o->null_count = arrow::kUnknownNullCount;
  return arrow::Status::OK();
}

template <typename ArrowType>
arrow::Status AddKernel(cp::ScalarFunction* fn) {
  auto type = arrow::TypeTraits<ArrowType>::type_singleton();
  cp::ScalarKernel kernel({type, type}, type, Exec<ArrowType>);
  kernel.null_handling = cp::NullHandling::COMPUTED_PREALLOCATE;
  kernel.mem_allocation = cp::MemAllocation::PREALLOCATE;
  return fn->AddKernel(std::move(kernel));
}

void Register() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto fn = std::make_shared<cp::ScalarFunction>(kFunction, cp::Arity::Binary(), cp::FunctionDoc::Empty());
    // Adding kernels of distinct types and a function of a new name cannot fail.
    (void)AddKernel<arrow::Int8Type>(fn.get());
    (void)AddKernel<arrow::Int16Type>(fn.get());
    (void)AddKernel<arrow::Int32Type>(fn.get());
    (void)AddKernel<arrow::Int64Type>(fn.get());
    (void)cp::GetFunctionRegistry()->AddFunction(std::move(fn), /*allow_overwrite=*/true);
  });
}

}  // namespace

cp::Expression IntegerRemainder(cp::Expression a, cp::Expression b) {
  Register();
  return cp::call(kFunction, {std::move(a), std::move(b)});
}

}  // namespace floe::sql
