"""The step runner shared by the engine peers (flink_peer.py, spark_peer.py).

A peer runs a list of SQL steps from a JSON file in one engine session (one
JVM) and writes, for each step that names an "out" file, the rows as JSON
Lines in the format of `paimon cat --format jsonl` (see
interop/python/paimon_jsonl.py). The JSON file is

    {"warehouse": "/abs/dir", "results": "/abs/results.json",
     "steps": [STEP, ...]}

and a STEP is an object with

    "name":  the step's name (reported in results.json);
    "sql":   one SQL statement; or
    "scan":  "db.table" with optional "hint" (text put after the table name,
             e.g. "/*+ OPTIONS('scan.snapshot-id'='1') */" or
             "VERSION AS OF 1"): SELECT * of the table;
    "out":   where to write the rows of the statement (JSON Lines);
    "table": the table directory whose latest schema types the columns of
             the rows (by name); without it values are written as they come
             (numbers, strings, booleans, null; datetimes in ISO form);
    "split": a column whose value selects the output file: "out" holds "{}",
             replaced by the value, and the column is left out of the rows
             (one statement, e.g. a UNION ALL over tables of one schema,
             serves many cells); "groups" lists the values that get a file
             even when they have no row;
    "streaming", "ready_after", "total": Flink only, see flink_peer.py;
    "snapshot": with "table", type the columns by the schema of that
             snapshot (its schemaId) instead of the latest schema, as
             Spark's time travel reads (Java AbstractFileStoreTable
             .copyInternal; Flink's reads in the latest schema);
    "every_snapshot": true with "scan", "table" and "hint", "out" and the
             step's name holding "{id}": the step is run once per snapshot
             the table has when the step starts, with "{id}" replaced by the
             snapshot id in name, hint and out (results are reported per
             snapshot, e.g. "read/t/snapshot-3"); with "snapshot_schema":
             true each is typed by its snapshot's schema ("snapshot").

A failing step does not stop the run: results.json holds, per step, its name,
"ok", the error's message and the seconds it took, and the peer exits 0 unless the session itself
could not start.
"""

import base64
import datetime
import decimal
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import paimon_jsonl  # noqa: E402


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def raw_value(v):
    """A value without a Paimon type: as JSON as it comes."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return paimon_jsonl._float(v, 64)
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (bytes, bytearray)):
        return base64.b64encode(bytes(v)).decode("ascii")
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, dict):
        return [[raw_value(k), raw_value(x)] for k, x in v.items()]
    if isinstance(v, (list, tuple)):
        return [raw_value(x) for x in v]
    return str(v)


def typed_value(t, v, to_dict):
    """Formats value v of Paimon type t; to_dict(v, names) turns an engine's
    struct into a dict. Timestamps may come as datetimes or as int nanoseconds
    since the epoch, dates as days, times as milliseconds of the day."""
    if v is None:
        return None
    root = paimon_jsonl._root(t)
    if root == "ROW":
        d = to_dict(v, [f["name"] for f in t["fields"]])
        return {f["name"]: typed_value(f["type"], d.get(f["name"]), to_dict) for f in t["fields"]}
    if root == "ARRAY":
        return [typed_value(t["element"], x, to_dict) for x in v]
    if root == "MAP":
        pairs = v.items() if isinstance(v, dict) else v
        return [[typed_value(t["key"], k, to_dict), typed_value(t["value"], x, to_dict)] for k, x in pairs]
    return paimon_jsonl.format_value(t, v)


def snapshot_schema(table_path, snapshot_id):
    """Returns the parsed JSON of the schema snapshot snapshot_id was written with."""
    with open(os.path.join(table_path, "snapshot", "snapshot-%d" % snapshot_id), encoding="utf-8") as f:
        schema_id = json.load(f)["schemaId"]
    with open(os.path.join(table_path, "schema", "schema-%d" % schema_id), encoding="utf-8") as f:
        return json.load(f)


def snapshot_ids(table_path):
    """The ids of the table's snapshot files, ascending."""
    d = os.path.join(table_path, "snapshot")
    ids = []
    for n in os.listdir(d) if os.path.isdir(d) else []:
        if n.startswith("snapshot-") and n[len("snapshot-"):].isdigit():
            ids.append(int(n[len("snapshot-"):]))
    return sorted(ids)


def expand(step):
    """The steps an "every_snapshot" step stands for (see the module doc)."""
    if not step.get("every_snapshot"):
        return [step]
    out = []
    for i in snapshot_ids(step["table"]):
        s = dict(step)
        del s["every_snapshot"]
        for k in ("name", "hint", "out"):
            s[k] = step[k].replace("{id}", str(i))
        if step.get("snapshot_schema"):
            s["snapshot"] = i
        out.append(s)
    return out


def write_rows(step, names, rows, to_dict):
    """Writes rows (lists of values in the order of names) as the step says."""
    fields = {}
    if step.get("table"):
        if step.get("snapshot"):
            sc = snapshot_schema(step["table"], step["snapshot"])
        else:
            sc = paimon_jsonl.latest_schema(step["table"])
        fields = {f["name"]: f["type"] for f in sc["fields"]}
    split = step.get("split")
    files = {}
    for g in step.get("groups", []):
        files[g] = []
    for r in rows:
        obj = {}
        group = None
        for n, v in zip(names, r):
            if n == split:
                group = v
                continue
            obj[n] = typed_value(fields[n], v, to_dict) if n in fields else raw_value(v)
        files.setdefault(group, []).append(paimon_jsonl.dumps(obj) + "\n")
    if not split:
        files.setdefault(None, [])
    for g, lines in files.items():
        path = step["out"].replace("{}", str(g)) if split else step["out"]
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(lines)


def run(path, session):
    """Runs the steps of the JSON file at path with session.run(step, spec)."""
    spec = load(path)
    results = []
    for step in _steps(spec["steps"], results, spec["results"]):
        name = step["name"]
        start = time.monotonic()
        try:
            session.run(step, spec)
            results.append({"name": name, "ok": True})
        except Exception as e:  # noqa: BLE001 - every failure is reported per step
            msg = "%s: %s" % (type(e).__name__, e)
            sys.stderr.write("step %s failed: %s\n%s\n" % (name, msg[:2000], traceback.format_exc()[-3000:]))
            results.append({"name": name, "ok": False, "error": msg[:4000]})
        results[-1]["seconds"] = round(time.monotonic() - start, 2)
        _save(results, spec["results"])


def _save(results, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)


def _steps(all_steps, results, path):
    """Yields the steps in order, each "every_snapshot" step expanded when
    it is reached (so that it sees the snapshots of the steps before); an
    expansion that fails is reported under the step's own name."""
    for i, step in enumerate(all_steps):
        step = dict(step)
        step.setdefault("name", "step-%d" % i)
        try:
            expanded = expand(step)
        except Exception as e:  # noqa: BLE001 - reported like a failed step
            results.append({"name": step["name"], "ok": False, "error": "%s: %s" % (type(e).__name__, e)})
            _save(results, path)
            continue
        yield from expanded
