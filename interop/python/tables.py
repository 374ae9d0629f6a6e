"""The interop table set, as data: schema, options and the rows of each commit.

Every peer writer (pypaimon here, Java Paimon in interop/java) writes the same
kinds of tables; the expected final rows are computed by `final_rows` from the
rows given here and the table's merge semantics, never by reading a table back.

Rows are dicts by column name. Primary-key tables that need deletes carry the
row kind in the STRING column "_rk" (table option rowkind.field), which Paimon
stores as an ordinary column as well.
"""

import datetime as _dt
import decimal as _dec
import math as _math

import pyarrow as pa

D = _dec.Decimal
UTC = _dt.timezone.utc


def _ts(*a):
    return _dt.datetime(*a)


# --- append_types: every scalar type and three nested ones, unpartitioned ---

TYPES_SCHEMA = pa.schema([
    pa.field("id", pa.int32(), nullable=False),
    pa.field("b", pa.bool_()),
    pa.field("ti", pa.int8()),
    pa.field("si", pa.int16()),
    pa.field("bi", pa.int64()),
    pa.field("f", pa.float32()),
    pa.field("d", pa.float64()),
    pa.field("dec", pa.decimal128(10, 2)),
    pa.field("dec38", pa.decimal128(38, 9)),
    pa.field("s", pa.string()),
    pa.field("bin", pa.binary()),
    pa.field("dt", pa.date32()),
    pa.field("ts0", pa.timestamp("s")),
    pa.field("ts3", pa.timestamp("ms")),
    pa.field("ts6", pa.timestamp("us")),
    pa.field("ts9", pa.timestamp("ns")),
    pa.field("ltz", pa.timestamp("us", tz="UTC")),
    pa.field("arr", pa.list_(pa.int32())),
    pa.field("m", pa.map_(pa.string(), pa.int32())),
    pa.field("r", pa.struct([pa.field("x", pa.int32()), pa.field("y", pa.string())])),
])

TYPES_COMMITS = [
    [[
        dict(id=1, b=True, ti=-128, si=-32768, bi=-9223372036854775808, f=3.1, d=0.1,
             dec=D("12345678.90"), dec38=D("12345678901234567890123456789.123456789"),
             s="héllo ✓ <a&b>", bin=b"a31", dt=_dt.date(2024, 2, 29),
             ts0=_ts(2024, 1, 2, 3, 4, 5), ts3=_ts(2024, 1, 2, 3, 4, 5, 678000),
             ts6=_ts(2024, 1, 2, 3, 4, 5, 678901), ts9=1704164645678901234,
             ltz=_dt.datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=UTC),
             arr=[1, None, 3], m=[("k1", 1), ("k2", None)], r=dict(x=7, y="seven")),
        dict(id=2, b=False, ti=127, si=32767, bi=9223372036854775807, f=-0.5, d=1e-7,
             dec=D("-0.12"), dec38=D("0.000000001"), s="", bin=b"", dt=_dt.date(1969, 12, 31),
             ts0=_ts(1969, 12, 31, 23, 59, 59), ts3=_ts(1969, 12, 31, 23, 59, 59, 999000),
             ts6=_ts(1970, 1, 1, 0, 0, 0, 1), ts9=-1,
             ltz=_dt.datetime(1999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
             arr=[], m=[], r=dict(x=None, y=None)),
    ]],
    [[
        dict(id=3, b=None, ti=None, si=None, bi=None, f=None, d=None, dec=None, dec38=None,
             s=None, bin=None, dt=None, ts0=None, ts3=None, ts6=None, ts9=None, ltz=None,
             arr=None, m=None, r=None),
        dict(id=4, b=True, ti=0, si=0, bi=0, f=float("inf"), d=float("nan"),
             dec=D("7.00"), dec38=D("-99999999999999999999999999999.999999999"),
             s="line\nbreak \"quoted\" \\", bin=bytes(range(256)), dt=_dt.date(1, 1, 1),
             ts0=_ts(2038, 1, 19, 3, 14, 8), ts3=_ts(2000, 2, 29, 12, 0, 0, 1000),
             ts6=_ts(9999, 12, 31, 23, 59, 59, 999999), ts9=1000,
             ltz=_dt.datetime(1970, 1, 1, tzinfo=UTC),
             arr=[None], m=[("z", 0)], r=dict(x=-1, y="")),
    ]],
]


