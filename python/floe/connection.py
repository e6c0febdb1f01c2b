"""Connections: a floe SQL session on a catalog, from Python."""

from __future__ import annotations

import contextlib
import os
import re

import pyarrow as pa

from . import _floe
from .exceptions import FloeError
from .result import StatementResult


def rows_of(result) -> pa.Table:
    """The rows of an engine result as a pyarrow Table: the engine's own buffers, imported
    through the Arrow C stream interface (nothing is copied). Not pa.table(), which first
    checks for a pandas DataFrame and so imports pandas."""
    return pa.RecordBatchReader.from_stream(result).read_all()


_POSITION = re.compile(r" \(line \d+, column \d+\)$")


def without_position(message: str) -> str:
    """An engine message without the "(line L, column C)", source and caret lines it adds,
    for statements the package wrote rather than the user."""
    lines = message.split("\n")
    if len(lines) >= 3 and lines[-1].strip() == "^" and _POSITION.search(lines[-3]):
        return "\n".join(lines[:-3] + [_POSITION.sub("", lines[-3])])
    return message


class Connection:
    """A session on one catalog: its own time zone and current namespace (SET, USE), and
    statements run one at a time. The GIL is released while a statement runs, so other
    Python threads go on; threads sharing a connection take turns."""

    def __init__(self, session: _floe.Session):
        self._session = session

    @property
    def catalog_name(self) -> str:
        """The catalog's name in SQL (``lakehouse`` unless connect() said otherwise)."""
        return self._live().catalog_name

    def sql(self, text: str):
        """Runs one statement. Statements that return rows (queries, SHOW, DESCRIBE, CALL,
        EXPLAIN) give a pyarrow Table; the others a StatementResult (statement, message)."""
        result = self._execute(text)
        if result.has_rows:
            return rows_of(result)
        return StatementResult(result.statement, result.message)

    @contextlib.contextmanager
    def transaction(self):
        """A block of statements whose writes, to any number of tables, become visible together
        when the block ends, in one catalog transaction (BEGIN ... COMMIT); an exception
        raised in the block rolls it back and goes on. Reads inside see the block's own
        writes. Raises ValidationError when another writer changed a table it writes in a way
        that conflicts (as a single statement would), and nothing is visible then. Blocks do
        not nest."""
        begun = self._execute("BEGIN")
        if begun.message:
            raise FloeError("A transaction is already open on this connection; transactions do not nest")
        try:
            yield self
        except BaseException:
            self._execute("ROLLBACK")
            raise
        if self._execute("COMMIT").command == "ROLLBACK":
            raise FloeError("The transaction was rolled back: a statement in it failed")

    def table(self, name: str):
        """The table `name` ("db.t" or "lakehouse.db.t", as SQL names it). Raises NotFound when
        there is no such table."""
        from .table import Table

        self._sql(f"DESCRIBE TABLE {name}")
        return Table(self, name)

    def audit_log(self, since=None, limit: int | None = None) -> pa.Table:
        """The catalog's audit log, newest first: every change of a table's metadata pointer by
        any engine (seq, changed_at, namespace, table_name, kind, operation, the snapshots and
        refs it moved, user_name, client, client_address, application_name, statement, detail,
        and the two metadata locations). `since` keeps changes at or after an instant (as
        Table.scan's as_of_timestamp takes it); `limit` the newest that many."""
        from . import _timestamps

        sql = "SELECT * FROM system.audit_log"
        if since is not None:
            sql += " WHERE changed_at >= " + _timestamps.sql_literal(_timestamps.to_micros(since))
        sql += " ORDER BY seq DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return self._sql(sql)

    def close(self) -> None:
        """Ends the session; the tables it returned stay valid."""
        self._session = None

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._session is None else f"catalog {self._session.catalog_name}"
        return f"<floe.Connection {state}>"

    def _live(self) -> _floe.Session:
        if self._session is None:
            raise FloeError("The connection is closed")
        return self._session

    def _execute(self, text: str):
        return self._live().execute(text)

    def _appended_rows(self, table: str, start_exclusive: int, end_inclusive, columns, filter) -> pa.Table:
        """The rows appended to `table` after snapshot `start_exclusive` up to `end_inclusive`
        (None: the current snapshot), with `columns` and `filter` applied in floe SQL; errors
        without positions in the query the package built, as _sql gives them."""
        try:
            result = self._live().read_appended_rows(
                table,
                start_exclusive,
                end_inclusive,
                columns=[] if columns is None else list(columns),
                filter="" if filter is None else filter,
            )
        except FloeError as e:
            raise type(e)(without_position(str(e))) from None
        return rows_of(result)

    def _sql(self, text: str):
        """sql() for statements the package builds: errors say what failed without pointing
        into SQL the caller never wrote."""
        try:
            return self.sql(text)
        except FloeError as e:
            raise type(e)(without_position(str(e))) from None


def connect(
    catalog=None,
    warehouse=None,
    catalog_name: str = "lakehouse",
    time_zone: str | None = None,
    s3: dict | None = None,
    rest: dict | None = None,
) -> Connection:
    """Opens the catalog `catalog` (a SQLite file path, ``sqlite:///...`` or
    ``jdbc:sqlite:...``, or a PostgreSQL database, ``postgresql://user@host:port/db`` or
    ``jdbc:postgresql://...``) with new tables under `warehouse`, as ``floe sql`` does: unset, they
    come from $FLOE_CATALOG and $FLOE_WAREHOUSE, else ./warehouse/catalog.db and ./warehouse
    (created when missing). `time_zone` is the session time zone for timestamps read and
    shown (default UTC). Commits record ``floe python`` as their client.

    `warehouse` may be an ``s3://bucket/prefix`` location. `s3` says how to reach the object
    store: ``endpoint`` (``http://host:port`` for an S3-compatible server), ``region``,
    ``path_style`` (bool; default: on when an endpoint is given), ``access_key_id`` and
    ``secret_access_key`` (together), ``session_token``, ``connect_timeout`` and
    ``request_timeout`` (seconds), ``max_attempts``. What it leaves out comes from
    $AWS_ENDPOINT_URL, $AWS_REGION, $AWS_ACCESS_KEY_ID, ... and then ~/.aws.

    `catalog` may be an Iceberg REST catalog, ``rest+http://host:port[/path]`` or
    ``rest+https://...``; `rest` then says how to reach it: ``warehouse``, ``token`` (a bearer
    token), ``credential`` (``CLIENT_ID:SECRET`` for OAuth2 client credentials), ``oauth2_uri``,
    ``scope``, ``ca_file``, ``vended_credentials`` (bool; default on), ``request_timeout``
    (seconds; default 120) and ``headers`` (a dict).
    Without a token or credential, $FLOE_REST_TOKEN and $FLOE_REST_CREDENTIAL apply."""
    settings = None
    if s3 is not None:
        settings = {str(k): _s3_value(v) for k, v in dict(s3).items()}
    rest_settings = None
    if rest is not None:
        rest_settings = {}
        for k, v in dict(rest).items():
            if k == "headers":
                rest_settings.update({f"header.{h}": str(hv) for h, hv in dict(v).items()})
            else:
                rest_settings[str(k)] = _s3_value(v)
    session = _floe.Session(
        catalog=None if catalog is None else os.fspath(catalog),
        warehouse=None if warehouse is None else os.fspath(warehouse),
        catalog_name=catalog_name,
        time_zone=time_zone,
        s3=settings,
        rest=rest_settings,
    )
    return Connection(session)


def _s3_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
