"""Prints a Paimon table's rows, read with pypaimon, as JSON Lines.

Usage: read_table.py TABLE_PATH [OPTIONS_JSON]

TABLE_PATH is a table directory inside a filesystem-catalog warehouse,
<warehouse>/<database>.db/<table>. The rows of the latest snapshot are read
with pypaimon's batch read (ReadBuilder -> TableScan -> TableRead) and printed
one JSON object per line in the format of `paimon cat --format jsonl`
(paimon_jsonl), typed by the table's latest schema file. OPTIONS_JSON, a
JSON object of option keys and values, is applied with table.copy(options)
first (e.g. {"incremental-between-timestamp": "T1,T2"}).
"""

import json
import os
import sys

from pypaimon import CatalogFactory

import paimon_jsonl


def open_table(table_path):
    """Opens <warehouse>/<database>.db/<table> through pypaimon's filesystem catalog."""
    table_path = os.path.abspath(table_path)
    db_dir = os.path.dirname(table_path)
    if not db_dir.endswith(".db"):
        raise ValueError("%s is not <warehouse>/<database>.db/<table>" % table_path)
    warehouse = os.path.dirname(db_dir)
    ident = os.path.basename(db_dir)[:-len(".db")] + "." + os.path.basename(table_path)
    catalog = CatalogFactory.create({"warehouse": warehouse})
    return catalog.get_table(ident)


def read_rows(table_path, options=None):
    table = open_table(table_path)
    if options:
        table = table.copy(options)
    rb = table.new_read_builder()
    splits = rb.new_scan().plan().splits()
    data = rb.new_read().to_arrow(splits)
    fields = paimon_jsonl.latest_schema(table_path)["fields"]
    if data is None:
        return fields, []
    return fields, data.to_pylist()


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    fields, rows = read_rows(argv[1], json.loads(argv[2]) if len(argv) == 3 else None)
    out = sys.stdout
    for r in rows:
        out.write(paimon_jsonl.dumps(paimon_jsonl.format_row(fields, r)) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
