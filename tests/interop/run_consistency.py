"""Consistency of floe's multi-table transactions as another engine reads them, shared by the
Spark (tests/interop/spark/test_transactions.py) and Trino
(tests/interop/trino/test_trino_transactions.py) suites.

A writer thread commits runs 1, 2, ... through the floe Python package, each run one
transaction (`with conn.transaction():`, BEGIN; INSERT INTO orders ...; INSERT INTO items ...;
INSERT INTO revenue ...; COMMIT) that writes the run's id into all three tables (3, 2 and 1
rows), with a pause of PAUSE_S between runs. While it runs, the peer polls the three tables and
joins them on the run id.

A peer loads each table of a query on its own, one catalog lookup per table milliseconds
apart, so a query of the tables' *current* states can straddle a commit even when the commit is
atomic: joined as they are now, the three may show different runs through no fault of floe.
So each poll reads:
  (a) the three tables as of the "edge": the earliest of the three tables' latest commit times,
      from their history tables (snapshot logs), joined on the run id. floe stamps every
      snapshot a transaction adds with the COMMIT's time, so the edge is the time of a commit
      that every table already shows (once one table shows it, all do), and the writer takes
      the next commit's time only after that commit and a pause. As of the edge each table
      therefore picks its snapshot of that commit, however later commits fall between the
      peer's loads: the join is runs 1..k, complete, k being the number of commits up to the
      edge in the histories read at the end. Nothing in this depends on timing. Had floe
      committed the tables one by one (three commits, three times), a poll reading the
      histories between two runs (mostly: a run's commits take tens of milliseconds, the pause
      a second) would find the edge at orders' commit of the newest run, which items and
      revenue lack then (or, at run 1, have no snapshot at all: the peer refuses the time).
  (b) the current state, one table per query in the order the writer writes them (orders,
      then items, then revenue), each query loading its table after the one before. The
      pointers of a run move together, and runs only ever get added, so each table shows
      every run the table loaded before it showed: runs(orders) <= runs(items) <=
      runs(revenue). That holds however the loads fall between commits, so it is asserted; it
      is weaker than (a) (a committer going table by table in that order breaks it only when
      a load falls between two of its commits).
The first poll comes before the writer starts (no table has a snapshot), the last after it
ended. The writer goes on until MIN_POLLS polls have seen some of its runs, then commits one
more run and ends: however fast the peer polls, at least MIN_POLLS polls fall between its first
and last commits, by construction (the number of runs follows from the peer's speed: 10 to 20
in Spark and Trino)."""

from __future__ import annotations

import datetime as dt
import itertools
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

UTC = dt.timezone.utc
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)

# Rows each run writes, in the order the writer writes the tables.
TABLES = {"orders": 3, "items": 2, "revenue": 1}
PAUSE_S = 1.0  # between two runs
MIN_POLLS = 8  # polls that see some of the runs but not the last
DEADLINE_S = 120  # the writer or the polls hang: give up