# --- partitioned append tables ---

PART_SCHEMA = pa.schema([
    pa.field("dt", pa.string()),
    pa.field("id", pa.int32()),
    pa.field("v", pa.string()),
])

PART_COMMITS = [
    [[dict(dt="2024-01-01", id=i, v="a%d" % i) for i in range(1, 6)] +
     [dict(dt="2024-01-02", id=i, v="b%d" % i) for i in range(6, 9)]],
    [[dict(dt="2024-01-02", id=i, v="c%d" % i) for i in range(9, 12)],
     [dict(dt="2024-01-03", id=12, v="d12")]],
]

ESCAPE_COMMITS = [
    [[dict(dt=None, id=1, v="null"), dict(dt="", id=2, v="blank"), dict(dt="a:b", id=3, v="colon"),
      dict(dt="x=y/z", id=4, v="eq-slash"), dict(dt="100%", id=5, v="percent"),
      dict(dt="sp ace", id=6, v="space")]],
]

BUCKET_SCHEMA = pa.schema([
    pa.field("p", pa.int32()),
    pa.field("id", pa.int32()),
    pa.field("v", pa.string()),
])

BUCKET_COMMITS = [
    [[dict(p=i % 2, id=i, v="v%d" % i) for i in range(20)]],
    [[dict(p=i % 3, id=i, v="w%d" % i) for i in range(20, 30)]],
]


# --- primary-key tables ---

PK_SCHEMA = pa.schema([
    pa.field("region", pa.string(), nullable=False),
    pa.field("id", pa.int32(), nullable=False),
    pa.field("name", pa.string()),
    pa.field("amount", pa.decimal128(12, 3)),
    pa.field("ts", pa.timestamp("us")),
    pa.field("_rk", pa.string()),
])


def _pk(region, i, name, kind="+I"):
    return dict(region=region, id=i, name=name, amount=D(i) * D("1.5") if name else None,
                ts=_ts(2024, 5, 1, 0, 0, i % 60, i), _rk=kind)


PK_COMMITS = [
    [[_pk(r, i, "%s-%d" % (r, i)) for r in ("eu", "us") for i in range(1, 13)]],
    [[_pk("eu", i, "eu-%d-v2" % i, "+U") for i in range(1, 5)] +
     [_pk("us", i, "us-%d" % i, "-D") for i in range(1, 4)],
     [_pk("eu", 13, "eu-13"), _pk("eu", 1, "eu-1-v3", "+U")]],
    [[_pk("eu", 13, "eu-13", "-D"), _pk("us", 2, "us-2-back"), _pk("eu", 99, "ghost", "-D")]],
    [[_pk("us", i, "us-%d-v2" % i, "+U") for i in range(5, 9)]],
]

PARTIAL_SCHEMA = pa.schema([
    pa.field("id", pa.int32(), nullable=False),
    pa.field("a", pa.int32()),
    pa.field("b", pa.string()),
    pa.field("c", pa.float64()),
])

PARTIAL_COMMITS = [
    [[dict(id=1, a=1, b=None, c=None), dict(id=2, a=None, b="x", c=None)]],
    [[dict(id=1, a=None, b="y", c=1.5), dict(id=3, a=3, b=None, c=None),
      dict(id=2, a=20, b=None, c=2.5)]],
    [[dict(id=1, a=100, b=None, c=None)]],
]

AGG_SCHEMA = pa.schema([
    pa.field("id", pa.int32(), nullable=False),
    pa.field("total", pa.int64()),
    pa.field("mx", pa.int32()),
    pa.field("tag", pa.string()),
])

AGG_COMMITS = [
    [[dict(id=i, total=i * 10, mx=i, tag="t%d" % i) for i in range(1, 6)]],
    [[dict(id=1, total=5, mx=0, tag=None), dict(id=2, total=None, mx=99, tag="u2"),
      dict(id=1, total=1, mx=50, tag="u1")],
     [dict(id=6, total=None, mx=None, tag=None)]],
    [[dict(id=3, total=-30, mx=2, tag=None), dict(id=6, total=6, mx=None, tag="t6")]],
]

