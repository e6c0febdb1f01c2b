#include "floe/sql/bind/expression_binder_internal.h"
#include "floe/sql/postgres/pg_catalog_tables.h"
#include "floe/sql/types/integer_remainder.h"

namespace floe::sql::binding {

Result<BoundExpr> ExpressionBinder::PlanNode(const Unary& u, const Expr& e) {
  ARROW_ASSIGN_OR_RAISE(auto v, Plan(*u.operand));
  switch (u.op) {
    case UnaryOp::kNot: {
      ARROW_ASSIGN_OR_RAISE(v, Coerce(v, arrow::boolean(), e.pos));
      return BoundExpr{cp::call("invert", {v.expr}), arrow::boolean(), "(NOT " + v.name + ")"};
    }
    case UnaryOp::kMinus:
      return BoundExpr{cp::call("negate", {v.expr}), v.type, "(- " + v.name + ")"};
    case UnaryOp::kPlus:
      return v;
    case UnaryOp::kBitNot:
      return BoundExpr{cp::call("bit_wise_not", {v.expr}), v.type, "~" + v.name};
  }
  return Error(e.pos, "unknown unary operator");
}

Result<BoundExpr> ExpressionBinder::Coerce(BoundExpr v, const std::shared_ptr<ArrowType>& to, const SourcePos& pos) {
  if (v.type->Equals(*to)) return v;
  if (IsNullType(*v.type)) return BoundExpr{cp::literal(arrow::MakeNullScalar(to)), to, v.name};
  if (to->id() == arrow::Type::BOOL && !IsString(*v.type)) {
    return Error(pos, StrCat("[DATATYPE_MISMATCH] ", v.name, " is of type ", v.type->ToString(),
                             ", but a BOOLEAN is required"));
  }
  v.expr = CastTo(v.expr, v.type, to);
  v.type = to;
  return v;
}

namespace {

bool IsComparison(BinaryOp op) {
  return op == BinaryOp::kEq || op == BinaryOp::kNe || op == BinaryOp::kLt || op == BinaryOp::kLe ||
         op == BinaryOp::kGt || op == BinaryOp::kGe;
}

// The argument of x::regtype, x::regclass, ... (a call of that name), or null.
const Expr* PgObjectCast(const Expr& e) {
  const auto* f = e.As<FunctionCall>();
  if (!f || f->args.size() != 1) return nullptr;
  const std::string name = Lower(f->name.parts.back().name);
  for (const char* kind : {"regtype", "regclass", "regnamespace", "regproc", "regrole"}) {
    if (name == kind) return &f->args[0];
  }
  return nullptr;
}

}  // namespace

Result<BoundExpr> ExpressionBinder::PlanNode(const Binary& bin, const Expr& e) {
  if (IsComparison(bin.op) && ctx_.session && IsPgClient(*ctx_.session) && PgObjectCast(*bin.left) &&
      PgObjectCast(*bin.right)) {
    // PostgreSQL compares regtype (regclass, ...) values as oids: a side that casts an oid
    // compares that oid, a side that casts a name its oid (`prorettype::regtype !=
    // 'trigger'::regtype`).
    Binary oids = bin;
    bool changed = false;
    for (ExprBox* side : {&oids.left, &oids.right}) {
      const Expr* operand = PgObjectCast(**side);
      Result<BoundExpr> bound = Plan(*operand);
      if (bound.ok() && IsInteger(*bound->type)) {
        *side = ExprBox(*operand);
        changed = true;
      }
    }
    if (changed) return Plan(Expr{std::move(oids), e.pos});
  }
  ARROW_ASSIGN_OR_RAISE(auto l, Plan(*bin.left));
  ARROW_ASSIGN_OR_RAISE(auto r, Plan(*bin.right));
  NoteParameterType(bin, l, r);
  std::string name = "(" + l.name + " " + BinaryOpName(bin.op) + " " + r.name + ")";
  auto boolean = arrow::boolean();
  switch (bin.op) {
    case BinaryOp::kAnd:
    case BinaryOp::kOr: {
      ARROW_ASSIGN_OR_RAISE(l, Coerce(l, boolean, bin.left->pos));
      ARROW_ASSIGN_OR_RAISE(r, Coerce(r, boolean, bin.right->pos));
      return BoundExpr{cp::call(bin.op == BinaryOp::kAnd ? "and_kleene" : "or_kleene", {l.expr, r.expr}),
                       boolean, name};
    }
    case BinaryOp::kEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe:
    case BinaryOp::kNullSafeEq:
    case BinaryOp::kIsDistinctFrom: {
      ARROW_RETURN_NOT_OK(Unify(&l, &r, *bin.left, *bin.right, e.pos));
      if (IsNullType(*l.type)) {
        // NULL compared with NULL: give the kernels a type to work on.
        l.expr = CastTo(l.expr, l.type, arrow::int32());
        r.expr = CastTo(r.expr, r.type, arrow::int32());
        l.type = r.type = arrow::int32();
      }
      bool floating = IsFloating(*l.type);
      if (bin.op == BinaryOp::kNullSafeEq || bin.op == BinaryOp::kIsDistinctFrom) {
        auto both_null = cp::and_(cp::call("is_null", {l.expr}), cp::call("is_null", {r.expr}));
        auto any_null = cp::or_(cp::is_null(l.expr), cp::is_null(r.expr));
        auto eq = cp::call("if_else", {any_null, both_null, Compare(BinaryOp::kEq, l.expr, r.expr, floating)});
        if (bin.op == BinaryOp::kIsDistinctFrom) eq = cp::call("invert", {eq});
        return BoundExpr{eq, boolean, name};
      }
      return BoundExpr{Compare(bin.op, l.expr, r.expr, floating), boolean, name};
    }
    case BinaryOp::kConcat: {
      // For PostgreSQL clients an array on either side makes `||` array_cat (the other side is
      // an array in PostgreSQL's text form, as the pg_catalog relations hold them).
      if (ctx_.session && IsPgClient(*ctx_.session) &&
          (l.type->id() == arrow::Type::LIST || r.type->id() == arrow::Type::LIST)) {
        FunctionCall call;
        call.name.parts.push_back(Identifier{"array_cat", false, e.pos});
        call.args = {*bin.left, *bin.right};
        return Plan(Expr{std::move(call), e.pos});
      }
      ARROW_ASSIGN_OR_RAISE(l, ToStringExpr(l));
      ARROW_ASSIGN_OR_RAISE(r, ToStringExpr(r));
      return BoundExpr{cp::call("binary_join_element_wise", {l.expr, r.expr, cp::literal(arrow::StringScalar(""))}),
                       arrow::utf8(), name};
    }
    case BinaryOp::kAdd:
    case BinaryOp::kSubtract:
    case BinaryOp::kMultiply:
    case BinaryOp::kDivide:
    case BinaryOp::kModulo:
    case BinaryOp::kIntDivide:
      return Arithmetic(bin.op, l, r, *bin.left, *bin.right, e, name);
    case BinaryOp::kBitAnd:
    case BinaryOp::kBitOr:
    case BinaryOp::kBitXor: {
      ARROW_RETURN_NOT_OK(Unify(&l, &r, *bin.left, *bin.right, e.pos));
      const char* fn = bin.op == BinaryOp::kBitAnd ? "bit_wise_and" : bin.op == BinaryOp::kBitOr ? "bit_wise_or" : "bit_wise_xor";
      return BoundExpr{cp::call(fn, {l.expr, r.expr}), l.type, name};
    }
  }
  return Error(e.pos, "unsupported operator");
}

Result<BoundExpr> ExpressionBinder::ToStringExpr(BoundExpr v) {
  if (IsString(*v.type)) return v;
  v.expr = CastTo(v.expr, v.type, arrow::utf8());
  v.type = arrow::utf8();
  return v;
}

Result<BoundExpr> ExpressionBinder::IntervalArithmetic(BinaryOp op, BoundExpr l, BoundExpr r, const Expr& el, const Expr& er,
                                     const Expr& e, const std::string& name) {
  auto mismatch = [&]() {
    return Error(e.pos, StrCat("[DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES] Cannot resolve \"", name,
                               "\" due to data type mismatch: the left and right operands have different types (\"",
                               SqlTypeName(*l.type), "\" and \"", SqlTypeName(*r.type), "\")."));
  };
  bool add = op == BinaryOp::kAdd;
  if (!add && op != BinaryOp::kSubtract) return mismatch();
  auto duration = arrow::duration(arrow::TimeUnit::MICRO);
  for (BoundExpr* side : {&l, &r}) {
    if (IsNullType(*side->type)) *side = BoundExpr{cp::literal(arrow::MakeNullScalar(duration)), duration, side->name};
  }
  bool l_interval = l.type->id() == arrow::Type::DURATION;
  bool r_interval = r.type->id() == arrow::Type::DURATION;
  if (l_interval && r_interval) {
    return BoundExpr{cp::call(add ? "add" : "subtract", {l.expr, r.expr}), duration, name};
  }
  // interval + x is x + interval; interval - x has no meaning.
  if (l_interval) {
    if (!add) return mismatch();
    std::swap(l, r);
  }
  const Expr& interval_expr = l_interval ? el : er;
  const Expr& other_expr = l_interval ? er : el;
  if (IsString(*l.type)) {
    // Text is read as a timestamp in the session time zone, as Spark casts it.
    auto type = arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
    if (const Literal* text = AsStringLiteral(other_expr)) {
      Result<int64_t> micros = ParseTimestampMicros(text->value, ctx_.time_zone);
      if (!micros.ok()) return Error(other_expr.pos, micros.status().message());
      l = BoundExpr{cp::literal(arrow::TimestampScalar(*micros, type)), type, l.name};
    } else {
      l = BoundExpr{cp::call("cast", {l.expr}, cp::CastOptions::Safe(type)), type, l.name};
    }
  }
  if (IsDate(*l.type) && IsDayInterval(interval_expr)) {
    auto days = cp::call("divide", {cp::call("cast", {r.expr}, cp::CastOptions::Unsafe(arrow::int64())),
                                    cp::literal(int64_t{86400000000LL})});
    auto as_int = cp::call("cast", {l.expr}, cp::CastOptions::Unsafe(arrow::int32()));
    auto moved = cp::call(add ? "add" : "subtract", {as_int, cp::call("cast", {days}, cp::CastOptions::Unsafe(arrow::int32()))});
    return BoundExpr{cp::call("cast", {moved}, cp::CastOptions::Unsafe(arrow::date32())), arrow::date32(), name};
  }
  if (IsDate(*l.type)) {
    l.expr = DateAsTimestamp(l.expr);
    l.type = arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
  }
  if (!IsTimestamp(*l.type)) return mismatch();
  return BoundExpr{cp::call(add ? "add" : "subtract", {l.expr, r.expr}), l.type, name};
}

Result<BoundExpr> ExpressionBinder::Arithmetic(BinaryOp op, BoundExpr l, BoundExpr r, const Expr& el, const Expr& er,
                             const Expr& e, const std::string& name) {
  if (l.type->id() == arrow::Type::DURATION || r.type->id() == arrow::Type::DURATION) {
    return IntervalArithmetic(op, std::move(l), std::move(r), el, er, e, name);
  }
  // Dates and timestamps plus/minus integers (days) as Spark's date_add.
  if (IsDate(*l.type) && IsInteger(*r.type) && (op == BinaryOp::kAdd || op == BinaryOp::kSubtract)) {
    auto days = CastTo(r.expr, r.type, arrow::int32());
    auto as_int = cp::call("cast", {l.expr}, cp::CastOptions::Unsafe(arrow::int32()));
    auto sum = cp::call(op == BinaryOp::kAdd ? "add" : "subtract", {as_int, days});
    return BoundExpr{cp::call("cast", {sum}, cp::CastOptions::Unsafe(arrow::date32())), arrow::date32(), name};
  }
  for (BoundExpr* side : {&l, &r}) {
    if (IsString(*side->type)) {
      side->expr = CastTo(side->expr, side->type, arrow::float64());
      side->type = arrow::float64();
    }
  }
  if (!(IsNumeric(*l.type) || IsNullType(*l.type)) || !(IsNumeric(*r.type) || IsNullType(*r.type))) {
    return Error(e.pos, StrCat("[DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE] Cannot resolve \"", name,
                               "\" due to data type mismatch: the operands must be numeric (\"",
                               l.type->ToString(), "\" and \"", r.type->ToString(), "\")."));
  }
  if ((IsDecimal(*l.type) || IsDecimal(*r.type)) && !IsFloating(*l.type) && !IsFloating(*r.type) &&
      op != BinaryOp::kIntDivide) {
    return DecimalArithmetic(op, l, r, el, er, name);
  }
  if (op == BinaryOp::kDivide) {
    // Spark: `/` on integers and floats is double division (decimals are planned above).
    l.expr = CastTo(l.expr, l.type, arrow::float64());
    r.expr = CastTo(r.expr, r.type, arrow::float64());
    auto div = cp::call("divide", {l.expr, r.expr});
    // Division by zero is NULL, not an error or infinity.
    auto zero = cp::equal(r.expr, cp::literal(0.0));
    return BoundExpr{cp::call("if_else", {zero, cp::literal(arrow::MakeNullScalar(arrow::float64())), div}),
                     arrow::float64(), name};
  }
  if (op == BinaryOp::kIntDivide) {
    auto li = CastTo(l.expr, l.type, arrow::int64());
    auto ri = CastTo(r.expr, r.type, arrow::int64());
    auto zero = cp::equal(ri, cp::literal(int64_t{0}));
    // x div -1 is -x, wrapping at the minimum as Java's long division does.
    auto minus_one = cp::equal(ri, cp::literal(int64_t{-1}));
    auto safe_r = cp::call("if_else", {cp::or_(zero, minus_one), cp::literal(int64_t{1}), ri});
    auto div = cp::call("if_else", {minus_one, cp::call("negate", {li}), cp::call("divide", {li, safe_r})});
    return BoundExpr{cp::call("if_else", {zero, cp::literal(arrow::MakeNullScalar(arrow::int64())), div}),
                     arrow::int64(), name};
  }
  if (op == BinaryOp::kModulo) {
    auto common = CommonType(l.type, r.type);
    if (!common || IsNullType(*common)) common = arrow::int32();
    auto a = CastTo(l.expr, l.type, common);
    auto b = CastTo(r.expr, r.type, common);
    if (IsFloating(*common)) {
      // x % 0 is NULL for every numeric type (Spark without ANSI mode).
      auto zero = cp::equal(b, CastTo(cp::literal(0), arrow::int32(), common));
      auto null_value = cp::literal(arrow::MakeNullScalar(common));
      auto q = cp::call("trunc", {cp::call("divide", {a, b})});
      auto rem = cp::call("subtract", {a, cp::call("multiply", {q, b})});
      return BoundExpr{cp::call("if_else", {zero, null_value, rem}), common, name};
    }
    return BoundExpr{IntegerRemainder(a, b), common, name};
  }
  const char* fn = op == BinaryOp::kAdd ? "add" : op == BinaryOp::kSubtract ? "subtract" : "multiply";
  auto common = CommonType(l.type, r.type);
  if (!common || IsNullType(*common)) common = IsNullType(*l.type) ? r.type : l.type;
  if (IsNullType(*common)) common = arrow::int32();
  auto a = CastTo(l.expr, l.type, common);
  auto b = CastTo(r.expr, r.type, common);
  return BoundExpr{cp::call(fn, {a, b}), common, name};
}

Result<BoundExpr> ExpressionBinder::DecimalArithmetic(BinaryOp op, BoundExpr l, BoundExpr r, const Expr& el, const Expr& er,
                                    const std::string& name) {
  // NULL next to a decimal takes its type.
  if (IsNullType(*l.type)) l = BoundExpr{cp::literal(arrow::MakeNullScalar(r.type)), r.type, l.name};
  if (IsNullType(*r.type)) r = BoundExpr{cp::literal(arrow::MakeNullScalar(l.type)), l.type, r.name};
  DecimalSpec dl = OperandDecimal(l, el);
  DecimalSpec dr = OperandDecimal(r, er);
  DecimalSpec out;
  DecimalOp kernel;
  switch (op) {
    case BinaryOp::kAdd: out = AddResult(dl, dr), kernel = DecimalOp::kAdd; break;
    case BinaryOp::kSubtract: out = AddResult(dl, dr), kernel = DecimalOp::kSubtract; break;
    case BinaryOp::kMultiply: out = MultiplyResult(dl, dr), kernel = DecimalOp::kMultiply; break;
    case BinaryOp::kDivide: out = DivideResult(dl, dr), kernel = DecimalOp::kDivide; break;
    default: out = RemainderResult(dl, dr), kernel = DecimalOp::kRemainder; break;
  }
  // The kernels read any decimal128: integers go to their own width (Arrow's cast checks the
  // type's range, not the value's), the literal rule above only shapes the result type.
  auto as_decimal = [](const BoundExpr& v) {
    if (IsDecimal(*v.type)) return v.expr;
    DecimalSpec d = ForIntegralType(*v.type).value_or(DecimalSpec{20, 0});
    return CastTo(v.expr, v.type, arrow::decimal128(d.precision, d.scale));
  };
  auto a = as_decimal(l);
  auto b = as_decimal(r);
  return BoundExpr{DecimalCall(kernel, {a, b}, out), arrow::decimal128(out.precision, out.scale), name};
}

Result<BoundExpr> ExpressionBinder::PlanNode(const IsNull& n, const Expr& /*e*/) {
  ARROW_ASSIGN_OR_RAISE(auto v, Plan(*n.operand));
  return BoundExpr{n.negated ? cp::call("is_valid", {v.expr}) : cp::call("is_null", {v.expr}), arrow::boolean(),
                   "(" + v.name + (n.negated ? " IS NOT NULL)" : " IS NULL)")};
}

Result<BoundExpr> ExpressionBinder::PlanNode(const IsBool& n, const Expr& e) {
  ARROW_ASSIGN_OR_RAISE(auto v, Plan(*n.operand));
  ARROW_ASSIGN_OR_RAISE(v, Coerce(v, arrow::boolean(), e.pos));
  cp::Expression test;
  if (!n.value) {
    test = cp::call("is_null", {v.expr});
  } else {
    auto eq = cp::equal(v.expr, cp::literal(*n.value));
    test = cp::call("if_else", {cp::call("is_null", {v.expr}), cp::literal(false), eq});
  }
  if (n.negated) test = cp::call("invert", {test});
  return BoundExpr{test, arrow::boolean(), ToSql(e)};
}

Result<BoundExpr> ExpressionBinder::PlanNode(const Between& b, const Expr& e) {
  ARROW_ASSIGN_OR_RAISE(auto v, Plan(*b.operand));
  ARROW_ASSIGN_OR_RAISE(auto lo, Plan(*b.low));
  ARROW_ASSIGN_OR_RAISE(auto hi, Plan(*b.high));
  BoundExpr v2 = v;
  ARROW_RETURN_NOT_OK(Unify(&v, &lo, *b.operand, *b.low, e.pos));
  ARROW_RETURN_NOT_OK(Unify(&v2, &hi, *b.operand, *b.high, e.pos));
  auto test = cp::call("and_kleene", {Compare(BinaryOp::kGe, v.expr, lo.expr, IsFloating(*v.type)),
                                      Compare(BinaryOp::kLe, v2.expr, hi.expr, IsFloating(*v2.type))});
  if (b.negated) test = cp::call("invert", {test});
  return BoundExpr{test, arrow::boolean(), ToSql(e)};
}

Result<BoundExpr> ExpressionBinder::PlanNode(const InList& in, const Expr& e) {
  ARROW_ASSIGN_OR_RAISE(auto v, Plan(*in.operand));
  std::vector<BoundExpr> lefts;
  std::vector<BoundExpr> items;
  lefts.reserve(in.list.size());
  items.reserve(in.list.size());
  for (const auto& item : in.list) {
    ARROW_ASSIGN_OR_RAISE(auto x, Plan(item));
    BoundExpr left = v;
    ARROW_RETURN_NOT_OK(Unify(&left, &x, *in.operand, item, e.pos));
    if (IsNullType(*left.type)) {
      // NULL against NULL: give the kernels a type, as comparisons do.
      left.expr = CastTo(left.expr, left.type, arrow::int32());
      x.expr = CastTo(x.expr, x.type, arrow::int32());
      left.type = x.type = arrow::int32();
    }
    lefts.push_back(std::move(left));
    items.push_back(std::move(x));
  }
  // Constant items probed with one value: a single hash lookup, however long the list.
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Array> values, ConstantSet(lefts, items));
  cp::Expression result;
  if (values) {
    result = SetMembership(lefts[0].expr, values);
  } else {
    // Otherwise one comparison per item, OR-ed by one variadic call rather than a chain of
    // or_kleene, whose depth Arrow's evaluator (and its canonical left-deep form) recurses.
    std::vector<cp::Expression> tests;
    tests.reserve(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      tests.push_back(Compare(BinaryOp::kEq, lefts[i].expr, items[i].expr, IsFloating(*lefts[i].type)));
    }
    result = AnyOf(tests);
  }
  if (in.negated) result = cp::call("invert", {result});
  return BoundExpr{result, arrow::boolean(), ToSql(e)};
}

