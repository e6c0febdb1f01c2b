#pragma once

// libpq, PostgreSQL's client library, loaded at first use rather than linked.
//
// Arrow's libparquet (as the pyarrow wheels ship it) exports a whole OpenSSL of its own.
// Linked into one process with libpq, whose libcrypto then resolves its own symbols to
// libparquet's copy first, OpenSSL crashes (in Python, at the next `import hashlib`).
// Loaded with RTLD_DEEPBIND, libpq, libssl and libcrypto bind to each other first, whatever
// else the process holds. Sanitizer runtimes refuse RTLD_DEEPBIND: those builds load it
// without.

#include <libpq-fe.h>

#include "floe/util/status.h"

namespace floe {

#define FLOE_LIBPQ_FUNCTIONS(X) \
  X(PQconnectdbParams)          \
  X(PQconnectdb)                \
  X(PQstatus)                   \
  X(PQerrorMessage)             \
  X(PQfinish)                   \
  X(PQsetNoticeProcessor)       \
  X(PQexec)                     \
  X(PQexecParams)               \
  X(PQresultStatus)             \
  X(PQresultErrorField)         \
  X(PQresultErrorMessage)       \
  X(PQcmdTuples)                \
  X(PQcmdStatus)                \
  X(PQntuples)                  \
  X(PQnfields)                  \
  X(PQgetisnull)                \
  X(PQgetvalue)                 \
  X(PQgetlength)                \
  X(PQclear)                    \
  X(PQconninfoParse)            \
  X(PQconninfoFree)             \
  X(PQconndefaults)             \
  X(PQfreemem)                  \
  X(PQtransactionStatus)

// The functions floe calls, under their libpq names: api.PQexec(conn, sql).
struct LibpqApi {
#define FLOE_LIBPQ_MEMBER(name) decltype(&::name) name = nullptr;
  FLOE_LIBPQ_FUNCTIONS(FLOE_LIBPQ_MEMBER)
#undef FLOE_LIBPQ_MEMBER
};

// Loads libpq.so.5 once per process; an error names the library and what the loader said.
Result<const LibpqApi*> Libpq();

}  // namespace floe
