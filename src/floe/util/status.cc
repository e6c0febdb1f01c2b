#include "floe/util/status.h"

namespace floe {

namespace {
constexpr char kTypeId[] = "floe::ErrorDetail";

arrow::StatusCode CodeFor(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kNotFound:
      return arrow::StatusCode::KeyError;
    case ErrorKind::kAlreadyExists:
      return arrow::StatusCode::AlreadyExists;
    case ErrorKind::kCommitStateUnknown:
      return arrow::StatusCode::IOError;
    default:
      return arrow::StatusCode::Invalid;
  }
}
}  // namespace

const char* ErrorDetail::type_id() const { return kTypeId; }

std::string ErrorDetail::ToString() const {
  switch (kind_) {
    case ErrorKind::kNotFound:
      return "not found";
    case ErrorKind::kAlreadyExists:
      return "already exists";
    case ErrorKind::kValidation:
      return "validation";
    case ErrorKind::kCommitConflict:
      return "commit conflict";
    case ErrorKind::kCommitStateUnknown:
      return "commit state unknown";
    case ErrorKind::kOther:
      break;
  }
  return "error";
}

Status MakeError(ErrorKind kind, std::string message) {
  return Status(CodeFor(kind), std::move(message), std::make_shared<ErrorDetail>(kind));
}

ErrorKind KindOf(const Status& status) {
  if (status.ok()) return ErrorKind::kOther;
  const auto& detail = status.detail();
  if (detail && std::string(detail->type_id()) == kTypeId) {
    return static_cast<const ErrorDetail&>(*detail).kind();
  }
  return ErrorKind::kOther;
}

Status WithContext(const Status& status, const std::string& context) {
  if (status.ok()) return status;
  return Status(status.code(), context + ": " + status.message(), status.detail());
}

}  // namespace floe
