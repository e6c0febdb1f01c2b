"""floe: Apache Iceberg tables you can read as of any snapshot, and put back.

    import floe
    conn = floe.connect()                      # ./warehouse, or $FLOE_CATALOG / $FLOE_WAREHOUSE
    conn.sql("SELECT * FROM db.t")             # a pyarrow Table
    conn.table("db.t").scan(snapshot_id=...)   # time travel; .history(), .snapshots(), .refs()
    floe.iceberg.history(conn, "db.t")         # also on a SparkSession: see floe.iceberg
"""

# pyarrow first: the extension uses the Arrow C++ libraries of the pyarrow wheel.
import pyarrow  # noqa: F401

# pyarrow.fs shuts Arrow's S3 library (shared with the extension, which starts it for s3://
# locations) down at interpreter exit, while that is still safe.
import pyarrow.fs  # noqa: F401,E402

from . import _floe  # noqa: E402
from .connection import Connection, connect  # noqa: E402
from .exceptions import (  # noqa: E402
    AlreadyExists,
    CommitConflict,
    CommitStateUnknown,
    FloeError,
    NotFound,
    ValidationError,
)
from .result import StatementResult  # noqa: E402
from .table import Table  # noqa: E402
from . import iceberg  # noqa: E402

try:
    from importlib.metadata import version as _version

    __version__ = _version("floe")
except Exception:  # not installed as a distribution (a build tree on sys.path)
    __version__ = "dev"

__all__ = [
    "connect",
    "Connection",
    "Table",
    "StatementResult",
    "FloeError",
    "NotFound",
    "AlreadyExists",
    "ValidationError",
    "CommitConflict",
    "CommitStateUnknown",
    "iceberg",
]
