"""Errors raise exceptions by kind, with the engine's message."""

from __future__ import annotations

import pytest

import floe
from floe import _floe


def test_hierarchy():
    for cls in (floe.NotFound, floe.AlreadyExists, floe.ValidationError, floe.CommitConflict, floe.CommitStateUnknown):
        assert issubclass(cls, floe.FloeError)
    assert issubclass(floe.FloeError, Exception)


def test_not_found(conn):
    with pytest.raises(floe.NotFound) as e:
        conn.sql("SELECT * FROM db.nope")
    assert str(e.value) == (
        "[TABLE_OR_VIEW_NOT_FOUND] The table or view `lakehouse`.`db`.`nope` cannot be found. (line 1, column 15)\n"
        "SELECT * FROM db.nope\n"
        "              ^"
    )


def test_missing_snapshot_is_not_found(conn, three_snapshots):
    with pytest.raises(floe.NotFound) as e:
        conn.sql("SELECT * FROM db.t VERSION AS OF 42")
    assert str(e.value).startswith("Cannot find matching snapshot ID or reference name for version 42")


def test_already_exists(conn, three_snapshots):
    with pytest.raises(floe.AlreadyExists) as e:
        conn.sql("CREATE TABLE db.t (id BIGINT)")
    assert "already exists" in str(e.value)
    with pytest.raises(floe.AlreadyExists):
        conn.sql("CREATE NAMESPACE db")


def test_syntax_error_is_a_validation_error(conn):
    with pytest.raises(floe.ValidationError) as e:
        conn.sql("SELECT * FORM t")
    assert str(e.value) == "Syntax error at or near 'FORM' (line 1, column 10)\nSELECT * FORM t\n         ^"


def test_unknown_column_is_a_validation_error(conn, three_snapshots):
    with pytest.raises(floe.ValidationError) as e:
        conn.sql("SELECT nope FROM db.t")
    assert str(e.value).startswith("[UNRESOLVED_COLUMN.WITH_SUGGESTION]")


@pytest.mark.parametrize(
    "kind, cls",
    [
        ("not_found", floe.NotFound),
        ("already_exists", floe.AlreadyExists),
        ("validation", floe.ValidationError),
        ("commit_conflict", floe.CommitConflict),
        ("commit_state_unknown", floe.CommitStateUnknown),
        ("other", floe.FloeError),
    ],
)
def test_every_kind_maps_to_its_class(kind, cls):
    # The engine's statuses of each kind, through the extension's translation.
    with pytest.raises(floe.FloeError) as e:
        _floe._raise_status(kind, f"a {kind} error on table db.t")
    assert type(e.value) is cls
    assert str(e.value) == f"a {kind} error on table db.t"
