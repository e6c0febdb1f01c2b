#pragma once

// The syntax tree of floe's SQL: what the parser produces and the binder consumes.
//
// Longer than most files on purpose: the variants of Expr, Relation and Statement need every
// node type complete where they are declared, so the whole grammar's shape lives here, one
// struct per construct.
//
// Nodes are plain structs. A node that can take several shapes (Expr, Relation, Statement,
// AlterTable's action, a query body) holds a std::variant, so consumers dispatch with
// std::visit or std::get_if. Children are owned through Box<T>, a copyable owning pointer,
// so the whole tree is a value: copies are deep and `==` compares structure. Source
// positions ride along on nodes but never take part in `==`, nor does the quoting of an
// identifier; the printer (ToSql) and the parser therefore round-trip to an equal tree.
//
// Names are kept exactly as written: a table reference is a list of name parts
// (`lakehouse.gold.t.snapshots`, `t.branch_b`, "t$history", `t.snapshot_id_1`), and the
// binder decides which parts are catalog, namespace, table, metadata table or reference.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "floe/sql/parse/token.h"

namespace floe::sql {

// A copyable owning pointer whose == compares the pointees (two empty Boxes are equal).
template <typename T>
class Box {
 public:
  Box() = default;
  Box(T value) : ptr_(std::make_unique<T>(std::move(value))) {}  // NOLINT: implicit by design
  Box(const Box& other) : ptr_(other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr) {}
  Box(Box&&) noexcept = default;
  Box& operator=(const Box& other) {
    if (this != &other) ptr_ = other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr;
    return *this;
  }
  Box& operator=(Box&&) noexcept = default;
  ~Box() = default;

  explicit operator bool() const { return ptr_ != nullptr; }
  T& operator*() const { return *ptr_; }
  T* operator->() const { return ptr_.get(); }
  T* get() const { return ptr_.get(); }

  friend bool operator==(const Box& a, const Box& b) {
    if (!a.ptr_ || !b.ptr_) return !a.ptr_ && !b.ptr_;
    return *a.ptr_ == *b.ptr_;
  }

 private:
  std::unique_ptr<T> ptr_;
};

// One name part. `quoted` records that it was written `quoted` or "quoted"; it is
// informational (Spark resolves names case-insensitively either way) and ignored by ==.
struct Identifier {
  std::string name;
  bool quoted = false;
  SourcePos pos;

  friend bool operator==(const Identifier& a, const Identifier& b) { return a.name == b.name; }
};

// A multi-part name as written: catalog.namespace.table[.metadata_table], ns, proc names.
struct ObjectName {
  std::vector<Identifier> parts;
  SourcePos pos;

  bool operator==(const ObjectName&) const = default;
};

// ---------------------------------------------------------------------------------------
// Data types

enum class TypeKind {
  kBoolean,
  kTinyInt,
  kSmallInt,
  kInt,
  kBigInt,
  kFloat,
  kDouble,
  kDecimal,
  kString,
  kVarchar,
  kChar,
  kBinary,
  kDate,
  kTimestamp,     // Spark's TIMESTAMP: with local time zone (Iceberg timestamptz)
  kTimestampNtz,  // Iceberg timestamp
  kTimestampLtz,  // the same as kTimestamp, when spelled TIMESTAMP_LTZ / WITH TIME ZONE
  kArray,
  kMap,
  kStruct,
};

struct StructField;

struct DataType {
  TypeKind kind = TypeKind::kString;
  // decimal(p, s): -1 when not written (Spark's defaults are decimal(10, 0)).
  int32_t precision = -1;
  int32_t scale = -1;
  int32_t length = -1;               // varchar(n), char(n)
  std::vector<DataType> children;    // array: element; map: key, value
  std::vector<StructField> fields;   // struct
  SourcePos pos;

  bool operator==(const DataType&) const = default;
};

struct StructField {
  Identifier name;
  DataType type;
  bool not_null = false;
  std::optional<std::string> comment;

