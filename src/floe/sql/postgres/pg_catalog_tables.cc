#include "floe/sql/postgres/pg_catalog_tables.h"

#include <functional>
#include <map>
#include <variant>

#include <arrow/api.h>

#include "floe/sql/functions/function_registry.h"
#include "floe/sql/windows/window_spec.h"
#include "floe/sql/postgres/pg_settings.h"
#include "floe/sql/postgres/pg_types.h"
#include "floe/sql/plan/relation.h"
#include "floe/table/arrow_schema.h"

namespace floe::sql {

bool IsPgClient(const SessionState& state) {
  return Lower(state.Setting(kPgClientKey, "false")) == "true";
}

std::string PgUserName(const SessionState& state) { return state.Setting("floe.pg.user", "floe"); }

namespace {

// FNV-1a, folded into the oids PostgreSQL leaves to user objects (16384 and up).
int64_t OidOf(const std::string& key) {
  uint32_t h = 2166136261u;
  for (unsigned char c : key) {
    h ^= c;
    h *= 16777619u;
  }
  return 16384 + static_cast<int64_t>(h % (0x7fffffffu - 16384u));
}

// The system relations and their oids in PostgreSQL, for `'pg_class'::regclass`.
const std::map<std::string, int64_t>& SystemRelationOids() {
  static const std::map<std::string, int64_t> kOids = {{"pg_type", 1247},
                                                       {"pg_attribute", 1249},
                                                       {"pg_proc", 1255},
                                                       {"pg_class", 1259},
                                                       {"pg_attrdef", 2604},
                                                       {"pg_sequence", 2224},
                                                       {"pg_depend", 2608},
                                                       {"pg_language", 2612},
                                                       {"pg_enum", 3501},
                                                       {"pg_opclass", 2616},
                                                       {"pg_constraint", 2606},
                                                       {"pg_inherits", 2611},
                                                       {"pg_index", 2610},
                                                       {"pg_description", 2609},
                                                       {"pg_am", 2601},
                                                       {"pg_rewrite", 2618},
                                                       {"pg_trigger", 2620},
                                                       {"pg_namespace", 2615},
                                                       {"pg_database", 1262},
                                                       {"pg_authid", 1260},
                                                       {"pg_tablespace", 1213},
                                                       {"pg_collation", 3456},
                                                       {"pg_policy", 3256},
                                                       {"pg_statistic_ext", 3381},
                                                       {"pg_publication", 6104},
                                                       {"pg_publication_rel", 6106},
                                                       {"pg_publication_namespace", 6237},
                                                       {"pg_foreign_table", 3118},
                                                       {"pg_partitioned_table", 3350},
                                                       {"pg_extension", 3079}};
  return kOids;
}

// A column of a catalog relation: its name and PostgreSQL type, as one letter:
// o oid, n name, t text, c "char", b bool, h int2, i int4, l int8, f float4,
// a text[], O oid[], H int2[], C "char"[]. Arrays are text in PostgreSQL's form ("{1,2}"):
// Acero's joins carry no list columns, and floe has no rows with arrays to show.
struct Col {
  const char* name;
  char type;
};

using Cell = std::variant<std::monostate, bool, int64_t, std::string, double>;
using Row = std::vector<Cell>;

std::shared_ptr<arrow::DataType> ArrowTypeOf(char t) {
  switch (t) {
    case 'o':
    case 'l':
      return arrow::int64();
    case 'b':
      return arrow::boolean();
    case 'h':
      return arrow::int16();
    case 'i':
      return arrow::int32();
    case 'f':
      return arrow::float32();
    default:
      return arrow::utf8();
  }
}

Result<std::shared_ptr<arrow::Table>> MakeTable(const std::vector<Col>& cols,
                                                const std::vector<Row>& rows) {
  arrow::FieldVector fields;
  arrow::ArrayVector arrays;
  for (size_t i = 0; i < cols.size(); ++i) {
    auto type = ArrowTypeOf(cols[i].type);
    fields.push_back(arrow::field(cols[i].name, type));
    std::unique_ptr<arrow::ArrayBuilder> builder;
    ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), type, &builder));
    for (const auto& row : rows) {
      const Cell& cell = i < row.size() ? row[i] : Cell{};
      if (std::holds_alternative<std::monostate>(cell)) {
        ARROW_RETURN_NOT_OK(builder->AppendNull());
        continue;
      }
      std::shared_ptr<arrow::Scalar> scalar;
      if (auto* b = std::get_if<bool>(&cell)) scalar = std::make_shared<arrow::BooleanScalar>(*b);
      if (auto* n = std::get_if<int64_t>(&cell)) scalar = std::make_shared<arrow::Int64Scalar>(*n);
      if (auto* s = std::get_if<std::string>(&cell))
        scalar = std::make_shared<arrow::StringScalar>(*s);
      if (auto* d = std::get_if<double>(&cell)) scalar = std::make_shared<arrow::DoubleScalar>(*d);
      if (!scalar->type->Equals(*type)) {
        ARROW_ASSIGN_OR_RAISE(scalar, scalar->CastTo(type));
      }
      ARROW_RETURN_NOT_OK(builder->AppendScalar(*scalar));
    }
    std::shared_ptr<arrow::Array> array;
    ARROW_RETURN_NOT_OK(builder->Finish(&array));
    arrays.push_back(std::move(array));
  }
  return arrow::Table::Make(arrow::schema(fields), arrays, static_cast<int64_t>(rows.size()));
}

