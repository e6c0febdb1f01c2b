// Arrays, maps and structs: size and the constructors array, map, struct, named_struct.

#include <mutex>
#include <set>

#include <arrow/builder.h>
#include <arrow/compute/kernel.h>
#include <arrow/compute/registry.h>

#include "floe/sql/functions/function_helpers.h"
#include "floe/util/str_cat.h"

namespace floe::sql::functions {

namespace {

// Arrow has no kernel that builds a list or a map from several columns, so floe registers
// two: each row's arguments, already at one type, become one list or one map.
constexpr const char* kMakeList = "floe_make_list";
constexpr const char* kMakeMap = "floe_make_map";

// The batch's arguments as arrays (scalars broadcast to the batch's length).
Result<std::vector<std::shared_ptr<arrow::ArrayData>>> ArgumentArrays(const cp::ExecSpan& batch) {
  std::vector<std::shared_ptr<arrow::ArrayData>> out;
  for (int i = 0; i < batch.num_values(); ++i) {
    if (batch[i].is_scalar()) {
      ARROW_ASSIGN_OR_RAISE(auto a, arrow::MakeArrayFromScalar(*batch[i].scalar, batch.length));
      out.push_back(a->data());
    } else {
      out.push_back(batch[i].array.ToArrayData());
    }
  }
  return out;
}

Status MakeListExec(cp::KernelContext* ctx, const cp::ExecSpan& batch, cp::ExecResult* out) {
  auto type = out->type()->GetSharedPtr();
  auto element_type = static_cast<const arrow::ListType&>(*type).value_type();
  std::unique_ptr<arrow::ArrayBuilder> elements;
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(ctx->memory_pool(), element_type, &elements));
  arrow::ListBuilder lists(ctx->memory_pool(), std::shared_ptr<arrow::ArrayBuilder>(std::move(elements)), type);
  ARROW_ASSIGN_OR_RAISE(auto args, ArgumentArrays(batch));
  std::vector<arrow::ArraySpan> spans;
  for (const auto& d : args) spans.emplace_back(*d);
  for (int64_t row = 0; row < batch.length; ++row) {
    ARROW_RETURN_NOT_OK(lists.Append());
    for (const auto& span : spans) ARROW_RETURN_NOT_OK(lists.value_builder()->AppendArraySlice(span, row, 1));
  }
  ARROW_ASSIGN_OR_RAISE(auto result, lists.Finish());
  out->value = result->data();
  return Status::OK();
}

// Spark's default map key policy: a NULL or repeated key fails the query.
Status MakeMapExec(cp::KernelContext* ctx, const cp::ExecSpan& batch, cp::ExecResult* out) {
  auto type = out->type()->GetSharedPtr();
  const auto& map_type = static_cast<const arrow::MapType&>(*type);
  std::unique_ptr<arrow::ArrayBuilder> keys, items;
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(ctx->memory_pool(), map_type.key_type(), &keys));
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(ctx->memory_pool(), map_type.item_type(), &items));
  arrow::MapBuilder maps(ctx->memory_pool(), std::shared_ptr<arrow::ArrayBuilder>(std::move(keys)),
                         std::shared_ptr<arrow::ArrayBuilder>(std::move(items)), type);
  ARROW_ASSIGN_OR_RAISE(auto data, ArgumentArrays(batch));
  std::vector<arrow::ArraySpan> spans;
  for (const auto& d : data) spans.emplace_back(*d);
  std::vector<std::shared_ptr<arrow::Array>> args;
  for (const auto& d : data) args.push_back(arrow::MakeArray(d));
  for (int64_t row = 0; row < batch.length; ++row) {
    ARROW_RETURN_NOT_OK(maps.Append());
    std::set<std::string> seen;
    for (size_t i = 0; i + 1 < args.size(); i += 2) {
      if (args[i]->IsNull(row)) return Status::Invalid("[NULL_MAP_KEY] Cannot use null as map key.");
      ARROW_ASSIGN_OR_RAISE(auto key, args[i]->GetScalar(row));
      if (!seen.insert(key->ToString()).second) {
        return Status::Invalid("[DUPLICATED_MAP_KEY] Duplicate map key ", key->ToString(),
                               " was found, please check the input data. If you want to remove the duplicated keys, "
                               "you can set \"spark.sql.mapKeyDedupPolicy\" to \"LAST_WIN\" so that the key inserted "
                               "at last takes precedence.");
      }
      ARROW_RETURN_NOT_OK(maps.key_builder()->AppendArraySlice(spans[i], row, 1));
      ARROW_RETURN_NOT_OK(maps.item_builder()->AppendArraySlice(spans[i + 1], row, 1));
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto result, maps.Finish());
  out->value = result->data();
  return Status::OK();
}

