#pragma once

// floe's error kinds as the exceptions of floe.exceptions: NotFound, AlreadyExists,
// ValidationError, CommitConflict, CommitStateUnknown, and FloeError for the rest.

#include "floe/util/status.h"

namespace floe::python {

// The name of the floe.exceptions class for `status`'s kind.
const char* ExceptionNameFor(const Status& status);

// Sets the Python exception for a failed `status`, carrying its message, and throws
// nanobind::python_error. Needs the GIL.
[[noreturn]] void RaiseStatus(const Status& status);

template <typename T>
T ValueOrRaise(Result<T> result) {
  if (!result.ok()) RaiseStatus(result.status());
  return std::move(result).ValueUnsafe();
}

inline void RaiseIfError(const Status& status) {
  if (!status.ok()) RaiseStatus(status);
}

}  // namespace floe::python
