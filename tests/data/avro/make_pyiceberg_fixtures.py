"""Writes the PyIceberg-made Avro fixtures read by tests/unit/avro/interop_test.cc.

Run from the repository root with the project virtualenv:
  .venv/bin/python tests/data/avro/make_pyiceberg_fixtures.py
The files are committed; rerun only to regenerate them (the sync markers are random).
"""

import os

from pyiceberg.io.pyarrow import PyArrowFileIO
from pyiceberg.manifest import (
    DataFile,
    DataFileContent,
    FileFormat,
    ManifestEntry,
    ManifestEntryStatus,
    write_manifest,
    write_manifest_list,
)
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import BucketTransform, DayTransform
from pyiceberg.typedef import Record
from pyiceberg.types import LongType, NestedField, StringType, TimestamptzType

HERE = os.path.dirname(os.path.abspath(__file__))

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "ts", TimestamptzType(), required=False),
    NestedField(3, "name", StringType(), required=False),
)
SPEC = PartitionSpec(
    PartitionField(source_id=2, field_id=1000, transform=DayTransform(), name="ts_day"),
    PartitionField(source_id=1, field_id=1001, transform=BucketTransform(16), name="id_bucket"),
    spec_id=0,
)
SNAPSHOT_ID = 3051729675574597004


def data_file(i: int) -> DataFile:
    return DataFile.from_args(
        content=DataFileContent.DATA,
        file_path=f"s3://bucket/db/t/data/ts_day=2024-01-{i + 1:02d}/file-{i}.parquet",
        file_format=FileFormat.PARQUET,
        partition=Record(19723 + i, i % 16),
        record_count=100 * (i + 1),
        file_size_in_bytes=4096 + i,
        column_sizes={1: 800 + i, 2: 900 + i, 3: 1000 + i},
        value_counts={1: 100, 2: 100, 3: 100},
        null_value_counts={1: 0, 2: i, 3: 1},
        nan_value_counts={},
        lower_bounds={1: (i).to_bytes(8, "little"), 3: b"a"},
        upper_bounds={1: (i + 99).to_bytes(8, "little"), 3: b"zz"},
        key_metadata=None,
        split_offsets=[4],
        equality_ids=None,
        sort_order_id=0,
    )


def write_manifests(io: PyArrowFileIO) -> None:
    for codec in ["null", "deflate", "zstandard"]:
        path = os.path.join(HERE, f"pyiceberg_manifest_{codec}.avro")
        if os.path.exists(path):
            os.remove(path)
        with write_manifest(
            format_version=2,
            spec=SPEC,
            schema=SCHEMA,
            output_file=io.new_output(path),
            snapshot_id=SNAPSHOT_ID,
            avro_compression=codec,
        ) as writer:
            for i in range(3):
                writer.add_entry(
                    ManifestEntry.from_args(
                        status=ManifestEntryStatus.ADDED,
                        snapshot_id=SNAPSHOT_ID,
                        sequence_number=None,
                        file_sequence_number=None,
                        data_file=data_file(i),
                    )
                )
        manifest = writer.to_manifest_file()
    path = os.path.join(HERE, "pyiceberg_manifest_list.avro")
    if os.path.exists(path):
        os.remove(path)
    with write_manifest_list(
        format_version=2,
        output_file=io.new_output(path),
        snapshot_id=SNAPSHOT_ID,
        parent_snapshot_id=None,
        sequence_number=1,
        avro_compression="deflate",
    ) as list_writer:
        list_writer.add_manifests([manifest])


if __name__ == "__main__":
    write_manifests(PyArrowFileIO())
