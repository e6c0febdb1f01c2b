#pragma once

// A session's transaction block, with PostgreSQL's states: idle (every statement commits on
// its own), open (BEGIN ... : writes are staged in a MultiTableTransaction and become
// visible together at COMMIT) and failed (a statement failed inside the block: only
// ROLLBACK, ROLLBACK TO SAVEPOINT or COMMIT, which then rolls back, are accepted). Every
// way a block ends without committing removes the files its writes wrote.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "floe/table/multi_table_transaction.h"
#include "floe/table/table_catalog.h"
#include "floe/util/status.h"

namespace floe::sql {

// PostgreSQL's words, which clients match.
inline constexpr char kAbortedTransactionMessage[] =
    "current transaction is aborted, commands ignored until end of transaction block";
inline constexpr char kTransactionInProgressMessage[] = "there is already a transaction in progress";
inline constexpr char kNoTransactionMessage[] = "there is no transaction in progress";

class TransactionBlock {
 public:
  enum class State { kIdle, kOpen, kFailed };

  explicit TransactionBlock(table::TableCatalog& tables) : tables_(tables) {}
  ~TransactionBlock();  // an open block is rolled back
  TransactionBlock(const TransactionBlock&) = delete;
  TransactionBlock& operator=(const TransactionBlock&) = delete;

  State state() const { return state_; }
  bool active() const { return state_ != State::kIdle; }

  // Invalid(kTransactionInProgressMessage) when a block is already open: PostgreSQL warns and
  // goes on, and so do the callers.
  Status Begin();
  // Commits every staged write at once. A failed block rolls back instead and reports it in
  // `rolled_back`. When the commit fails the block is over and nothing is visible.
  // With `tag`, the catalog tag is made in the same catalog transaction (COMMIT TAG).
  Status Commit(bool* rolled_back, const table::NewCatalogTag* tag = nullptr);
  void Rollback();
  // A statement failed inside the block.
  void Fail();

  Status Savepoint(const std::string& name);
  Status Release(const std::string& name);
  Status RollbackTo(const std::string& name);

  // Invalid "<what> cannot run inside a transaction block" while a block is open.
  Status CheckOutside(const std::string& what) const;

  // The open transaction, or null.
  const std::shared_ptr<table::MultiTableTransaction>& transaction() const { return open_; }

 private:
  void End();

  table::TableCatalog& tables_;
  State state_ = State::kIdle;
  std::shared_ptr<table::MultiTableTransaction> open_;
  std::vector<std::pair<std::string, table::MultiTableTransaction::Mark>> savepoints_;
};

// PostgreSQL's messages for savepoints outside a block and unknown savepoints.
std::string NoTransactionBlockMessage(const std::string& command);
std::string NoSuchSavepoint(const std::string& name);

}  // namespace floe::sql
