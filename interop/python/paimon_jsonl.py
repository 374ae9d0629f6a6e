"""Rows as JSON Lines in the format of `paimon cat --format jsonl`.

The format is specified by the Go package rowfmt (`go doc ./rowfmt`): one JSON
object per row, keys = column names in column order; DECIMAL as a string with
exactly `scale` fractional digits, BINARY/VARBINARY as padded base64, DATE as
YYYY-MM-DD, TIME(p)/TIMESTAMP(p) with p fractional digits (more, in steps of
3/6/9, only when the value has non-zero digits beyond p), WITH LOCAL TIME ZONE
with a trailing "Z", MAP as [[key, value], ...], ROW as an object, FLOAT as the
shortest decimal that round-trips a 32-bit float, NaN/Infinity as strings.

Values are formatted from Paimon types as they appear in a schema file
(`schema/schema-N`: "INT NOT NULL", "DECIMAL(10, 2)", {"type": "ARRAY", ...}),
so the same code formats rows read by pypaimon and rows computed by the test
writers from what they wrote.
"""

import base64
import datetime
import decimal
import glob
import json
import math
import os
import re

import numpy as np

_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_DATE = datetime.date(1970, 1, 1)


def latest_schema(table_path):
    """Returns the parsed JSON of the newest schema/schema-N of a table."""
    files = glob.glob(os.path.join(table_path, "schema", "schema-*"))
    if not files:
        raise FileNotFoundError("no schema file under %s/schema" % table_path)
    newest = max(files, key=lambda p: int(p.rsplit("-", 1)[1]))
    with open(newest, encoding="utf-8") as f:
        return json.load(f)


def _root(t):
    """The type's root keyword: 'TIMESTAMP', 'DECIMAL', 'ARRAY', ..."""
    s = t["type"] if isinstance(t, dict) else t
    s = s.strip().upper()
    m = re.match(r"[A-Z_]+", s)
    return m.group(0) if m else s


def _params(t):
    m = re.search(r"\(([^)]*)\)", t)
    if not m:
        return []
    return [int(x.strip()) for x in m.group(1).split(",")]


def _timestamp_precision(t):
    p = _params(t)
    return p[0] if p else 6


def _is_ltz(t):
    u = t.upper()
    return "WITH LOCAL TIME ZONE" in u or u.startswith("TIMESTAMP_LTZ")


def _fraction(nanos, p):
    """Fractional digits of nanos (0..999999999) for precision p (rowfmt rule)."""
    digits = "%09d" % nanos
    n = p
    if int(digits[p:] or "0") != 0:
        n = min(x for x in (3, 6, 9) if x >= p and int(digits[x:] or "0") == 0)
    return "." + digits[:n] if n > 0 else ""


def _timestamp_nanos(v):
    """Nanoseconds since the epoch of a datetime / pandas.Timestamp (UTC wall clock)."""
    if isinstance(v, int):
        return v
    if hasattr(v, "nanosecond") and hasattr(v, "value"):  # pandas.Timestamp
        return int(v.value)
    if v.tzinfo is not None:
        v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    d = v - _EPOCH
    return (d.days * 86400 + d.seconds) * 1_000_000_000 + d.microseconds * 1000


def format_timestamp(nanos, p, ltz):
    secs, frac = divmod(nanos, 1_000_000_000)
    wall = _EPOCH + datetime.timedelta(seconds=secs)
    s = "%04d-%02d-%02dT%02d:%02d:%02d" % (
        wall.year, wall.month, wall.day, wall.hour, wall.minute, wall.second)
    return s + _fraction(frac, p) + ("Z" if ltz else "")


def _float(v, bits):
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    if bits == 32:
        # Shortest decimal that round-trips the 32-bit value, as a JSON number.
        return float(str(np.float32(v)))
    return float(v)


def format_value(t, v):
    """Formats one value of Paimon type t (schema-file JSON form) as a JSON value."""
    if v is None:
        return None
    root = _root(t)
    if root == "ARRAY":
        return [format_value(t["element"], x) for x in v]
    if root == "MAP":
        pairs = v.items() if isinstance(v, dict) else v
        return [[format_value(t["key"], k), format_value(t["value"], x)] for k, x in pairs]
    if root == "MULTISET":
        pairs = v.items() if isinstance(v, dict) else v
        return [[format_value(t["element"], k), int(c)] for k, c in pairs]
    if root == "ROW":
        out = {}
        for f in t["fields"]:
            out[f["name"]] = format_value(f["type"], v.get(f["name"]))
        return out
    if root == "BOOLEAN":
        return bool(v)
    if root in ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT"):
        return int(v)
    if root == "FLOAT":
        return _float(v, 32)
    if root == "DOUBLE":
        return _float(v, 64)
    if root in ("CHAR", "VARCHAR", "STRING"):
        return str(v)
    if root in ("BINARY", "VARBINARY", "BYTES"):
        return base64.b64encode(bytes(v)).decode("ascii")
    if root == "DECIMAL":
        ps = _params(t)
        scale = ps[1] if len(ps) > 1 else 0
        d = v if isinstance(v, decimal.Decimal) else decimal.Decimal(str(v))
        with decimal.localcontext() as ctx:
            ctx.prec = 80
            q = d.quantize(decimal.Decimal(1).scaleb(-scale))
            return format(q, "f")
    if root == "DATE":
        if isinstance(v, int):
            v = _EPOCH_DATE + datetime.timedelta(days=v)
        return "%04d-%02d-%02d" % (v.year, v.month, v.day)
    if root == "TIME":
        p = _params(t)[0] if _params(t) else 0
        if isinstance(v, int):
            nanos = v * 1_000_000
        else:
            nanos = ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000_000 + v.microsecond * 1000
        secs, frac = divmod(nanos, 1_000_000_000)
        return "%02d:%02d:%02d" % (secs // 3600, secs // 60 % 60, secs % 60) + _fraction(frac, p)
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return format_timestamp(_timestamp_nanos(v), _timestamp_precision(t), _is_ltz(t))
    raise ValueError("unsupported Paimon type %r" % (t,))


def format_row(fields, row):
    """Formats a row (dict by column name) given the schema's field list."""
    return {f["name"]: format_value(f["type"], row.get(f["name"])) for f in fields}


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def write_jsonl(path, fields, rows):
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(dumps(format_row(fields, r)) + "\n")
