// PostgreSQL's functions that clients call on connect and in their catalog queries:
// version(), current_schema(), format_type(), pg_get_userbyid(), the ::regclass family, ...
// Each answers from floe's catalog and session; those about objects floe does not have
// (defaults, constraints, comments, indexes) answer NULL, as PostgreSQL does for none.

#include <arrow/api.h>
#include <arrow/compute/kernel.h>
#include <arrow/compute/registry.h>

#include "floe/sql/functions/function_helpers.h"
#include "floe/sql/postgres/pg_array_text.h"
#include "floe/sql/postgres/pg_catalog_tables.h"
#include "floe/sql/postgres/pg_settings.h"
#include "floe/sql/postgres/pg_types.h"
#include "floe/sql/plan/relation.h"
#include "floe/util/number_parse.h"
#include "floe/util/str_cat.h"

namespace floe::sql::functions {

namespace {

const std::string kPgClass = "org.apache.spark.sql.catalyst.expressions.postgresql.";

FunctionDoc PgDoc(const std::string& class_name, std::string usage) {
  return Doc(kPgClass + class_name, std::move(usage), {}, "floe");
}

// --- Row kernels: values computed one row at a time from the row's arguments ----------

using RowFn =
    Result<std::shared_ptr<arrow::Scalar>> (*)(const std::vector<std::shared_ptr<arrow::Scalar>>&);

std::string Text(const std::shared_ptr<arrow::Scalar>& s) {
  if (!s || !s->is_valid) return "";
  if (s->type->id() == arrow::Type::STRING)
    return static_cast<const arrow::StringScalar&>(*s).ToString();
  return s->ToString();
}

std::optional<int64_t> Int(const std::shared_ptr<arrow::Scalar>& s) {
  if (!s || !s->is_valid) return std::nullopt;
  auto cast = s->CastTo(arrow::int64());
  if (!cast.ok()) return std::nullopt;
  return static_cast<const arrow::Int64Scalar&>(**cast).value;
}

std::shared_ptr<arrow::Scalar> TextScalar(std::optional<std::string> s) {
  if (!s) return arrow::MakeNullScalar(arrow::utf8());
  return std::make_shared<arrow::StringScalar>(std::move(*s));
}

// The elements of a non-NULL array as text: a list, or an array in PostgreSQL's text form (the
// arrays of the pg_catalog relations).
Result<std::vector<std::optional<std::string>>> ElementsAsText(const std::shared_ptr<arrow::Scalar>& array) {
  if (!arrow::is_list_like(array->type->id())) return ParsePgArrayText(Text(array));
  const auto& list = static_cast<const arrow::BaseListScalar&>(*array);
  std::vector<std::optional<std::string>> out;
  for (int64_t i = 0; i < list.value->length(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto item, list.value->GetScalar(i));
    out.push_back(item->is_valid ? std::optional<std::string>(Text(item)) : std::nullopt);
  }
  return out;
}

// x::regtype[]: an array of type oids (a list, or PostgreSQL's text form) as the types' names.
Result<std::shared_ptr<arrow::Scalar>> RegtypeArrayRow(
    const std::vector<std::shared_ptr<arrow::Scalar>>& a) {
  auto type = arrow::list(arrow::utf8());
  if (!a[0]->is_valid) return arrow::MakeNullScalar(type);
  ARROW_ASSIGN_OR_RAISE(auto elements, ElementsAsText(a[0]));
  arrow::StringBuilder builder;
  for (const auto& element : elements) {
    std::optional<int64_t> oid = element ? ParseInt64(*element) : std::nullopt;
    if (!oid) {
      ARROW_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    const PgTypeRow* row = FindPgType(static_cast<int32_t>(*oid));
    ARROW_RETURN_NOT_OK(builder.Append(row ? std::string(row->sql_name) : std::to_string(*oid)));
  }
  ARROW_ASSIGN_OR_RAISE(auto values, builder.Finish());
  return std::make_shared<arrow::ListScalar>(values, type);
}

// format_type(oid, typmod)
Result<std::shared_ptr<arrow::Scalar>> FormatTypeRow(
    const std::vector<std::shared_ptr<arrow::Scalar>>& a) {
  auto oid = Int(a[0]);
  if (!oid) return TextScalar(std::nullopt);
  auto typmod = a.size() > 1 ? Int(a[1]) : std::nullopt;
  return TextScalar(
      PgFormatType(static_cast<int32_t>(*oid), static_cast<int32_t>(typmod.value_or(-1))));
}

// array_to_string(array, separator [, null_text])
Result<std::shared_ptr<arrow::Scalar>> ArrayToStringRow(
    const std::vector<std::shared_ptr<arrow::Scalar>>& a) {
  if (!a[0]->is_valid || !a[1]->is_valid) return TextScalar(std::nullopt);
  ARROW_ASSIGN_OR_RAISE(auto elements, ElementsAsText(a[0]));
  std::string sep = Text(a[1]);
  std::optional<std::string> null_text;
  if (a.size() > 2 && a[2]->is_valid) null_text = Text(a[2]);
  std::string out;
  bool first = true;
  for (const auto& element : elements) {
    if (!element && !null_text) continue;
    if (!first) out += sep;
    first = false;
    out += element ? *element : *null_text;
  }
  return TextScalar(out);
}

// array_cat(a, b), also `a || b` of arrays: the elements of both, as text; a NULL array adds
// none, and the result is NULL only when both are.
Result<std::shared_ptr<arrow::Scalar>> ArrayCatRow(
    const std::vector<std::shared_ptr<arrow::Scalar>>& a) {
  auto type = arrow::list(arrow::utf8());
  if (!a[0]->is_valid && !a[1]->is_valid) return arrow::MakeNullScalar(type);
  arrow::StringBuilder builder;
  for (const auto& side : {a[0], a[1]}) {
    if (!side->is_valid) continue;
    ARROW_ASSIGN_OR_RAISE(auto elements, ElementsAsText(side));
    for (const auto& element : elements) {
      ARROW_RETURN_NOT_OK(element ? builder.Append(*element) : builder.AppendNull());
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto values, builder.Finish());
  return std::make_shared<arrow::ListScalar>(values, type);
}

// quote_ident(text): double quotes unless the name is lower-case letters, digits and _.
Result<std::shared_ptr<arrow::Scalar>> QuoteIdentRow(
    const std::vector<std::shared_ptr<arrow::Scalar>>& a) {
  if (!a[0]->is_valid) return TextScalar(std::nullopt);
  std::string s = Text(a[0]);
  bool plain = !s.empty() && !(s[0] >= '0' && s[0] <= '9');
  for (char c : s) plain = plain && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  if (plain) return TextScalar(s);
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return TextScalar(out + "\"");
}

// The name of an oid from a table passed as two list literals (keys, names); NULL when absent.
Result<std::shared_ptr<arrow::Scalar>> NameOfOidRow(
    const std::vector<std::shared_ptr<arrow::Scalar>>& a) {
  auto oid = Int(a[0]);
  if (!oid) return TextScalar(std::nullopt);
  const auto& keys = static_cast<const arrow::BaseListScalar&>(*a[1]).value;
  const auto& names = static_cast<const arrow::BaseListScalar&>(*a[2]).value;
  const auto& key_values = static_cast<const arrow::Int64Array&>(*keys);
  for (int64_t i = 0; i < key_values.length(); ++i) {
    if (key_values.Value(i) == *oid) return names->GetScalar(i);
  }
  // PostgreSQL prints an oid it does not know as the number.
  return TextScalar(std::to_string(*oid));
}

// array_contains(array, value): x = ANY(array).
Result<std::shared_ptr<arrow::Scalar>> ArrayContainsRow(
    const std::vector<std::shared_ptr<arrow::Scalar>>& a) {
  if (!a[0]->is_valid || !a[1]->is_valid) return arrow::MakeNullScalar(arrow::boolean());
  const auto& list = static_cast<const arrow::BaseListScalar&>(*a[0]);
  bool saw_null = false;
  for (int64_t i = 0; i < list.value->length(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto item, list.value->GetScalar(i));
    if (!item->is_valid) {
      saw_null = true;
      continue;
    }
    if (item->Equals(*a[1])) return std::make_shared<arrow::BooleanScalar>(true);
  }
  if (saw_null) return arrow::MakeNullScalar(arrow::boolean());
  return std::make_shared<arrow::BooleanScalar>(false);
}

// pg_size_pretty(bigint), PostgreSQL's algorithm: bytes below 10 kB, then the first of kB,
// MB, GB, TB, PB below 20 * 1024 - 1 of it, the last bit kept to round halves away from zero.
Result<std::shared_ptr<arrow::Scalar>> SizePrettyRow(
    const std::vector<std::shared_ptr<arrow::Scalar>>& a) {
  auto bytes = Int(a[0]);
  if (!bytes) return TextScalar(std::nullopt);
  struct Unit {
    const char* name;
    int64_t limit;
    bool round;
    int bits;
  };
  static const Unit kUnits[] = {{"bytes", 10 * 1024, false, 0}, {"kB", 20 * 1024 - 1, true, 10},
                                {"MB", 20 * 1024 - 1, true, 20},  {"GB", 20 * 1024 - 1, true, 30},
                                {"TB", 20 * 1024 - 1, true, 40},  {"PB", 20 * 1024 - 1, true, 50}};
  constexpr size_t kCount = sizeof(kUnits) / sizeof(kUnits[0]);
  int64_t size = *bytes;
  for (size_t u = 0;; ++u) {
    int64_t magnitude = size < 0 ? -size : size;
    if (u + 1 == kCount || magnitude < kUnits[u].limit) {
      if (kUnits[u].round) size = (size + (size < 0 ? -1 : 1)) / 2;
      return TextScalar(std::to_string(size) + " " + kUnits[u].name);
    }
    int shift = kUnits[u + 1].bits - kUnits[u].bits - (kUnits[u + 1].round ? 1 : 0) +
                (kUnits[u].round ? 1 : 0);
    size /= int64_t{1} << shift;
  }
}

struct RowKernel {
  const char* name;
  RowFn fn;
  std::shared_ptr<arrow::DataType> (*type)();
};

std::shared_ptr<arrow::DataType> Utf8() { return arrow::utf8(); }
std::shared_ptr<arrow::DataType> Bool() { return arrow::boolean(); }
std::shared_ptr<arrow::DataType> TextList() { return arrow::list(arrow::utf8()); }

const RowKernel kRowKernels[] = {
    {"floe_pg_format_type", FormatTypeRow, Utf8},
    {"floe_pg_array_to_string", ArrayToStringRow, Utf8},
    {"floe_pg_quote_ident", QuoteIdentRow, Utf8},
    {"floe_pg_name_of_oid", NameOfOidRow, Utf8},
    {"floe_pg_array_contains", ArrayContainsRow, Bool},
    {"floe_pg_size_pretty", SizePrettyRow, Utf8},
    {"floe_pg_array_cat", ArrayCatRow, TextList},
    {"floe_pg_regtype_array", RegtypeArrayRow, TextList},
};

template <int N>
Status RowExec(cp::KernelContext* ctx, const cp::ExecSpan& batch, cp::ExecResult* out) {
  const RowKernel& k = kRowKernels[N];
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  for (int i = 0; i < batch.num_values(); ++i) {
    if (batch[i].is_scalar()) {
      ARROW_ASSIGN_OR_RAISE(auto a, arrow::MakeArrayFromScalar(*batch[i].scalar, batch.length));
      arrays.push_back(a);
    } else {
      arrays.push_back(batch[i].array.ToArray());
    }
  }
  std::unique_ptr<arrow::ArrayBuilder> builder;
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(ctx->memory_pool(), k.type(), &builder));
  std::vector<std::shared_ptr<arrow::Scalar>> row(arrays.size());
  for (int64_t r = 0; r < batch.length; ++r) {
    for (size_t i = 0; i < arrays.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(row[i], arrays[i]->GetScalar(r));
    }
    ARROW_ASSIGN_OR_RAISE(auto value, k.fn(row));
    ARROW_RETURN_NOT_OK(builder->AppendScalar(*value));
  }
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder->Finish(&result));
  out->value = result->data();
  return Status::OK();
}

template <int N>
Status Register() {
  const RowKernel& k = kRowKernels[N];
  auto fn =
      std::make_shared<cp::ScalarFunction>(k.name, cp::Arity::VarArgs(1), cp::FunctionDoc::Empty());
  cp::ScalarKernel kernel(
      cp::KernelSignature::Make({cp::InputType::Any()}, cp::OutputType(k.type()), true),
      RowExec<N>);
  kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
  kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
  ARROW_RETURN_NOT_OK(fn->AddKernel(std::move(kernel)));
  return cp::GetFunctionRegistry()->AddFunction(std::move(fn), /*allow_overwrite=*/false);
}

Status RegisterRowKernels() {
  static Status registered = [] {
    ARROW_RETURN_NOT_OK(Register<0>());
    ARROW_RETURN_NOT_OK(Register<1>());
    ARROW_RETURN_NOT_OK(Register<2>());
    ARROW_RETURN_NOT_OK(Register<3>());
    ARROW_RETURN_NOT_OK(Register<4>());
    ARROW_RETURN_NOT_OK(Register<5>());
    ARROW_RETURN_NOT_OK(Register<6>());
    return Register<7>();
  }();
  return registered;
}

ScalarImpl RowCall(const char* kernel) {
  return [kernel](CallBinder& b) -> Result<BoundExpr> {
    ARROW_RETURN_NOT_OK(RegisterRowKernels());
    std::vector<cp::Expression> args;
    for (const auto& a : b.args) args.push_back(a.expr);
    return b.Make(cp::call(kernel, args));
  };
}

// --- Session-reading helpers --------------------------------------------------------

Result<SessionState*> SessionOf(CallBinder& b) {
  if (!b.ctx.session) return b.Error(b.expr.pos, StrCat(b.name, "() needs a session"));
  return b.ctx.session;
}

ScalarImpl Constant(std::function<Result<std::shared_ptr<arrow::Scalar>>(CallBinder&)> value) {
  return [value](CallBinder& b) -> Result<BoundExpr> {
    ARROW_ASSIGN_OR_RAISE(auto v, value(b));
    return b.Make(cp::literal(v));
  };
}

ScalarImpl NullOf(TypePtr type) {
  return [type](CallBinder& b) -> Result<BoundExpr> { return b.Make(Null(type)); };
}

ScalarImpl TrueValue() {
  return [](CallBinder& b) -> Result<BoundExpr> { return b.Make(cp::literal(true)); };
}

std::shared_ptr<arrow::Scalar> Str(std::string s) {
  return std::make_shared<arrow::StringScalar>(std::move(s));
}

// The name a ::regclass / ::regnamespace / ::regtype of an oid column prints, through a
// table of every oid the catalog has now.
Result<BoundExpr> NameOfOid(CallBinder& b,
                            const std::vector<std::pair<int64_t, std::string>>& names) {
  ARROW_RETURN_NOT_OK(RegisterRowKernels());
  arrow::Int64Builder keys;
  arrow::StringBuilder values;
  for (const auto& [oid, name] : names) {
    ARROW_RETURN_NOT_OK(keys.Append(oid));
    ARROW_RETURN_NOT_OK(values.Append(name));
  }
  ARROW_ASSIGN_OR_RAISE(auto key_array, keys.Finish());
  ARROW_ASSIGN_OR_RAISE(auto value_array, values.Finish());
  auto key_list = std::make_shared<arrow::ListScalar>(key_array);
  auto value_list = std::make_shared<arrow::ListScalar>(value_array);
  return b.Make(cp::call("floe_pg_name_of_oid",
                         {b.args[0].expr, cp::literal(key_list), cp::literal(value_list)}));
}

Result<std::vector<std::pair<int64_t, std::string>>> RelationNames(SessionState& state) {
  ARROW_ASSIGN_OR_RAISE(auto namespaces,
                        BuildPgRelation(state, PgRelation{"pg_catalog", "pg_namespace"}));
  ARROW_ASSIGN_OR_RAISE(auto classes, BuildPgRelation(state, PgRelation{"pg_catalog", "pg_class"}));
  std::vector<std::pair<int64_t, std::string>> out;
  for (int64_t i = 0; i < classes->num_rows(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto oid, classes->GetColumnByName("oid")->GetScalar(i));
    auto name = PgRelationName(state, *Int(oid));
    if (name.ok() && *name) out.push_back({*Int(oid), **name});
  }
  (void)namespaces;
  return out;
}

// x::regclass: a name (text) becomes the relation's oid; an oid becomes its name.
Result<TypePtr> RegType(CallBinder& b) {
  if (IsString(*b.args[0].type)) return arrow::int64();
  return arrow::utf8();
}

Result<BoundExpr> ToOidFromLiteral(
    CallBinder& b, const std::function<Result<std::optional<int64_t>>(const std::string&)>& lookup,
    const char* kind) {
  const Literal* lit = b.StringLiteralArg(0);
  if (!lit)
    return b.Error(b.expr.pos, StrCat("::", kind, " of a text value needs a string literal"));
  ARROW_ASSIGN_OR_RAISE(auto oid, lookup(lit->value));
  if (!oid) {
    return b.Error(b.expr.pos, StrCat(kind == std::string("regclass") ? "relation" : "type", " \"",
                                      lit->value, "\" does not exist"));
  }
  return b.Make(cp::literal(*oid));
}

Result<BoundExpr> Regclass(CallBinder& b) {
  ARROW_ASSIGN_OR_RAISE(SessionState * state, SessionOf(b));
  if (IsString(*b.args[0].type)) {
    return ToOidFromLiteral(
        b, [state](const std::string& name) { return PgRelationOid(*state, name); }, "regclass");
  }
  ARROW_ASSIGN_OR_RAISE(auto names, RelationNames(*state));
  return NameOfOid(b, names);
}

Result<BoundExpr> Regnamespace(CallBinder& b) {
  ARROW_ASSIGN_OR_RAISE(SessionState * state, SessionOf(b));
  ARROW_ASSIGN_OR_RAISE(auto rows,
                        BuildPgRelation(*state, PgRelation{"pg_catalog", "pg_namespace"}));
  std::vector<std::pair<int64_t, std::string>> names;
  for (int64_t i = 0; i < rows->num_rows(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto oid, rows->column(0)->GetScalar(i));
    ARROW_ASSIGN_OR_RAISE(auto name, rows->column(1)->GetScalar(i));
    names.push_back({*Int(oid), Text(name)});
  }
  if (IsString(*b.args[0].type)) {
    return ToOidFromLiteral(
        b,
        [names](const std::string& name) -> Result<std::optional<int64_t>> {
          for (const auto& [oid, n] : names) {
            if (n == name) return std::optional<int64_t>(oid);
          }
          return std::optional<int64_t>();
        },
        "regnamespace");
  }
  return NameOfOid(b, names);
}

Result<BoundExpr> Regtype(CallBinder& b) {
  if (IsString(*b.args[0].type)) {
    return ToOidFromLiteral(
        b,
        [](const std::string& name) -> Result<std::optional<int64_t>> {
          std::string n = Lower(name);
          if (n.rfind("pg_catalog.", 0) == 0) n = n.substr(11);
          int32_t oid = PgTypeOidByName(n);
          if (oid == 0) oid = PgPseudoTypeOid(n);
          if (oid == 0) return std::optional<int64_t>();
          return std::optional<int64_t>(oid);
        },
        "regtype");
  }
  std::vector<std::pair<int64_t, std::string>> names;
  for (const auto& t : PgTypeRows()) names.push_back({t.oid, t.sql_name});
  return NameOfOid(b, names);
}

// to_regtype(name) / to_regclass(name): the oid ::regtype / ::regclass gives, NULL where none
// has the name (psycopg's TypeInfo.fetch asks to_regtype('hstore') on connect).
Result<BoundExpr> ToRegtype(CallBinder& b) {
  const Literal* lit = b.StringLiteralArg(0);
  if (!lit) return b.Error(b.expr.pos, "to_regtype() needs a string literal");
  std::string n = Lower(lit->value);
  if (n.rfind("pg_catalog.", 0) == 0) n = n.substr(11);
  int32_t oid = PgTypeOidByName(n);
  if (oid == 0) return b.Make(cp::literal(arrow::MakeNullScalar(arrow::int64())));
  return b.Make(cp::literal(int64_t{oid}));
}

Result<BoundExpr> ToRegclass(CallBinder& b) {
  ARROW_ASSIGN_OR_RAISE(SessionState * state, SessionOf(b));
  const Literal* lit = b.StringLiteralArg(0);
  if (!lit) return b.Error(b.expr.pos, "to_regclass() needs a string literal");
  ARROW_ASSIGN_OR_RAISE(auto oid, PgRelationOid(*state, lit->value));
  if (!oid) return b.Make(cp::literal(arrow::MakeNullScalar(arrow::int64())));
  return b.Make(cp::literal(*oid));
}

// regproc / regrole: floe has no procedures or roles of its own to name by oid.
Result<BoundExpr> Regproc(CallBinder& b) {
  // A function's name stays its name: floe's catalog keeps functions by name (pg_type's
  // typinput holds 'array_in', which the JDBC driver compares with 'pg_catalog.array_in'::regproc).
  if (IsString(*b.args[0].type)) {
    const Literal* name = b.StringLiteralArg(0);
    if (!name) return b.Error(b.expr.pos, "::regproc of a text value needs a string literal");
    std::string n = Lower(name->value);
    if (n.rfind("pg_catalog.", 0) == 0) n = n.substr(11);
    return b.Make(cp::literal(n));
  }
  return b.Make(cp::call("cast", {b.args[0].expr}, cp::CastOptions::Safe(arrow::utf8())));
}

Result<BoundExpr> Regrole(CallBinder& b) {
  ARROW_ASSIGN_OR_RAISE(SessionState * state, SessionOf(b));
  std::vector<std::pair<int64_t, std::string>> names = {{pg_oid::kUser, PgUserName(*state)}};
  if (IsString(*b.args[0].type)) {
    return ToOidFromLiteral(
        b,
        [names](const std::string& name) -> Result<std::optional<int64_t>> {
          if (name == names[0].second) return std::optional<int64_t>(names[0].first);
          return std::optional<int64_t>();
        },
        "regrole");
  }
  return NameOfOid(b, names);
}

std::string CurrentNamespace(const SessionState& state) {
  return state.current_namespace.ToString();
}

Result<BoundExpr> CurrentSchemas(CallBinder& b) {
  ARROW_ASSIGN_OR_RAISE(SessionState * state, SessionOf(b));
  bool implicit = true;
  if (const Literal* lit = b.call.args[0].As<Literal>();
      lit && lit->kind == LiteralKind::kBoolean) {
    implicit = lit->value == "true";
  }
  arrow::StringBuilder names;
  if (implicit) ARROW_RETURN_NOT_OK(names.Append("pg_catalog"));
  ARROW_RETURN_NOT_OK(names.Append(CurrentNamespace(*state)));
  ARROW_ASSIGN_OR_RAISE(auto array, names.Finish());
  return b.Make(cp::literal(std::make_shared<arrow::ListScalar>(array, b.result_type)));
}

Result<BoundExpr> TableIsVisible(CallBinder& b) {
  ARROW_ASSIGN_OR_RAISE(SessionState * state, SessionOf(b));
  // Tables of the current namespace; one that does not exist (yet) has none.
  auto tables = state->catalog->ListTables(state->current_namespace);
  arrow::Int64Builder oids;
  if (tables.ok()) {
    for (const auto& t : *tables) ARROW_RETURN_NOT_OK(oids.Append(PgTableOid(t)));
  }
  ARROW_ASSIGN_OR_RAISE(auto array, oids.Finish());
  auto oid = b.CastTo(b.args[0].expr, b.args[0].type, arrow::int64());
  return b.Make(cp::call("is_in", {oid}, cp::SetLookupOptions(array)));
}

Result<BoundExpr> SetConfig(CallBinder& b) {
  ARROW_ASSIGN_OR_RAISE(SessionState * state, SessionOf(b));
  const Literal* name = b.StringLiteralArg(0);
  const Literal* value = b.StringLiteralArg(1);
  if (!name || !value)
    return b.Error(b.expr.pos, "set_config() takes a name and a value written as strings");
  if (FindPgParameter(name->value)) {
    Status st = PgSetParameter(*state, name->value, value->value);
    if (!st.ok()) return b.Error(b.expr.pos, st.message());
  } else {
    ARROW_RETURN_NOT_OK(state->SetSetting(name->value, value->value));
  }
  return b.Make(cp::literal(value->value));
}

Result<BoundExpr> CurrentSetting(CallBinder& b) {
  ARROW_ASSIGN_OR_RAISE(SessionState * state, SessionOf(b));
  const Literal* name = b.StringLiteralArg(0);
  if (!name) return b.Error(b.expr.pos, "current_setting() takes a name written as a string");
  auto value = PgShowValue(*state, name->value);
  if (!value.ok()) {
    bool missing_ok = b.call.args.size() > 1 && b.call.args[1].As<Literal>() &&
                      b.call.args[1].As<Literal>()->value == "true";
    if (missing_ok) return b.Make(Null(arrow::utf8()));
    return b.Error(b.expr.pos, value.status().message());
  }
  return b.Make(cp::literal(*value));
}

Result<BoundExpr> ArrayUpper(CallBinder& b) {
  // One-dimensional arrays only: the upper bound of dimension 1 is the length, NULL when empty.
  auto length = cp::call("list_value_length", {b.args[0].expr});
  auto as_int = cp::call("cast", {length}, cp::CastOptions::Unsafe(arrow::int32()));
  auto empty = cp::call("equal", {as_int, cp::literal(int32_t{0})});
  return b.Make(cp::call("if_else", {empty, Null(arrow::int32()), as_int}));
}

}  // namespace

void AddPgFunctions(std::vector<ScalarFunction>* out) {
  TypePtr text = arrow::utf8();
  out->push_back(
      {{"version"},
       {0, 0},
       Fixed(text),
       Constant([](CallBinder&) -> Result<std::shared_ptr<arrow::Scalar>> {
         return Str(PgVersionString());
       }),
       PgDoc("Version",
             "_FUNC_() - Returns the server's version in PostgreSQL's form, naming floe's.")});
  out->push_back({{"current_schema"},
                  {0, 0},
                  Fixed(text),
                  Constant([](CallBinder& b) -> Result<std::shared_ptr<arrow::Scalar>> {
                    ARROW_ASSIGN_OR_RAISE(SessionState * state, SessionOf(b));
                    return Str(CurrentNamespace(*state));
                  }),
                  PgDoc("CurrentSchema", "_FUNC_() - Returns the current namespace.")});
  out->push_back({{"current_database"},
                  {0, 0},
                  Fixed(text),
                  Constant([](CallBinder& b) -> Result<std::shared_ptr<arrow::Scalar>> {
                    ARROW_ASSIGN_OR_RAISE(SessionState * state, SessionOf(b));
                    // Spark's meaning is the current namespace; PostgreSQL's the database, here the
                    // catalog.
                    if (IsPgClient(*state)) return Str(state->catalog->name());
                    return Str(CurrentNamespace(*state));
                  }),
                  PgDoc("CurrentDatabase",
                        "_FUNC_() - Returns the current namespace (the catalog's name to "
                        "PostgreSQL clients).")});
  out->push_back({{"current_catalog"},
                  {0, 0},
                  Fixed(text),
                  Constant([](CallBinder& b) -> Result<std::shared_ptr<arrow::Scalar>> {
                    ARROW_ASSIGN_OR_RAISE(SessionState * state, SessionOf(b));
                    return Str(state->catalog->name());
                  }),
                  PgDoc("CurrentCatalog", "_FUNC_() - Returns the current catalog.")});
  out->push_back(
      {{"current_schemas"},
       {1, 1},
       Fixed(arrow::list(arrow::field("element", arrow::utf8()))),
       CurrentSchemas,
       PgDoc(
           "CurrentSchemas",
           "_FUNC_(include_implicit) - Returns the namespaces searched for names, pg_catalog first "
           "when include_implicit is true.")});
  out->push_back({{"current_user", "session_user", "user"},
                  {0, 0},
                  Fixed(text),
                  Constant([](CallBinder& b) -> Result<std::shared_ptr<arrow::Scalar>> {
                    ARROW_ASSIGN_OR_RAISE(SessionState * state, SessionOf(b));
                    return Str(PgUserName(*state));
                  }),
                  PgDoc("CurrentUser", "_FUNC_() - Returns the user of the session.")});
  out->push_back(
      {{"pg_backend_pid"},
       {0, 0},
       Fixed(arrow::int32()),
       Constant([](CallBinder& b) -> Result<std::shared_ptr<arrow::Scalar>> {
         ARROW_ASSIGN_OR_RAISE(SessionState * state, SessionOf(b));
         auto pid = floe::ParseInt32(state->Setting("floe.pg.backend_pid", "0"));
         return std::make_shared<arrow::Int32Scalar>(pid.value_or(0));
       }),
       PgDoc("PgBackendPid",
             "_FUNC_() - Returns the id of the server process serving the session, or 0.")});
  out->push_back({{"format_type"},
                  {2, 2},
                  Fixed(text),
                  RowCall("floe_pg_format_type"),
                  PgDoc("FormatType",
                        "_FUNC_(type_oid, typmod) - Returns the SQL name of a PostgreSQL type.")});
  out->push_back({{"pg_get_userbyid"},
                  {1, 1},
                  Fixed(text),
                  Constant([](CallBinder& b) -> Result<std::shared_ptr<arrow::Scalar>> {
                    ARROW_ASSIGN_OR_RAISE(SessionState * state, SessionOf(b));
                    return Str(PgUserName(*state));  // every object is the session user's
                  }),
                  PgDoc("PgGetUserById",
                        "_FUNC_(role_oid) - Returns the name of the role that owns an object.")});
  out->push_back(
      {{"pg_table_is_visible"},
       {1, 1},
       Fixed(arrow::boolean()),
       TableIsVisible,
       PgDoc("PgTableIsVisible",
             "_FUNC_(table_oid) - Returns whether the table is in the current namespace.")});
  out->push_back(
      {{"pg_type_is_visible", "pg_function_is_visible"},
       {1, 1},
       Fixed(arrow::boolean()),
       TrueValue(),
       PgDoc("PgTypeIsVisible", "_FUNC_(oid) - Returns true: every type is in pg_catalog.")});
  for (const char* name :
       {"pg_get_expr", "pg_get_constraintdef", "pg_get_indexdef", "obj_description",
        "col_description", "shobj_description", "pg_get_partkeydef",
        "pg_get_statisticsobjdef_columns", "pg_get_viewdef", "pg_get_triggerdef",
        "pg_get_function_result", "pg_get_function_arguments"}) {
    out->push_back(
        {{name},
         {1, 3},
         Fixed(text),
         NullOf(text),
         PgDoc("PgCatalogText",
               "_FUNC_(oid, ...) - Returns NULL: floe keeps no such definitions or comments.")});
  }
  out->push_back(
      {{"pg_encoding_to_char"},
       {1, 1},
       Fixed(text),
       Constant([](CallBinder&) -> Result<std::shared_ptr<arrow::Scalar>> { return Str("UTF8"); }),
       PgDoc("PgEncodingToChar",
             "_FUNC_(encoding) - Returns UTF8, the only encoding floe speaks.")});
  out->push_back({{"has_table_privilege", "has_schema_privilege", "has_database_privilege",
                   "has_any_column_privilege", "has_column_privilege"},
                  {1, 4},
                  Fixed(arrow::boolean()),
                  TrueValue(),
                  PgDoc("HasPrivilege",
                        "_FUNC_([user,] object, privilege) - Returns true: floe grants every "
                        "session everything.")});
  out->push_back(
      {{"pg_total_relation_size", "pg_relation_size", "pg_table_size", "pg_indexes_size",
        "pg_database_size"},
       {1, 2},
       Fixed(arrow::int64()),
       Constant([](CallBinder&) -> Result<std::shared_ptr<arrow::Scalar>> {
         return std::make_shared<arrow::Int64Scalar>(0);
       }),
       PgDoc("PgRelationSize",
             "_FUNC_(oid) - Returns 0: sizes are in the table's metadata tables.")});
  out->push_back({{"pg_size_pretty"},
                  {1, 1},
                  Fixed(text),
                  RowCall("floe_pg_size_pretty"),
                  PgDoc("PgSizePretty", "_FUNC_(bytes) - Formats a size in bytes with a unit.")});
  out->push_back({{"array_to_string"},
                  {2, 3},
                  Fixed(text),
                  RowCall("floe_pg_array_to_string"),
                  PgDoc("ArrayToString",
                        "_FUNC_(array, separator[, null_text]) - Joins an array's elements.")});
  out->push_back({{"array_cat"},
                  {2, 2},
                  Fixed(arrow::list(arrow::utf8())),
                  RowCall("floe_pg_array_cat"),
                  PgDoc("ArrayCat",
                        "_FUNC_(array1, array2) - Returns the elements of both arrays, as text; "
                        "`array1 || array2` for PostgreSQL clients.")});
  out->push_back({{"array_upper"},
                  {2, 2},
                  Fixed(arrow::int32()),
                  ArrayUpper,
                  PgDoc("ArrayUpper",
                        "_FUNC_(array, 1) - Returns the upper bound of a one-dimensional array.")});
  out->push_back(
      {{"array_contains"},
       {2, 2},
       Fixed(arrow::boolean()),
       [](CallBinder& b) -> Result<BoundExpr> {
         // x = ANY('{r,p}'): an array in PostgreSQL's text form, as psycopg binds a list.
         if (const Literal* array_text = b.StringLiteralArg(0)) {
           auto items = ParsePgArrayText(array_text->value);
           if (!items.ok()) return b.Error(b.call.args[0].pos, items.status().message());
           arrow::StringBuilder builder;
           for (const auto& item : *items) {
             ARROW_RETURN_NOT_OK(item ? builder.Append(*item) : builder.AppendNull());
           }
           ARROW_ASSIGN_OR_RAISE(auto values, builder.Finish());
           auto list = std::make_shared<arrow::ListScalar>(values);
           b.args[0] = BoundExpr{cp::literal(list), list->type, b.args[0].name};
           if (!IsString(*b.args[1].type)) {
             auto to = arrow::list(b.args[1].type);
             ARROW_ASSIGN_OR_RAISE(auto cast, cp::Cast(arrow::Datum(list), to));
             b.args[0] = BoundExpr{cp::literal(cast.scalar()), to, b.args[0].name};
           }
         }
         if (b.args[0].type->id() != arrow::Type::LIST) {
           return b.Error(b.expr.pos, "array_contains() takes an array first");
         }
         auto element = static_cast<const arrow::ListType&>(*b.args[0].type).value_type();
         ARROW_ASSIGN_OR_RAISE(BoundExpr value, b.Coerce(b.args[1], element));
         ARROW_RETURN_NOT_OK(RegisterRowKernels());
         return b.Make(cp::call("floe_pg_array_contains", {b.args[0].expr, value.expr}));
       },
       Doc("ArrayContains", "_FUNC_(array, value) - Returns true if the array contains the value.",
           {}, "1.5.0")});
  out->push_back(
      {{"replace"},
       {2, 3},
       Fixed(text),
       [](CallBinder& b) -> Result<BoundExpr> {
         const Literal* search = b.StringLiteralArg(1);
         const Literal* with = b.args.size() > 2 ? b.StringLiteralArg(2) : nullptr;
         if (!search || (b.args.size() > 2 && !with)) {
           return b.Error(b.expr.pos,
                          "replace() takes its search and replacement as string literals");
         }
         BoundExpr str = b.ToStringExpr(b.args[0]);
         return b.Make(
             cp::call("replace_substring", {str.expr},
                      cp::ReplaceSubstringOptions(search->value, with ? with->value : "")));
       },
       Doc("StringReplace",
           "_FUNC_(str, search[, replace]) - Replaces all occurrences of `search` with `replace`.",
           {{"SELECT _FUNC_('ABCabc', 'abc', 'DEF');", "ABCDEF"}}, "2.3.0")});
  out->push_back(
      {{"quote_ident"},
       {1, 1},
       Fixed(text),
       RowCall("floe_pg_quote_ident"),
       PgDoc("QuoteIdent",
             "_FUNC_(name) - Returns the name quoted as an SQL identifier where needed.")});
  out->push_back(
      {{"pg_relation_is_publishable"},
       {1, 1},
       Fixed(arrow::boolean()),
       [](CallBinder& b) -> Result<BoundExpr> { return b.Make(cp::literal(false)); },
       PgDoc("PgRelationIsPublishable", "_FUNC_(oid) - Returns false: floe has no publications.")});
  out->push_back(
      {{"txid_current"},
       {0, 0},
       Fixed(arrow::int64()),
       [](CallBinder& b) -> Result<BoundExpr> { return b.Make(cp::literal(b.ctx.now_micros)); },
       PgDoc(
           "TxidCurrent",
           "_FUNC_() - Returns an id of the statement (its start in microseconds): each statement "
           "commits on its own.")});
  out->push_back(
      {{"set_config"},
       {3, 3},
       Fixed(text),
       SetConfig,
       PgDoc("SetConfig",
             "_FUNC_(name, value, is_local) - Sets a session setting and returns the value.")});
  out->push_back({{"current_setting"},
                  {1, 2},
                  Fixed(text),
                  CurrentSetting,
                  PgDoc("CurrentSetting",
                        "_FUNC_(name[, missing_ok]) - Returns a setting's value, as SHOW does.")});
  out->push_back({{"pg_is_in_recovery"},
                  {0, 0},
                  Fixed(arrow::boolean()),
                  [](CallBinder& b) -> Result<BoundExpr> { return b.Make(cp::literal(false)); },
                  PgDoc("PgIsInRecovery", "_FUNC_() - Returns false: floe is never a standby.")});
  out->push_back(
      {{"regclass"},
       {1, 1},
       RegType,
       Regclass,
       PgDoc("Regclass",
             "_FUNC_(x) - x::regclass: a table's name to its oid, or an oid to its name.")});
  out->push_back({{"regnamespace"},
                  {1, 1},
                  RegType,
                  Regnamespace,
                  PgDoc("Regnamespace",
                        "_FUNC_(x) - x::regnamespace: a namespace's name to its oid, or back.")});
  out->push_back({{"to_regtype"},
                  {1, 1},
                  Fixed(arrow::int64()),
                  ToRegtype,
                  PgDoc("ToRegtype", "_FUNC_(name) - The type's oid, or NULL when there is none.")});
  out->push_back({{"to_regclass"},
                  {1, 1},
                  Fixed(arrow::int64()),
                  ToRegclass,
                  PgDoc("ToRegclass",
                        "_FUNC_(name) - The relation's oid, or NULL when there is none.")});
  out->push_back({{"regtype"},
                  {1, 1},
                  RegType,
                  Regtype,
                  PgDoc("Regtype", "_FUNC_(x) - x::regtype: a type's name to its oid, or back.")});
  out->push_back({{"regtype_array"},
                  {1, 1},
                  Fixed(arrow::list(arrow::utf8())),
                  RowCall("floe_pg_regtype_array"),
                  PgDoc("RegtypeArray",
                        "_FUNC_(x) - x::regtype[]: an array of type oids as the types' names.")});
  out->push_back(
      {{"regproc"},
       {1, 1},
       Fixed(text),
       Regproc,
       PgDoc("Regproc",
             "_FUNC_(x) - x::regproc: a function's name without its schema, or an oid as text; "
             "floe keeps functions by name.")});
  out->push_back(
      {{"regrole"},
       {1, 1},
       RegType,
       Regrole,
       PgDoc("Regrole", "_FUNC_(x) - x::regrole: the session user's name to its oid, or back.")});
}

}  // namespace floe::sql::functions
