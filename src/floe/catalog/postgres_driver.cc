#include "floe/catalog/postgres_driver.h"

#include "floe/catalog/libpq_api.h"

#include <chrono>
#include <set>
#include <thread>
#include <utility>
#include <vector>

namespace floe {

namespace {

// libpq, once Libpq() has loaded it: every caller below runs after PostgresDriver::Open or
// PostgresConnectionUri checked that it did.
const LibpqApi& pq() { return **Libpq(); }

constexpr Oid kTextOid = 25;
constexpr auto kReconnectFor = std::chrono::seconds(30);
// A server that answers it is recovering from a crash is coming back: recovery replays its
// write-ahead log, which can take minutes on a busy server.
constexpr auto kRecoveringFor = std::chrono::seconds(300);
constexpr auto kEndSessionFor = std::chrono::seconds(10);
// Any constant: the key of the advisory lock that orders floe's DDL on the catalog tables.
constexpr char kSchemaLockSql[] = "SELECT pg_advisory_xact_lock(7020135426)";

// What PostgreSQL answers a connection while it starts up or recovers (57P03).
bool ServerIsRecovering(std::string_view message) {
  for (std::string_view phrase : {"the database system is starting up",
                                  "the database system is not yet accepting connections",
                                  "the database system is in recovery mode"}) {
    if (message.find(phrase) != std::string_view::npos) return true;
  }
  return false;
}

// "?" and "?N" placeholders, outside quoted text, as libpq's "$N".
std::string RewritePlaceholders(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 8);
  int next = 0;
  char quote = 0;
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (quote) {
      out += c;
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      out += c;
      continue;
    }
    if (c != '?') {
      out += c;
      continue;
    }
    out += '$';
    if (i + 1 < sql.size() && sql[i + 1] >= '0' && sql[i + 1] <= '9') continue;
    out += std::to_string(++next);
  }
  return out;
}

// What a failed statement's SQLSTATE (or a broken connection) means.
SqlFailure Classify(PGconn* conn, const PGresult* res) {
  if (pq().PQstatus(conn) == CONNECTION_BAD) return SqlFailure::kConnectionLost;
  const char* state = res ? pq().PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  if (state == nullptr) return SqlFailure::kConnectionLost;
  const std::string_view code(state);
  if (code == "40001" || code == "40P01") return SqlFailure::kRetry;
  // A key or table another transaction created after this one's snapshot (SERIALIZABLE
  // reads never see it): running again sees it, and the statement's own checks then report
  // what exists.
  if (code == "23505" || code == "42P07") return SqlFailure::kRetry;
  if (code == "55P03") return SqlFailure::kBusy;
  // connection exceptions, and the server shutting down or starting up
  if (code.starts_with("08") || code == "57P01" || code == "57P02" || code == "57P03") {
    return SqlFailure::kConnectionLost;
  }
  return SqlFailure::kOther;
}

std::string Trimmed(const char* message) {
  std::string out = message ? message : "";
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  // libpq's messages span lines, indented by tabs: one line, single spaces.
  std::string line;
  for (char c : out) {
    if (c == '\n' || c == '\t') c = ' ';
    if (c == ' ' && !line.empty() && line.back() == ' ') continue;
    line += c;
  }
  return line;
}

void IgnoreNotice(void*, const char*) {}

