"""Rows reach pyarrow without a copy: the pyarrow Table's buffers are the engine's own."""

from __future__ import annotations

import pyarrow as pa

from floe.connection import rows_of


def addresses(table: pa.Table) -> set[int]:
    out = set()
    for column in table.columns:
        for chunk in column.chunks:
            out.update(b.address for b in chunk.buffers() if b is not None)
    return out


def test_result_buffers_are_not_copied(conn):
    conn.sql("CREATE TABLE db.big (id BIGINT, name STRING)")
    conn.sql("INSERT INTO db.big SELECT id, concat('name-', CAST(id AS STRING)) FROM range(200000)")
    result = conn._execute("SELECT id, name FROM db.big")  # what conn.sql() runs
    engine = set(result._buffer_addresses())
    allocated = pa.total_allocated_bytes()
    table = rows_of(result)  # and how it hands the rows over
    assert table.num_rows == 200000
    ours = addresses(table)
    assert ours and ours <= engine, "pyarrow holds buffers the engine did not make"
    # The value buffers of both columns (ids, string offsets and bytes) are the engine's.
    for column in table.columns:
        for chunk in column.chunks:
            assert chunk.buffers()[1].address in engine
    # Importing allocated next to nothing (the engine allocates from the same Arrow memory
    # pool as pyarrow): a few bookkeeping bytes, not a copy of the data.
    assert table.nbytes > 2_000_000
    assert pa.total_allocated_bytes() - allocated < 16_384
    # The rows outlive the engine's result object.
    del result
    assert sorted(table["id"].to_pylist()) == list(range(200000))
