"""Runs rtbench's workloads with paimon-go, pypaimon and Java Paimon side by side.

Usage (normally through interop/peers/run.sh, which prepares the peers):

  peers.py --rtbench BIN --java-cp CP [--java JAVA] [--rows N] [--batch-rows N]
           [--commit-every N] [--buckets N] [--workloads a,b,c] [--json FILE] [--keep DIR]

For each workload every implementation streams the same first N flights of
testdata/flights/flights-3m.parquet into the same table (cmd/rtbench's
definitions), with a stream write that commits after every --commit-every
batches of --batch-rows rows, then reads the table back and checks it against
the expected state. paimon-go runs as `rtbench --realtime=false --commit-every`
(the same synchronous commit rhythm as the peers; its real-time run is shown
as well, for freshness). Each process runs alone, one after the other, on
this machine. Peak RSS is each process's own high-water mark (VmHWM of
/proc/self/status, which starts afresh at exec).

It prints, per workload, each measure for paimon-go and each peer with the
ratio peer / paimon-go; a peer that cannot run a workload is listed with its
error. Exit status 1 when a run of paimon-go fails or does not verify.
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FLIGHTS = os.path.join(REPO, "testdata", "flights", "flights-3m.parquet")


def pct(values, p):
    """Nearest-rank percentile, as rtbench computes it; None for no values."""
    if not values:
        return None
    v = sorted(values)
    i = max(0, min(len(v) - 1, math.ceil(p / 100 * len(v)) - 1))
    return v[i]


def run(cmd, env=None, timeout=3600):
    """Runs cmd; returns (exit status, stdout, stderr)."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return 124, e.stdout or "", (e.stderr or "") + "\ntimed out"
    return p.returncode, p.stdout, p.stderr


def ours(args, workload, realtime, tmp):
    detail = os.path.join(tmp, "ours-%s-%s.json" % (workload, "rt" if realtime else "plain"))
    cmd = [args.rtbench, "--workload", workload, "--rows", str(args.rows), "--batch-rows", str(args.batch_rows),
           "--commit-every", str(args.commit_every), "--buckets", str(args.buckets), "--floor-samples", "20",
           "--realtime=%s" % ("true" if realtime else "false"), "--progress=false", "--detail", detail]
    code, out, err = run(cmd)
    if code != 0:
        return {"error": "rtbench exit %d: %s" % (code, err.strip()[-2000:])}
    d = json.load(open(detail))[0]
    return {
        "commit_p50": d["commit_ms"]["p50"], "commit_p99": d["commit_ms"]["p99"],
        "ingest": d["ingest_rows_per_s"],
        "fresh_p50": d["freshness_ms"]["p50"], "fresh_p99": d["freshness_ms"]["p99"],
        "read_ms": d["read_back_ms"], "rss": d["peak_rss_bytes"], "verified": d["rows_verified"],
        "commits": d["commits"], "error": None if d["rows_verified"] else d.get("verify_error"),
    }


def peer(cmd, env=None):
    code, out, err = run(cmd, env=env)
    if code != 0:
        tail = [l for l in err.strip().splitlines() if l and not l.startswith("SLF4J")]
        return {"error": "exit %d: %s" % (code, " | ".join(tail[-3:])[-600:])}
    try:
        d = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": "no result: %s" % err.strip()[-600:]}
    return {
        "name": d["peer"], "commit_p50": pct(d["commit_ms"], 50), "commit_p99": pct(d["commit_ms"], 99),
        "ingest": d["rows"] / d["loop_s"] if d["loop_s"] > 0 else None,
        "fresh_p50": pct(d["freshness_ms"], 50), "fresh_p99": pct(d["freshness_ms"], 99),
        "read_ms": d["read_ms"], "rss": d.get("peak_rss_bytes") or None, "verified": d["rows_verified"],
        "commits": d["commits"],
        "error": d["error"],
    }


MEASURES = [
    ("commit_p50", "commit ms p50", "lower"),
    ("commit_p99", "commit ms p99", "lower"),
    ("ingest", "ingest rows/s", "higher"),
    ("fresh_p50", "freshness ms p50", "lower"),
    ("fresh_p99", "freshness ms p99", "lower"),
    ("read_ms", "read back ms", "lower"),
    ("rss", "peak RSS MiB", "lower"),
]


