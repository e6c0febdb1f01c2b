#include "python_errors.h"

#include <nanobind/nanobind.h>

namespace nb = nanobind;

namespace floe::python {

const char* ExceptionNameFor(const Status& status) {
  switch (KindOf(status)) {
    case ErrorKind::kNotFound:
      return "NotFound";
    case ErrorKind::kAlreadyExists:
      return "AlreadyExists";
    case ErrorKind::kValidation:
      return "ValidationError";
    case ErrorKind::kCommitConflict:
      return "CommitConflict";
    case ErrorKind::kCommitStateUnknown:
      return "CommitStateUnknown";
    case ErrorKind::kOther:
      break;
  }
  return "FloeError";
}

void RaiseStatus(const Status& status) {
  // The classes live in Python (floe/exceptions.py), which the package imports first.
  nb::object cls = nb::module_::import_("floe.exceptions").attr(ExceptionNameFor(status));
  PyErr_SetString(cls.ptr(), status.message().c_str());
  throw nb::python_error();
}

}  // namespace floe::python
