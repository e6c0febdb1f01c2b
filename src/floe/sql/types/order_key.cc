#include "floe/sql/types/order_key.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <mutex>

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/compute/kernel.h>
#include <arrow/compute/registry.h>
#include <arrow/type.h>
#include <arrow/util/decimal.h>

#include "floe/sql/functions/function_registry.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

namespace cp = arrow::compute;

namespace {

constexpr char kOrderKeyFunction[] = "floe_order_key";

// Markers before each element or field, and after an array's last element.
constexpr char kEnd = 0x00;
constexpr char kNull = 0x01;
constexpr char kValue = 0x02;

template <typename U>
void PutBigEndian(U v, std::string* out) {
  for (int shift = static_cast<int>(sizeof(U) * 8) - 8; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((v >> shift) & 0xff));
  }
}

// A signed integer with its sign bit flipped sorts as unsigned bytes.
template <typename T>
void PutSigned(T v, std::string* out) {
  using U = std::make_unsigned_t<T>;
  PutBigEndian(static_cast<U>(static_cast<U>(v) ^ (U{1} << (sizeof(U) * 8 - 1))), out);
}

template <typename F, typename U>
void PutFloat(F v, std::string* out) {
  if (v == 0) v = 0;                                   // -0.0 equals 0.0
  if (std::isnan(v)) v = std::numeric_limits<F>::quiet_NaN();  // one NaN, above +inf
  U bits;
  std::memcpy(&bits, &v, sizeof bits);
  const U sign = U{1} << (sizeof(U) * 8 - 1);
  bits = (bits & sign) ? ~bits : (bits | sign);
  PutBigEndian(bits, out);
}

// Bytes end with 00 00; a 00 byte within them is 00 FF, so a prefix sorts first.
void PutBytes(std::string_view v, std::string* out) {
  for (char c : v) {
    out->push_back(c);
    if (c == 0) out->push_back(static_cast<char>(0xff));
  }
  out->push_back(0);
  out->push_back(0);
}

Status Put(const arrow::Array& a, int64_t i, std::string* out);

Status PutItem(const arrow::Array& a, int64_t i, std::string* out) {
  if (a.IsNull(i)) {
    out->push_back(kNull);
    return Status::OK();
  }
  out->push_back(kValue);
  return Put(a, i, out);
}

template <typename ArrayType>
Status PutList(const ArrayType& list, int64_t i, std::string* out) {
  const auto& values = *list.values();
  for (int64_t j = list.value_offset(i), end = j + list.value_length(i); j < end; ++j) {
    ARROW_RETURN_NOT_OK(PutItem(values, j, out));
  }
  out->push_back(kEnd);
  return Status::OK();
}

// The key of the valid value a[i].
Status Put(const arrow::Array& a, int64_t i, std::string* out) {
  switch (a.type_id()) {
    case arrow::Type::NA: return Status::OK();
    case arrow::Type::BOOL:
      out->push_back(static_cast<const arrow::BooleanArray&>(a).Value(i) ? 1 : 0);
      return Status::OK();
    case arrow::Type::INT8: PutSigned(static_cast<const arrow::Int8Array&>(a).Value(i), out); return Status::OK();
    case arrow::Type::INT16: PutSigned(static_cast<const arrow::Int16Array&>(a).Value(i), out); return Status::OK();
    case arrow::Type::INT32:
    case arrow::Type::DATE32:
    case arrow::Type::TIME32:
      // Dates and times are their 32-bit count, read as stored.
      PutSigned(a.data()->GetValues<int32_t>(1)[i], out);
      return Status::OK();
    case arrow::Type::INT64:
    case arrow::Type::DATE64:
    case arrow::Type::TIME64:
    case arrow::Type::TIMESTAMP:
    case arrow::Type::DURATION:
      PutSigned(a.data()->GetValues<int64_t>(1)[i], out);
      return Status::OK();
    case arrow::Type::UINT8: PutBigEndian(static_cast<const arrow::UInt8Array&>(a).Value(i), out); return Status::OK();
    case arrow::Type::UINT16: PutBigEndian(static_cast<const arrow::UInt16Array&>(a).Value(i), out); return Status::OK();
    case arrow::Type::UINT32: PutBigEndian(static_cast<const arrow::UInt32Array&>(a).Value(i), out); return Status::OK();
    case arrow::Type::UINT64: PutBigEndian(static_cast<const arrow::UInt64Array&>(a).Value(i), out); return Status::OK();
    case arrow::Type::FLOAT:
      PutFloat<float, uint32_t>(static_cast<const arrow::FloatArray&>(a).Value(i), out);
      return Status::OK();
    case arrow::Type::DOUBLE:
      PutFloat<double, uint64_t>(static_cast<const arrow::DoubleArray&>(a).Value(i), out);
      return Status::OK();
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      PutBytes(static_cast<const arrow::BinaryArray&>(a).GetView(i), out);
      return Status::OK();
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      PutBytes(static_cast<const arrow::LargeBinaryArray&>(a).GetView(i), out);
      return Status::OK();
    case arrow::Type::FIXED_SIZE_BINARY:
      PutBytes(static_cast<const arrow::FixedSizeBinaryArray&>(a).GetView(i), out);
      return Status::OK();
    case arrow::Type::DECIMAL128: {
      const arrow::Decimal128 d(static_cast<const arrow::Decimal128Array&>(a).GetValue(i));
      PutSigned(d.high_bits(), out);
      PutBigEndian(d.low_bits(), out);
      return Status::OK();
    }
    case arrow::Type::LIST: return PutList(static_cast<const arrow::ListArray&>(a), i, out);
    case arrow::Type::LARGE_LIST: return PutList(static_cast<const arrow::LargeListArray&>(a), i, out);
    case arrow::Type::FIXED_SIZE_LIST: return PutList(static_cast<const arrow::FixedSizeListArray&>(a), i, out);
    case arrow::Type::STRUCT: {
      const auto& s = static_cast<const arrow::StructArray&>(a);
      for (int f = 0; f < s.num_fields(); ++f) ARROW_RETURN_NOT_OK(PutItem(*s.field(f), i, out));
      return Status::OK();
    }
    default: return Status::NotImplemented("no order for values of type ", a.type()->ToString());
  }
}

