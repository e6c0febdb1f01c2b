#pragma once

// floe reports errors as arrow::Status / arrow::Result values. The few error kinds that
// callers act on (retry a commit, map to "not found" in SQL) travel as a detail on the
// Status; everything else is an ordinary Arrow status with a message naming the table,
// snapshot or file involved.

#include <memory>
#include <string>
#include <utility>

#include <arrow/result.h>
#include <arrow/status.h>

#include "floe/util/str_cat.h"

namespace floe {

using arrow::Result;
using arrow::Status;

enum class ErrorKind {
  kOther,
  kNotFound,
  kAlreadyExists,
  kValidation,
  // Another writer changed the table first; reload and retry.
  kCommitConflict,
  // The catalog did not say whether the commit landed; nothing may be cleaned up.
  kCommitStateUnknown,
};

class ErrorDetail : public arrow::StatusDetail {
 public:
  explicit ErrorDetail(ErrorKind kind) : kind_(kind) {}
  const char* type_id() const override;
  std::string ToString() const override;
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

Status MakeError(ErrorKind kind, std::string message);

template <typename... Args>
Status NotFound(Args&&... args) {
  return MakeError(ErrorKind::kNotFound, StrCat(std::forward<Args>(args)...));
}
template <typename... Args>
Status AlreadyExists(Args&&... args) {
  return MakeError(ErrorKind::kAlreadyExists,
                   StrCat(std::forward<Args>(args)...));
}
template <typename... Args>
Status ValidationError(Args&&... args) {
  return MakeError(ErrorKind::kValidation, StrCat(std::forward<Args>(args)...));
}
template <typename... Args>
Status CommitConflict(Args&&... args) {
  return MakeError(ErrorKind::kCommitConflict,
                   StrCat(std::forward<Args>(args)...));
}
template <typename... Args>
Status CommitStateUnknown(Args&&... args) {
  return MakeError(ErrorKind::kCommitStateUnknown,
                   StrCat(std::forward<Args>(args)...));
}

ErrorKind KindOf(const Status& status);
inline bool IsNotFound(const Status& s) { return KindOf(s) == ErrorKind::kNotFound; }
inline bool IsAlreadyExists(const Status& s) { return KindOf(s) == ErrorKind::kAlreadyExists; }
inline bool IsCommitConflict(const Status& s) { return KindOf(s) == ErrorKind::kCommitConflict; }
inline bool IsCommitStateUnknown(const Status& s) {
  return KindOf(s) == ErrorKind::kCommitStateUnknown;
}

// Prefixes a failed status's message with context ("while reading <file>: ").
Status WithContext(const Status& status, const std::string& context);

}  // namespace floe