constexpr const char* kListElementAt = "floe_list_element_at";

Status ListElementAtExec(cp::KernelContext* ctx, const cp::ExecSpan& batch, cp::ExecResult* out) {
  std::unique_ptr<arrow::ArrayBuilder> builder;
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(ctx->memory_pool(), out->type()->GetSharedPtr(), &builder));
  ARROW_ASSIGN_OR_RAISE(auto args, ArgumentArrays(batch));
  const auto lists = std::static_pointer_cast<arrow::ListArray>(arrow::MakeArray(args[0]));
  const auto indexes = std::static_pointer_cast<arrow::Int64Array>(arrow::MakeArray(args[1]));
  const arrow::ArraySpan values(*lists->values()->data());
  for (int64_t row = 0; row < batch.length; ++row) {
    const int64_t index = indexes->IsNull(row) ? -1 : indexes->Value(row);
    if (lists->IsNull(row) || index < 0 || index >= lists->value_length(row)) {
      ARROW_RETURN_NOT_OK(builder->AppendNull());
      continue;
    }
    ARROW_RETURN_NOT_OK(builder->AppendArraySlice(values, lists->value_offset(row) + index, 1));
  }
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder->Finish(&result));
  out->value = result->data();
  return Status::OK();
}

Status RegisterKernel(const char* name, cp::ArrayKernelExec exec, cp::OutputType::Resolver resolve) {
  auto fn = std::make_shared<cp::ScalarFunction>(name, cp::Arity::VarArgs(1), cp::FunctionDoc::Empty());
  cp::ScalarKernel kernel(cp::KernelSignature::Make({cp::InputType::Any()}, cp::OutputType(std::move(resolve)),
                                                    /*is_varargs=*/true),
                          exec);
  kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
  kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
  ARROW_RETURN_NOT_OK(fn->AddKernel(std::move(kernel)));
  return cp::GetFunctionRegistry()->AddFunction(std::move(fn), /*allow_overwrite=*/false);
}

Status RegisterKernels() {
  static Status registered = [] {
    ARROW_RETURN_NOT_OK(RegisterKernel(
        kMakeList, MakeListExec,
        [](cp::KernelContext*, const std::vector<arrow::TypeHolder>& types) -> Result<arrow::TypeHolder> {
          return arrow::TypeHolder(arrow::list(arrow::field("element", types[0].GetSharedPtr())));
        }));
    ARROW_RETURN_NOT_OK(RegisterKernel(
        kListElementAt, ListElementAtExec,
        [](cp::KernelContext*, const std::vector<arrow::TypeHolder>& types) -> Result<arrow::TypeHolder> {
          return arrow::TypeHolder(static_cast<const arrow::ListType&>(*types[0].type).value_type());
        }));
    return RegisterKernel(
        kMakeMap, MakeMapExec,
        [](cp::KernelContext*, const std::vector<arrow::TypeHolder>& types) -> Result<arrow::TypeHolder> {
          return arrow::TypeHolder(arrow::map(types[0].GetSharedPtr(), types[1].GetSharedPtr()));
        });
  }();
  return registered;
}

// The common type of every `step`-th argument from `first`, as Spark requires of array
// elements and map keys and values.
Result<TypePtr> CommonOf(CallBinder& b, size_t first, size_t step) {
  TypePtr type = arrow::null();
  for (size_t i = first; i < b.args.size(); i += step) {
    TypePtr next = b.CommonType(type, b.args[i].type);
    if (!next) {
      std::vector<std::string> names;
      for (size_t j = first; j < b.args.size(); j += step) names.push_back("\"" + b.SqlTypeName(*b.args[j].type) + "\"");
      std::string listed;
      for (size_t j = 0; j < names.size(); ++j) listed += (j ? ", " : "") + names[j];
      return b.Error(b.expr.pos, StrCat("[DATATYPE_MISMATCH.DATA_DIFF_TYPES] Cannot resolve \"", b.column_name,
                                        "\" due to data type mismatch: Input to `", b.name,
                                        "` should all be the same type, but it's [", listed, "]."));
    }
    type = next;
  }
  return type;
}