  bool operator==(const StructField&) const = default;
};

// ---------------------------------------------------------------------------------------
// Expressions

struct Expr;
struct Query;
using ExprBox = Box<Expr>;

enum class LiteralKind {
  kNull,
  kBoolean,   // value "true" / "false"
  kInteger,   // 42; value may be "-42": a minus before a number folds into the literal
  kBigInt,    // 42L
  kSmallInt,  // 42S
  kTinyInt,   // 42Y
  kDecimal,   // 1.5, 1.5BD
  kDouble,    // 1.5e3, 1.5D
  kFloat,     // 1.5F
  kString,    // value decoded
  kBinary,    // X'0AFF': value the hex digits
  kDate,      // DATE '2025-06-15': value the string
  kTimestamp,     // TIMESTAMP '...' (a Trino zone suffix like ' UTC' stays in the value)
  kTimestampNtz,  // TIMESTAMP_NTZ '...'
  kTimestampLtz,  // TIMESTAMP_LTZ '...'
};

// Numbers keep their text (without suffix) so the binder types them without loss;
// suffixed integers are range-checked by the parser.
struct Literal {
  LiteralKind kind = LiteralKind::kNull;
  std::string value;
  // A string written in double quotes, alone: Spark's string, a name for PostgreSQL clients
  // (SELECT "id" FROM "ns"."t"), which the binder resolves as a column there.
  bool double_quoted = false;

  bool operator==(const Literal&) const = default;
};

// INTERVAL literal: `INTERVAL '1' DAY`, `INTERVAL 3 HOURS 15 MINUTES`,
// `INTERVAL '1-2' YEAR TO MONTH`, `INTERVAL '1 day 2 hours'` (one field, no unit).
struct IntervalField {
  std::string value;        // number text (maybe "-3") or decoded string
  bool is_string = false;   // written as '...'
  std::string unit;         // YEAR MONTH WEEK DAY HOUR MINUTE SECOND MILLISECOND MICROSECOND or ""
  std::string to_unit;      // for YEAR TO MONTH etc., else ""

  bool operator==(const IntervalField&) const = default;
};

struct IntervalLiteral {
  std::vector<IntervalField> fields;

  bool operator==(const IntervalLiteral&) const = default;
};

// `a`, `t.a`, `ns.t.a`, `s.field`: the binder splits qualifier from field access.
struct ColumnRef {
  std::vector<Identifier> parts;

  bool operator==(const ColumnRef&) const = default;
};

// `*` or `t.*` (a select item or the argument of count(*)).
struct Star {
  std::vector<Identifier> qualifier;

  bool operator==(const Star&) const = default;
};

enum class UnaryOp { kNot, kMinus, kPlus, kBitNot };

struct Unary {
  UnaryOp op = UnaryOp::kNot;
  ExprBox operand;

  bool operator==(const Unary&) const = default;
};

enum class BinaryOp {
  kOr,
  kAnd,
  kEq,              // = or ==
  kNullSafeEq,      // <=>, IS NOT DISTINCT FROM
  kIsDistinctFrom,  // IS DISTINCT FROM
  kNe,              // <> or !=
  kLt,
  kLe,
  kGt,
  kGe,
  kBitOr,
  kBitXor,
  kBitAnd,
  kAdd,
  kSubtract,
  kConcat,  // ||
  kMultiply,
  kDivide,
  kModulo,
  kIntDivide,  // DIV
};

struct Binary {
  BinaryOp op = BinaryOp::kEq;
  ExprBox left;
  ExprBox right;

  bool operator==(const Binary&) const = default;
};

struct IsNull {
  ExprBox operand;
  bool negated = false;  // IS NOT NULL

  bool operator==(const IsNull&) const = default;
};

// x IS [NOT] TRUE / FALSE / UNKNOWN.
struct IsBool {
  ExprBox operand;
  std::optional<bool> value;  // nullopt: UNKNOWN
  bool negated = false;

  bool operator==(const IsBool&) const = default;
};

struct Between {
  ExprBox operand;
  ExprBox low;
  ExprBox high;
  bool negated = false;

  bool operator==(const Between&) const = default;
};

struct InList {
  ExprBox operand;
  std::vector<Expr> list;
  bool negated = false;

  bool operator==(const InList&) const = default;
};

struct InSubquery {
  ExprBox operand;
  Box<Query> query;
  bool negated = false;

  bool operator==(const InSubquery&) const = default;
};

enum class LikeKind { kLike, kILike, kRLike };

struct Like {
  LikeKind kind = LikeKind::kLike;
  ExprBox operand;
  ExprBox pattern;
  ExprBox escape;  // ESCAPE 'c', optional
  bool negated = false;

  bool operator==(const Like&) const = default;
};

// EXISTS (query). NOT EXISTS is Unary{kNot, Exists}.
struct Exists {
  Box<Query> query;

  bool operator==(const Exists&) const = default;
};

// (SELECT ...) used as a value.
struct ScalarSubquery {
  Box<Query> query;

