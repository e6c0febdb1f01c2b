"""Helpers of the Python package's tests."""


def ids(table) -> list[int]:
    """The sorted ids of a pyarrow Table's `id` column."""
    return sorted(table["id"].to_pylist())