Result<TypePtr> ArrayType(CallBinder& b) {
  ARROW_ASSIGN_OR_RAISE(auto element, CommonOf(b, 0, 1));
  return arrow::list(arrow::field("element", element));
}

Result<BoundExpr> Array(CallBinder& b) {
  auto element = static_cast<const arrow::ListType&>(*b.result_type).value_type();
  if (b.args.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto empty, arrow::MakeEmptyArray(element));
    return b.Make(cp::literal(std::make_shared<arrow::ListScalar>(empty, b.result_type)));
  }
  ARROW_RETURN_NOT_OK(RegisterKernels());
  std::vector<cp::Expression> xs;
  for (const auto& a : b.args) xs.push_back(b.CastTo(a.expr, a.type, element));
  return b.Make(cp::call(kMakeList, xs));
}

Status EvenArguments(CallBinder& b) {
  if (b.args.size() % 2 == 0) return Status::OK();
  return b.Error(b.expr.pos, StrCat("[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `", b.name,
                                    "` requires 2n (n > 0) parameters but the actual number is ", b.args.size(), "."));
}

Result<TypePtr> MapType(CallBinder& b) {
  ARROW_RETURN_NOT_OK(EvenArguments(b));
  ARROW_ASSIGN_OR_RAISE(auto key, CommonOf(b, 0, 2));
  ARROW_ASSIGN_OR_RAISE(auto value, CommonOf(b, 1, 2));
  return arrow::map(key, value);
}

Result<BoundExpr> Map(CallBinder& b) {
  const auto& type = static_cast<const arrow::MapType&>(*b.result_type);
  if (b.args.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto empty, arrow::MakeEmptyArray(type.value_type()));
    return b.Make(cp::literal(std::make_shared<arrow::MapScalar>(empty, b.result_type)));
  }
  ARROW_RETURN_NOT_OK(RegisterKernels());
  std::vector<cp::Expression> xs;
  for (size_t i = 0; i < b.args.size(); ++i) {
    xs.push_back(b.CastTo(b.args[i].expr, b.args[i].type, i % 2 ? type.item_type() : type.key_type()));
  }
  return b.Make(cp::call(kMakeMap, xs));
}

// Spark names a struct's fields after the columns and fields written, else col1, col2, ...
std::vector<std::string> StructFieldNames(const CallBinder& b) {
  std::vector<std::string> names;
  for (size_t i = 0; i < b.call.args.size(); ++i) {
    const Expr& a = b.call.args[i];
    if (const auto* c = a.As<ColumnRef>()) {
      names.push_back(c->parts.back().name);
    } else if (const auto* f = a.As<FieldAccess>()) {
      names.push_back(f->field.name);
    } else {
      names.push_back("col" + std::to_string(i + 1));
    }
  }
  return names;
}

Result<TypePtr> StructType(CallBinder& b) {
  std::vector<std::string> names = StructFieldNames(b);
  arrow::FieldVector fields;
  for (size_t i = 0; i < b.args.size(); ++i) fields.push_back(arrow::field(names[i], b.args[i].type));
  return arrow::struct_(fields);
}

Result<BoundExpr> Struct(CallBinder& b) {
  std::vector<cp::Expression> xs;
  for (const auto& a : b.args) xs.push_back(a.expr);
  return b.Make(cp::call("make_struct", xs, cp::MakeStructOptions(StructFieldNames(b))));
}

