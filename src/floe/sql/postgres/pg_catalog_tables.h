#pragma once

// PostgreSQL's system catalogs as clients read them on connect and in their table browsers
// (psql's \dn, \dt, \d; JDBC's DatabaseMetaData; DBeaver): pg_catalog.pg_namespace,
// pg_class, pg_attribute, pg_type, ... and information_schema.schemata, tables, columns,
// with PostgreSQL's column names, built from floe's catalog when a query names them. Tables
// floe has nothing for (constraints, indexes, policies, triggers, ...) have their columns and
// no rows.
//
// Oids are stable: a namespace's and a table's come from a hash of their names, so a client
// that keeps one between statements or connections finds the same object.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/catalog/table_identifier.h"
#include "floe/sql/parse/ast.h"
#include "floe/sql/session/session_state.h"

namespace floe::sql {

// Session setting the PostgreSQL server sets on its sessions: PostgreSQL's meanings where they
// differ from Spark's (current_database() is the catalog, SHOW/SET of PostgreSQL parameters).
inline constexpr char kPgClientKey[] = "floe.pg.client";
bool IsPgClient(const SessionState& state);
// The user the catalogs and current_user report: `floe.pg.user`, else "floe".
std::string PgUserName(const SessionState& state);

namespace pg_oid {
inline constexpr int64_t kPgCatalogNamespace = 11;
inline constexpr int64_t kInformationSchemaNamespace = 13000;
inline constexpr int64_t kUser = 10;
inline constexpr int64_t kDatabase = 5;
inline constexpr int64_t kPgClass = 1259;
}  // namespace pg_oid

int64_t PgNamespaceOid(const Namespace& ns);
int64_t PgTableOid(const TableIdentifier& ident);
// The oid of a system relation (pg_class -> 1259), or of a catalog table named as
// `regclass` reads it ("db.t", "t" in the current namespace, "pg_class"); nullopt when none.
Result<std::optional<int64_t>> PgRelationOid(SessionState& state, const std::string& name);
// The name `oid::regclass` prints (the table's, qualified unless in the current namespace),
// or nullopt when no relation has that oid.
Result<std::optional<std::string>> PgRelationName(SessionState& state, int64_t oid);
// The namespace name of an oid, or nullopt.
Result<std::optional<std::string>> PgNamespaceName(SessionState& state, int64_t oid);

// A catalog relation a FROM item names.
struct PgRelation {
  std::string schema;  // "pg_catalog" or "information_schema"
  std::string name;    // "pg_class", "tables"
};

// `pg_catalog.X`, `information_schema.X`, or an unqualified `pg_X` of pg_catalog (lower-cased
// name parts, the catalog's name already removed); nullopt for any other name.
std::optional<PgRelation> FindPgRelation(const std::vector<std::string>& lower_parts);

// The rows of `relation` as of now.
Result<std::shared_ptr<arrow::Table>> BuildPgRelation(SessionState& state,
                                                      const PgRelation& relation);

// Catalog relations one statement has read, so that all its references see the same rows.
struct PgRelationCache {
  std::map<std::string, std::shared_ptr<arrow::Table>> tables;
};

struct PgRelationRowsResult {
  PgRelation relation;
  std::shared_ptr<arrow::Table> table;  // null when the name is no catalog relation
};

// The catalog relation a FROM name denotes (with or without the catalog's name first), and
// its rows. An unqualified `pg_X` is one only when the current namespace has no table `pg_X`.
Result<PgRelationRowsResult> PgRelationRows(SessionState& state, const ObjectName& name,
                                            PgRelationCache* cache);

}  // namespace floe::sql