  bool operator==(const ScalarSubquery&) const = default;
};

struct WhenClause;

// CASE [operand] WHEN ... THEN ... [ELSE ...] END; operand set for the simple form.
struct Case {
  ExprBox operand;
  std::vector<WhenClause> whens;
  ExprBox else_result;

  bool operator==(const Case&) const = default;
};

// CAST(x AS t), TRY_CAST(x AS t), and x::t (read as CAST).
struct Cast {
  ExprBox operand;
  DataType type;
  bool is_try = false;

  bool operator==(const Cast&) const = default;
};

struct WindowSpec;

// PostgreSQL's ARRAY(query) is a call of this name on the query (a ScalarSubquery argument):
// the query's one column as an array.
inline constexpr char kArrayOfQueryFunction[] = "array_of_query";

struct OrderItem;

// f(args), count(*), count(DISTINCT a), and window functions f(args) OVER (...). Bare
// CURRENT_DATE / CURRENT_TIMESTAMP are calls with no arguments.
struct FunctionCall {
  ObjectName name;
  std::vector<Expr> args;
  bool distinct = false;
  bool star = false;  // f(*)
  bool ignore_nulls = false;  // f(x) IGNORE NULLS OVER (...)
  Box<WindowSpec> over;
  // PostgreSQL's agg(x ORDER BY y): parsed so that catalog queries over empty relations are
  // answered; the binder refuses it wherever it would compute a value.
  std::vector<OrderItem> order_by;

  bool operator==(const FunctionCall&) const = default;
};

// base[index]: arrays and maps (summary['total-records']).
struct Subscript {
  ExprBox base;
  ExprBox index;

  bool operator==(const Subscript&) const = default;
};

// expr.field where expr is not a plain name (names stay ColumnRef parts).
struct FieldAccess {
  ExprBox base;
  Identifier field;

  bool operator==(const FieldAccess&) const = default;
};

// $n: a statement parameter the session had no value for when parsing (Session::Describe).
// With values, the parser puts each value's literal in its place instead.
struct ParameterRef {
  int32_t index = 0;  // n, from 1

  bool operator==(const ParameterRef&) const = default;
};

struct Expr {
  using Node = std::variant<Literal, IntervalLiteral, ColumnRef, Star, Unary, Binary, IsNull,
                            IsBool, Between, InList, InSubquery, Like, Exists, ScalarSubquery,
                            Case, Cast, FunctionCall, Subscript, FieldAccess, ParameterRef>;
  Node node;
  SourcePos pos;  // where it starts; for a binary operator, the operator

  template <typename T>
  const T* As() const {
    return std::get_if<T>(&node);
  }
  template <typename T>
  bool Is() const {
    return std::holds_alternative<T>(node);
  }
  bool operator==(const Expr&) const = default;
};

struct WhenClause {
  Expr condition;
  Expr result;

  bool operator==(const WhenClause&) const = default;
};

// ---------------------------------------------------------------------------------------
// Relations (FROM items)

// The time-travel clause of a table reference, written after the name and before the
// alias. Every spelling maps to one of two kinds:
//   kVersion:   VERSION AS OF v, SYSTEM_VERSION AS OF v, FOR [SYSTEM_]VERSION AS OF v
//   kTimestamp: TIMESTAMP AS OF t, SYSTEM_TIME AS OF t, FOR [SYSTEM_TIME|TIMESTAMP] AS OF t
// `value` is an expression; Spark accepts an integer (snapshot id) or a string (snapshot id
// or ref name) for versions and any constant expression for timestamps; the binder checks.
enum class TimeTravelKind { kVersion, kTimestamp };

struct TimeTravel {
  TimeTravelKind kind = TimeTravelKind::kVersion;
  bool for_prefix = false;  // FOR ... AS OF (ANSI / Trino)
  bool system = false;      // SYSTEM_VERSION / SYSTEM_TIME
  Expr value;
  SourcePos pos;

  bool operator==(const TimeTravel&) const = default;
};

// AS alias [(c1, c2)]
struct TableAlias {
  Identifier name;
  std::vector<Identifier> columns;

  bool operator==(const TableAlias&) const = default;
};

struct TableRef {
  ObjectName name;
  std::optional<TimeTravel> time_travel;
  std::optional<TableAlias> alias;

  bool operator==(const TableRef&) const = default;
};

// (query) [AS] alias, and inline tables: VALUES (...) [AS] t(a, b).
struct SubqueryRef {
  Box<Query> query;
  std::optional<TableAlias> alias;