// What the catalog holds now: namespaces (every level) and their tables, in name order.
struct CatalogListing {
  std::vector<Namespace> namespaces;
  std::vector<TableIdentifier> tables;
};

Status ListUnder(Catalog& catalog, const Namespace& parent, int depth, CatalogListing* out) {
  if (depth > 16) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto children, catalog.ListNamespaces(parent));
  for (const auto& ns : children) {
    out->namespaces.push_back(ns);
    auto tables = catalog.ListTables(ns);
    if (tables.ok()) out->tables.insert(out->tables.end(), tables->begin(), tables->end());
    ARROW_RETURN_NOT_OK(ListUnder(catalog, ns, depth + 1, out));
  }
  return Status::OK();
}

Result<CatalogListing> ListCatalog(SessionState& state) {
  CatalogListing out;
  ARROW_RETURN_NOT_OK(ListUnder(*state.catalog, Namespace(), 0, &out));
  return out;
}

// A table's columns as PostgreSQL types, in order, with whether they may be NULL.
struct PgColumn {
  std::string name;
  PgType type;
  bool not_null = false;
};

Result<std::vector<PgColumn>> ColumnsOf(SessionState& state, const TableIdentifier& ident) {
  ARROW_ASSIGN_OR_RAISE(auto table, state.tables.LoadTable(ident));
  ARROW_ASSIGN_OR_RAISE(auto schema, table::ToArrowSchema(*table->metadata()->current_schema()));
  std::vector<PgColumn> out;
  for (const auto& f : schema->fields())
    out.push_back(PgColumn{f->name(), PgTypeOf(*f->type()), !f->nullable()});
  return out;
}

std::string NamespaceName(const Namespace& ns) { return ns.ToString(); }

struct RelationDef {
  std::vector<Col> cols;
  // Empty for relations floe has no rows for.
  std::function<Result<std::vector<Row>>(SessionState&)> rows;
};

Result<std::vector<Row>> NamespaceRows(SessionState& state) {
  ARROW_ASSIGN_OR_RAISE(auto listing, ListCatalog(state));
  std::vector<Row> rows;
  rows.push_back({pg_oid::kPgCatalogNamespace, std::string("pg_catalog"), pg_oid::kUser, {}});
  rows.push_back(
      {pg_oid::kInformationSchemaNamespace, std::string("information_schema"), pg_oid::kUser, {}});
  for (const auto& ns : listing.namespaces)
    rows.push_back({PgNamespaceOid(ns), NamespaceName(ns), pg_oid::kUser, {}});
  return rows;
}

Result<std::vector<Row>> ClassRows(SessionState& state) {
  ARROW_ASSIGN_OR_RAISE(auto listing, ListCatalog(state));
  std::vector<Row> rows;
  for (const auto& t : listing.tables) {
    int64_t natts = 0;
    auto columns = ColumnsOf(state, t);
    if (columns.ok()) natts = static_cast<int64_t>(columns->size());
    // relam 2 is heap: clients show tables of other access methods differently.
    rows.push_back({PgTableOid(t),
                    t.name,
                    PgNamespaceOid(t.ns),
                    int64_t{0},
                    int64_t{0},
                    pg_oid::kUser,
                    int64_t{2},
                    int64_t{0},
                    int64_t{0},
                    int64_t{0},
                    -1.0,
                    int64_t{0},
                    int64_t{0},
                    false,
                    false,
                    std::string("p"),
                    std::string("r"),
                    natts,
                    int64_t{0},
                    false,
                    false,
                    false,
                    false,
                    false,
                    true,
                    std::string("d"),
                    false,
                    int64_t{0},
                    int64_t{0},
                    int64_t{0},
                    {},
                    {},
                    {}});
  }
  return rows;
}

// pg_type.typstorage: plain for fixed sizes, main for numeric (kept in the row, compressed
// when large), extended for the other variable sizes.
char TypeStorage(const PgTypeRow& type) {
  if (type.typlen != -1) return 'p';
  return type.oid == pg_oid::kNumeric ? 'm' : 'x';
}

Result<std::vector<Row>> AttributeRows(SessionState& state) {
  ARROW_ASSIGN_OR_RAISE(auto listing, ListCatalog(state));
  std::vector<Row> rows;
  for (const auto& t : listing.tables) {
    auto columns = ColumnsOf(state, t);
    if (!columns.ok()) continue;  // a table whose metadata cannot be read lists no columns
    int64_t attnum = 0;
    for (const auto& c : *columns) {
      ++attnum;
      const PgTypeRow* type = FindPgType(c.type.oid);
      rows.push_back({PgTableOid(t),
                      c.name,
                      int64_t{c.type.oid},
                      int64_t{-1},
                      int64_t{c.type.typlen},
                      attnum,
                      int64_t{0},
                      int64_t{-1},
                      int64_t{c.type.typmod},
                      type && type->byval,
                      std::string("i"),
                      std::string(1, type ? TypeStorage(*type) : 'x'),
                      std::string(""),
                      c.not_null,
                      false,
                      false,
                      std::string(""),
                      std::string(""),
                      false,
                      true,
                      int64_t{0},
                      int64_t{c.type.oid == pg_oid::kText ? 100 : 0},
                      {},
                      {},
                      {},
                      {}});
    }
  }
  return rows;
}

