"""floe's change feed of a table Trino 476 wrote, merge-on-read as Trino always writes: inserts
with duplicate rows and NULL keys, DELETE, UPDATE and MERGE as position delete files, a DELETE
of a whole partition (its files, which had position deletes, dropped), a compaction (OPTIMIZE,
a `replace` snapshot), an UPDATE of two identical rows and an UPDATE that writes a row again
unchanged. create_changelog_view then gives exactly the rows each statement changed, under the
snapshot ids Trino's `$snapshots` lists; replaying each snapshot's DELETE and INSERT rows on
the rows floe reads at its parent gives the rows floe reads at it; with identifier columns the
updates come as UPDATE_BEFORE and UPDATE_AFTER pairs, and net changes give the net effect."""

import re
from collections import Counter

import pytest

# Each statement and what it changed, as (id, data, grp) rows: ("I", row), ("D", row), or
# ("U", before, after) for a row updated in place. `{t}` is the table.
WORKLOAD = [
    ("INSERT INTO {t} VALUES (1, 'a', 1), (2, 'b', 1), (3, 'c', 1), (NULL, 'n', 1)",
     [("I", (1, "a", 1)), ("I", (2, "b", 1)), ("I", (3, "c", 1)), ("I", (None, "n", 1))]),
    ("INSERT INTO {t} VALUES (4, 'd', 2), (5, 'x', 2), (5, 'x', 2), (NULL, 'n', 2), (7, 'g', 2)",
     [("I", (4, "d", 2)), ("I", (5, "x", 2)), ("I", (5, "x", 2)), ("I", (None, "n", 2)), ("I", (7, "g", 2))]),
    ("DELETE FROM {t} WHERE id = 2", [("D", (2, "b", 1))]),
    ("UPDATE {t} SET data = 'cc' WHERE id = 3", [("U", (3, "c", 1), (3, "cc", 1))]),
    ("MERGE INTO {t} o USING (VALUES (1, 'aa', 'U'), (4, '', 'D'), (6, 'f', 'I')) AS s(id, data, op) "
     "ON o.id = s.id WHEN MATCHED AND s.op = 'D' THEN DELETE WHEN MATCHED THEN UPDATE SET data = s.data "
     "WHEN NOT MATCHED THEN INSERT (id, data, grp) VALUES (s.id, s.data, 1)",
     [("U", (1, "a", 1), (1, "aa", 1)), ("D", (4, "d", 2)), ("I", (6, "f", 1))]),
    # A NULL key: one row, so its update is still a pair.
    ("UPDATE {t} SET data = 'm' WHERE id IS NULL AND grp = 1", [("U", (None, "n", 1), (None, "m", 1))]),
    # The whole partition: Trino drops its files (one with position deletes) without writing
    # delete files; the rows those files still held are the DELETE rows.
    ("DELETE FROM {t} WHERE grp = 1",
     [("D", (1, "aa", 1)), ("D", (3, "cc", 1)), ("D", (None, "m", 1)), ("D", (6, "f", 1))]),
    ("ALTER TABLE {t} EXECUTE optimize", []),
    # Two identical rows of one key: both updated (found by position, not by value).
    ("UPDATE {t} SET data = 'xx' WHERE id = 5", [("U", (5, "x", 2), (5, "xx", 2))] * 2),
    # A position delete and the same row again: the v2 format keeps no row lineage, so the
    # DELETE and the identical INSERT cancel (as copy-on-write carry-over does).
    ("UPDATE {t} SET data = data WHERE id = 7", []),
]
# Trino's CREATE TABLE commits an empty snapshot first; UPDATE and MERGE are `overwrite`s.
OPERATIONS = ["append", "append", "append", "delete", "overwrite", "overwrite", "overwrite", "delete",
              "replace", "overwrite", "overwrite"]
PARTITION_DELETE = 7  # the snapshot of the DELETE of grp 1
OPTIMIZE = 8  # the compaction's
DUPLICATE_UPDATE = 9  # the UPDATE of the two identical rows

UPDATE_ERROR = ("Cannot compute updates because there are multiple rows with the same identifier "
                "fields([id,_change_ordinal]). Please make sure the rows are unique.")