  bool operator==(const SubqueryRef&) const = default;
};

// CALL and table-function argument: positional (`name` empty) or named (`name => value`).
struct CallArgument {
  std::optional<Identifier> name;
  Expr value;

  bool operator==(const CallArgument&) const = default;
};

// range(10), range(1, 10), table_changes('db.t', 1, NULL, mode => 'net')
struct TableFunctionRef {
  ObjectName name;
  std::vector<CallArgument> args;
  std::optional<TableAlias> alias;

  bool operator==(const TableFunctionRef&) const = default;
};

enum class JoinKind { kInner, kLeft, kRight, kFull, kCross, kLeftSemi, kLeftAnti };

struct Relation;

struct Join {
  JoinKind kind = JoinKind::kInner;
  Box<Relation> left;
  Box<Relation> right;
  ExprBox on;                          // ON condition, if any
  std::vector<Identifier> using_columns;  // USING (...), if any
  bool natural = false;

  bool operator==(const Join&) const = default;
};

struct Relation {
  using Node = std::variant<TableRef, SubqueryRef, TableFunctionRef, Join>;
  Node node;
  SourcePos pos;

  template <typename T>
  const T* As() const {
    return std::get_if<T>(&node);
  }
  bool operator==(const Relation&) const = default;
};

// ---------------------------------------------------------------------------------------
// Queries

struct SelectItem {
  Expr expr;  // may be a Star
  std::optional<Identifier> alias;

  bool operator==(const SelectItem&) const = default;
};

struct Select {
  bool distinct = false;
  std::vector<SelectItem> items;
  std::vector<Relation> from;  // comma-separated items, cross-joined
  ExprBox where;
  std::vector<Expr> group_by;
  ExprBox having;

  bool operator==(const Select&) const = default;
};

enum class SetOpKind { kUnion, kIntersect, kExcept };

// left UNION|INTERSECT|EXCEPT [ALL|DISTINCT] right. INTERSECT binds tighter than UNION and
// EXCEPT (Spark's default); otherwise left-associative. MINUS is EXCEPT.
struct SetOperation {
  SetOpKind kind = SetOpKind::kUnion;
  bool all = false;
  Box<Query> left;
  Box<Query> right;

  bool operator==(const SetOperation&) const = default;
};

// VALUES (1, 'a'), (2, 'b'); `VALUES 1, 2` has one column.
struct Values {
  std::vector<std::vector<Expr>> rows;

  bool operator==(const Values&) const = default;
};

enum class NullsOrder { kDefault, kFirst, kLast };

struct OrderItem {
  Expr expr;
  bool ascending = true;
  NullsOrder nulls = NullsOrder::kDefault;  // default: FIRST when ascending, else LAST

  bool operator==(const OrderItem&) const = default;
};

// A window frame: ROWS | RANGE BETWEEN <start> AND <end> (a lone <start> ends at CURRENT ROW).
enum class FrameUnit { kRows, kRange };
enum class FrameBoundKind { kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing, kUnboundedFollowing };

struct FrameBound {
  FrameBoundKind kind = FrameBoundKind::kCurrentRow;
  ExprBox offset;  // kPreceding / kFollowing

  bool operator==(const FrameBound&) const = default;
};

struct WindowFrame {
  FrameUnit unit = FrameUnit::kRows;
  FrameBound start;
  FrameBound end;
  SourcePos pos;

  bool operator==(const WindowFrame&) const = default;
};

// OVER ([PARTITION BY ...] [ORDER BY ...] [frame])
struct WindowSpec {
  std::vector<Expr> partition_by;
  std::vector<OrderItem> order_by;
  std::optional<WindowFrame> frame;
  SourcePos pos;

  bool operator==(const WindowSpec&) const = default;
};

struct Cte {
  Identifier name;
  std::vector<Identifier> columns;
  Box<Query> query;

  bool operator==(const Cte&) const = default;
};

// [WITH ...] body [ORDER BY ...] [LIMIT n] [OFFSET m]. A body that is itself a Query is a
// parenthesized query that carries its own WITH / ORDER BY / LIMIT; `(SELECT 1) ORDER BY 1`
// with nothing inside to keep apart is read as `SELECT 1 ORDER BY 1`.
struct Query {
  using Body = std::variant<Select, SetOperation, Values, Box<Query>>;
  std::vector<Cte> with;
  Body body;
  std::vector<OrderItem> order_by;
  ExprBox limit;
  ExprBox offset;
  SourcePos pos;