Result<std::vector<Row>> TypeRows(SessionState&) {
  std::vector<Row> rows;
  for (const auto& t : PgTypeRows()) {
    bool array = t.element_oid != 0;
    rows.push_back({int64_t{t.oid},
                    std::string(t.name),
                    pg_oid::kPgCatalogNamespace,
                    pg_oid::kUser,
                    int64_t{t.typlen},
                    t.byval,
                    std::string("b"),
                    std::string(1, t.category),
                    false,
                    true,
                    std::string(","),
                    int64_t{0},
                    std::string(array ? "array_subscript_handler" : "-"),
                    int64_t{t.element_oid},
                    int64_t{t.array_oid},
                    std::string(array ? "array_in" : std::string(t.name) + "in"),
                    std::string(array ? "array_out" : std::string(t.name) + "out"),
                    std::string(array ? "array_recv" : std::string(t.name) + "recv"),
                    std::string(array ? "array_send" : std::string(t.name) + "send"),
                    std::string("-"),
                    std::string("-"),
                    std::string("-"),
                    std::string(t.typlen == 8   ? "d"
                                : t.typlen == 2 ? "s"
                                : t.typlen == 1 ? "c"
                                                : "i"),
                    std::string(1, TypeStorage(t)),
                    false,
                    int64_t{0},
                    int64_t{-1},
                    int64_t{0},
                    int64_t{t.oid == pg_oid::kText || t.oid == pg_oid::kVarchar ? 100 : 0},
                    {},
                    {},
                    {}});
  }
  return rows;
}

Result<std::vector<Row>> SettingRows(SessionState& state) {
  std::vector<Row> rows;
  for (const auto& p : PgParameters()) {
    std::string value = PgParameterValue(state, p.name);
    rows.push_back({std::string(p.name),
                    value,
                    {},
                    std::string(p.category),
                    std::string(p.description),
                    {},
                    std::string("user"),
                    std::string(p.vartype),
                    std::string("default"),
                    {},
                    {},
                    {},
                    value,
                    value,
                    {},
                    {},
                    false});
  }
  return rows;
}

Result<std::vector<Row>> ProcRows(SessionState&) {
  std::vector<Row> rows;
  for (const auto& name : AllFunctionNames()) {
    rows.push_back({OidOf("proc:" + name),
                    name,
                    pg_oid::kPgCatalogNamespace,
                    pg_oid::kUser,
                    int64_t{12},
                    1.0,
                    0.0,
                    int64_t{0},
                    std::string("-"),
                    std::string(IsAggregateFunction(name)    ? "a"
                                : IsWindowOnlyFunction(name) ? "w"
                                                             : "f"),
                    false,
                    false,
                    false,
                    FindTableFunction(name) != nullptr,
                    std::string("i"),
                    std::string("s"),
                    int64_t{0},
                    int64_t{0},
                    int64_t{pg_oid::kText},
                    {},
                    {},
                    {},
                    {},
                    {},
                    {},
                    name,
                    {},
                    {},
                    {},
                    {}});
  }
  return rows;
}

Result<std::vector<Row>> SchemataRows(SessionState& state) {
  ARROW_ASSIGN_OR_RAISE(auto listing, ListCatalog(state));
  std::vector<Row> rows;
  std::string owner = PgUserName(state);
  for (const std::string& name : {std::string("information_schema"), std::string("pg_catalog")}) {
    rows.push_back({state.catalog->name(), name, owner, {}, {}, {}, {}});
  }
  for (const auto& ns : listing.namespaces)
    rows.push_back({state.catalog->name(), NamespaceName(ns), owner, {}, {}, {}, {}});
  return rows;
}

Result<std::vector<Row>> InfoTablesRows(SessionState& state) {
  ARROW_ASSIGN_OR_RAISE(auto listing, ListCatalog(state));
  std::vector<Row> rows;
  for (const auto& t : listing.tables) {
    rows.push_back({state.catalog->name(),
                    NamespaceName(t.ns),
                    t.name,
                    std::string("BASE TABLE"),
                    {},
                    {},
                    {},
                    {},
                    {},
                    std::string("YES"),
                    std::string("NO"),
                    {}});
  }
  return rows;
}

// information_schema.columns' numeric_precision, radix and scale, and datetime_precision.
void NumericFacts(const PgType& type, Cell* precision, Cell* radix, Cell* scale,
                  Cell* datetime_precision) {
  switch (type.oid) {
    case pg_oid::kInt2:
      *precision = int64_t{16};
      *radix = int64_t{2};
      *scale = int64_t{0};
      break;
    case pg_oid::kInt4:
      *precision = int64_t{32};
      *radix = int64_t{2};
      *scale = int64_t{0};
      break;
    case pg_oid::kInt8:
      *precision = int64_t{64};
      *radix = int64_t{2};
      *scale = int64_t{0};
      break;
    case pg_oid::kFloat4:
      *precision = int64_t{24};
      *radix = int64_t{2};
      break;
    case pg_oid::kFloat8:
      *precision = int64_t{53};
      *radix = int64_t{2};
      break;
    case pg_oid::kNumeric:
      *radix = int64_t{10};
      if (type.typmod >= 4) {
        *precision = int64_t{((type.typmod - 4) >> 16) & 0xffff};
        *scale = int64_t{(type.typmod - 4) & 0xffff};
      }
      break;
    case pg_oid::kDate:
      *datetime_precision = int64_t{0};
      break;
    case pg_oid::kTime:
    case pg_oid::kTimestamp:
    case pg_oid::kTimestamptz:
      *datetime_precision = int64_t{6};
      break;
    default:
      break;
  }
}

