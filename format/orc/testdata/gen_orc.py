"""Generates the ORC test files of this package with the Apache ORC C++ writer
(through pyarrow.orc). The values follow closed formulas of the row number i;
orc_test.go recomputes the same formulas, so the expected values never come
from the Go decoder. Run from this directory: python3 gen_orc.py
"""
import datetime
import decimal

import pyarrow as pa
import pyarrow.orc as po

N = 1000
decimal.getcontext().prec = 60  # exact scaleb for the 38-digit column


def val(i):
    """The row i as a dict (None = null)."""
    lcg = (i * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    if lcg >= 1 << 63:
        lcg -= 1 << 64
    return {
        "b": None if i % 7 == 0 else i % 3 == 0,
        "i8": None if i % 11 == 0 else (i * 37) % 256 - 128,
        "i16": (i * 1237) % 65536 - 32768,
        "i32": None if i % 5 == 1 else (i // 20) * 3 - 100,
        "seq": i * 3,
        "neg": -(i * i),
        "rnd": lcg,
        "patch": (i * 13) % 100 + ((1 << 40) if i % 97 == 0 else 0),
        "f32": None if i % 13 == 0 else i * 0.5 - 100,
        "f64": i * 1.25e-3 - 7,
        "s": None if i % 5 == 0 else "s%d" % (i % 50),
        "su": "u%05d" % i,
        "bin": bytes([i % 256, (i * 7) % 256, 0])[: i % 4],
        "dec": decimal.Decimal(i * 1234 - 500000).scaleb(-3),
        "dec38": decimal.Decimal((i - 1000) * 10**30 + i).scaleb(-6),
        "date": i * 17 - 20000,
        "ts": (i - 1500) * 86400 * 37 * 10**9 + i * 123456789,
        "tsu": None if i % 4 == 3 else 1420070400 * 10**9 + (i - 1200) * 1000003 * 10**6 + i,
        "lst": None if i % 9 == 0 else [None if (i + j) % 5 == 0 else i + j for j in range(i % 4)],
        "mp": None if i % 10 == 0 else [("k%d" % j, j * 1.5 + i) for j in range(i % 3)],
        "st": None if i % 6 == 0 else {"a": None if i % 4 == 0 else i * 2, "b": "b%d" % (i % 7)},
        "nest": [{"x": i * 10 + j, "y": ["y%d" % (i + j + k) for k in range(j)]} for j in range(i % 3)],
    }


SCHEMA = pa.schema([
    ("b", pa.bool_()),
    ("i8", pa.int8()),
    ("i16", pa.int16()),
    ("i32", pa.int32()),
    ("seq", pa.int64()),
    ("neg", pa.int64()),
    ("rnd", pa.int64()),
    ("patch", pa.int64()),
    ("f32", pa.float32()),
    ("f64", pa.float64()),
    ("s", pa.string()),
    ("su", pa.string()),
    ("bin", pa.binary()),
    ("dec", pa.decimal128(10, 3)),
    ("dec38", pa.decimal128(38, 6)),
    ("date", pa.date32()),
    ("ts", pa.timestamp("ns")),
    ("tsu", pa.timestamp("ns", tz="UTC")),
    ("lst", pa.list_(pa.int32())),
    ("mp", pa.map_(pa.string(), pa.float64())),
    ("st", pa.struct([("a", pa.int32()), ("b", pa.string())])),
    ("nest", pa.list_(pa.struct([("x", pa.int64()), ("y", pa.list_(pa.string()))]))),
])


def table():
    rows = [val(i) for i in range(N)]
    return pa.Table.from_pylist(rows, schema=SCHEMA)


def main():
    t = table()
    variants = {
        "types_zstd.orc": dict(compression="zstd", file_version="0.12", stripe_size=1024,
                               dictionary_key_size_threshold=1.0),
        "types_zlib_v11.orc": dict(compression="zlib", file_version="0.11"),
        "types_snappy.orc": dict(compression="snappy"),
        "types_lz4.orc": dict(compression="lz4"),
        "types_none.orc": dict(compression="uncompressed", stripe_size=4096),
    }
    for name, opts in variants.items():
        po.write_table(t, name, batch_size=200, **opts)
        f = po.ORCFile(name)
        back = f.read()
        for c in t.column_names:
            assert back.column(c).equals(t.column(c)), (name, c)
        print(name, f.nrows, "rows", f.nstripes, "stripes", f.compression, f.file_version)


if __name__ == "__main__":
    main()
