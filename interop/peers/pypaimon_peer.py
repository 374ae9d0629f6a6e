"""pypaimon side of rtbench's peer comparison (interop/peers/peers.py).

Usage: pypaimon_peer.py WORKLOAD FLIGHTS_PARQUET ROWS WAREHOUSE BATCH_ROWS COMMIT_EVERY BUCKETS

Streams the first ROWS flights into a new table of WORKLOAD (append, pk-dedupe or
pk-agg, defined exactly as cmd/rtbench defines them) with a pypaimon stream write,
committing after every COMMIT_EVERY batches of BATCH_ROWS rows, then reads the
table back and compares it with the expected state computed here from the same
rows. Prints one JSON object with the same fields as the Java peer
(RtbenchPeer.java): per-commit prepare and commit milliseconds, per-batch
freshness (Write returned to snapshot published), the write loop's seconds, the
read-back milliseconds, whether the rows verified and the peak RSS.
"""

import importlib.metadata
import json
import sys
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pypaimon import CatalogFactory, Schema


def table_schema(workload):
    key = pa.string()
    if workload == "append":
        return (pa.schema([
            pa.field("month", pa.string()),
            pa.field("date", pa.timestamp("us")),
            pa.field("delay", pa.int64()),
            pa.field("distance", pa.int64()),
            pa.field("origin", pa.string()),
            pa.field("destination", pa.string()),
        ]), ["month"], [], {"bucket-key": "origin"})
    if workload == "pk-dedupe":
        return (pa.schema([
            pa.field("origin", key, nullable=False),
            pa.field("destination", key, nullable=False),
            pa.field("date", pa.timestamp("us")),
            pa.field("delay", pa.int64()),
            pa.field("distance", pa.int64()),
        ]), [], ["origin", "destination"], {"merge-engine": "deduplicate"})
    if workload == "pk-agg":
        return (pa.schema([
            pa.field("origin", key, nullable=False),
            pa.field("destination", key, nullable=False),
            pa.field("delay_sum", pa.int64()),
            pa.field("flights", pa.int64()),
            pa.field("distance_max", pa.int64()),
        ]), [], ["origin", "destination"], {
            "merge-engine": "aggregation",
            "fields.delay_sum.aggregate-function": "sum",
            "fields.flights.aggregate-function": "sum",
            "fields.distance_max.aggregate-function": "max",
        })
    raise ValueError("unknown workload %r" % workload)


def input_table(workload, flights, schema):
    """The rows to write, as an Arrow table of the table's columns."""
    n = flights.num_rows
    origin = flights["origin"].cast(pa.string())
    dest = flights["destination"].cast(pa.string())
    if workload == "append":
        month = pc.strftime(flights["date"], format="%Y-%m")
        cols = [month, flights["date"], flights["delay"], flights["distance"], origin, dest]
    elif workload == "pk-dedupe":
        cols = [origin, dest, flights["date"], flights["delay"], flights["distance"]]
    else:
        cols = [origin, dest, flights["delay"], pa.array([1] * n, pa.int64()), flights["distance"]]
    return pa.Table.from_arrays(cols, schema=schema)


def verify(workload, flights, got):
    """None when got (a pyarrow table read back) is the expected state, else why not."""
    rows = flights.to_pylist()
    if workload == "append":
        d = sum(r["delay"] for r in rows)
        s = sum(r["distance"] for r in rows)
        gd = pc.sum(got["delay"]).as_py() or 0
        gs = pc.sum(got["distance"]).as_py() or 0
        if got.num_rows != len(rows) or gd != d or gs != s:
            return "read %d rows, sum(delay) %d, sum(distance) %d; wrote %d, %d, %d" % (
                got.num_rows, gd, gs, len(rows), d, s)
        return None
    want = {}
    for r in rows:
        k = (r["origin"], r["destination"])
        if workload == "pk-dedupe":
            want[k] = (r["date"], r["delay"], r["distance"])
        else:
            a = want.get(k, (0, 0, None))
            want[k] = (a[0] + r["delay"], a[1] + 1,
                       r["distance"] if a[2] is None else max(a[2], r["distance"]))
    read = got.to_pylist()
    if len(read) != len(want):
        return "read %d routes, wrote %d" % (len(read), len(want))
    for r in read:
        k = (r["origin"], r["destination"])
        if workload == "pk-dedupe":
            v = (r["date"], r["delay"], r["distance"])
        else:
            v = (r["delay_sum"], r["flights"], r["distance_max"])
        if want.get(k) != v:
            return "route %s-%s: read %r, want %r" % (k[0], k[1], v, want.get(k))
    return None


def peak_rss():
    """VmHWM of this process in bytes (0 where /proc is missing)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def main(argv):
    if len(argv) != 8:
        print(__doc__, file=sys.stderr)
        return 2
    workload, path, nrows, warehouse = argv[1], argv[2], int(argv[3]), argv[4]
    batch_rows, commit_every, buckets = int(argv[5]), int(argv[6]), int(argv[7])
    flights = pq.read_table(path).slice(0, nrows)
    arrow_schema, partition_keys, primary_keys, options = table_schema(workload)
    options = dict(options, bucket=str(buckets))
    data = input_table(workload, flights, arrow_schema)
    batches = [b for b in data.to_batches(max_chunksize=batch_rows)]

    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("rtbench", True)
    ident = "rtbench." + workload.replace("-", "_")
    catalog.create_table(ident, Schema.from_pyarrow_schema(
        arrow_schema, partition_keys=partition_keys, primary_keys=primary_keys, options=options), False)
    table = catalog.get_table(ident)

    prepare_ms, commit_ms, fresh_ms, pending = [], [], [], []
    wb = table.new_stream_write_builder()
    w = wb.new_write()
    c = wb.new_commit()
    ident_no = [0]

    def commit():
        ident_no[0] += 1
        t0 = time.perf_counter()
        msgs = w.prepare_commit(ident_no[0])
        t1 = time.perf_counter()
        c.commit(msgs, ident_no[0])
        t2 = time.perf_counter()
        prepare_ms.append((t1 - t0) * 1e3)
        commit_ms.append((t2 - t0) * 1e3)
        fresh_ms.extend((t2 - t) * 1e3 for t in pending)
        pending.clear()

    try:
        start = time.perf_counter()
        for i, b in enumerate(batches):
            w.write_arrow_batch(b)
            pending.append(time.perf_counter())
            if (i + 1) % commit_every == 0:
                commit()
        loop_s = time.perf_counter() - start
        if pending:
            commit()
    finally:
        w.close()
        c.close()

    t0 = time.perf_counter()
    rb = table.new_read_builder()
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    read_ms = (time.perf_counter() - t0) * 1e3
    err = verify(workload, flights, got)
    print(json.dumps({
        "peer": "pypaimon " + importlib.metadata.version("pypaimon"),
        "workload": workload, "rows": data.num_rows, "commits": len(commit_ms),
        "prepare_ms": prepare_ms, "commit_ms": commit_ms, "freshness_ms": fresh_ms,
        "loop_s": loop_s, "read_ms": read_ms, "rows_read": got.num_rows,
        "rows_verified": err is None, "error": err, "peak_rss_bytes": peak_rss(),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