Result<std::vector<Row>> InfoColumnsRows(SessionState& state) {
  ARROW_ASSIGN_OR_RAISE(auto listing, ListCatalog(state));
  std::vector<Row> rows;
  const std::string catalog = state.catalog->name();
  for (const auto& t : listing.tables) {
    auto columns = ColumnsOf(state, t);
    if (!columns.ok()) continue;
    int64_t position = 0;
    for (const auto& c : *columns) {
      ++position;
      Cell precision, radix, scale, datetime_precision, octets;
      NumericFacts(c.type, &precision, &radix, &scale, &datetime_precision);
      if (c.type.oid == pg_oid::kText) octets = int64_t{1073741824};
      std::string data_type = PgFormatType(c.type.oid, -1);
      rows.push_back({catalog,
                      NamespaceName(t.ns),
                      t.name,
                      c.name,
                      position,
                      {},
                      std::string(c.not_null ? "NO" : "YES"),
                      data_type,
                      {},
                      octets,
                      precision,
                      radix,
                      scale,
                      datetime_precision,
                      {},
                      {},
                      {},
                      {},
                      {},
                      {},
                      {},
                      {},
                      {},
                      {},
                      {},
                      catalog,
                      std::string("pg_catalog"),
                      c.type.name,
                      {},
                      {},
                      {},
                      {},
                      std::to_string(position),
                      std::string("NO"),
                      std::string("NO"),
                      {},
                      {},
                      {},
                      {},
                      {},
                      std::string("NO"),
                      std::string("NEVER"),
                      {},
                      std::string("YES")});
    }
  }
  return rows;
}