  template <typename T>
  const T* As() const {
    return std::get_if<T>(&body);
  }
  bool operator==(const Query&) const = default;
};

// ---------------------------------------------------------------------------------------
// Statements

struct Statement;

// A table or namespace property: keys written as 'string' or dotted names, values as
// strings, numbers or booleans; all kept as text.
struct Property {
  std::string key;
  std::string value;

  bool operator==(const Property&) const = default;
};

enum class ExplainMode { kDefault, kExtended, kFormatted, kCodegen, kCost };

struct Explain {
  ExplainMode mode = ExplainMode::kDefault;
  Box<Statement> statement;

  bool operator==(const Explain&) const = default;
};

// CREATE NAMESPACE|DATABASE|SCHEMA
struct CreateNamespace {
  ObjectName name;
  bool if_not_exists = false;
  std::optional<std::string> comment;
  std::optional<std::string> location;
  std::vector<Property> properties;  // WITH DBPROPERTIES | WITH PROPERTIES

  bool operator==(const CreateNamespace&) const = default;
};

struct DropNamespace {
  ObjectName name;
  bool if_exists = false;
  bool cascade = false;  // RESTRICT is the default

  bool operator==(const DropNamespace&) const = default;
};

// SHOW NAMESPACES|DATABASES|SCHEMAS [IN|FROM ns] [[LIKE] 'pattern']
struct ShowNamespaces {
  std::optional<ObjectName> in;
  std::optional<std::string> pattern;

  bool operator==(const ShowNamespaces&) const = default;
};

// SHOW TABLES [IN|FROM ns] [[LIKE] 'pattern']
struct ShowTables {
  std::optional<ObjectName> in;
  std::optional<std::string> pattern;

  bool operator==(const ShowTables&) const = default;
};

// SHOW DROPPED TABLES [IN|FROM ns] [[LIKE] 'pattern'] (floe's): tables UNDROP can restore.
struct ShowDroppedTables {
  std::optional<ObjectName> in;
  std::optional<std::string> pattern;

  bool operator==(const ShowDroppedTables&) const = default;
};

// SHOW PROCEDURES [IN|FROM catalog[.system]] [[LIKE] 'pattern']
struct ShowProcedures {
  std::optional<ObjectName> in;
  std::optional<std::string> pattern;

  bool operator==(const ShowProcedures&) const = default;
};

// USE [NAMESPACE|DATABASE|SCHEMA] name
struct Use {
  ObjectName name;

  bool operator==(const Use&) const = default;
};

struct ColumnDef {
  Identifier name;
  DataType type;
  bool not_null = false;
  std::optional<std::string> comment;

  bool operator==(const ColumnDef&) const = default;
};

// One PARTITIONED BY item. Spark's and Trino's spellings map to one kind:
// years/year, months/month, days/day/date, hours/hour/date_hour, bucket(n, c),
// truncate(w, c), or a bare column (identity).
enum class TransformKind { kIdentity, kYear, kMonth, kDay, kHour, kBucket, kTruncate };

struct PartitionField {
  TransformKind transform = TransformKind::kIdentity;
  std::vector<Identifier> column;  // possibly nested: a.b
  int32_t param = -1;             // bucket count or truncate width
  SourcePos pos;

  bool operator==(const PartitionField&) const = default;
};

enum class CreateMode { kCreate, kCreateOrReplace, kReplace };

// CREATE [OR REPLACE] TABLE / REPLACE TABLE, with or without AS query.
struct CreateTable {
  CreateMode mode = CreateMode::kCreate;
  bool if_not_exists = false;
  ObjectName name;
  std::vector<ColumnDef> columns;  // empty when not given
  std::optional<std::string> provider;  // USING iceberg
  std::vector<PartitionField> partitioned_by;
  std::optional<std::string> location;
  std::optional<std::string> comment;
  std::vector<Property> properties;  // TBLPROPERTIES
  Box<Query> as_query;

  bool operator==(const CreateTable&) const = default;
};

struct DropTable {
  ObjectName name;
  bool if_exists = false;
  bool purge = false;

  bool operator==(const DropTable&) const = default;
};

// UNDROP TABLE name (Snowflake's statement): the table most recently dropped under the name.
struct UndropTable {
  ObjectName name;

  bool operator==(const UndropTable&) const = default;
};

// --- ALTER TABLE actions

struct SetProperties {
  std::vector<Property> properties;

  bool operator==(const SetProperties&) const = default;
};

struct UnsetProperties {
  bool if_exists = false;
  std::vector<std::string> keys;

