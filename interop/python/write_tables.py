"""Writes the interop table set with pypaimon's filesystem catalog.

Usage: write_tables.py OUTDIR

Creates OUTDIR/warehouse/interop.db/<table> for each table of tables.TABLES,
one pypaimon batch commit per commit listed there, and for each table
OUTDIR/expected/<table>.jsonl with the rows the table must hold afterwards,
computed from the written rows and the merge semantics (tables.final_rows), in
the format of `paimon cat --format jsonl`. OUTDIR/tables.json lists them:

  {"writer": "pypaimon 2.1.0", "tables": [{"name": ..., "path": ..., "expected": ...,
   "commits": N, "all_levels": bool, "default_rows": N, "note": ...}]}

with paths relative to OUTDIR.
"""

import importlib.metadata
import json
import os
import sys

import pyarrow as pa
from pypaimon import CatalogFactory, Schema
from pypaimon.schema.data_types import PyarrowFieldParser

import paimon_jsonl
import tables


def write_table(catalog, name, arrow_schema, partition_keys, primary_keys, options, commits):
    schema = Schema.from_pyarrow_schema(arrow_schema, partition_keys=partition_keys,
                                        primary_keys=primary_keys, options=dict(options))
    ident = "interop." + name
    catalog.create_table(ident, schema, False)
    table = catalog.get_table(ident)
    write_schema = PyarrowFieldParser.from_paimon_schema(table.table_schema.fields)
    for commit in commits:
        wb = table.new_batch_write_builder()
        w = wb.new_write()
        c = wb.new_commit()
        try:
            for batch in commit:
                w.write_arrow(pa.Table.from_pylist(batch, schema=write_schema))
            c.commit(w.prepare_commit())
        finally:
            w.close()
            c.close()
    return [f.to_dict() for f in table.table_schema.fields]


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = os.path.abspath(argv[1])
    warehouse = os.path.join(out, "warehouse")
    os.makedirs(os.path.join(out, "expected"), exist_ok=True)
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("interop", False)
    listing = []
    for name, arrow_schema, pkeys, keys, options, engine, commits in tables.TABLES:
        fields = write_table(catalog, name, arrow_schema, pkeys, keys, options, commits)
        rows = tables.final_rows(engine, pkeys, keys, options, commits)
        expected = os.path.join("expected", name + ".jsonl")
        paimon_jsonl.write_jsonl(os.path.join(out, expected), fields, rows)
        entry = {"name": name, "path": os.path.join("warehouse", "interop.db", name),
                 "expected": expected, "commits": len(commits)}
        if engine == "first-row":
            # pypaimon writes first-row tables without compacting them: the rows
            # stay in level-0 files, which batch reads skip for this engine (Java
            # and pypaimon's own reader return no row). Read all levels instead.
            entry["all_levels"] = True
            entry["default_rows"] = 0
            entry["note"] = ("pypaimon leaves first-row rows in level-0 files, which batch "
                             "reads skip (Java and pypaimon read 0 rows)")
        listing.append(entry)
    with open(os.path.join(out, "tables.json"), "w", encoding="utf-8") as f:
        json.dump({"writer": "pypaimon " + importlib.metadata.version("pypaimon"), "tables": listing}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