def lineage(trino, cat, ns, name) -> list[tuple[int, str]]:
    """(snapshot id, operation) of the table's snapshots, oldest first, by parent links."""
    rows = trino.query(f'SELECT snapshot_id, parent_id, operation FROM {cat}.{ns}."{name}$snapshots"')
    child = {parent: (sid, op) for sid, parent, op in rows}
    assert len(child) == len(rows), rows  # one line of history
    out, parent = [], None
    while parent in child:
        out.append(child[parent])
        parent = out[-1][0]
    assert len(out) == len(rows), rows
    return out


def changes(snapshots, start: int, end: int, updates: bool) -> Counter:
    """The changelog rows WORKLOAD says snapshots (start, end] hold (indexes into `snapshots`;
    start -1 for all): (id, data, grp, _change_type, _change_ordinal, _commit_snapshot_id)."""
    out = Counter()
    ordinal = 0
    for i in range(start + 1, end + 1):
        sid, op = snapshots[i]
        if op == "replace":
            continue
        for change in ([] if i == 0 else WORKLOAD[i - 1][1]):
            kind, *rows = change
            if kind == "U":
                kinds = ("UPDATE_BEFORE", "UPDATE_AFTER") if updates else ("DELETE", "INSERT")
                pairs = zip(kinds, rows)
            else:
                pairs = [({"I": "INSERT", "D": "DELETE"}[kind], rows[0])]
            for change_type, row in pairs:
                out[(*row, change_type, ordinal, sid)] += 1
        ordinal += 1
    return out


def floe_views(floe, table: str, calls: dict[str, str]) -> dict[str, Counter]:
    """The rows of one create_changelog_view per entry (view name -> extra arguments), read
    by one floe process, as Counters of (id, data, grp, type, ordinal, snapshot id)."""
    statements = []
    for view, args in calls.items():
        statements += [f"CALL lakehouse.system.create_changelog_view(table => '{table}', "
                       f"changelog_view => '{view}'{', ' + args if args else ''})",
                       f"SELECT *, '{view}' AS view FROM {view}"]
    out = {view: Counter() for view in calls}
    for r in floe.sql(*statements):
        if "view" in r:
            out[r["view"]][(r["id"], r["data"], r["grp"], r["_change_type"], r["_change_ordinal"],
                            r["_commit_snapshot_id"])] += 1
    return out


def replay(before: Counter, feed: Counter, sid: int) -> Counter:
    """`before` with snapshot `sid`'s DELETE (or UPDATE_BEFORE) rows taken out, all of which
    it must hold, and its INSERT (or UPDATE_AFTER) rows added."""
    gone, added = Counter(), Counter()
    for (*row, change_type, _, at), n in feed.items():
        if at == sid:
            (gone if change_type in ("DELETE", "UPDATE_BEFORE") else added)[tuple(row)] += n
    assert gone <= before, (sid, gone - before)
    return before - gone + added