Result<BoundExpr> ExpressionBinder::PlanNode(const InSubquery& in, const Expr& e) {
  ARROW_ASSIGN_OR_RAISE(auto v, Plan(*in.operand));
  if (!ctx_.run_subquery) return Error(e.pos, "Subqueries are not supported here");
  ARROW_ASSIGN_OR_RAISE(auto rows, ctx_.run_subquery(*in.query));
  if (rows->num_columns() != 1) {
    return Error(e.pos, "[INVALID_SUBQUERY_EXPRESSION] The IN subquery must return exactly one column");
  }
  ARROW_ASSIGN_OR_RAISE(auto values, arrow::Concatenate(rows->column(0)->chunks()));
  auto common = CommonType(v.type, values->type());
  if (!common) return Error(e.pos, "IN subquery type mismatch");
  ARROW_ASSIGN_OR_RAISE(auto cast_values, cp::Cast(values, common));
  auto lhs = CastTo(v.expr, v.type, common);
  cp::Expression result = SetMembership(lhs, cast_values.make_array());
  if (in.negated) result = cp::call("invert", {result});
  return BoundExpr{result, arrow::boolean(), ToSql(e)};
}

// A LIKE pattern that is a constant: a string literal, or an expression of no column such as
// PostgreSQL clients send (`$1::VARCHAR`, `'pg_%'::text`); null for a NULL pattern.
Result<std::optional<std::string>> ExpressionBinder::ConstantPattern(const Expr& pattern) {
  const Literal* literal = pattern.As<Literal>();
  if (literal && literal->kind == LiteralKind::kString) return std::optional<std::string>(literal->value);
  Status not_constant = Error(pattern.pos, "LIKE patterns must be string literals");
  auto bound = Plan(pattern);
  if (!bound.ok() || !cp::FieldsInExpression(bound->expr).empty()) return not_constant;
  ARROW_ASSIGN_OR_RAISE(bound, ToStringExpr(*bound));
  ARROW_ASSIGN_OR_RAISE(auto expr, bound->expr.Bind(arrow::Schema({})));
  auto batch = arrow::RecordBatch::Make(arrow::schema({}), 1, arrow::ArrayVector{});
  auto datum = cp::ExecuteScalarExpression(expr, cp::ExecBatch(*batch));
  if (!datum.ok()) return not_constant;
  std::shared_ptr<arrow::Scalar> value;
  if (datum->is_scalar()) {
    value = datum->scalar();
  } else {
    ARROW_ASSIGN_OR_RAISE(value, datum->make_array()->GetScalar(0));
  }
  if (!value->is_valid) return std::optional<std::string>();
  if (value->type->id() != arrow::Type::STRING) return not_constant;
  return std::optional<std::string>(static_cast<const arrow::StringScalar&>(*value).value->ToString());
}

Result<BoundExpr> ExpressionBinder::PlanNode(const Like& like, const Expr& e) {
  ARROW_ASSIGN_OR_RAISE(auto v, Plan(*like.operand));
  ARROW_ASSIGN_OR_RAISE(std::optional<std::string> pattern, ConstantPattern(*like.pattern));
  if (!pattern) return BoundExpr{cp::literal(arrow::MakeNullScalar(arrow::boolean())), arrow::boolean(), ToSql(e)};
  ARROW_ASSIGN_OR_RAISE(v, ToStringExpr(v));
  cp::Expression test;
  if (like.kind == LikeKind::kRLike) {
    test = cp::call("match_substring_regex", {v.expr}, cp::MatchSubstringOptions(*pattern));
  } else {
    test = cp::call("match_like", {v.expr}, cp::MatchSubstringOptions(*pattern, like.kind == LikeKind::kILike));
  }
  if (like.negated) test = cp::call("invert", {test});
  return BoundExpr{test, arrow::boolean(), ToSql(e)};
}

}  // namespace floe::sql::binding
