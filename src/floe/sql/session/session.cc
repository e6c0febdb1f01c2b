#include "floe/sql/session.h"

#include <pthread.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>

#include <arrow/api.h>

#include "floe/catalog/sql_catalog.h"
#include "floe/scan/table_scan.h"
#include "floe/sql/parse/lexer.h"
#include "floe/sql/metadata/metadata_tables.h"
#include "floe/sql/parse/parameter_literals.h"
#include "floe/sql/parse/parse_error.h"
#include "floe/sql/parse/parser.h"
#include "floe/sql/plan/query_planner.h"
#include "floe/sql/parse/statement_splitter.h"
#include "floe/sql/execute/statement_executor.h"
#include "floe/util/clock.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::Make(const SessionOptions& options) {
  if (IsRestCatalogUri(options.catalog_uri)) {
    RestCatalogOptions rest = options.rest;
    rest.user_agent = options.client;  // "floe sql": what the server's audit log calls us
    ARROW_ASSIGN_OR_RAISE(std::shared_ptr<Catalog> catalog,
                          RestCatalog::Open(options.catalog_uri, options.catalog_name, rest));
    ARROW_ASSIGN_OR_RAISE(auto io, FileIO::Make(options.object_store));
    ARROW_ASSIGN_OR_RAISE(std::unique_ptr<Session> session, Make(std::move(catalog), std::move(io)));
    session->impl_->SetClient(options.client);
    return session;
  }
  std::string warehouse = options.warehouse;
  if (!warehouse.empty() && warehouse.find("://") == std::string::npos && warehouse.rfind("file:", 0) != 0) {
    std::error_code ec;
    std::filesystem::create_directories(warehouse, ec);
    std::filesystem::path absolute = std::filesystem::absolute(warehouse, ec);
    if (ec) return Status::IOError("Cannot resolve warehouse ", warehouse, ": ", ec.message());
    warehouse = absolute.lexically_normal().string();
  }
  std::string uri = options.catalog_uri;
  if (uri.find(':') == std::string::npos) {
    std::error_code ec;
    auto parent = std::filesystem::path(uri).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  }
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<Catalog> catalog,
                        SqlCatalog::Open(uri, options.catalog_name, warehouse, options.allowed_roots));
  ARROW_ASSIGN_OR_RAISE(auto io, FileIO::Make(options.object_store));
  ARROW_ASSIGN_OR_RAISE(std::unique_ptr<Session> session, Make(std::move(catalog), std::move(io)));
  session->impl_->SetClient(options.client);
  return session;
}

Result<std::unique_ptr<Session>> Session::Make(std::shared_ptr<Catalog> catalog,
                                               std::shared_ptr<FileIO> io) {
  auto impl = std::make_unique<Impl>(std::move(catalog), std::move(io));
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

namespace {

// Planning, and Arrow's binding and evaluation of expressions, recurse over trees as deep as
// the parser lets through (kMaxParseDepth levels, long operator chains 8 links a level); a
// sanitizer build's frames are several times larger than an optimized build's. So each
// statement runs on a thread whose stack holds the deepest tree in any build (the memory is
// reserved, and used only as deep as a statement goes).
constexpr size_t kStatementStackBytes = size_t{64} << 20;

// Plans made on that thread allocate from the session's pool (`pool`).
template <typename T>
Result<T> RunOnLargeStack(arrow::MemoryPool* pool, const std::function<Result<T>()>& run) {
  struct Job {
    arrow::MemoryPool* pool;
    const std::function<Result<T>()>* run;
    std::optional<Result<T>> result;
  } job{pool, &run, std::nullopt};
  auto body = [](void* arg) -> void* {
    auto* j = static_cast<Job*>(arg);
    ScopedStatementMemoryPool memory(j->pool);
    // Nothing may escape a thread: an exception fails the statement like any error.
    try {
      j->result = (*j->run)();
    } catch (const std::exception& e) {
      j->result = Status::UnknownError("Internal error: ", e.what());
    } catch (...) {
      j->result = Status::UnknownError("Internal error: unknown exception");
    }
    return nullptr;
  };
  pthread_attr_t attr;
  pthread_t thread;
  bool started = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, kStatementStackBytes) == 0 &&
                 pthread_create(&thread, &attr, body, &job) == 0;
  pthread_attr_destroy(&attr);
  if (!started) {  // no thread to be had: the caller's stack
    ScopedStatementMemoryPool memory(pool);
    return run();
  }
  pthread_join(thread, nullptr);
  return std::move(*job.result);
}

// The highest n of the $n in `sql` (0 when none, or when it does not lex: parsing reports that).
int ParameterCount(const std::string& sql) {
  auto tokens = Lex(sql);
  if (!tokens.ok()) return 0;
  int count = 0;
  for (const Token& t : *tokens) {
    if (t.kind == TokenKind::kParameter) count = std::max(count, std::stoi(t.text));
  }
  return count;
}

Result<Statement> ParseWithParameters(const std::string& sql, const std::vector<Parameter>& params,
                                      bool allow_missing) {
  ARROW_ASSIGN_OR_RAISE(ParameterValues values, ParameterLiterals(params, allow_missing));
  return ParseStatement(sql, values);
}

// Begin/End of a statement run start to finish within one call.
class RunningStatement {
 public:
  explicit RunningStatement(StatementCancel& cancel) : cancel_(cancel) { cancel_.Begin(); }
  ~RunningStatement() { cancel_.End(); }
  RunningStatement(const RunningStatement&) = delete;
  RunningStatement& operator=(const RunningStatement&) = delete;

 private:
  StatementCancel& cancel_;
};

}  // namespace

