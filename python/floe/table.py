"""A table of a connection: scans at any point in time, and its metadata tables."""

from __future__ import annotations

import datetime as dt
from typing import Sequence

import pyarrow as pa
import pyarrow.compute as pc

from . import _timestamps
from ._sql_text import quote_identifier, sql_string
from .exceptions import ValidationError


def one_point_in_time(snapshot_id=None, as_of_timestamp=None, branch=None, tag=None) -> None:
    """Iceberg's rule: a read names at most one of a snapshot id, a timestamp, a branch and a
    tag (with its message)."""
    given = [v for v in (snapshot_id, as_of_timestamp, branch, tag) if v is not None]
    if len(given) > 1:
        show = lambda v: "null" if v is None else str(v)  # noqa: E731
        raise ValidationError(
            f"Can specify only one of snapshot-id ({show(snapshot_id)}), as-of-timestamp "
            f"({show(as_of_timestamp)}), branch ({show(branch)}), tag ({show(tag)})"
        )


def incremental_range(start_snapshot_id, end_snapshot_id, snapshot_id, as_of_timestamp, branch, tag) -> None:
    """Spark's rules for the incremental read options start-snapshot-id and end-snapshot-id
    (Iceberg 1.10's SparkScanBuilder), with its messages. Spark ignores a branch or tag given
    with them; floe refuses the combination rather than read something other than asked."""
    if snapshot_id is not None or as_of_timestamp is not None:
        raise ValidationError(
            "Cannot set start-snapshot-id and end-snapshot-id for incremental scans when either "
            "snapshot-id or as-of-timestamp is set"
        )
    if branch is not None or tag is not None:
        raise ValidationError(
            "Cannot set start-snapshot-id and end-snapshot-id for incremental scans when either "
            "branch or tag is set"
        )
    if start_snapshot_id is None:
        raise ValidationError("Cannot set only end-snapshot-id for incremental scans. Please, set start-snapshot-id too.")


