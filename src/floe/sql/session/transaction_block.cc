#include "floe/sql/session/transaction_block.h"

#include "floe/util/ids.h"

namespace floe::sql {

std::string NoTransactionBlockMessage(const std::string& command) {
  return command + " can only be used in transaction blocks";
}

std::string NoSuchSavepoint(const std::string& name) {
  return "savepoint \"" + name + "\" does not exist";
}

TransactionBlock::~TransactionBlock() {
  if (open_) open_->Discard();
  End();
}

void TransactionBlock::End() {
  tables_.set_transaction(nullptr);
  open_.reset();
  savepoints_.clear();
  state_ = State::kIdle;
}

Status TransactionBlock::Begin() {
  if (state_ != State::kIdle) return Status::Invalid(kTransactionInProgressMessage);
  open_ = std::make_shared<table::MultiTableTransaction>(NewUuid());
  tables_.set_transaction(open_);
  state_ = State::kOpen;
  return Status::OK();
}

Status TransactionBlock::Commit(bool* rolled_back, const table::NewCatalogTag* tag) {
  *rolled_back = state_ == State::kFailed;
  if (state_ == State::kIdle) return Status::OK();
  if (state_ == State::kFailed) {
    Rollback();
    return Status::OK();
  }
  std::shared_ptr<table::MultiTableTransaction> transaction = open_;
  End();
  return transaction->Commit(tables_, tag);  // discards the staged writes when it fails
}

void TransactionBlock::Rollback() {
  if (open_) open_->Discard();
  End();
}

void TransactionBlock::Fail() {
  if (state_ == State::kOpen) state_ = State::kFailed;
}

Status TransactionBlock::Savepoint(const std::string& name) {
  if (state_ == State::kIdle) return Status::Invalid(NoTransactionBlockMessage("SAVEPOINT"));
  if (state_ == State::kFailed) return Status::Invalid(kAbortedTransactionMessage);
  savepoints_.emplace_back(name, open_->Save());
  return Status::OK();
}

Status TransactionBlock::Release(const std::string& name) {
  if (state_ == State::kIdle) return Status::Invalid(NoTransactionBlockMessage("RELEASE SAVEPOINT"));
  if (state_ == State::kFailed) return Status::Invalid(kAbortedTransactionMessage);
  for (size_t i = savepoints_.size(); i-- > 0;) {
    if (savepoints_[i].first != name) continue;
    savepoints_.resize(i);
    return Status::OK();
  }
  return Status::Invalid(NoSuchSavepoint(name));
}

Status TransactionBlock::RollbackTo(const std::string& name) {
  if (state_ == State::kIdle) {
    return Status::Invalid(NoTransactionBlockMessage("ROLLBACK TO SAVEPOINT"));
  }
  for (size_t i = savepoints_.size(); i-- > 0;) {
    if (savepoints_[i].first != name) continue;
    // The savepoint stays, and a failed block is usable again, as in PostgreSQL.
    open_->RollbackTo(savepoints_[i].second);
    savepoints_.resize(i + 1);
    state_ = State::kOpen;
    return Status::OK();
  }
  return Status::Invalid(NoSuchSavepoint(name));
}

Status TransactionBlock::CheckOutside(const std::string& what) const {
  if (state_ == State::kIdle) return Status::OK();
  return Status::Invalid(what, " cannot run inside a transaction block");
}

}  // namespace floe::sql