Result<StatementResult> Session::Execute(const std::string& sql) { return Execute(sql, {}); }

Result<StatementResult> Session::Execute(const std::string& sql, const std::vector<Parameter>& params) {
  RunningStatement running(impl_->cancel());
  auto done = RunOnLargeStack<StatementResult>(impl_->memory(), [&]() -> Result<StatementResult> {
    ARROW_ASSIGN_OR_RAISE(Statement statement, ParseWithParameters(sql, params, false));
    ARROW_ASSIGN_OR_RAISE(StatementResult result, impl_->Execute(statement, sql));
    result.statement = sql;
    return result;
  });
  if (!done.ok()) impl_->transaction().Fail();
  return done;
}

Result<StatementShape> Session::Describe(const std::string& sql, const std::vector<Parameter>& params) {
  RunningStatement running(impl_->cancel());
  return RunOnLargeStack<StatementShape>(impl_->memory(), [&]() -> Result<StatementShape> {
    ARROW_ASSIGN_OR_RAISE(Statement statement, ParseWithParameters(sql, params, true));
    return impl_->Describe(statement, sql, ParameterCount(sql));
  });
}

Result<std::unique_ptr<StatementStream>> Session::ExecuteStreaming(const std::string& sql,
                                                                  const std::vector<Parameter>& params) {
  impl_->cancel().Begin();
  auto stream = RunOnLargeStack<std::unique_ptr<StatementStream>>(
      impl_->memory(), [&]() -> Result<std::unique_ptr<StatementStream>> {
        ARROW_ASSIGN_OR_RAISE(Statement statement, ParseWithParameters(sql, params, false));
        return impl_->Stream(std::make_shared<const Statement>(std::move(statement)), sql);
      });
  // A stream, once made, ends the statement when it is destroyed.
  if (!stream.ok()) {
    impl_->cancel().End();
    impl_->transaction().Fail();
  }
  return stream;
}

char Session::TransactionStatus() const {
  switch (impl_->transaction().state()) {
    case TransactionBlock::State::kIdle:
      return 'I';
    case TransactionBlock::State::kOpen:
      return 'T';
    case TransactionBlock::State::kFailed:
      return 'E';
  }
  return 'I';
}

void Session::FailTransaction() { impl_->transaction().Fail(); }

void Session::Cancel() { impl_->cancel().Cancel(); }

Result<std::vector<StatementResult>> Session::ExecuteScript(const std::string& script,
                                                            std::vector<StatementResult>* done) {
  std::vector<StatementResult> results;
  for (const StatementSpan& span : SplitStatements(script)) {
    auto result = Execute(span.text);
    if (!result.ok()) {
      if (done) *done = results;
      return result.status();
    }
    results.push_back(std::move(result).ValueUnsafe());
  }
  if (done) *done = results;
  return results;
}

std::string Session::Setting(const std::string& key, const std::string& fallback) const {
  return impl_->Setting(key, fallback);
}

Status Session::SetSetting(const std::string& key, const std::string& value) {
  return impl_->SetSetting(key, value);
}

void Session::SetClientIdentity(const std::string& user, const std::string& address) {
  impl_->SetClientIdentity(user, address);
}

const std::shared_ptr<Catalog>& Session::catalog() const { return impl_->catalog(); }
const std::shared_ptr<FileIO>& Session::io() const { return impl_->io(); }

}  // namespace floe::sql