# The feed is read from the table's files, whatever catalog keeps it: the PostgreSQL labs only
# (local files and S3), to keep the suite short.
@pytest.mark.parametrize("lab", ["local", "s3"], indirect=True)
def test_change_feed_of_a_table_trino_wrote(lab, ns):
    floe, trino, cat = lab
    name = f"{ns}.feed"
    trino.query(f"CREATE TABLE {cat}.{name} (id BIGINT, data VARCHAR, grp INTEGER) "
                "WITH (partitioning = ARRAY['grp'], format_version = 2)")
    for statement, _ in WORKLOAD:
        trino.query(statement.format(t=f"{cat}.{name}"))
    s = lineage(trino, cat, ns, "feed")
    assert [op for _, op in s] == OPERATIONS
    ids = [sid for sid, _ in s]
    assert [h["snapshot_id"] for h in floe.sql(f"SELECT snapshot_id FROM {name}.history "
                                               "ORDER BY made_current_at")] == ids
    # Trino wrote position deletes, and dropped grp 1's files (with theirs) by metadata alone.
    assert floe.sql(f"SELECT count(*) AS n FROM {name}.all_delete_files")[0]["n"] > 0
    summary = dict(trino.query(f'SELECT summary FROM {cat}.{ns}."feed$snapshots" '
                               f"WHERE snapshot_id = {ids[PARTITION_DELETE]}")[0][0])
    assert "added-delete-files" not in summary and int(summary["deleted-data-files"]) > 0, summary

    last, before_dup = len(s) - 1, DUPLICATE_UPDATE - 1
    views = floe_views(floe, name, {
        "all_changes": "",
        "updates": f"identifier_columns => array('id'), options => map('end-snapshot-id', '{ids[before_dup]}')",
        "from_s2": f"options => map('start-snapshot-id', '{ids[2]}')",
        "net": "net_changes => true",
        "net_from_s2": f"net_changes => true, options => map('start-snapshot-id', '{ids[2]}')",
    })

    # (a) Exactly the rows each statement changed, under Trino's snapshot ids.
    assert views["all_changes"] == changes(s, -1, last, updates=False)
    assert views["from_s2"] == changes(s, 2, last, updates=False)

    # (b) Replay: the rows at each snapshot, read by floe, are the rows at its parent less its
    # DELETE rows plus its INSERT rows; the compaction's snapshot has none and changes nothing.
    statements = [f"SELECT id, data, grp, {i} AS at FROM {name} VERSION AS OF {sid}" for i, sid in enumerate(ids)]
    at = [Counter() for _ in ids]
    for r in floe.sql(*statements):
        at[r["at"]][(r["id"], r["data"], r["grp"])] += 1
    assert not at[0]
    rows = Counter()
    for i, sid in enumerate(ids):
        rows = replay(rows, views["all_changes"], sid)
        assert rows == at[i], (i, sid)
    assert not any(r[-1] == ids[OPTIMIZE] for r in views["all_changes"])
    assert at[OPTIMIZE] == at[OPTIMIZE - 1]
    # The last snapshot floe reads is what Trino reads.
    assert Counter(tuple(r) for r in trino.query(f"SELECT id, data, grp FROM {cat}.{name}")) == at[-1]

    # (c) Update images up to the UPDATE of the identical rows: the updates as pairs, the
    # NULL key's too, and a replay of them gives the same rows.
    assert views["updates"] == changes(s, -1, before_dup, updates=True)
    assert Counter(r[3] for r in views["updates"].elements())["UPDATE_BEFORE"] == 3
    rows = Counter()
    for i, sid in enumerate(ids[:before_dup + 1]):
        rows = replay(rows, views["updates"], sid)
        assert rows == at[i], (i, sid)
    # Past it, two rows of one key in one snapshot cannot be paired, as in Spark.
    with pytest.raises(RuntimeError, match=re.escape(UPDATE_ERROR)):
        floe_views(floe, name, {"bad": "identifier_columns => array('id')"})

    # Net changes: over all snapshots, the rows of the last one as INSERTs, each with the
    # snapshot after which it was last balanced (the row the last UPDATE wrote again unchanged
    # carries that UPDATE, as Spark's net changes do); from snapshot 2 on, the rows it held
    # and the last one does not, and the other way round.
    last_ordinal = len(s) - 2  # the compaction takes no ordinal
    assert views["net"] == Counter({
        (5, "xx", 2, "INSERT", last_ordinal - 1, ids[DUPLICATE_UPDATE]): 2,
        (None, "n", 2, "INSERT", 2, ids[2]): 1,
        (7, "g", 2, "INSERT", last_ordinal, ids[last]): 1,
    })
    net = Counter()
    for row, n in views["net_from_s2"].items():
        net[row[:4]] += n
    assert net == (Counter({(*r, "DELETE"): n for r, n in (at[2] - at[-1]).items()})
                   + Counter({(*r, "INSERT"): n for r, n in (at[-1] - at[2]).items()}))
    assert views["net_from_s2"] == Counter({
        (1, "a", 1, "DELETE", 2, ids[5]): 1, (2, "b", 1, "DELETE", 0, ids[3]): 1,
        (3, "c", 1, "DELETE", 1, ids[4]): 1, (None, "n", 1, "DELETE", 3, ids[6]): 1,
        (4, "d", 2, "DELETE", 2, ids[5]): 1, (5, "x", 2, "DELETE", 5, ids[DUPLICATE_UPDATE]): 2,
        (5, "xx", 2, "INSERT", 5, ids[DUPLICATE_UPDATE]): 2,
    })
