#include "floe/sql/types/decimal_kernels.h"

#include <algorithm>
#include <mutex>
#include <string>

#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/compute/kernel.h>
#include <arrow/compute/registry.h>
#include <arrow/scalar.h>
#include <arrow/util/decimal.h>

#include "floe/util/str_cat.h"

namespace floe::sql {

namespace cp = arrow::compute;
using arrow::Decimal128;
using arrow::Decimal256;

namespace {

// The result type of a call, carried as its options (Arrow resolves output types from them).
class DecimalResultOptionsType : public cp::FunctionOptionsType {
 public:
  const char* type_name() const override { return "FloeDecimalResultOptions"; }
  std::string Stringify(const cp::FunctionOptions& options) const override;
  bool Compare(const cp::FunctionOptions& a, const cp::FunctionOptions& b) const override;
  std::unique_ptr<cp::FunctionOptions> Copy(const cp::FunctionOptions& options) const override;
};

const DecimalResultOptionsType* OptionsType() {
  static const DecimalResultOptionsType kType;
  return &kType;
}

class DecimalResultOptions : public cp::FunctionOptions {
 public:
  explicit DecimalResultOptions(DecimalSpec out) : cp::FunctionOptions(OptionsType()), out(out) {}
  DecimalSpec out;
};

std::string DecimalResultOptionsType::Stringify(const cp::FunctionOptions& options) const {
  const auto& o = static_cast<const DecimalResultOptions&>(options);
  return StrCat("DecimalResultOptions(", o.out.precision, ", ", o.out.scale, ")");
}

bool DecimalResultOptionsType::Compare(const cp::FunctionOptions& a, const cp::FunctionOptions& b) const {
  return static_cast<const DecimalResultOptions&>(a).out == static_cast<const DecimalResultOptions&>(b).out;
}

std::unique_ptr<cp::FunctionOptions> DecimalResultOptionsType::Copy(const cp::FunctionOptions& options) const {
  return std::make_unique<DecimalResultOptions>(static_cast<const DecimalResultOptions&>(options).out);
}

struct DecimalState : cp::KernelState {
  explicit DecimalState(DecimalSpec out) : out(out) {}
  DecimalSpec out;
};

// `x` (at `from` fraction digits) at `to` fraction digits, rounded half up; nullopt when it
// has more than `precision` digits there.
std::optional<Decimal256> Rescale(const Decimal256& x, int32_t from, int32_t to, int32_t precision) {
  Decimal256 out = x;
  if (to < from) {
    out = x.ReduceScaleBy(from - to, /*round=*/true);
  } else if (to > from) {
    int32_t up = to - from;
    // Checked first, so that the multiplication cannot leave 256 bits.
    if (up > precision || !x.FitsInPrecision(precision - up)) {
      if (x == Decimal256(0)) return Decimal256(0);
      return std::nullopt;
    }
    out = x * Decimal256::GetScaleMultiplier(up);
  }
  if (!out.FitsInPrecision(precision)) return std::nullopt;
  return out;
}

// Truncated quotient and remainder of values below 10^76 in magnitude.
void DivMod(const Decimal256& n, const Decimal256& d, Decimal256* q, Decimal256* r) {
  // The base class's form; divisors here are never zero.
  (void)static_cast<const arrow::BasicDecimal256&>(n).Divide(d, q, r);
}

// |a| * 10^shift / |b| rounded half up, with shift >= 0; nullopt when above `precision` digits.
std::optional<Decimal256> ScaledQuotient(const Decimal256& a, const Decimal256& b, int32_t shift, int32_t precision) {
  // Two steps of at most 38 digits each keep every product below 10^76.
  int32_t first = std::min(shift, 38);
  int32_t second = shift - first;
  Decimal256 q, r;
  DivMod(a * Decimal256::GetScaleMultiplier(first), b, &q, &r);
  if (second > 0) {
    // A quotient already too wide cannot shrink: checked before it is scaled up.
    if (q != Decimal256(0) && (second > precision || !q.FitsInPrecision(precision - second))) return std::nullopt;
    Decimal256 q2, r2;
    DivMod(r * Decimal256::GetScaleMultiplier(second), b, &q2, &r2);
    q = q * Decimal256::GetScaleMultiplier(second) + q2;
    r = r2;
  }
  if (r + r >= b) q += Decimal256(1);
  if (!q.FitsInPrecision(precision)) return std::nullopt;
  return q;
}

std::optional<Decimal256> Compute(DecimalOp op, const Decimal256& a, int32_t sa, const Decimal256& b, int32_t sb,
                                  DecimalSpec out) {
  switch (op) {
    case DecimalOp::kRescale:
      return Rescale(a, sa, out.scale, out.precision);
    case DecimalOp::kAdd:
    case DecimalOp::kSubtract: {
      int32_t s = std::max(sa, sb);
      Decimal256 x = a * Decimal256::GetScaleMultiplier(s - sa);
      Decimal256 y = b * Decimal256::GetScaleMultiplier(s - sb);
      if (op == DecimalOp::kAdd) {
        x += y;
      } else {
        x -= y;
      }
      return Rescale(x, s, out.scale, out.precision);
    }
    case DecimalOp::kMultiply:
      return Rescale(a * b, sa + sb, out.scale, out.precision);
    case DecimalOp::kRemainder: {
      if (b == Decimal256(0)) return std::nullopt;
      int32_t s = std::max(sa, sb);
      Decimal256 q, r;
      // Truncating division: the remainder takes the dividend's sign, as Java's does.
      DivMod(a * Decimal256::GetScaleMultiplier(s - sa), b * Decimal256::GetScaleMultiplier(s - sb), &q, &r);
      return Rescale(r, s, out.scale, out.precision);
    }
    case DecimalOp::kDivide: {
      if (b == Decimal256(0)) return std::nullopt;
      bool negative = (a < Decimal256(0)) != (b < Decimal256(0));
      Decimal256 x = Decimal256::Abs(a), y = Decimal256::Abs(b);
      // a / b at out.scale is x * 10^(out.scale + sb - sa) / y.
      int32_t shift = out.scale + sb - sa;
      std::optional<Decimal256> q;
      if (shift >= 0) {
        q = ScaledQuotient(x, y, shift, out.precision);
      } else {
        q = ScaledQuotient(x, y * Decimal256::GetScaleMultiplier(-shift), 0, out.precision);
      }
      if (q && negative) q->Negate();
      return q;
    }
  }
  return std::nullopt;
}

Decimal128 Narrow(const Decimal256& x) {
  auto words = x.little_endian_array();
  return Decimal128(static_cast<int64_t>(words[1]), words[0]);
}

// One operand at row `i`: its value, or nullopt when NULL.
std::optional<Decimal256> ValueAt(const cp::ExecValue& v, int64_t i) {
  if (v.is_scalar()) {
    const auto& s = static_cast<const arrow::Decimal128Scalar&>(*v.scalar);
    if (!s.is_valid) return std::nullopt;
    return Decimal256(s.value);
  }
  const arrow::ArraySpan& a = v.array;
  if (!a.IsValid(i)) return std::nullopt;
  return Decimal256(Decimal128(a.buffers[1].data + (a.offset + i) * 16));
}

int32_t ScaleOf(const cp::ExecValue& v) {
  return static_cast<const arrow::Decimal128Type&>(*v.type()).scale();
}

template <DecimalOp kOp>
arrow::Status Exec(cp::KernelContext* ctx, const cp::ExecSpan& batch, cp::ExecResult* out) {
  DecimalSpec spec = static_cast<DecimalState*>(ctx->state())->out;
  constexpr bool kUnary = kOp == DecimalOp::kRescale;
  int32_t sa = ScaleOf(batch[0]);
  int32_t sb = kUnary ? 0 : ScaleOf(batch[1]);
  arrow::Decimal128Builder builder(arrow::decimal128(spec.precision, spec.scale), ctx->memory_pool());
  ARROW_RETURN_NOT_OK(builder.Reserve(batch.length));
  for (int64_t i = 0; i < batch.length; ++i) {
    std::optional<Decimal256> a = ValueAt(batch[0], i);
    std::optional<Decimal256> b = kUnary ? std::optional<Decimal256>(Decimal256(0)) : ValueAt(batch[1], i);
    std::optional<Decimal256> r;
    if (a && b) r = Compute(kOp, *a, sa, *b, sb, spec);
    if (r) {
      builder.UnsafeAppend(Narrow(*r));
    } else {
      builder.UnsafeAppendNull();
    }
  }
  std::shared_ptr<arrow::ArrayData> data;
  ARROW_RETURN_NOT_OK(builder.FinishInternal(&data));
  out->value = std::move(data);
  return arrow::Status::OK();
}

const char* FunctionName(DecimalOp op) {
  switch (op) {
    case DecimalOp::kAdd: return "floe_decimal_add";
    case DecimalOp::kSubtract: return "floe_decimal_subtract";
    case DecimalOp::kMultiply: return "floe_decimal_multiply";
    case DecimalOp::kDivide: return "floe_decimal_divide";
    case DecimalOp::kRemainder: return "floe_decimal_remainder";
    case DecimalOp::kRescale: return "floe_decimal_rescale";
  }
  return "";
}

template <DecimalOp kOp>
arrow::Status Register(cp::FunctionRegistry* registry) {
  constexpr bool kUnary = kOp == DecimalOp::kRescale;
  auto fn = std::make_shared<cp::ScalarFunction>(FunctionName(kOp), kUnary ? cp::Arity::Unary() : cp::Arity::Binary(),
                                                 cp::FunctionDoc::Empty());
  std::vector<cp::InputType> inputs(kUnary ? 1 : 2, cp::InputType(arrow::Type::DECIMAL128));
  cp::OutputType output([](cp::KernelContext* ctx, const std::vector<arrow::TypeHolder>&) -> arrow::Result<arrow::TypeHolder> {
    DecimalSpec spec = static_cast<DecimalState*>(ctx->state())->out;
    return arrow::TypeHolder(arrow::decimal128(spec.precision, spec.scale));
  });
  cp::ScalarKernel kernel(std::move(inputs), std::move(output), Exec<kOp>,
                          [](cp::KernelContext*, const cp::KernelInitArgs& args)
                              -> arrow::Result<std::unique_ptr<cp::KernelState>> {
                            const auto* options = dynamic_cast<const DecimalResultOptions*>(args.options);
                            if (!options) return arrow::Status::Invalid("decimal arithmetic needs its result type");
                            return std::make_unique<DecimalState>(options->out);
                          });
  kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
  kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
  kernel.can_write_into_slices = false;
  ARROW_RETURN_NOT_OK(fn->AddKernel(std::move(kernel)));
  return registry->AddFunction(std::move(fn), /*allow_overwrite=*/true);
}

void RegisterAll() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto* registry = cp::GetFunctionRegistry();
    // Adding a function to the default registry fails only on a duplicate name, which the
    // once-flag rules out.
    (void)Register<DecimalOp::kAdd>(registry);
    (void)Register<DecimalOp::kSubtract>(registry);
    (void)Register<DecimalOp::kMultiply>(registry);
    (void)Register<DecimalOp::kDivide>(registry);
    (void)Register<DecimalOp::kRemainder>(registry);
    (void)Register<DecimalOp::kRescale>(registry);
  });
}

}  // namespace

cp::Expression DecimalCall(DecimalOp op, std::vector<cp::Expression> args, DecimalSpec out) {
  RegisterAll();
  return cp::call(FunctionName(op), std::move(args), DecimalResultOptions(out));
}

std::optional<Decimal128> DecimalCompute(DecimalOp op, const Decimal128& a, int32_t a_scale, const Decimal128& b,
                                         int32_t b_scale, DecimalSpec out) {
  std::optional<Decimal256> r = Compute(op, Decimal256(a), a_scale, Decimal256(b), b_scale, out);
  if (!r) return std::nullopt;
  return Narrow(*r);
}

}  // namespace floe::sql
