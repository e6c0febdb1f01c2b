"""floe and Spark run the same queries on the same table and return the same rows: window
functions, with their defaults and frames, and the deduplication users write with them."""

import pytest

from .support import make_rows, to_arrow

WINDOW_QUERIES = [
    # The CDC dedup: the newest row per key.
    "SELECT id, customer FROM (SELECT id, customer, row_number() OVER (PARTITION BY customer ORDER BY ts DESC, id) "
    "AS rn FROM {t}) WHERE rn = 1",
    "SELECT id, rank() OVER (PARTITION BY day ORDER BY amount) AS r, "
    "dense_rank() OVER (PARTITION BY day ORDER BY amount) AS d, "
    "percent_rank() OVER (PARTITION BY day ORDER BY amount) AS p, "
    "cume_dist() OVER (PARTITION BY day ORDER BY amount) AS c, ntile(3) OVER (PARTITION BY day ORDER BY id) AS n "
    "FROM {t}",
    "SELECT id, CAST(lag(amount) OVER (PARTITION BY customer ORDER BY id) AS STRING) AS prev, "
    "CAST(lead(amount, 2, 0) OVER (PARTITION BY customer ORDER BY id) AS STRING) AS next2, "
    "lag(customer, 1, 'none') OVER (ORDER BY id) AS prev_customer FROM {t}",
    "SELECT id, first_value(score) OVER (PARTITION BY day ORDER BY id) AS f, "
    "last_value(score) OVER (PARTITION BY day ORDER BY id) AS l, "
    "first_value(score) IGNORE NULLS OVER (PARTITION BY day ORDER BY id "
    "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS fi, "
    "last_value(score, true) OVER (PARTITION BY day ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS li, "
    "nth_value(customer, 2) OVER (PARTITION BY day ORDER BY id) AS second FROM {t}",
    "SELECT id, CAST(sum(amount) OVER (PARTITION BY customer ORDER BY id) AS STRING) AS running, "
    "CAST(avg(amount) OVER (PARTITION BY day ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS STRING) AS a, "
    "count(*) OVER (PARTITION BY customer) AS n, count(score) OVER (PARTITION BY customer ORDER BY id) AS ns "
    "FROM {t}",
    "SELECT id, min(score) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) AS lo, "
    "max(customer) OVER (PARTITION BY day ORDER BY id ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING) AS hi, "
    "round(sum(score) OVER (ORDER BY id RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING), 6) AS near, "
    "round(avg(score) OVER (PARTITION BY day), 6) AS day_avg, sum(id) OVER () AS total FROM {t}",
    "SELECT id, sum(id) OVER (PARTITION BY day ORDER BY score DESC NULLS LAST) AS by_score, "
    "max(amount) OVER (ORDER BY customer NULLS LAST RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS m "
    "FROM {t}",
    # Over groups: a window over aggregates.
    "SELECT day, CAST(sum(amount) AS STRING) AS total, rank() OVER (ORDER BY sum(amount) DESC) AS r, "
    "CAST(sum(sum(amount)) OVER (ORDER BY day) AS STRING) AS running FROM {t} GROUP BY day",
]


@pytest.mark.parametrize("query", range(len(WINDOW_QUERIES)))
def test_window_functions_match_spark(spark, lakehouse, ns, query):
    table = f"{ns}.events"
    lakehouse.create(table, to_arrow(make_rows(1, 1)))
    lakehouse.append(table, to_arrow(make_rows(1, 45)))
    sql = WINDOW_QUERIES[query].format(t=f"lakehouse.{table}")
    ours = sorted((tuple(normal(x) for x in row.values()) for row in lakehouse.sql(sql)), key=repr)
    theirs = sorted((tuple(normal(x) for x in row) for row in spark.sql(sql).collect()), key=repr)
    assert len(ours) == len(theirs), sql
    for a, b in zip(ours, theirs):
        assert a == b, f"{sql}\nfloe:  {a}\nSpark: {b}"


def normal(value):
    """JSON numbers and Spark's Python values side by side."""
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, float):
        return round(value, 9)
    return value
