"""Commits rows given as JSON Lines to an existing table with pypaimon.

Usage: apply_rows.py TABLE_PATH ROWS_JSONL

ROWS_JSONL holds one JSON object per row in the format of `paimon cat --format
jsonl` (scalar columns only). All rows are written with one pypaimon batch
write and committed as one snapshot. Row kinds come from the table's
rowkind.field column, if it has one.
"""

import base64
import datetime
import decimal
import json
import sys

import pyarrow as pa
from pypaimon.schema.data_types import PyarrowFieldParser

import paimon_jsonl
from read_table import open_table


def parse_value(t, v):
    """The Python value for JSON value v of Paimon type t (schema-file form)."""
    if v is None:
        return None
    root = paimon_jsonl._root(t)
    if root in ("FLOAT", "DOUBLE"):
        return float({"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}.get(v, v))
    if root == "DECIMAL":
        return decimal.Decimal(v)
    if root in ("BINARY", "VARBINARY", "BYTES"):
        return base64.b64decode(v)
    if root == "DATE":
        return datetime.date.fromisoformat(v)
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        wall = datetime.datetime.fromisoformat(v.rstrip("Z"))
        return wall.replace(tzinfo=datetime.timezone.utc) if v.endswith("Z") else wall
    if root in ("ARRAY", "MAP", "MULTISET", "ROW", "TIME"):
        raise ValueError("apply_rows supports scalar columns only, not %r" % (t,))
    return v


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    table = open_table(argv[1])
    fields = paimon_jsonl.latest_schema(argv[1])["fields"]
    rows = []
    with open(argv[2], encoding="utf-8") as f:
        for line in f:
            if line.strip():
                obj = json.loads(line)
                rows.append({fd["name"]: parse_value(fd["type"], obj[fd["name"]]) for fd in fields})
    schema = PyarrowFieldParser.from_paimon_schema(table.table_schema.fields)
    wb = table.new_batch_write_builder()
    w = wb.new_write()
    c = wb.new_commit()
    try:
        w.write_arrow(pa.Table.from_pylist(rows, schema=schema))
        c.commit(w.prepare_commit())
    finally:
        w.close()
        c.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