def epoch_ms(value: dt.datetime) -> int:
    """A timestamp the peer returned (naive: UTC) as epoch milliseconds, without floats."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return (value - EPOCH) // dt.timedelta(milliseconds=1)


def timestamp_text(ms: int) -> str:
    """Epoch milliseconds as 'YYYY-MM-DD HH:MM:SS.fff', in UTC."""
    at = EPOCH + dt.timedelta(milliseconds=ms)
    return at.strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d}"


def create_tables(conn, ns: str) -> None:
    for table in TABLES:
        conn.sql(f"CREATE TABLE {ns}.{table} (run INT, line INT) USING iceberg")


def run_values(run: int, rows: int) -> str:
    return ", ".join(f"({run}, {line})" for line in range(1, rows + 1))


class Writer(threading.Thread):
    """Commits runs 1, 2, ..., each in one transaction over the three tables, through a floe
    connection `connect()` opens, until one run after the polls set `polled`. `committed` is
    the last run committed; an error is kept in `error` and ends the runs; `stop` ends them
    early."""

    def __init__(self, connect: Callable, ns: str):
        super().__init__(name="floe-run-writer", daemon=True)
        self.connect = connect
        self.ns = ns
        self.committed = 0
        self.error: BaseException | None = None
        self.stop = threading.Event()
        self.polled = threading.Event()
        self.begun = threading.Event()  # run 1 is committed, or the writer failed

    def run(self) -> None:
        try:
            with self.connect() as conn:
                for run in itertools.count(1):
                    # Every poll counted before `polled` was set ended before this run began.
                    last = self.polled.is_set()
                    with conn.transaction():
                        for table, rows in TABLES.items():
                            conn.sql(f"INSERT INTO {self.ns}.{table} VALUES {run_values(run, rows)}")
                    self.committed = run
                    self.begun.set()
                    if last or self.stop.wait(PAUSE_S):
                        return
        except BaseException as e:  # noqa: BLE001 - handed to the test, which raises it
            self.error = e
        finally:
            self.begun.set()


@dataclass(repr=False)
class Poll:
    # (a): the edge (None: some table had no commit yet), and the join of the three tables as
    # of the edge, one row per run id: (run, rows in orders, in items, in revenue), a count
    # None where a table lacks the run; or the peer's error when it refused the time (a table
    # had no snapshot then).
    edge_ms: int | None = None
    as_of_edge: list[tuple] | str | None = None
    # (b): each table's current rows, (run, line) sorted, {table: rows}, read in TABLES' order.
    current: dict[str, list[tuple]] = field(default_factory=dict)

    @property
    def run(self) -> int:
        """The last run the poll saw as of the edge (0: no edge)."""
        view = self.as_of_edge
        return max((row[0] for row in view), default=0) if isinstance(view, list) else 0

    def last(self, table: str) -> int:
        """The last run the poll saw in the table's current state (0: none)."""
        return max((run for run, _ in self.current[table]), default=0)

    def __repr__(self) -> str:
        edge = None if self.edge_ms is None else timestamp_text(self.edge_ms)
        current = {t: dict(Counter(run for run, _ in rows)) for t, rows in self.current.items()}
        return f"Poll(as of the edge {edge}: {self.as_of_edge}; current rows per run: {current})"


def complete_runs(last: int) -> list[tuple]:
    """The join's rows when runs 1..last are committed, every table with all its rows."""
    return [(run, *TABLES.values()) for run in range(1, last + 1)]


def table_rows(table: str, last: int) -> list[tuple]:
    """The table's rows, (run, line) sorted, when runs 1..last are committed."""
    return [(run, line) for run in range(1, last + 1) for line in range(1, TABLES[table] + 1)]


class Peer:
    """What a test gives for its engine: how to name a table (as of a time) and its history
    table, and run a query."""

    def relation(self, table: str, as_of_ms: int | None = None) -> str:
        raise NotImplementedError

    def history(self, table: str) -> str:
        raise NotImplementedError

    def rows(self, sql: str) -> list[tuple]:
        raise NotImplementedError


def history_ms(peer: Peer, table: str) -> list[int]:
    """made_current_at of the table's history entries, in epoch millis, oldest first."""
    rows = peer.rows(f"SELECT made_current_at FROM {peer.history(table)} ORDER BY made_current_at")
    return [epoch_ms(row[0]) for row in rows]


def read_edge(peer: Peer) -> int | None:
    """The earliest of the three tables' latest commit times; None when a table has none."""
    latest = ", ".join(f"(SELECT max(made_current_at) FROM {peer.history(t)})" for t in TABLES)
    (row,) = peer.rows(f"SELECT {latest}")
    return None if any(v is None for v in row) else min(epoch_ms(v) for v in row)


def join_sql(peer: Peer, as_of_ms: int | None) -> str:
    o, i, r = (peer.relation(t, as_of_ms) for t in TABLES)
    return (
        f"WITH o AS (SELECT run, count(*) AS n FROM {o} GROUP BY run), "
        f"i AS (SELECT run, count(*) AS n FROM {i} GROUP BY run), "
        f"r AS (SELECT run, count(*) AS n FROM {r} GROUP BY run) "
        "SELECT coalesce(o.run, i.run, r.run) AS run, o.n, i.n, r.n "
        "FROM o FULL JOIN i ON o.run = i.run FULL JOIN r ON coalesce(o.run, i.run) = r.run"
    )


def read_join(peer: Peer, as_of_ms: int | None) -> list[tuple]:
    return sorted(tuple(row) for row in peer.rows(join_sql(peer, as_of_ms)))