const std::map<std::string, RelationDef>& PgCatalogDefs() {
  static const std::map<std::string, RelationDef> kDefs = {
      {"pg_namespace",
       {{{"oid", 'o'}, {"nspname", 'n'}, {"nspowner", 'o'}, {"nspacl", 'a'}}, NamespaceRows}},
      {"pg_class",
       {{{"oid", 'o'},
         {"relname", 'n'},
         {"relnamespace", 'o'},
         {"reltype", 'o'},
         {"reloftype", 'o'},
         {"relowner", 'o'},
         {"relam", 'o'},
         {"relfilenode", 'o'},
         {"reltablespace", 'o'},
         {"relpages", 'i'},
         {"reltuples", 'f'},
         {"relallvisible", 'i'},
         {"reltoastrelid", 'o'},
         {"relhasindex", 'b'},
         {"relisshared", 'b'},
         {"relpersistence", 'c'},
         {"relkind", 'c'},
         {"relnatts", 'h'},
         {"relchecks", 'h'},
         {"relhasrules", 'b'},
         {"relhastriggers", 'b'},
         {"relhassubclass", 'b'},
         {"relrowsecurity", 'b'},
         {"relforcerowsecurity", 'b'},
         {"relispopulated", 'b'},
         {"relreplident", 'c'},
         {"relispartition", 'b'},
         {"relrewrite", 'o'},
         {"relfrozenxid", 'l'},
         {"relminmxid", 'l'},
         {"relacl", 'a'},
         {"reloptions", 'a'},
         {"relpartbound", 't'}},
        ClassRows}},
      {"pg_attribute",
       {{{"attrelid", 'o'},       {"attname", 'n'},      {"atttypid", 'o'},
         {"attstattarget", 'i'},  {"attlen", 'h'},       {"attnum", 'h'},
         {"attndims", 'i'},       {"attcacheoff", 'i'},  {"atttypmod", 'i'},
         {"attbyval", 'b'},       {"attalign", 'c'},     {"attstorage", 'c'},
         {"attcompression", 'c'}, {"attnotnull", 'b'},   {"atthasdef", 'b'},
         {"atthasmissing", 'b'},  {"attidentity", 'c'},  {"attgenerated", 'c'},
         {"attisdropped", 'b'},   {"attislocal", 'b'},   {"attinhcount", 'i'},
         {"attcollation", 'o'},   {"attacl", 'a'},       {"attoptions", 'a'},
         {"attfdwoptions", 'a'},  {"attmissingval", 't'}},
        AttributeRows}},
      {"pg_type",
       {{{"oid", 'o'},          {"typname", 'n'},      {"typnamespace", 'o'},
         {"typowner", 'o'},     {"typlen", 'h'},       {"typbyval", 'b'},
         {"typtype", 'c'},      {"typcategory", 'c'},  {"typispreferred", 'b'},
         {"typisdefined", 'b'}, {"typdelim", 'c'},     {"typrelid", 'o'},
         {"typsubscript", 't'}, {"typelem", 'o'},      {"typarray", 'o'},
         {"typinput", 't'},     {"typoutput", 't'},    {"typreceive", 't'},
         {"typsend", 't'},      {"typmodin", 't'},     {"typmodout", 't'},
         {"typanalyze", 't'},   {"typalign", 'c'},     {"typstorage", 'c'},
         {"typnotnull", 'b'},   {"typbasetype", 'o'},  {"typtypmod", 'i'},
         {"typndims", 'i'},     {"typcollation", 'o'}, {"typdefaultbin", 't'},
         {"typdefault", 't'},   {"typacl", 'a'}},
        TypeRows}},
      {"pg_attrdef", {{{"oid", 'o'}, {"adrelid", 'o'}, {"adnum", 'h'}, {"adbin", 't'}}, nullptr}},
      {"pg_sequence",
       {{{"seqrelid", 'o'},
         {"seqtypid", 'o'},
         {"seqstart", 'l'},
         {"seqincrement", 'l'},
         {"seqmax", 'l'},
         {"seqmin", 'l'},
         {"seqcache", 'l'},
         {"seqcycle", 'b'}},
        nullptr}},
      {"pg_depend",
       {{{"classid", 'o'},
         {"objid", 'o'},
         {"objsubid", 'i'},
         {"refclassid", 'o'},
         {"refobjid", 'o'},
         {"refobjsubid", 'i'},
         {"deptype", 'c'}},
        nullptr}},
      {"pg_language",
       {{{"oid", 'o'},
         {"lanname", 'n'},
         {"lanowner", 'o'},
         {"lanispl", 'b'},
         {"lanpltrusted", 'b'},
         {"lanplcallfoid", 'o'},
         {"laninline", 'o'},
         {"lanvalidator", 'o'},
         {"lanacl", 'a'}},
        nullptr}},
      {"pg_enum",
       {{{"oid", 'o'}, {"enumtypid", 'o'}, {"enumsortorder", 'f'}, {"enumlabel", 'n'}}, nullptr}},
      {"pg_indexes",
       {{{"schemaname", 'n'},
         {"tablename", 'n'},
         {"indexname", 'n'},
         {"tablespace", 'n'},
         {"indexdef", 't'}},
        nullptr}},
      {"pg_opclass",
       {{{"oid", 'o'},
         {"opcmethod", 'o'},
         {"opcname", 'n'},
         {"opcnamespace", 'o'},
         {"opcowner", 'o'},
         {"opcfamily", 'o'},
         {"opcintype", 'o'},
         {"opcdefault", 'b'},
         {"opckeytype", 'o'}},
        nullptr}},
      {"pg_constraint",
       {{{"oid", 'o'},          {"conname", 'n'},       {"connamespace", 'o'},
         {"contype", 'c'},      {"condeferrable", 'b'}, {"condeferred", 'b'},
         {"convalidated", 'b'}, {"conrelid", 'o'},      {"contypid", 'o'},
         {"conindid", 'o'},     {"conparentid", 'o'},   {"confrelid", 'o'},
         {"confupdtype", 'c'},  {"confdeltype", 'c'},   {"confmatchtype", 'c'},
         {"conislocal", 'b'},   {"coninhcount", 'i'},   {"connoinherit", 'b'},
         {"conkey", 'H'},       {"confkey", 'H'},       {"conpfeqop", 'O'},
         {"conppeqop", 'O'},    {"conffeqop", 'O'},     {"confdelsetcols", 'H'},
         {"conexclop", 'O'},    {"conbin", 't'}},
        nullptr}},
      {"pg_index",
       {{{"indexrelid", 'o'},     {"indrelid", 'o'},       {"indnatts", 'h'},
         {"indnkeyatts", 'h'},    {"indisunique", 'b'},    {"indnullsnotdistinct", 'b'},
         {"indisprimary", 'b'},   {"indisexclusion", 'b'}, {"indimmediate", 'b'},
         {"indisclustered", 'b'}, {"indisvalid", 'b'},     {"indcheckxmin", 'b'},
         {"indisready", 'b'},     {"indislive", 'b'},      {"indisreplident", 'b'},
         {"indkey", 'H'},         {"indcollation", 'O'},   {"indclass", 'O'},
         {"indoption", 'H'},      {"indexprs", 't'},       {"indpred", 't'}},
        nullptr}},
      {"pg_inherits",
       {{{"inhrelid", 'o'}, {"inhparent", 'o'}, {"inhseqno", 'i'}, {"inhdetachpending", 'b'}},
        nullptr}},
      {"pg_description",
       {{{"objoid", 'o'}, {"classoid", 'o'}, {"objsubid", 'i'}, {"description", 't'}}, nullptr}},
      {"pg_am",
       {{{"oid", 'o'}, {"amname", 'n'}, {"amhandler", 't'}, {"amtype", 'c'}},
        [](SessionState&) -> Result<std::vector<Row>> {
          return std::vector<Row>{
              {int64_t{2}, std::string("heap"), std::string("heap_tableam_handler"),
               std::string("t")},
              {int64_t{403}, std::string("btree"), std::string("bthandler"), std::string("i")}};
        }}},
      {"pg_database",
       {{{"oid", 'o'},
         {"datname", 'n'},
         {"datdba", 'o'},
         {"encoding", 'i'},
         {"datlocprovider", 'c'},
         {"datistemplate", 'b'},
         {"datallowconn", 'b'},
         {"datconnlimit", 'i'},
         {"datfrozenxid", 'l'},
         {"datminmxid", 'l'},
         {"dattablespace", 'o'},
         {"datcollate", 't'},
         {"datctype", 't'},
         {"daticulocale", 't'},
         {"datcollversion", 't'},
         {"datacl", 'a'}},
        [](SessionState& state) -> Result<std::vector<Row>> {
          return std::vector<Row>{{pg_oid::kDatabase,
                                   state.catalog->name(),
                                   pg_oid::kUser,
                                   int64_t{6},
                                   std::string("c"),
                                   false,
                                   true,
                                   int64_t{-1},
                                   int64_t{0},
                                   int64_t{0},
                                   int64_t{1663},
                                   std::string("C.UTF-8"),
                                   std::string("C.UTF-8"),
                                   {},
                                   {},
                                   {}}};
        }}},
      {"pg_roles",
       {{{"rolname", 'n'},
         {"rolsuper", 'b'},
         {"rolinherit", 'b'},
         {"rolcreaterole", 'b'},
         {"rolcreatedb", 'b'},
         {"rolcanlogin", 'b'},
         {"rolreplication", 'b'},
         {"rolconnlimit", 'i'},
         {"rolpassword", 't'},
         {"rolvaliduntil", 't'},
         {"rolbypassrls", 'b'},
         {"rolconfig", 'a'},
         {"oid", 'o'}},
        [](SessionState& state) -> Result<std::vector<Row>> {
          return std::vector<Row>{{PgUserName(state),
                                   true,
                                   true,
                                   true,
                                   true,
                                   true,
                                   false,
                                   int64_t{-1},
                                   std::string("********"),
                                   {},
                                   true,
                                   {},
                                   pg_oid::kUser}};
        }}},
      {"pg_user",
       {{{"usename", 'n'},
         {"usesysid", 'o'},
         {"usecreatedb", 'b'},
         {"usesuper", 'b'},
         {"userepl", 'b'},
         {"usebypassrls", 'b'},
         {"passwd", 't'},
         {"valuntil", 't'},
         {"useconfig", 'a'}},
        [](SessionState& state) -> Result<std::vector<Row>> {
          return std::vector<Row>{{PgUserName(state),
                                   pg_oid::kUser,
                                   true,
                                   true,
                                   false,
                                   true,
                                   std::string("********"),
                                   {},
                                   {}}};
        }}},
      {"pg_settings",
       {{{"name", 't'},
         {"setting", 't'},
         {"unit", 't'},
         {"category", 't'},
         {"short_desc", 't'},
         {"extra_desc", 't'},
         {"context", 't'},
         {"vartype", 't'},
         {"source", 't'},
         {"min_val", 't'},
         {"max_val", 't'},
         {"enumvals", 'a'},
         {"boot_val", 't'},
         {"reset_val", 't'},
         {"sourcefile", 't'},
         {"sourceline", 'i'},
         {"pending_restart", 'b'}},
        SettingRows}},
      {"pg_proc",
       {{{"oid", 'o'},         {"proname", 'n'},     {"pronamespace", 'o'},
         {"proowner", 'o'},    {"prolang", 'o'},     {"procost", 'f'},
         {"prorows", 'f'},     {"provariadic", 'o'}, {"prosupport", 't'},
         {"prokind", 'c'},     {"prosecdef", 'b'},   {"proleakproof", 'b'},
         {"proisstrict", 'b'}, {"proretset", 'b'},   {"provolatile", 'c'},
         {"proparallel", 'c'}, {"pronargs", 'h'},    {"pronargdefaults", 'h'},
         {"prorettype", 'o'},  {"proargtypes", 'O'}, {"proallargtypes", 'O'},
         {"proargmodes", 'C'}, {"proargnames", 'a'}, {"proargdefaults", 't'},
         {"protrftypes", 'O'}, {"prosrc", 't'},      {"probin", 't'},
         {"prosqlbody", 't'},  {"proconfig", 'a'},   {"proacl", 'a'}},
        ProcRows}},
      {"pg_tablespace",
       {{{"oid", 'o'}, {"spcname", 'n'}, {"spcowner", 'o'}, {"spcacl", 'a'}, {"spcoptions", 'a'}},
        [](SessionState&) -> Result<std::vector<Row>> {
          return std::vector<Row>{{int64_t{1663}, std::string("pg_default"), pg_oid::kUser, {}, {}},
                                  {int64_t{1664}, std::string("pg_global"), pg_oid::kUser, {}, {}}};
        }}},
      {"pg_collation",
       {{{"oid", 'o'},
         {"collname", 'n'},
         {"collnamespace", 'o'},
         {"collowner", 'o'},
         {"collprovider", 'c'},
         {"collisdeterministic", 'b'},
         {"collencoding", 'i'},
         {"collcollate", 't'},
         {"collctype", 't'},
         {"colliculocale", 't'},
         {"collversion", 't'}},
        nullptr}},
      {"pg_policy",
       {{{"oid", 'o'},
         {"polname", 'n'},
         {"polrelid", 'o'},
         {"polcmd", 'c'},
         {"polpermissive", 'b'},
         {"polroles", 'O'},
         {"polqual", 't'},
         {"polwithcheck", 't'}},
        nullptr}},
      {"pg_trigger",
       {{{"oid", 'o'},
         {"tgrelid", 'o'},
         {"tgparentid", 'o'},
         {"tgname", 'n'},
         {"tgfoid", 'o'},
         {"tgtype", 'h'},
         {"tgenabled", 'c'},
         {"tgisinternal", 'b'},
         {"tgconstrrelid", 'o'},
         {"tgconstrindid", 'o'},
         {"tgconstraint", 'o'},
         {"tgdeferrable", 'b'},
         {"tginitdeferred", 'b'},
         {"tgnargs", 'h'},
         {"tgattr", 'H'},
         {"tgargs", 't'},
         {"tgqual", 't'},
         {"tgoldtable", 'n'},
         {"tgnewtable", 'n'}},
        nullptr}},
      {"pg_rewrite",
       {{{"oid", 'o'},
         {"rulename", 'n'},
         {"ev_class", 'o'},
         {"ev_type", 'c'},
         {"ev_enabled", 'c'},
         {"is_instead", 'b'},
         {"ev_qual", 't'},
         {"ev_action", 't'}},
        nullptr}},
      {"pg_statistic_ext",
       {{{"oid", 'o'},
         {"stxrelid", 'o'},
         {"stxname", 'n'},
         {"stxnamespace", 'o'},
         {"stxowner", 'o'},
         {"stxstattarget", 'i'},
         {"stxkeys", 'H'},
         {"stxkind", 'C'},
         {"stxexprs", 't'}},
        nullptr}},
      {"pg_publication",
       {{{"oid", 'o'},
         {"pubname", 'n'},
         {"pubowner", 'o'},
         {"puballtables", 'b'},
         {"pubinsert", 'b'},
         {"pubupdate", 'b'},
         {"pubdelete", 'b'},
         {"pubtruncate", 'b'},
         {"pubviaroot", 'b'}},
        nullptr}},
      {"pg_publication_rel",
       {{{"oid", 'o'}, {"prpubid", 'o'}, {"prrelid", 'o'}, {"prqual", 't'}, {"prattrs", 'H'}},
        nullptr}},
      {"pg_publication_namespace", {{{"oid", 'o'}, {"pnpubid", 'o'}, {"pnnspid", 'o'}}, nullptr}},
      {"pg_foreign_table", {{{"ftrelid", 'o'}, {"ftserver", 'o'}, {"ftoptions", 'a'}}, nullptr}},
      {"pg_partitioned_table",
       {{{"partrelid", 'o'},
         {"partstrat", 'c'},
         {"partnatts", 'h'},
         {"partdefid", 'o'},
         {"partattrs", 'H'},
         {"partclass", 'O'},
         {"partcollation", 'O'},
         {"partexprs", 't'}},
        nullptr}},
      {"pg_extension",
       {{{"oid", 'o'},
         {"extname", 'n'},
         {"extowner", 'o'},
         {"extnamespace", 'o'},
         {"extrelocatable", 'b'},
         {"extversion", 't'},
         {"extconfig", 'O'},
         {"extcondition", 'a'}},
        nullptr}},
  };
  return kDefs;
}