  bool operator==(const UnsetProperties&) const = default;
};

// FIRST | AFTER column, for ADD COLUMN and ALTER COLUMN.
struct ColumnPosition {
  bool first = false;
  std::vector<Identifier> after;  // set for AFTER

  bool operator==(const ColumnPosition&) const = default;
};

struct AddColumn {
  std::vector<Identifier> name;  // nested fields as a.b
  DataType type;
  bool not_null = false;
  std::optional<std::string> comment;
  std::optional<ColumnPosition> position;

  bool operator==(const AddColumn&) const = default;
};

// ADD COLUMN c t [FIRST|AFTER x] and ADD COLUMNS (c t, ...) both land here.
struct AddColumns {
  std::vector<AddColumn> columns;

  bool operator==(const AddColumns&) const = default;
};

struct RenameColumn {
  std::vector<Identifier> column;
  Identifier new_name;

  bool operator==(const RenameColumn&) const = default;
};

struct DropColumns {
  bool if_exists = false;
  std::vector<std::vector<Identifier>> columns;

  bool operator==(const DropColumns&) const = default;
};

enum class AlterColumnAction { kType, kSetNotNull, kDropNotNull, kComment, kPosition };

// ALTER [COLUMN] c TYPE t | SET NOT NULL | DROP NOT NULL | COMMENT 'x' | FIRST | AFTER x
struct AlterColumn {
  std::vector<Identifier> column;
  AlterColumnAction action = AlterColumnAction::kType;
  DataType type;                   // kType
  std::string comment;             // kComment
  ColumnPosition position;         // kPosition

  bool operator==(const AlterColumn&) const = default;
};

struct RenameTable {
  ObjectName new_name;

  bool operator==(const RenameTable&) const = default;
};

enum class RefKind { kTag, kBranch };
enum class TimeUnit { kDays, kHours, kMinutes };

struct RefDuration {
  int64_t amount = 0;
  TimeUnit unit = TimeUnit::kDays;

  bool operator==(const RefDuration&) const = default;
};

// Iceberg's Spark extensions:
//   CREATE [OR REPLACE] TAG [IF NOT EXISTS] name [AS OF VERSION id] [RETAIN n unit]
//   REPLACE TAG name ...
//   CREATE [OR REPLACE] BRANCH [IF NOT EXISTS] name [AS OF VERSION id] [RETAIN n unit]
//       [WITH SNAPSHOT RETENTION [n SNAPSHOTS] [m unit]]
//   REPLACE BRANCH name ...
struct CreateRef {
  RefKind kind = RefKind::kTag;
  bool create = true;    // CREATE (false for plain REPLACE)
  bool replace = false;  // OR REPLACE / REPLACE
  bool if_not_exists = false;
  Identifier name;
  std::optional<int64_t> as_of_version;
  std::optional<RefDuration> retain;  // RETAIN: how long the ref itself is kept
  // WITH SNAPSHOT RETENTION (branches): snapshots kept on the branch and their max age.
  std::optional<int64_t> min_snapshots_to_keep;
  std::optional<RefDuration> max_snapshot_age;

  bool operator==(const CreateRef&) const = default;
};

struct DropRef {
  RefKind kind = RefKind::kTag;
  bool if_exists = false;
  Identifier name;

  bool operator==(const DropRef&) const = default;
};

// floe's protected refs:
//   SET PROTECTION ON BRANCH name [ALLOW FAST_FORWARD] [ALLOW CHERRYPICK] [ALLOW ROLLBACK]
//   SET PROTECTION ON TAG name
//   UNSET PROTECTION [IF EXISTS] ON BRANCH|TAG name
struct SetProtection {
  RefKind kind = RefKind::kBranch;
  Identifier name;
  bool unset = false;
  bool if_exists = false;  // UNSET only
  bool allow_fast_forward = false;
  bool allow_cherry_pick = false;
  bool allow_rollback = false;

  bool operator==(const SetProtection&) const = default;
};

// Trino: ALTER TABLE t EXECUTE procedure(args)
struct ExecuteProcedure {
  Identifier procedure;
  std::vector<CallArgument> args;

  bool operator==(const ExecuteProcedure&) const = default;
};

// Iceberg: ADD PARTITION FIELD f [AS name] / DROP PARTITION FIELD f (a transform or a field name)
struct AddPartitionField {
  PartitionField field;
  std::optional<Identifier> as;

  bool operator==(const AddPartitionField&) const = default;
};

struct DropPartitionField {
  PartitionField field;

