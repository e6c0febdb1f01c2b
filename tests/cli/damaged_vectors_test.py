"""A format-version 3 table whose deletion vector is damaged: its Puffin file truncated, the
blob's checksum broken, or the blob no longer where the manifest says (bytes inserted before
it). Every read and every delete that must merge the vector fails with exit status 1 and one
error line naming the Puffin file, never a crash; the failed delete commits nothing and writes
no file. With the file repaired, both work again. Usage: damaged_vectors_test.py FLOE_BINARY"""

import os
import sys

from floe_cli import Checks, Floe

floe = Floe(sys.argv[1])
c = Checks()
T = "db.t"
warehouse = floe.env["FLOE_WAREHOUSE"]


def local(path):
    return path[len("file:"):] if path.startswith("file:") else path


def files_on_disk():
    return {os.path.join(root, n) for root, _, names in os.walk(warehouse) for n in names}


floe.sql("CREATE NAMESPACE db",
         f"CREATE TABLE {T} (id BIGINT) USING iceberg "
         "TBLPROPERTIES ('format-version'='3', 'write.delete.mode'='merge-on-read')",
         f"INSERT INTO {T} VALUES (1), (2), (3), (4), (5), (6)",
         f"DELETE FROM {T} WHERE id = 2")
[[path, offset, size]] = floe.rows(f"SELECT file_path, content_offset, content_size_in_bytes FROM {T}.delete_files")
puffin, offset, size = local(path), int(offset), int(size)
with open(puffin, "rb") as f:
    original = f.read()
head = floe.current(T)

damages = {
    "truncated": original[:offset + size - 3],
    "bad checksum": original[:offset + size - 1] + bytes([original[offset + size - 1] ^ 0xFF]) + original[offset + size:],
    "moved": original[:offset] + b"\0\0" + original[offset:],
}
for what, damaged in damages.items():
    with open(puffin, "wb") as f:
        f.write(damaged)
    before = files_on_disk()
    for statement in (f"SELECT count(*) FROM {T}", f"DELETE FROM {T} WHERE id = 3"):
        r = floe.run("sql", "-c", statement)
        lines = r.stderr.splitlines()
        c.equal(r.returncode, 1, f"{what}: exit status of {statement} ({r.stderr})")
        c.check(len(lines) == 1 and lines[0].startswith("Error: ") and puffin in lines[0],
                f"{what}: {statement} fails with one line naming {puffin}", r.stderr)
    c.equal(floe.current(T), head, f"{what}: the failed delete committed nothing")
    c.equal(files_on_disk(), before, f"{what}: the failed delete left no file")

with open(puffin, "wb") as f:
    f.write(original)
c.equal(floe.rows(f"SELECT count(*) FROM {T}"), [["5"]], "repaired: the table reads")
floe.sql(f"DELETE FROM {T} WHERE id = 3")
c.equal(floe.rows(f"SELECT id FROM {T} ORDER BY id"), [["1"], ["4"], ["5"], ["6"]], "repaired: a delete merges the vector")
floe.close()
c.done("damaged_vectors")