def read_as_of(peer: Peer, as_of_ms: int) -> list[tuple] | str:
    try:
        return read_join(peer, as_of_ms)
    except Exception as e:  # noqa: BLE001 - a table without a snapshot then: checked as a mixed view
        return f"refused: {str(e).splitlines()[0]}"


def rows_of(peer: Peer, table: str) -> list[tuple]:
    return sorted(tuple(row) for row in peer.rows(f"SELECT run, line FROM {peer.relation(table)}"))


def poll(peer: Peer) -> Poll:
    p = Poll(edge_ms=read_edge(peer))
    if p.edge_ms is not None:
        p.as_of_edge = read_as_of(peer, p.edge_ms)
    for table in TABLES:
        p.current[table] = rows_of(peer, table)
    return p


def poll_while_writing(peer: Peer, writer: Writer) -> tuple[list[Poll], int]:
    """Polls once before the writer starts, then until a poll began after its last commit;
    returns the polls and the number of runs. Stops the writer if a poll fails."""
    polls = [poll(peer)]
    deadline = time.monotonic() + DEADLINE_S
    writer.start()
    try:
        writer.begun.wait(DEADLINE_S)  # every poll from here on finds run 1 at least
        while True:
            assert time.monotonic() < deadline, f"no end after {DEADLINE_S} s: {len(polls)} polls"
            done = not writer.is_alive()
            polls.append(poll(peer))
            if sum(1 for p in polls if p.run > 0) >= MIN_POLLS:
                writer.polled.set()
            if done:
                break
    finally:
        writer.stop.set()
        writer.join(30)
    if writer.error is not None:
        raise writer.error
    assert not writer.is_alive(), "the writer did not end"
    return polls, writer.committed


def check_polls(peer: Peer, polls: list[Poll], runs: int) -> None:
    """Every assertion on the polls, and on the tables after the writer's last run (`runs`)."""
    # (a) No poll saw a mixed run: as of its edge, runs 1..k, complete in all three (a table
    # without a snapshot then, the others with one, is a mixed view too).
    def mixed(view: list[tuple] | str | None) -> bool:
        return isinstance(view, str) or (
            view is not None and view != complete_runs(max((row[0] for row in view), default=0)))

    bad = [p for p in polls if mixed(p.as_of_edge)]
    assert bad == [], f"{len(bad)} of {len(polls)} polls saw a mixed run, first: {bad[0]}, last: {bad[-1]}"
    first = polls[0]
    assert (first.edge_ms, first.current) == (None, {t: [] for t in TABLES}), (
        f"the poll before the first run saw {first}")
    assert all(p.edge_ms is not None for p in polls[1:]), f"a poll after run 1 found no edge: {polls}"

    # The tables' histories, as the peer reads them: one entry per run, and the three tables
    # share each run's time (the COMMIT's).
    histories = {t: history_ms(peer, t) for t in TABLES}
    stamps = histories["orders"]
    assert len(stamps) == runs and len(set(stamps)) == runs, stamps
    assert histories["items"] == stamps and histories["revenue"] == stamps, histories
    # Each poll's edge is a run's commit time, and as of it the poll saw exactly the runs
    # committed by then; the runs seen never went back; and the polls spanned the writing,
    # from before its first run to after its last.
    for p in polls[1:]:
        assert p.edge_ms in stamps, (timestamp_text(p.edge_ms), p)
        expected = sum(1 for at in stamps if at <= p.edge_ms)
        assert p.as_of_edge == complete_runs(expected), (
            f"as of {timestamp_text(p.edge_ms)} the poll saw {p.as_of_edge}, the history says runs 1..{expected}")
    seen = [p.run for p in polls]
    assert seen == sorted(seen), seen
    assert seen[0] == 0 and seen[-1] == runs, seen
    assert sum(1 for r in seen if 0 < r < runs) >= MIN_POLLS, f"too few polls while writing: {seen}"

    # (b) Current states, read table after table: each table has exactly the rows of runs
    # 1..k, and every run a table read before it showed (and the runs seen as of the edge).
    for p in polls:
        for table in TABLES:
            assert p.current[table] == table_rows(table, p.last(table)), (table, p)
        assert p.run <= p.last("orders") <= p.last("items") <= p.last("revenue"), p

    # At the end: every run in all three, each table with exactly its rows.
    assert read_join(peer, None) == complete_runs(runs)
    for table in TABLES:
        assert rows_of(peer, table) == table_rows(table, runs), table
