#pragma once

// Session::Impl: the session's state, and the dispatch of each statement to the executor of
// its kind (executors.h).

#include <memory>
#include <string>

#include "floe/sql/parse/ast.h"
#include "floe/sql/session.h"
#include "floe/sql/session/session_state.h"

namespace floe::sql {

class Session::Impl {
 public:
  Impl(std::shared_ptr<Catalog> catalog, std::shared_ptr<FileIO> io) : state_(std::move(catalog), std::move(io)) {}

  // Runs a statement to the end; the result carries its command and count.
  Result<StatementResult> Execute(const Statement& statement, const std::string& sql);
  // Runs a statement whose rows are then read from the stream (a query's straight from its
  // plan). The statement counts as running until the stream is destroyed.
  Result<std::unique_ptr<StatementStream>> Stream(std::shared_ptr<const Statement> statement, const std::string& sql);
  // What a statement returns, running it only when it changes nothing and nothing else tells.
  // `parameter_count` is the highest $n in its text.
  Result<StatementShape> Describe(const Statement& statement, const std::string& sql, int parameter_count);

  StatementCancel& cancel() { return *state_.cancel; }
  SessionMemoryPool* memory() { return state_.memory.get(); }

  std::string Setting(const std::string& key, const std::string& fallback) const {
    return state_.Setting(key, fallback);
  }
  Status SetSetting(const std::string& key, const std::string& value) { return state_.SetSetting(key, value); }
  void SetClient(const std::string& client) { state_.provenance->client = client; }
  void SetClientIdentity(const std::string& user, const std::string& address) {
    state_.provenance->user = user;
    state_.provenance->client_address = address;
  }
  const std::shared_ptr<Catalog>& catalog() const { return state_.catalog; }
  const std::shared_ptr<FileIO>& io() const { return state_.io; }

  TransactionBlock& transaction() { return state_.transaction; }
  const TransactionBlock& transaction() const { return state_.transaction; }

 private:
  Result<StatementResult> Dispatch(const Statement& statement, const std::string& sql);
  // A failed block accepts only what ends it; some statements cannot run inside a block.
  Status CheckTransactionState(const Statement& statement) const;

  SessionState state_;
};

}  // namespace floe::sql
