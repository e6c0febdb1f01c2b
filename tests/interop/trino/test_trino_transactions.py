"""floe's multi-table transactions as Trino reads them: floe commits runs of three tables, each
run one BEGIN ... COMMIT writing the run's id into all three, while Trino polls the tables and
joins them on the run id. As of a commit time (FOR TIMESTAMP AS OF, the edge found in the
tables' "$history") the three never show a mixed run; read current, table after table, each
shows every run the one read before it showed. How the polls are built, and why they read as
of a commit time, is in tests/interop/run_consistency.py. It runs in the PostgreSQL lab, where
the catalog database's transaction makes the commit atomic; the Spark suite runs the same on
the SQLite catalog and on PostgreSQL with an S3 warehouse."""

import pytest

from run_consistency import Peer, Writer, check_polls, create_tables, poll_while_writing, timestamp_text
from test_trino_interop import floe_connection


class TrinoPeer(Peer):
    def __init__(self, trino, cat: str, ns: str):
        self.trino = trino
        self.prefix = f"{cat}.{ns}"

    def relation(self, table, as_of_ms=None):
        at = "" if as_of_ms is None else f" FOR TIMESTAMP AS OF TIMESTAMP '{timestamp_text(as_of_ms)} UTC'"
        return f"{self.prefix}.{table}{at}"

    def history(self, table):
        return f'{self.prefix}."{table}$history"'

    def rows(self, sql):
        return [tuple(r) for r in self.trino.query(sql)]


@pytest.mark.parametrize("lab", ["local"], indirect=True)
def test_trino_never_sees_a_mixed_run(lab, ns):
    floe, trino, cat = lab
    with floe_connection(floe) as conn:
        create_tables(conn, ns)
    peer = TrinoPeer(trino, cat, ns)
    polls, runs = poll_while_writing(peer, Writer(lambda: floe_connection(floe), ns))
    check_polls(peer, polls, runs)