  bool operator==(const DropPartitionField&) const = default;
};

// Iceberg: REPLACE PARTITION FIELD f WITH g [AS name]
struct ReplacePartitionField {
  PartitionField from;
  PartitionField to;
  std::optional<Identifier> as;

  bool operator==(const ReplacePartitionField&) const = default;
};

struct AlterTable {
  using Action =
      std::variant<SetProperties, UnsetProperties, AddColumns, RenameColumn, DropColumns,
                   AlterColumn, RenameTable, CreateRef, DropRef, ExecuteProcedure,
                   AddPartitionField, DropPartitionField, ReplacePartitionField, SetProtection>;
  ObjectName name;
  Action action;

  template <typename T>
  const T* As() const {
    return std::get_if<T>(&action);
  }
  bool operator==(const AlterTable&) const = default;
};

// DESCRIBE|DESC [TABLE] [EXTENDED|FORMATTED] name
struct Describe {
  ObjectName name;
  bool extended = false;

  bool operator==(const Describe&) const = default;
};

// DESCRIBE|DESC FUNCTION [EXTENDED] name ('name' is accepted too)
struct DescribeFunction {
  ObjectName name;
  bool extended = false;

  bool operator==(const DescribeFunction&) const = default;
};

// SHOW [USER|SYSTEM|ALL] FUNCTIONS [[LIKE] 'pattern']
enum class FunctionScope { kAll, kUser, kSystem };

struct ShowFunctions {
  FunctionScope scope = FunctionScope::kAll;
  std::optional<std::string> pattern;

  bool operator==(const ShowFunctions&) const = default;
};

struct ShowCreateTable {
  ObjectName name;

  bool operator==(const ShowCreateTable&) const = default;
};

// SHOW TBLPROPERTIES name [('key')]
struct ShowTblProperties {
  ObjectName name;
  std::optional<std::string> key;

  bool operator==(const ShowTblProperties&) const = default;
};

// PARTITION (col = value, col2): a static value, or none for a dynamic partition column.
struct PartitionValue {
  Identifier column;
  ExprBox value;

  bool operator==(const PartitionValue&) const = default;
};

// INSERT INTO [TABLE] t [PARTITION (...)] [(cols)] query
// INSERT OVERWRITE [TABLE] t [PARTITION (...)] [(cols)] query
// VALUES lists arrive as a Query whose body is Values.
struct Insert {
  ObjectName table;
  bool overwrite = false;
  std::vector<PartitionValue> partition;
  std::vector<Identifier> columns;
  Query query;

  bool operator==(const Insert&) const = default;
};

struct Delete {
  ObjectName table;
  std::optional<Identifier> alias;
  ExprBox where;

  bool operator==(const Delete&) const = default;
};

// SET target = value; the target may be qualified or nested (t.a, a.b).
struct Assignment {
  std::vector<Identifier> target;
  Expr value;

  bool operator==(const Assignment&) const = default;
};

struct Update {
  ObjectName table;
  std::optional<Identifier> alias;
  std::vector<Assignment> assignments;
  ExprBox where;

  bool operator==(const Update&) const = default;
};

enum class MergeMatch { kMatched, kNotMatched, kNotMatchedBySource };
enum class MergeActionKind { kUpdate, kUpdateStar, kDelete, kInsert, kInsertStar };

// WHEN MATCHED [AND c] THEN UPDATE SET ... | UPDATE SET * | DELETE
// WHEN NOT MATCHED [BY TARGET] [AND c] THEN INSERT [(cols)] VALUES (...) | INSERT *
// WHEN NOT MATCHED BY SOURCE [AND c] THEN UPDATE SET ... | DELETE
struct MergeClause {
  MergeMatch match = MergeMatch::kMatched;
  ExprBox condition;
  MergeActionKind action = MergeActionKind::kDelete;
  std::vector<Assignment> assignments;   // kUpdate
  std::vector<Identifier> insert_columns;  // kInsert; empty when not written
  std::vector<Expr> insert_values;         // kInsert

  bool operator==(const MergeClause&) const = default;
};

struct Merge {
  ObjectName target;
  std::optional<Identifier> target_alias;
  Relation source;  // a table (time travel allowed) or a subquery, with its alias
  Expr on;
  std::vector<MergeClause> clauses;

  bool operator==(const Merge&) const = default;
};

// CALL catalog.system.proc(arg, name => arg). Positional arguments may come first and named
// ones after them (users write `CALL ...set_current_snapshot('db.t', snapshot_id => 1)`,
// which Iceberg itself rejects); a positional argument after a named one is a syntax error.
struct Call {
  ObjectName procedure;
  std::vector<CallArgument> args;