class Table:
    """A table by name; each call reads the catalog afresh, so it sees the latest commit."""

    def __init__(self, connection, name: str):
        self._connection = connection
        self.name = name

    def scan(
        self,
        snapshot_id: int | None = None,
        as_of_timestamp=None,
        tag: str | None = None,
        branch: str | None = None,
        columns: Sequence[str] | None = None,
        filter: str | None = None,
        start_snapshot_id: int | None = None,
        end_snapshot_id: int | None = None,
    ) -> pa.Table:
        """The table's rows at one point in time, as a pyarrow Table. At most one of
        `snapshot_id`, `as_of_timestamp` (the snapshot current at that instant: ISO-8601 text
        read as UTC when it has no zone, a datetime, or epoch milliseconds as Iceberg's
        as-of-timestamp), `tag` and `branch`; none reads the current snapshot. `columns`
        selects columns, `filter` is a SQL condition ("id > 10 AND day = DATE '2024-01-15'").

        With `start_snapshot_id` (and optionally `end_snapshot_id`, default the current
        snapshot) it is an incremental read, as Spark's start-snapshot-id and end-snapshot-id
        read options: the rows the `append` snapshots after the start (exclusive) up to the end
        (inclusive) added, oldest first, in the table's current schema; the end's ancestry must
        reach back to the start. Compactions in the range are skipped; an overwrite or delete
        in it is an error. Not combined with a point in time."""
        one_point_in_time(snapshot_id, as_of_timestamp, branch, tag)
        if isinstance(columns, str):
            raise ValidationError(f"columns must be a list of names, not the string {columns!r}")
        if start_snapshot_id is not None or end_snapshot_id is not None:
            incremental_range(start_snapshot_id, end_snapshot_id, snapshot_id, as_of_timestamp, branch, tag)
            return self._connection._appended_rows(
                self.name,
                int(start_snapshot_id),
                None if end_snapshot_id is None else int(end_snapshot_id),
                columns,
                filter,
            )
        source = self.name
        if snapshot_id is not None:
            source += f" VERSION AS OF {int(snapshot_id)}"
        elif as_of_timestamp is not None:
            source += " TIMESTAMP AS OF " + _timestamps.sql_literal(_timestamps.to_micros(as_of_timestamp))
        elif tag is not None:
            source += "." + quote_identifier("tag_" + tag)
        elif branch is not None:
            source += "." + quote_identifier("branch_" + branch)
        select = "*" if columns is None else ", ".join(quote_identifier(c) for c in columns)
        sql = f"SELECT {select} FROM {source}"
        if filter is not None:
            sql += f" WHERE {filter}"
        return self._connection._sql(sql)

    def changelog(
        self,
        start_snapshot_id: int | None = None,
        end_snapshot_id: int | None = None,
        identifier_columns: Sequence[str] | None = None,
        compute_updates: bool | None = None,
        net_changes: bool = False,
    ) -> pa.Table:
        """The rows each snapshot inserted and deleted, as create_changelog_view gives them: the
        table's columns, then _change_type, _change_ordinal and _commit_snapshot_id; by
        _change_ordinal, and within a snapshot its DELETEs, update pairs, then INSERTs. The range is (start_snapshot_id, end_snapshot_id]; with
        identifier_columns a snapshot's DELETE and INSERT of one identity are UPDATE_BEFORE and
        UPDATE_AFTER; net_changes gives the net effect over the range. Merge-on-read tables
        included."""
        options = {}
        if start_snapshot_id is not None:
            options["start-snapshot-id"] = str(int(start_snapshot_id))
        if end_snapshot_id is not None:
            options["end-snapshot-id"] = str(int(end_snapshot_id))
        args = [f"table => {sql_string(self.name)}", "changelog_view => '_floe_python_changelog'"]
        if options:
            pairs = ", ".join(f"{sql_string(k)}, {sql_string(v)}" for k, v in options.items())
            args.append(f"options => map({pairs})")
        if identifier_columns is not None:
            if isinstance(identifier_columns, str):
                raise ValidationError(
                    f"identifier_columns must be a list of names, not the string {identifier_columns!r}")
            args.append("identifier_columns => array(" + ", ".join(sql_string(c) for c in identifier_columns) + ")")
        if compute_updates is not None:
            args.append(f"compute_updates => {'true' if compute_updates else 'false'}")
        if net_changes:
            args.append("net_changes => true")
        self._connection._sql(f"CALL system.create_changelog_view({', '.join(args)})")
        return self._connection._sql("SELECT * FROM _floe_python_changelog")

    def changes(
        self,
        from_=None,
        to=None,
        mode: str = "all",
        compute_updates: bool | None = None,
        identifier_columns: Sequence[str] | None = None,
    ) -> pa.Table:
        """The rows that changed after `from_` (exclusive) up to `to` (inclusive), each with the
        commit that changed it, as SQL's table_changes gives them: the table's columns, then
        _change_type, _change_ordinal, _commit_snapshot_id, _commit_timestamp,
        _commit_sequence_number and _operation.

        A point is an int snapshot id, a branch or tag name, a timestamp (a datetime or date,
        naive read as UTC, or ISO-8601 text read as UTC when it has no zone: the snapshot current
        then), or None: the table as created for `from_`, the current snapshot for `to`.
        `mode="net"` gives per key the state at `from_` against the state at `to` (the rows
        `floe diff --key` reports); `identifier_columns` are the keys, and a key's DELETE and
        INSERT become UPDATE_BEFORE and UPDATE_AFTER unless `compute_updates` is False. Rows
        come by _change_ordinal, key, then DELETE, UPDATE_BEFORE, UPDATE_AFTER, INSERT, then
        the other columns."""
        if isinstance(identifier_columns, str):
            raise ValidationError(
                f"identifier_columns must be a list of names, not the string {identifier_columns!r}")
        if not isinstance(mode, str):
            raise ValidationError(f"mode must be 'all' or 'net', not {mode!r}")
        args = [sql_string(self.name), self._change_point(from_, "from_"), self._change_point(to, "to"),
                f"mode => {sql_string(mode)}"]
        if compute_updates is not None:
            args.append(f"compute_updates => {'true' if compute_updates else 'false'}")
        keys = list(identifier_columns or [])
        if keys:
            args.append("identifier_columns => array(" + ", ".join(sql_string(c) for c in keys) + ")")
        rows = self._connection._sql(f"SELECT * FROM table_changes({', '.join(args)})")
        return self._in_change_order(rows, keys)

    def _change_point(self, value, name: str) -> str:
        """A point of changes() as table_changes takes it. Text names a ref first, as in SQL; text
        that reads as an ISO-8601 instant is otherwise read as UTC, as the package reads
        timestamps, not in the session time zone."""
        if value is None:
            return "NULL"
        if isinstance(value, bool):
            raise ValidationError(f"Cannot use {value!r} as {name}: give a snapshot id, a ref, a timestamp or None")
        if isinstance(value, int):
            return str(value)
        if isinstance(value, (dt.datetime, dt.date)):
            return "TIMESTAMP " + _timestamps.sql_literal(_timestamps.to_micros(value))
        if isinstance(value, str):
            if _timestamps._ISO.fullmatch(value.strip()):
                refs = self._connection._sql(f"SELECT name FROM {self.name}.refs WHERE name = {sql_string(value)}")
                if refs.num_rows == 0:
                    return "TIMESTAMP " + _timestamps.sql_literal(_timestamps.to_micros(value))
            return sql_string(value)
        raise ValidationError(f"Cannot use {value!r} as {name}: give a snapshot id, a ref, a timestamp or None")

    @staticmethod
    def _in_change_order(rows: pa.Table, keys: Sequence[str]) -> pa.Table:
        """`rows` by _change_ordinal, the key columns, the kind of change (a before image ahead
        of its after image), then the other columns that order; NULLs first, as SQL's ORDER BY."""
        change = ["_change_type", "_change_ordinal", "_commit_snapshot_id", "_commit_timestamp",
                  "_commit_sequence_number", "_operation"]
        orderable = [n for n in rows.column_names
                     if n not in change and not pa.types.is_nested(rows.schema.field(n).type)]
        by_lower = {n.lower(): n for n in orderable}
        key_names = list(dict.fromkeys(by_lower[k.lower()] for k in keys if k.lower() in by_lower))
        kinds = pa.array(["DELETE", "UPDATE_BEFORE", "UPDATE_AFTER", "INSERT"])
        rank = "_change_rank"
        while rank in rows.column_names:
            rank = "_" + rank
        ranked = rows.append_column(rank, pc.index_in(rows["_change_type"], value_set=kinds))
        sort_keys = [(n, "ascending") for n in ["_change_ordinal", *key_names, rank]
                     + [n for n in orderable if n not in key_names]]
        return rows.take(pc.sort_indices(ranked, sort_keys=sort_keys, null_placement="at_start"))

    def history(self) -> pa.Table:
        """The history metadata table: every change of the current snapshot (made_current_at,
        snapshot_id, parent_id, is_current_ancestor)."""
        return self._connection._sql(f"SELECT * FROM {self.name}.history")

    def snapshots(self) -> pa.Table:
        """The snapshots metadata table (committed_at, snapshot_id, parent_id, operation,
        manifest_list, summary)."""
        return self._connection._sql(f"SELECT * FROM {self.name}.snapshots")

    def refs(self) -> pa.Table:
        """The refs metadata table: branches and tags with their snapshots and retention."""
        return self._connection._sql(f"SELECT * FROM {self.name}.refs")

    def audit_log(self) -> pa.Table:
        """The table's rows of the catalog's audit log, newest first: every change of its
        metadata pointer by any engine, with who made it and from where (the columns of
        Connection.audit_log)."""
        return self._connection._sql(f"SELECT * FROM {self.name}.audit_log")

    def __repr__(self) -> str:
        return f"<floe.Table {self.name}>"