Status Exec(cp::KernelContext* ctx, const cp::ExecSpan& batch, cp::ExecResult* out) {
  arrow::BinaryBuilder builder(ctx->memory_pool());
  ARROW_RETURN_NOT_OK(builder.Reserve(batch.length));
  std::string key;
  if (batch[0].is_scalar()) {
    const auto& scalar = *batch[0].scalar;
    if (!scalar.is_valid) {
      ARROW_RETURN_NOT_OK(builder.AppendNulls(batch.length));
    } else {
      ARROW_ASSIGN_OR_RAISE(auto one, arrow::MakeArrayFromScalar(scalar, 1, ctx->memory_pool()));
      ARROW_RETURN_NOT_OK(Put(*one, 0, &key));
      for (int64_t row = 0; row < batch.length; ++row) ARROW_RETURN_NOT_OK(builder.Append(key));
    }
  } else {
    const auto values = arrow::MakeArray(batch[0].array.ToArrayData());
    for (int64_t row = 0; row < batch.length; ++row) {
      if (values->IsNull(row)) {
        ARROW_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      key.clear();
      ARROW_RETURN_NOT_OK(Put(*values, row, &key));
      ARROW_RETURN_NOT_OK(builder.Append(key));
    }
  }
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder.Finish(&result));
  out->value = result->data();
  return Status::OK();
}

void RegisterOrderKey() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto fn = std::make_shared<cp::ScalarFunction>(kOrderKeyFunction, cp::Arity::Unary(), cp::FunctionDoc::Empty());
    cp::ScalarKernel kernel({cp::InputType::Any()}, arrow::binary(), Exec);
    kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
    kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
    // One kernel on a function of a new name cannot fail to register.
    (void)fn->AddKernel(std::move(kernel));
    (void)cp::GetFunctionRegistry()->AddFunction(std::move(fn), /*allow_overwrite=*/true);
  });
}

// Spark's SQL type text in messages: MAP<STRING, INT>, STRUCT<a: INT>.
std::string SqlType(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::MAP: {
      const auto& m = static_cast<const arrow::MapType&>(type);
      return StrCat("MAP<", SqlType(*m.key_type()), ", ", SqlType(*m.item_type()), ">");
    }
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST:
      return StrCat("ARRAY<", SqlType(*static_cast<const arrow::BaseListType&>(type).value_type()), ">");
    case arrow::Type::STRUCT: {
      std::string text = "STRUCT<";
      for (int f = 0; f < type.num_fields(); ++f) {
        text += StrCat(f ? ", " : "", type.field(f)->name(), ": ", SqlType(*type.field(f)->type()));
      }
      return text + ">";
    }
    default: {
      std::string name = SparkTypeName(type);
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
      return name;
    }
  }
}

bool HoldsMap(const arrow::DataType& type) {
  if (type.id() == arrow::Type::MAP) return true;
  return std::any_of(type.fields().begin(), type.fields().end(), [](const auto& f) { return HoldsMap(*f->type()); });
}

}  // namespace

bool NeedsOrderKey(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST:
    case arrow::Type::FIXED_SIZE_LIST:
    case arrow::Type::STRUCT:
      return true;
    default:
      return false;
  }
}

Status CheckOrderable(const arrow::DataType& type, const std::string& what) {
  if (!HoldsMap(type)) return Status::OK();
  return Status::Invalid("[DATATYPE_MISMATCH.INVALID_ORDERING_TYPE] Cannot resolve \"", what,
                         "\" due to data type mismatch: The `sortorder` does not support ordering on type \"",
                         SqlType(type), "\".");
}

cp::Expression OrderKey(cp::Expression value) {
  RegisterOrderKey();
  return cp::call(kOrderKeyFunction, {std::move(value)});
}

}  // namespace floe::sql
