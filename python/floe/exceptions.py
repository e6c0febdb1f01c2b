"""floe's errors. Each carries the engine's message (``str(error)``), which names the table,
snapshot or file involved; the class says what kind of failure it is."""


class FloeError(Exception):
    """Base of every floe error; raised as such when the failure has no kind below."""


class NotFound(FloeError):
    """A table, namespace, snapshot or ref that does not exist."""


class AlreadyExists(FloeError):
    """A table, namespace or ref that already exists."""


class ValidationError(FloeError):
    """A request the engine refuses: bad SQL (syntax, unknown columns), bad arguments,
    conflicting options, a write that would break the table's rules."""


class CommitConflict(FloeError):
    """Another writer changed the table first and the retries ran out; nothing was committed."""


class CommitStateUnknown(FloeError):
    """The catalog did not say whether the commit landed: reload the table to find out."""


__all__ = ["FloeError", "NotFound", "AlreadyExists", "ValidationError", "CommitConflict", "CommitStateUnknown"]