const std::map<std::string, RelationDef>& InformationSchemaDefs() {
  static const std::map<std::string, RelationDef> kDefs = {
      {"schemata",
       {{{"catalog_name", 't'},
         {"schema_name", 't'},
         {"schema_owner", 't'},
         {"default_character_set_catalog", 't'},
         {"default_character_set_schema", 't'},
         {"default_character_set_name", 't'},
         {"sql_path", 't'}},
        SchemataRows}},
      {"tables",
       {{{"table_catalog", 't'},
         {"table_schema", 't'},
         {"table_name", 't'},
         {"table_type", 't'},
         {"self_referencing_column_name", 't'},
         {"reference_generation", 't'},
         {"user_defined_type_catalog", 't'},
         {"user_defined_type_schema", 't'},
         {"user_defined_type_name", 't'},
         {"is_insertable_into", 't'},
         {"is_typed", 't'},
         {"commit_action", 't'}},
        InfoTablesRows}},
      {"columns",
       {{{"table_catalog", 't'},
         {"table_schema", 't'},
         {"table_name", 't'},
         {"column_name", 't'},
         {"ordinal_position", 'i'},
         {"column_default", 't'},
         {"is_nullable", 't'},
         {"data_type", 't'},
         {"character_maximum_length", 'i'},
         {"character_octet_length", 'i'},
         {"numeric_precision", 'i'},
         {"numeric_precision_radix", 'i'},
         {"numeric_scale", 'i'},
         {"datetime_precision", 'i'},
         {"interval_type", 't'},
         {"interval_precision", 'i'},
         {"character_set_catalog", 't'},
         {"character_set_schema", 't'},
         {"character_set_name", 't'},
         {"collation_catalog", 't'},
         {"collation_schema", 't'},
         {"collation_name", 't'},
         {"domain_catalog", 't'},
         {"domain_schema", 't'},
         {"domain_name", 't'},
         {"udt_catalog", 't'},
         {"udt_schema", 't'},
         {"udt_name", 't'},
         {"scope_catalog", 't'},
         {"scope_schema", 't'},
         {"scope_name", 't'},
         {"maximum_cardinality", 'i'},
         {"dtd_identifier", 't'},
         {"is_self_referencing", 't'},
         {"is_identity", 't'},
         {"identity_generation", 't'},
         {"identity_start", 't'},
         {"identity_increment", 't'},
         {"identity_maximum", 't'},
         {"identity_minimum", 't'},
         {"identity_cycle", 't'},
         {"is_generated", 't'},
         {"generation_expression", 't'},
         {"is_updatable", 't'}},
        InfoColumnsRows}},
  };
  return kDefs;
}

