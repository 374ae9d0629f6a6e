"""A client of `paimon serve` in another language: pyarrow.flight + pypaimon.

Usage:
  flight_client.py union  TABLE_PATH LOCATION TOKEN
  flight_client.py lookup TABLE_PATH LOCATION TOKEN KEYS_JSON
  flight_client.py put    TABLE_PATH LOCATION TOKEN ROWS_JSON

union: reads the real-time portion from the server (DoGet ticket
{"kind": "realtime"}: a header batch whose app metadata names the snapshot,
then each partition-bucket's memory rows above that snapshot's progress
boundary, with _REALTIME_OFFSET and, for primary-key tables, _VALUE_KIND and
_SEQUENCE_NUMBER), reads that snapshot with pypaimon (scan.snapshot-id), and
merges the two here: appended for append tables; for primary-key tables
(deduplicate merge engine) the memory row with the highest sequence number
of a key replaces the committed one, and a -U/-D (kinds 1 and 3) removes it.
Prints the rows as JSON Lines (paimon cat --format jsonl), sorted.

lookup: DoAction "lookup" with an Arrow IPC stream of the keys (KEYS_JSON, a
list of objects of the primary-key columns); prints the rows, sorted.

put: DoPut of ROWS_JSON (a list of row objects, with an optional "_ROW_KIND"
string); prints the acknowledged row count.
"""

import io
import json
import sys

import pyarrow as pa
import pyarrow.flight as flight

import paimon_jsonl
from read_table import open_table


def client(location, token):
    c = flight.FlightClient(location)
    opts = flight.FlightCallOptions(headers=[(b"authorization", b"Bearer " + token.encode())])
    return c, opts


def realtime_portion(c, opts):
    reader = c.do_get(flight.Ticket(json.dumps({"kind": "realtime"}).encode()), opts)
    snapshot, batches = None, []
    while True:
        try:
            chunk = reader.read_chunk()
        except StopIteration:
            break
        meta = json.loads(chunk.app_metadata.to_pybytes())
        if snapshot is None:
            snapshot = meta["snapshot"]
        if meta["snapshot"] != snapshot:
            raise RuntimeError("portion mixes snapshots %s and %s" % (snapshot, meta["snapshot"]))
        if meta["rows"]:
            batches.append(chunk.data)
    return snapshot, batches


def committed_rows(table_path, snapshot):
    table = open_table(table_path)
    if snapshot:
        table = table.copy({"scan.snapshot-id": str(snapshot)})
    else:
        return []
    rb = table.new_read_builder()
    data = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return [] if data is None else data.to_pylist()


def union(table_path, location, token):
    schema = paimon_jsonl.latest_schema(table_path)
    fields = schema["fields"]
    names = [f["name"] for f in fields]
    keys = schema.get("primaryKeys") or []
    c, opts = client(location, token)
    snapshot, batches = realtime_portion(c, opts)
    rows = committed_rows(table_path, snapshot)
    mem = []
    for b in batches:
        mem.extend(b.to_pylist())
    if not keys:
        mem.sort(key=lambda r: r["_REALTIME_OFFSET"])
        rows = rows + [{n: r[n] for n in names} for r in mem]
    else:
        merged = {tuple(r[k] for k in keys): r for r in rows}
        mem.sort(key=lambda r: r["_SEQUENCE_NUMBER"])
        for r in mem:
            key = tuple(r[k] for k in keys)
            if r["_VALUE_KIND"] in (1, 3):
                merged.pop(key, None)
            else:
                merged[key] = {n: r[n] for n in names}
        rows = list(merged.values())
    return snapshot, sorted(paimon_jsonl.dumps(paimon_jsonl.format_row(fields, r)) for r in rows)


def lookup(table_path, location, token, keys):
    schema = paimon_jsonl.latest_schema(table_path)
    fields = schema["fields"]
    key_fields = [f for f in fields if f["name"] in schema["primaryKeys"]]
    types = {"INT": pa.int32(), "BIGINT": pa.int64(), "STRING": pa.string()}
    arrays = [pa.array([k[f["name"]] for k in keys], type=types[f["type"].split()[0]]) for f in key_fields]
    batch = pa.record_batch(arrays, names=[f["name"] for f in key_fields])
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, batch.schema) as w:
        w.write_batch(batch)
    c, opts = client(location, token)
    results = list(c.do_action(flight.Action("lookup", sink.getvalue()), opts))
    table = pa.ipc.open_stream(results[0].body.to_pybytes()).read_all()
    return sorted(paimon_jsonl.dumps(paimon_jsonl.format_row(fields, r)) for r in table.to_pylist())


def put(table_path, location, token, rows):
    schema = paimon_jsonl.latest_schema(table_path)
    types = {"INT": pa.int32(), "BIGINT": pa.int64(), "STRING": pa.string()}
    cols = {f["name"]: types[f["type"].split()[0]] for f in schema["fields"]}
    names = list(cols)
    arrays = [pa.array([r.get(n) for r in rows], type=cols[n]) for n in names]
    if any("_ROW_KIND" in r for r in rows):
        names.append("_ROW_KIND")
        arrays.append(pa.array([r.get("_ROW_KIND", "+I") for r in rows], type=pa.string()))
    batch = pa.record_batch(arrays, names=names)
    c, opts = client(location, token)
    writer, reader = c.do_put(flight.FlightDescriptor.for_command(b"put"), batch.schema, opts)
    writer.write_batch(batch)
    writer.done_writing()
    total = 0
    while True:
        buf = reader.read()
        if buf is None:
            break
        total = json.loads(buf.to_pybytes())["total"]
    writer.close()
    return total


def main(argv):
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    verb, table_path, location, token = argv[1:5]
    if verb == "union":
        snapshot, lines = union(table_path, location, token)
        print(json.dumps({"snapshot": snapshot}))
        for l in lines:
            print(l)
    elif verb == "lookup":
        for l in lookup(table_path, location, token, json.loads(argv[5])):
            print(l)
    elif verb == "put":
        print(put(table_path, location, token, json.loads(argv[5])))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