  bool operator==(const Call&) const = default;
};

// SET / SET key / SET key = value. Spark reads key and value as raw text: the key is
// everything before '=' and the value everything after, trimmed; a value written as one
// 'quoted' or `quoted` token is unquoted.
struct SetConfig {
  std::optional<std::string> key;    // nullopt: list all
  std::optional<std::string> value;  // nullopt: show the key's value

  bool operator==(const SetConfig&) const = default;
};

enum class TimeZoneKind { kLocal, kName, kInterval };

// SET TIME ZONE LOCAL | 'zone' | INTERVAL ...
struct SetTimeZone {
  TimeZoneKind kind = TimeZoneKind::kLocal;
  std::string zone;           // kName
  IntervalLiteral interval;   // kInterval

  bool operator==(const SetTimeZone&) const = default;
};

// BEGIN / START TRANSACTION / COMMIT [TAG name] / END / ROLLBACK / ABORT, savepoints
// (SAVEPOINT name, RELEASE [SAVEPOINT] name, ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT]
// name), and SET TRANSACTION ... / SET SESSION CHARACTERISTICS AS TRANSACTION ..., which
// are accepted and change nothing. `text` is the statement as written.
enum class TransactionControlKind {
  kBegin,
  kCommit,
  kRollback,
  kSetTransaction,
  kSavepoint,
  kRelease,
  kRollbackToSavepoint
};

// floe's catalog tags: one Iceberg tag on every table of the catalog or of a namespace.
//   CREATE CATALOG TAG name [IN [NAMESPACE] ns] [RETAIN n unit]
//   DROP CATALOG TAG name
//   SHOW CATALOG TAGS
struct CreateCatalogTag {
  Identifier name;
  std::optional<ObjectName> in;
  std::optional<RefDuration> retain;

  bool operator==(const CreateCatalogTag&) const = default;
};

struct TransactionControl {
  TransactionControlKind kind = TransactionControlKind::kBegin;
  std::string text;
  std::string savepoint;  // as PostgreSQL folds it: lower case unless quoted
  // COMMIT TAG name [IN ns] [RETAIN ...]: the catalog tag the commit creates with its writes.
  std::optional<CreateCatalogTag> tag;

  bool operator==(const TransactionControl&) const = default;
};

// RESET [key]
struct Reset {
  std::optional<std::string> key;

  bool operator==(const Reset&) const = default;
};

// DROP CATALOG TAG name; SHOW CATALOG TAGS
struct DropCatalogTag {
  Identifier name;

  bool operator==(const DropCatalogTag&) const = default;
};

struct ShowCatalogTags {
  bool operator==(const ShowCatalogTags&) const = default;
};

struct Statement {
  using Node = std::variant<Query, Explain, CreateNamespace, DropNamespace, ShowNamespaces,
                            ShowTables, ShowProcedures, Use, CreateTable, DropTable, AlterTable, Describe,
                            ShowCreateTable, ShowTblProperties, Insert, Delete, Update, Merge,
                            Call, SetConfig, SetTimeZone, Reset, DescribeFunction, ShowFunctions,
                            UndropTable, ShowDroppedTables, TransactionControl,
                            CreateCatalogTag, DropCatalogTag, ShowCatalogTags>;
  Node node;
  SourcePos pos;

  template <typename T>
  const T* As() const {
    return std::get_if<T>(&node);
  }
  bool operator==(const Statement&) const = default;
};

// ---------------------------------------------------------------------------------------
// Printing: canonical SQL that parses back to an equal tree. Keywords upper case, names as
// written (backquoted where needed), strings in single quotes with backslash escapes,
// operators parenthesized only where precedence requires. EXPLAIN and error messages use it.

std::string ToSql(const Statement& statement);
std::string ToSql(const Query& query);
std::string ToSql(const Expr& expr);
std::string ToSql(const Relation& relation);
std::string ToSql(const DataType& type);
std::string ToSql(const ObjectName& name);
std::string QuoteIdentifier(const std::string& name);
std::string QuoteString(const std::string& value);

// Names for messages and debugging.
const char* BinaryOpName(BinaryOp op);  // "+", "AND", "IS DISTINCT FROM", ...
const char* TypeKindName(TypeKind kind);  // "BIGINT", "DECIMAL", ...

}  // namespace floe::sql