const RelationDef* FindDef(const PgRelation& r) {
  const auto& defs = r.schema == "pg_catalog" ? PgCatalogDefs() : InformationSchemaDefs();
  auto it = defs.find(r.name);
  return it == defs.end() ? nullptr : &it->second;
}

}  // namespace

int64_t PgNamespaceOid(const Namespace& ns) { return OidOf("namespace:" + ns.ToString()); }

int64_t PgTableOid(const TableIdentifier& ident) {
  return OidOf("table:" + ident.ns.ToString() + "\x1f" + ident.name);
}

std::optional<PgRelation> FindPgRelation(const std::vector<std::string>& parts) {
  PgRelation r;
  if (parts.size() == 2 && (parts[0] == "pg_catalog" || parts[0] == "information_schema")) {
    r = PgRelation{parts[0], parts[1]};
  } else if (parts.size() == 1 && parts[0].rfind("pg_", 0) == 0) {
    r = PgRelation{"pg_catalog", parts[0]};
  } else {
    return std::nullopt;
  }
  if (!FindDef(r)) return std::nullopt;
  return r;
}

Result<std::shared_ptr<arrow::Table>> BuildPgRelation(SessionState& state,
                                                      const PgRelation& relation) {
  const RelationDef* def = FindDef(relation);
  if (!def) return Status::Invalid("no catalog relation ", relation.schema, ".", relation.name);
  std::vector<Row> rows;
  if (def->rows) {
    ARROW_ASSIGN_OR_RAISE(rows, def->rows(state));
  }
  return MakeTable(def->cols, rows);
}