// named_struct('a', x, 'b', y): the names must be string literals.
Result<std::vector<std::string>> NamedStructNames(CallBinder& b) {
  ARROW_RETURN_NOT_OK(EvenArguments(b));
  std::vector<std::string> names;
  for (size_t i = 0; i < b.args.size(); i += 2) {
    const Literal* name = b.StringLiteralArg(i);
    if (!name) {
      return b.Error(b.call.args[i].pos,
                     StrCat("[DATATYPE_MISMATCH.CREATE_NAMED_STRUCT_WITHOUT_FOLDABLE_STRING] Cannot resolve \"",
                            b.column_name, "\" due to data type mismatch: Only foldable `STRING` expressions are "
                            "allowed to appear at odd position, but they are [\"", b.args[i].name, "\"]."));
    }
    names.push_back(name->value);
  }
  return names;
}

Result<TypePtr> NamedStructType(CallBinder& b) {
  ARROW_ASSIGN_OR_RAISE(auto names, NamedStructNames(b));
  arrow::FieldVector fields;
  for (size_t i = 0; i < names.size(); ++i) fields.push_back(arrow::field(names[i], b.args[2 * i + 1].type));
  return arrow::struct_(fields);
}

Result<BoundExpr> NamedStruct(CallBinder& b) {
  ARROW_ASSIGN_OR_RAISE(auto names, NamedStructNames(b));
  std::vector<cp::Expression> xs;
  for (size_t i = 1; i < b.args.size(); i += 2) xs.push_back(b.args[i].expr);
  return b.Make(cp::call("make_struct", xs, cp::MakeStructOptions(names)));
}

Result<TypePtr> SizeType(CallBinder& b) {
  auto id = b.args[0].type->id();
  if (id != arrow::Type::LIST && id != arrow::Type::MAP) {
    return b.Error(b.expr.pos, StrCat("[DATATYPE_MISMATCH] ", b.name, " takes an array or a map, not ",
                                      b.args[0].type->ToString()));
  }
  return arrow::int32();
}

Result<BoundExpr> Size(CallBinder& b) {
  // Spark's default: the size of NULL is -1.
  auto length = cp::call("list_value_length", {b.args[0].expr});
  return b.Make(cp::call("coalesce", {b.CastTo(length, arrow::int32(), arrow::int32()), cp::literal(-1)}));
}

}  // namespace

void AddCollectionFunctions(std::vector<ScalarFunction>* out) {
  out->push_back({{"size", "cardinality"}, {1, 1}, SizeType, Size,
                  Doc("Size", "_FUNC_(expr) - Returns the size of an array or a map; -1 for null input.",
                      {{"SELECT _FUNC_(array('b', 'd', 'c', 'a'));", "4"}}, "1.5.0")});
  out->push_back({{"array"}, {0, Arity::kAny}, ArrayType, Array,
                  Doc("CreateArray", "_FUNC_(expr, ...) - Returns an array with the given elements.",
                      {{"SELECT _FUNC_(1, 2, 3);", "[1,2,3]"}}, "1.1.0")});
  out->push_back({{"map"}, {0, Arity::kAny}, MapType, Map,
                  Doc("CreateMap", "_FUNC_(key0, value0, key1, value1, ...) - Creates a map with the given key/value pairs.",
                      {{"SELECT _FUNC_(1.0, '2', 3.0, '4');", "{1.0:\"2\",3.0:\"4\"}"}}, "2.0.0")});
  out->push_back({{"struct"}, {1, Arity::kAny}, StructType, Struct,
                  Doc("CreateNamedStruct", "_FUNC_(col1, col2, col3, ...) - Creates a struct with the given field values.",
                      {}, "1.4.0")});
  out->push_back({{"named_struct"}, {2, Arity::kAny}, NamedStructType, NamedStruct,
                  Doc("CreateNamedStruct",
                      "_FUNC_(name1, val1, name2, val2, ...) - Creates a struct with the given field names and values.",
                      {{"SELECT _FUNC_(\"a\", 1, \"b\", 2, \"c\", 3);", "{\"a\":1,\"b\":2,\"c\":3}"}}, "1.5.0")});
}

}  // namespace floe::sql::functions

namespace floe::sql {

Result<arrow::compute::Expression> ListElementAt(arrow::compute::Expression list, arrow::compute::Expression index) {
  ARROW_RETURN_NOT_OK(functions::RegisterKernels());
  return arrow::compute::call(functions::kListElementAt, {std::move(list), std::move(index)});
}

}  // namespace floe::sql