struct ResultDeleter {
  void operator()(PGresult* res) const { pq().PQclear(res); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

// The parts of a connection string that name a database, for messages: never the password.
std::string Address(std::string_view conninfo) {
  char* error = nullptr;
  PQconninfoOption* options = pq().PQconninfoParse(std::string(conninfo).c_str(), &error);
  if (options == nullptr) {
    pq().PQfreemem(error);
    return "postgresql://?";
  }
  std::string user, host, port, dbname;
  for (PQconninfoOption* o = options; o->keyword; ++o) {
    if (!o->val) continue;
    const std::string_view key(o->keyword);
    if (key == "user") user = o->val;
    if (key == "host" || (key == "hostaddr" && host.empty())) host = o->val;
    if (key == "port") port = o->val;
    if (key == "dbname") dbname = o->val;
  }
  pq().PQconninfoFree(options);
  std::string out = "postgresql://";
  if (!user.empty()) out += user + "@";
  out += host.empty() ? "localhost" : host;
  if (!port.empty()) out += ":" + port;
  return out + "/" + dbname;
}

std::string Describe(const std::string& address) { return "PostgreSQL catalog " + address; }

PGconn* Connect(const std::string& conninfo) {
  // Defaults first: the URI's own parameters override them.
  const char* keywords[] = {"connect_timeout", "application_name", "client_encoding", "dbname",
                            nullptr};
  const char* values[] = {"10", "floe", "UTF8", conninfo.c_str(), nullptr};
  PGconn* conn = pq().PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn != nullptr) pq().PQsetNoticeProcessor(conn, IgnoreNotice, nullptr);
  return conn;
}

}  // namespace

bool IsPostgresUri(std::string_view uri) {
  return uri.starts_with("postgresql:") || uri.starts_with("postgres:") ||
         uri.starts_with("postgresql+") || uri.starts_with("jdbc:postgresql:");
}

