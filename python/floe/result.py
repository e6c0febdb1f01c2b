"""What a statement that returns no rows (DDL, DML) reports."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StatementResult:
    statement: str  # the statement's text, as written
    message: str  # what it did, e.g. "Created table lakehouse.db.t"; may be empty

    def __str__(self) -> str:
        return self.message
