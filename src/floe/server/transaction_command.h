#pragma once

// The transaction statements the server answers itself, as floe commits each statement on its
// own: BEGIN/START TRANSACTION, COMMIT/END, ROLLBACK/ABORT, and the savepoints drivers set
// around their own catalog queries (psycopg's TypeInfo.fetch, SQLAlchemy's nested
// transactions): SAVEPOINT, RELEASE [SAVEPOINT], ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT].

#include <string>

namespace floe::server {

enum class TransactionCommand { kNone, kBegin, kCommit, kRollback, kSavepoint, kRelease, kRollbackTo };

struct TransactionStatement {
  TransactionCommand command = TransactionCommand::kNone;
  std::string savepoint;  // as PostgreSQL folds it: lower case unless quoted
};

TransactionStatement ParseTransactionStatement(const std::string& sql);

// The SQLSTATE of the errors the savepoint commands answer (25P01 outside a transaction
// block, 3B001 for an unknown savepoint), or null for another message.
const char* SavepointErrorCode(const std::string& message);
std::string NotInBlockMessage(const std::string& command);
std::string NoSuchSavepointMessage(const std::string& name);

}  // namespace floe::server