FIRST_SCHEMA = pa.schema([
    pa.field("id", pa.int32(), nullable=False),
    pa.field("v", pa.string()),
])

FIRST_COMMITS = [
    [[dict(id=1, v="a"), dict(id=2, v="b"), dict(id=1, v="a2")]],
    [[dict(id=2, v="b2"), dict(id=3, v="c")]],
]

SEQ_SCHEMA = pa.schema([
    pa.field("id", pa.int32(), nullable=False),
    pa.field("v", pa.string()),
    pa.field("seq", pa.int64()),
])

SEQ_COMMITS = [
    [[dict(id=1, v="a", seq=10), dict(id=2, v="b", seq=5)]],
    [[dict(id=1, v="old", seq=3), dict(id=2, v="new", seq=7), dict(id=1, v="tie", seq=10)]],
]


# name, arrow schema, partition keys, primary keys, options, engine, commits
TABLES = [
    ("append_types", TYPES_SCHEMA, [], [], {"bucket": "-1"}, "append", TYPES_COMMITS),
    ("append_part", PART_SCHEMA, ["dt"], [], {"bucket": "-1"}, "append", PART_COMMITS),
    ("append_part_escape", PART_SCHEMA, ["dt"], [], {"bucket": "-1"}, "append", ESCAPE_COMMITS),
    ("append_bucket2", BUCKET_SCHEMA, ["p"], [], {"bucket": "2", "bucket-key": "id"}, "append",
     BUCKET_COMMITS),
    ("pk_dedupe", PK_SCHEMA, ["region"], ["region", "id"], {"bucket": "2", "rowkind.field": "_rk"},
     "deduplicate", PK_COMMITS),
    ("pk_partial_update", PARTIAL_SCHEMA, [], ["id"],
     {"bucket": "1", "merge-engine": "partial-update"}, "partial-update", PARTIAL_COMMITS),
    ("pk_aggregation", AGG_SCHEMA, [], ["id"],
     {"bucket": "2", "merge-engine": "aggregation", "fields.total.aggregate-function": "sum",
      "fields.mx.aggregate-function": "max"}, "aggregation", AGG_COMMITS),
    ("pk_first_row", FIRST_SCHEMA, [], ["id"], {"bucket": "1", "merge-engine": "first-row"},
     "first-row", FIRST_COMMITS),
    ("pk_sequence_field", SEQ_SCHEMA, [], ["id"], {"bucket": "1", "sequence.field": "seq"},
     "deduplicate", SEQ_COMMITS),
]


def _agg_value(fn, old, new):
    if fn == "sum":
        if old is None:
            return new
        return old if new is None else old + new
    if fn == "max":
        if old is None:
            return new
        return old if new is None else max(old, new)
    # last_non_null_value, the default
    return old if new is None else new


def final_rows(engine, partition_keys, primary_keys, options, commits):
    """The logical rows of the table after all commits, from the merge semantics."""
    rows = [r for commit in commits for batch in commit for r in batch]
    # A NULL or blank partition value only changes the directory
    # (__DEFAULT_PARTITION__); the row keeps the value it was written with.
    if engine == "append":
        return [dict(r) for r in rows]
    state = {}
    seq_field = options.get("sequence.field")
    for r in rows:
        key = tuple(r[k] for k in primary_keys)
        kind = r.get("_rk", "+I") if "rowkind.field" in options else "+I"
        old = state.get(key)
        if engine == "deduplicate":
            if seq_field and old is not None and r[seq_field] < old[seq_field]:
                continue
            if kind in ("-D", "-U"):
                state.pop(key, None)
            else:
                state[key] = dict(r)
        elif engine == "first-row":
            if old is None:
                state[key] = dict(r)
        elif engine == "partial-update":
            if old is None:
                state[key] = dict(r)
            else:
                for k, v in r.items():
                    if v is not None:
                        old[k] = v
        elif engine == "aggregation":
            if old is None:
                state[key] = dict(r)
            else:
                for k, v in r.items():
                    if k in primary_keys:
                        continue
                    fn = options.get("fields.%s.aggregate-function" % k, "last_non_null_value")
                    old[k] = _agg_value(fn, old[k], v)
        else:
            raise ValueError("unknown engine " + engine)
    return list(state.values())


def is_nan(x):
    return isinstance(x, float) and _math.isnan(x)