Result<std::string> PostgresConnectionUri(std::string_view uri) {
  ARROW_RETURN_NOT_OK(Libpq().status());
  if (uri.starts_with("postgresql+")) {
    // SQLAlchemy names its driver after a '+': postgresql+psycopg2://...
    const auto sep = uri.find("://");
    if (sep == std::string_view::npos) {
      return ValidationError("Invalid catalog URI ", uri, ": expected postgresql://...");
    }
    return "postgresql" + std::string(uri.substr(sep));
  }
  if (!uri.starts_with("jdbc:postgresql:")) return std::string(uri);
  std::string_view rest = uri.substr(16);
  if (!rest.starts_with("//")) {
    // jdbc:postgresql:database, on the default host and port
    return "postgresql:///" + std::string(rest.substr(0, rest.find('?')));
  }
  const auto question = rest.find('?');
  std::string out = "postgresql:" + std::string(rest.substr(0, question));
  if (question == std::string_view::npos) return out;
  std::set<std::string> known;
  PQconninfoOption* defaults = pq().PQconndefaults();
  for (PQconninfoOption* o = defaults; o && o->keyword; ++o) known.insert(o->keyword);
  pq().PQconninfoFree(defaults);
  std::string_view query = rest.substr(question + 1);
  char sep = '?';
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const std::string key(pair.substr(0, pair.find('=')));
    if (known.count(key)) {
      out += sep;
      out += pair;
      sep = '&';
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return out;
}

PostgresDriver::PostgresDriver(PGconn* conn, std::string conninfo, std::string address)
    : conn_(conn),
      conninfo_(std::move(conninfo)),
      address_(std::move(address)),
      description_(Describe(address_)) {}

PostgresDriver::~PostgresDriver() { pq().PQfinish(conn_); }

Result<std::unique_ptr<PostgresDriver>> PostgresDriver::Open(std::string_view uri) {
  ARROW_ASSIGN_OR_RAISE(std::string conninfo, PostgresConnectionUri(uri));
  char* parse_error = nullptr;
  PQconninfoOption* parsed = pq().PQconninfoParse(conninfo.c_str(), &parse_error);
  if (parsed == nullptr) {
    std::string message = Trimmed(parse_error);
    pq().PQfreemem(parse_error);
    return ValidationError("Invalid PostgreSQL catalog URI: ", message);
  }
  pq().PQconninfoFree(parsed);
  PGconn* conn = Connect(conninfo);
  if (conn == nullptr) return Status::OutOfMemory("Cannot allocate a PostgreSQL connection");
  if (pq().PQstatus(conn) != CONNECTION_OK) {
    std::string message = Trimmed(pq().PQerrorMessage(conn));
    pq().PQfinish(conn);
    return Status::IOError("Cannot connect to ", Describe(Address(conninfo)), ": ", message);
  }
  std::string address = Address(conninfo);
  std::unique_ptr<PostgresDriver> driver(
      new PostgresDriver(conn, std::move(conninfo), std::move(address)));
  ARROW_RETURN_NOT_OK(driver->IdentifySession());
  return driver;
}

// Which server process serves this connection, and since when: after a lost answer, the
// new connection looks for it to learn whether the statement in flight can still commit.
Status PostgresDriver::IdentifySession() {
  std::vector<Row> rows;
  ARROW_RETURN_NOT_OK(Run("SELECT pid::text, backend_start::text, "
                          "pg_postmaster_start_time()::text FROM pg_stat_activity "
                          "WHERE pid = pg_backend_pid()",
                          {}, &rows)
                          .status());
  if (rows.size() != 1) {
    return Status::IOError(description_, ": cannot find this connection in pg_stat_activity");
  }
  session_ = Session{rows[0][0].value_or(""), rows[0][1].value_or(""), rows[0][2].value_or("")};
  return Status::OK();
}

Result<int> PostgresDriver::Run(std::string_view sql, std::initializer_list<Arg> args,
                                std::vector<Row>* rows) {
  last_failure_ = SqlFailure::kNone;
  if (pq().PQstatus(conn_) != CONNECTION_OK) {
    last_failure_ = SqlFailure::kConnectionLost;
    return Status::IOError(description_, ": the connection was lost");
  }
  const std::string text = RewritePlaceholders(sql);
  std::vector<std::string> owned;
  owned.reserve(args.size());
  std::vector<const char*> values;
  values.reserve(args.size());
  for (const auto& arg : args) {
    if (arg) {
      owned.emplace_back(*arg);
      values.push_back(owned.back().c_str());
    } else {
      values.push_back(nullptr);
    }
  }
  std::vector<Oid> types(args.size(), kTextOid);
  ResultPtr res(pq().PQexecParams(conn_, text.c_str(), static_cast<int>(values.size()),
                                  types.empty() ? nullptr : types.data(),
                                  values.empty() ? nullptr : values.data(), nullptr, nullptr, 0));
  const ExecStatusType status = res ? pq().PQresultStatus(res.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    last_failure_ = Classify(conn_, res.get());
    std::string message =
        Trimmed(res ? pq().PQresultErrorMessage(res.get()) : pq().PQerrorMessage(conn_));
    if (message.empty()) message = Trimmed(pq().PQerrorMessage(conn_));
    if (last_failure_ == SqlFailure::kConnectionLost) {
      lost_session_ = session_;
      return Status::IOError(description_, ": the connection was lost (", message, ")");
    }
    return Status::IOError(description_, ": ", message);
  }
  if (rows != nullptr && status == PGRES_TUPLES_OK) {
    const int n = pq().PQntuples(res.get());
    const int columns = pq().PQnfields(res.get());
    rows->reserve(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) {
      Row row(static_cast<size_t>(columns));
      for (int c = 0; c < columns; ++c) {
        if (!pq().PQgetisnull(res.get(), r, c)) {
          row[c] = std::string(pq().PQgetvalue(res.get(), r, c),
                               static_cast<size_t>(pq().PQgetlength(res.get(), r, c)));
        }
      }
      rows->push_back(std::move(row));
    }
  }
  const char* affected = pq().PQcmdTuples(res.get());
  return affected && *affected ? std::atoi(affected) : 0;
}

Status PostgresDriver::Exec(std::string_view sql) { return Run(sql, {}, nullptr).status(); }

Result<int> PostgresDriver::Execute(std::string_view sql, std::initializer_list<Arg> args) {
  return Run(sql, args, nullptr);
}

Result<std::vector<SqlDriver::Row>> PostgresDriver::Query(std::string_view sql,
                                                          std::initializer_list<Arg> args) {
  std::vector<Row> rows;
  ARROW_RETURN_NOT_OK(Run(sql, args, &rows).status());
  return rows;
}

Status PostgresDriver::Begin() { return Exec("BEGIN ISOLATION LEVEL SERIALIZABLE"); }

Status PostgresDriver::BeginCompareAndSwap() {
  return Exec("BEGIN ISOLATION LEVEL READ COMMITTED");
}

Status PostgresDriver::Commit() {
  last_failure_ = SqlFailure::kNone;
  ResultPtr res(pq().PQexec(conn_, "COMMIT"));
  if (res && pq().PQresultStatus(res.get()) == PGRES_COMMAND_OK) {
    // A transaction that had failed answers COMMIT with ROLLBACK.
    if (std::string_view(pq().PQcmdStatus(res.get())) == "COMMIT") return Status::OK();
    last_failure_ = SqlFailure::kOther;
    return Status::IOError(description_, ": the transaction was rolled back");
  }
  last_failure_ = Classify(conn_, res.get());
  std::string message =
      Trimmed(res ? pq().PQresultErrorMessage(res.get()) : pq().PQerrorMessage(conn_));
  if (last_failure_ == SqlFailure::kConnectionLost) {
    lost_session_ = session_;
    return Status::IOError(description_, ": the connection was lost while committing (", message,
                           ")");
  }
  return Status::IOError(description_, ": ", message);
}

void PostgresDriver::Rollback() {
  if (pq().PQstatus(conn_) != CONNECTION_OK) return;
  if (pq().PQtransactionStatus(conn_) == PQTRANS_IDLE) return;
  ResultPtr res(pq().PQexec(conn_, "ROLLBACK"));
}

Status PostgresDriver::LockSchema() { return Exec(kSchemaLockSql); }

Result<bool> PostgresDriver::HasTable(std::string_view table) {
  ARROW_ASSIGN_OR_RAISE(auto rows, Query("SELECT 1 FROM information_schema.tables WHERE "
                                         "table_schema = current_schema() AND table_name = ?",
                                         {table}));
  return !rows.empty();
}

Result<bool> PostgresDriver::HasColumn(std::string_view table, std::string_view column) {
  ARROW_ASSIGN_OR_RAISE(
      auto rows, Query("SELECT 1 FROM information_schema.columns WHERE "
                       "table_schema = current_schema() AND table_name = ? AND column_name = ?",
                       {table, column}));
  return !rows.empty();
}

Status PostgresDriver::Reconnect() {
  const auto start = std::chrono::steady_clock::now();
  auto pause = std::chrono::milliseconds(50);
  std::string message;
  while (true) {
    PGconn* conn = Connect(conninfo_);
    if (conn != nullptr && pq().PQstatus(conn) == CONNECTION_OK) {
      pq().PQfinish(conn_);
      conn_ = conn;
      last_failure_ = SqlFailure::kNone;
      return IdentifySession();
    }
    message = conn ? Trimmed(pq().PQerrorMessage(conn)) : "out of memory";
    pq().PQfinish(conn);
    const auto limit = ServerIsRecovering(message) ? kRecoveringFor : kReconnectFor;
    if (std::chrono::steady_clock::now() + pause > start + limit) {
      last_failure_ = SqlFailure::kConnectionLost;
      return Status::IOError("Cannot reconnect to ", description_, " for ",
                             std::chrono::duration_cast<std::chrono::seconds>(limit).count(),
                             " s: ", message);
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(1000));
  }
}

Status PostgresDriver::EndLostSession() {
  const Session lost = lost_session_;
  if (lost.pid.empty() || lost.postmaster_start != session_.postmaster_start) {
    return Status::OK();  // the server restarted: every session of before is gone
  }
  const auto deadline = std::chrono::steady_clock::now() + kEndSessionFor;
  while (true) {
    ARROW_ASSIGN_OR_RAISE(auto rows,
                          Query("SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity "
                                "WHERE pid = CAST(? AS INTEGER) AND backend_start::text = ?",
                                {lost.pid, lost.backend_start}));
    if (rows.empty()) return Status::OK();
    if (rows[0][0] != "true") {
      return Status::IOError(description_, ": cannot end the lost connection's session (pid ",
                             lost.pid, ")");
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return Status::IOError(description_, ": the lost connection's session (pid ", lost.pid,
                             ") is still running");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace floe