Result<PgRelationRowsResult> PgRelationRows(SessionState& state, const ObjectName& name,
                                            PgRelationCache* cache) {
  std::vector<std::string> parts;
  for (const auto& p : name.parts) parts.push_back(Lower(p.name));
  if (parts.size() > 1 && parts[0] == Lower(state.catalog->name())) parts.erase(parts.begin());
  PgRelationRowsResult out;
  std::optional<PgRelation> relation = FindPgRelation(parts);
  if (!relation) return out;
  if (parts.size() == 1) {
    ARROW_ASSIGN_OR_RAISE(bool exists, state.catalog->TableExists(TableIdentifier(
                                           state.current_namespace, name.parts[0].name)));
    if (exists) return out;
  }
  out.relation = *relation;
  std::string key = relation->schema + "." + relation->name;
  auto it = cache->tables.find(key);
  if (it == cache->tables.end()) {
    ARROW_ASSIGN_OR_RAISE(auto table, BuildPgRelation(state, *relation));
    it = cache->tables.emplace(key, std::move(table)).first;
  }
  out.table = it->second;
  return out;
}

Result<std::optional<int64_t>> PgRelationOid(SessionState& state, const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    std::string part =
        name.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part.size() >= 2 && part.front() == '"' && part.back() == '"') {
      part = part.substr(1, part.size() - 2);
    } else {
      part = Lower(part);
    }
    parts.push_back(part);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (parts.size() == 2 && parts[0] == "pg_catalog") parts.erase(parts.begin());
  if (parts.size() == 1) {
    auto it = SystemRelationOids().find(parts[0]);
    if (it != SystemRelationOids().end()) return std::optional<int64_t>(it->second);
  }
  TableIdentifier ident =
      parts.size() == 1
          ? TableIdentifier(state.current_namespace, parts[0])
          : TableIdentifier(Namespace(std::vector<std::string>(parts.begin(), parts.end() - 1)),
                            parts.back());
  ARROW_ASSIGN_OR_RAISE(bool exists, state.catalog->TableExists(ident));
  if (!exists) return std::optional<int64_t>();
  return std::optional<int64_t>(PgTableOid(ident));
}

Result<std::optional<std::string>> PgRelationName(SessionState& state, int64_t oid) {
  for (const auto& [name, system_oid] : SystemRelationOids()) {
    if (system_oid == oid) return std::optional<std::string>(name);
  }
  ARROW_ASSIGN_OR_RAISE(auto listing, ListCatalog(state));
  for (const auto& t : listing.tables) {
    if (PgTableOid(t) != oid) continue;
    if (t.ns == state.current_namespace) return std::optional<std::string>(t.name);
    return std::optional<std::string>(NamespaceName(t.ns) + "." + t.name);
  }
  return std::optional<std::string>();
}

Result<std::optional<std::string>> PgNamespaceName(SessionState& state, int64_t oid) {
  if (oid == pg_oid::kPgCatalogNamespace) return std::optional<std::string>("pg_catalog");
  if (oid == pg_oid::kInformationSchemaNamespace)
    return std::optional<std::string>("information_schema");
  ARROW_ASSIGN_OR_RAISE(auto listing, ListCatalog(state));
  for (const auto& ns : listing.namespaces) {
    if (PgNamespaceOid(ns) == oid) return std::optional<std::string>(NamespaceName(ns));
  }
  return std::optional<std::string>();
}

}  // namespace floe::sql