def fmt(v, key):
    if v is None:
        return "-"
    if key == "rss":
        return "%.0f" % (v / 2**20)
    if key == "ingest":
        return "{:,.0f}".format(v)
    return "%.3f" % v if v < 1 else "%.1f" % v


def table(workload, runs):
    """Prints one workload's comparison; runs: list of (label, result)."""
    base = runs[0][1]
    print("\n%s (%s rows)" % (workload, "{:,}".format(ARGS.rows)))
    cols = [label for label, _ in runs]
    rows = [["measure"] + cols + ["%s / ours" % l for l, _ in runs[2:]]]
    for key, name, better in MEASURES:
        line = [name + (" (%s is better)" % better)]
        for _, r in runs:
            line.append("cannot" if r.get("error") and r.get(key) is None else fmt(r.get(key), key))
        for _, r in runs[2:]:
            a, b = r.get(key), base.get(key)
            line.append("-" if a is None or not b else "%.2f×" % (a / b))
        rows.append(line)
    line = ["rows verified"]
    for _, r in runs:
        line.append("yes" if r.get("verified") else "NO")
    rows.append(line + [""] * (len(rows[0]) - len(line)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    for label, r in runs:
        if r.get("error"):
            print("  %s: %s" % (label, r["error"]))


ARGS = None


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rtbench", required=True)
    ap.add_argument("--java-cp", required=True)
    ap.add_argument("--java", default="java")
    ap.add_argument("--rows", type=int, default=300000)
    ap.add_argument("--batch-rows", type=int, default=10000)
    ap.add_argument("--commit-every", type=int, default=5)
    ap.add_argument("--buckets", type=int, default=2)
    ap.add_argument("--workloads", default="append,pk-dedupe,pk-agg")
    ap.add_argument("--json", help="write every result to this file")
    ap.add_argument("--keep", help="keep the warehouses and inputs in this directory")
    ARGS = args = ap.parse_args()

    tmp = args.keep or tempfile.mkdtemp(prefix="rtbench-peers-")
    os.makedirs(tmp, exist_ok=True)
    # The Java peer reads CSV (date as microseconds); pypaimon reads the Parquet file.
    t = pq.read_table(FLIGHTS).slice(0, args.rows)
    csv = os.path.join(tmp, "flights.csv")
    pacsv.write_csv(pa.table([t["date"].cast(pa.int64()), t["delay"], t["distance"],
                              t["origin"].cast(pa.string()), t["destination"].cast(pa.string())],
                             names=["date", "delay", "distance", "origin", "destination"]),
                    csv, pacsv.WriteOptions(include_header=False, quoting_style="none"))

    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    all_results = {}
    failed = False
    for w in args.workloads.split(","):
        plain = ours(args, w, False, tmp)
        rt = ours(args, w, True, tmp)
        py = peer([sys.executable, os.path.join(HERE, "pypaimon_peer.py"), w, FLIGHTS, str(args.rows),
                   os.path.join(tmp, "pypaimon-" + w), str(args.batch_rows), str(args.commit_every),
                   str(args.buckets)], env=env)
        jv = peer([args.java, "-cp", args.java_cp, "RtbenchPeer", w, csv, os.path.join(tmp, "java-" + w),
                   str(args.batch_rows), str(args.commit_every), str(args.buckets)])
        runs = [("paimon-go", plain), ("paimon-go real-time", rt),
                (py.get("name", "pypaimon"), py), (jv.get("name", "java paimon"), jv)]
        table(w, runs)
        all_results[w] = dict(runs)
        failed = failed or not plain.get("verified") or not rt.get("verified")
    print("\nRatios are peer / paimon-go (plain writer, same commit rhythm). Freshness without the real-time")
    print("layer is Write returned -> snapshot published; with it (paimon-go real-time), Write returned ->")
    print("a union read's memory views pinned. Peaks of RSS include each runtime's loaded input.")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": args.rows, "batch_rows": args.batch_rows, "commit_every": args.commit_every,
                       "results": all_results}, f, indent=1)
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
