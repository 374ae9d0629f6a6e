package org.paimongo.interop;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The interop table set written by the Java peer: for each table its schema (with partition
 * keys, primary keys and options), the rows of each commit (GenericRow with a RowKind), and the
 * merge engine used to compute the expected final rows from those rows ({@link #finalRows}).
 */
final class Tables {
    private Tables() {}

    /** One table: name, schema, engine ("append", "deduplicate", ...) and per-commit rows. */
    static final class Spec {
        final String name;
        final Schema schema;
        final String engine;
        final List<List<GenericRow>> commits = new ArrayList<>();

        Spec(String name, Schema schema, String engine) {
            this.name = name;
            this.schema = schema;
            this.engine = engine;
        }

        Spec commit(GenericRow... rows) {
            commits.add(Arrays.asList(rows));
            return this;
        }

        RowType rowType() {
            return new RowType(schema.fields());
        }
    }

    static BinaryString s(String v) {
        return v == null ? null : BinaryString.fromString(v);
    }

    static Decimal dec(String v, int p, int sc) {
        return Decimal.fromBigDecimal(new BigDecimal(v), p, sc);
    }

    static Timestamp ts(String iso) {
        return Timestamp.fromLocalDateTime(LocalDateTime.parse(iso));
    }

    static int date(String iso) {
        return (int) LocalDate.parse(iso).toEpochDay();
    }

    static GenericRow row(RowKind k, Object... v) {
        return GenericRow.ofKind(k, v);
    }

    static GenericRow ins(Object... v) {
        return GenericRow.of(v);
    }

    static List<Spec> all() {
        List<Spec> out = new ArrayList<>();

        Schema types =
                Schema.newBuilder()
                        .column("id", DataTypes.INT().notNull())
                        .column("b", DataTypes.BOOLEAN())
                        .column("ti", DataTypes.TINYINT())
                        .column("si", DataTypes.SMALLINT())
                        .column("bi", DataTypes.BIGINT())
                        .column("f", DataTypes.FLOAT())
                        .column("d", DataTypes.DOUBLE())
                        .column("dec", DataTypes.DECIMAL(10, 2))
                        .column("dec38", DataTypes.DECIMAL(38, 9))
                        .column("c", DataTypes.CHAR(5))
                        .column("vc", DataTypes.VARCHAR(10))
                        .column("s", DataTypes.STRING())
                        .column("bin", DataTypes.BINARY(3))
                        .column("vb", DataTypes.BYTES())
                        .column("dt", DataTypes.DATE())
                        .column("tm", DataTypes.TIME(3))
                        .column("ts0", DataTypes.TIMESTAMP(0))
                        .column("ts3", DataTypes.TIMESTAMP(3))
                        .column("ts6", DataTypes.TIMESTAMP(6))
                        .column("ts9", DataTypes.TIMESTAMP(9))
                        .column("ltz3", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3))
                        .column("ltz6", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6))
                        .column("arr", DataTypes.ARRAY(DataTypes.INT()))
                        .column("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()))
                        .column(
                                "r",
                                DataTypes.ROW(
                                        DataTypes.FIELD(0, "x", DataTypes.INT()),
                                        DataTypes.FIELD(1, "y", DataTypes.STRING())))
                        .option("bucket", "-1")
                        .build();
        Map<Object, Object> m1 = new LinkedHashMap<>();
        m1.put(s("k1"), 1);
        m1.put(s("k2"), null);
        Map<Object, Object> m2 = new LinkedHashMap<>();
        m2.put(s("z"), 0);
        out.add(
                new Spec("append_types", types, "append")
                        .commit(
                                ins(1, true, (byte) -128, (short) -32768, Long.MIN_VALUE, 3.1f, 0.1,
                                        dec("12345678.90", 10, 2),
                                        dec("12345678901234567890123456789.123456789", 38, 9),
                                        s("ab   "), s("héllo ✓"), s("<a&b> \"q\" \\"),
                                        new byte[] {'a', '3', '1'}, new byte[] {0, 1, (byte) 255},
                                        date("2024-02-29"), 3_723_004,
                                        ts("2024-01-02T03:04:05"), ts("2024-01-02T03:04:05.678"),
                                        ts("2024-01-02T03:04:05.678901"),
                                        ts("2024-01-02T03:04:05.678901234"),
                                        ts("2024-01-02T03:04:05.123"),
                                        ts("2024-01-02T03:04:05.000006"),
                                        new GenericArray(new Object[] {1, null, 3}),
                                        new GenericMap(m1), GenericRow.of(7, s("seven"))),
                                ins(2, false, (byte) 127, (short) 32767, Long.MAX_VALUE, -0.5f, 1e-7,
                                        dec("-0.12", 10, 2), dec("0.000000001", 38, 9),
                                        s("x    "), s(""), s("line\nbreak"),
                                        new byte[] {0, 0, 0}, new byte[0],
                                        date("1969-12-31"), 0,
                                        ts("1969-12-31T23:59:59"), ts("1969-12-31T23:59:59.999"),
                                        ts("1970-01-01T00:00:00.000001"),
                                        ts("1969-12-31T23:59:59.999999999"),
                                        ts("1999-12-31T23:59:59.999"),
                                        ts("1999-12-31T23:59:59.999999"),
                                        new GenericArray(new Object[0]),
                                        new GenericMap(new LinkedHashMap<>()),
                                        GenericRow.of(null, null)))
                        .commit(
                                ins(3, null, null, null, null, null, null, null, null, null, null,
                                        null, null, null, null, null, null, null, null, null, null,
                                        null, null, null, null),
                                ins(4, true, (byte) 0, (short) 0, 0L, Float.POSITIVE_INFINITY,
                                        Double.NaN, dec("7.00", 10, 2),
                                        dec("-99999999999999999999999999999.999999999", 38, 9),
                                        s("     "), s("0123456789"), s("✓✓"),
                                        new byte[] {1, 2, 3}, new byte[] {'x'},
                                        date("0001-01-01"), 86_399_999,
                                        ts("2038-01-19T03:14:08"), ts("2000-02-29T12:00:00.001"),
                                        ts("9999-12-31T23:59:59.999999"),
                                        ts("1970-01-01T00:00:00.000001"),
                                        ts("1970-01-01T00:00:00"), ts("1970-01-01T00:00:00"),
                                        new GenericArray(new Object[] {null}),
                                        new GenericMap(m2), GenericRow.of(-1, s("")))));

        Schema part =
                Schema.newBuilder()
                        .column("dt", DataTypes.STRING())
                        .column("id", DataTypes.INT())
                        .column("v", DataTypes.STRING())
                        .partitionKeys("dt")
                        .option("bucket", "-1")
                        .build();
        Spec p = new Spec("append_part", part, "append");
        List<GenericRow> c1 = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            c1.add(ins(s("2024-01-01"), i, s("a" + i)));
        }
        for (int i = 6; i <= 8; i++) {
            c1.add(ins(s("2024-01-02"), i, s("b" + i)));
        }
        p.commits.add(c1);
        p.commit(ins(s("2024-01-02"), 9, s("c9")), ins(s("2024-01-03"), 12, s("d12")));
        out.add(p);

        out.add(
                new Spec("append_part_escape", part, "append")
                        .commit(
                                ins(null, 1, s("null")),
                                ins(s(""), 2, s("blank")),
                                ins(s("a:b"), 3, s("colon")),
                                ins(s("x=y/z"), 4, s("eq-slash")),
                                ins(s("100%"), 5, s("percent")),
                                ins(s("sp ace"), 6, s("space"))));

        Schema bucket2 =
                Schema.newBuilder()
                        .column("p", DataTypes.INT())
                        .column("id", DataTypes.INT())
                        .column("v", DataTypes.STRING())
                        .partitionKeys("p")
                        .option("bucket", "2")
                        .option("bucket-key", "id")
                        .build();
        Spec b = new Spec("append_bucket2", bucket2, "append");
        List<GenericRow> b1 = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            b1.add(ins(i % 2, i, s("v" + i)));
        }
        List<GenericRow> b2 = new ArrayList<>();
        for (int i = 20; i < 30; i++) {
            b2.add(ins(i % 3, i, s("w" + i)));
        }
        b.commits.add(b1);
        b.commits.add(b2);
        out.add(b);

        out.add(pkTable("pk_dedupe", false, "parquet"));
        out.add(pkTable("pk_dv", true, "parquet"));
        out.add(pkTable("pk_orc", false, "orc"));

        Schema partial =
                Schema.newBuilder()
                        .column("id", DataTypes.INT())
                        .column("a", DataTypes.INT())
                        .column("b", DataTypes.STRING())
                        .column("c", DataTypes.DOUBLE())
                        .primaryKey("id")
                        .option("bucket", "1")
                        .option("merge-engine", "partial-update")
                        .build();
        out.add(
                new Spec("pk_partial_update", partial, "partial-update")
                        .commit(ins(1, 1, null, null), ins(2, null, s("x"), null))
                        .commit(
                                ins(1, null, s("y"), 1.5),
                                ins(3, 3, null, null),
                                ins(2, 20, null, 2.5))
                        .commit(ins(1, 100, null, null)));

        Schema agg =
                Schema.newBuilder()
                        .column("id", DataTypes.INT())
                        .column("total", DataTypes.BIGINT())
                        .column("mx", DataTypes.INT())
                        .column("tag", DataTypes.STRING())
                        .primaryKey("id")
                        .option("bucket", "2")
                        .option("merge-engine", "aggregation")
                        .option("fields.total.aggregate-function", "sum")
                        .option("fields.mx.aggregate-function", "max")
                        .option("num-sorted-run.compaction-trigger", "2")
                        .build();
        Spec a = new Spec("pk_aggregation", agg, "aggregation");
        List<GenericRow> a1 = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            a1.add(ins(i, i * 10L, i, s("t" + i)));
        }
        a.commits.add(a1);
        a.commit(
                        ins(1, 5L, 0, null),
                        ins(2, null, 99, s("u2")),
                        ins(1, 1L, 50, s("u1")),
                        ins(6, null, null, null))
                .commit(ins(3, -30L, 2, null), ins(6, 6L, null, s("t6")));
        out.add(a);

        Schema first =
                Schema.newBuilder()
                        .column("id", DataTypes.INT())
                        .column("v", DataTypes.STRING())
                        .primaryKey("id")
                        .option("bucket", "1")
                        .option("merge-engine", "first-row")
                        .build();
        out.add(
                new Spec("pk_first_row", first, "first-row")
                        .commit(ins(1, s("a")), ins(2, s("b")), ins(1, s("a2")))
                        .commit(ins(2, s("b2")), ins(3, s("c"))));

        Schema seq =
                Schema.newBuilder()
                        .column("id", DataTypes.INT())
                        .column("v", DataTypes.STRING())
                        .column("seq", DataTypes.BIGINT())
                        .primaryKey("id")
                        .option("bucket", "1")
                        .option("sequence.field", "seq")
                        .build();
        out.add(
                new Spec("pk_sequence_field", seq, "deduplicate")
                        .commit(ins(1, s("a"), 10L), ins(2, s("b"), 5L))
                        .commit(
                                ins(1, s("old"), 3L),
                                ins(2, s("new"), 7L),
                                ins(1, s("tie"), 10L),
                                row(RowKind.DELETE, 2, s("gone-but-older"), 1L)));
        return out;
    }

    /** A partitioned deduplicate table with updates and deletes over four commits. */
    private static Spec pkTable(String name, boolean dv, String format) {
        Schema.Builder sb =
                Schema.newBuilder()
                        .column("region", DataTypes.STRING())
                        .column("id", DataTypes.INT())
                        .column("name", DataTypes.STRING())
                        .column("amount", DataTypes.DECIMAL(12, 3))
                        .column("ts", DataTypes.TIMESTAMP(6))
                        .partitionKeys("region")
                        .primaryKey("region", "id")
                        .option("bucket", "2")
                        .option("file.format", format);
        if (dv) {
            sb.option("deletion-vectors.enabled", "true");
        }
        Spec t = new Spec(name, sb.build(), "deduplicate");
        List<GenericRow> c1 = new ArrayList<>();
        for (String r : new String[] {"eu", "us"}) {
            for (int i = 1; i <= 12; i++) {
                c1.add(pk(RowKind.INSERT, r, i, r + "-" + i));
            }
        }
        t.commits.add(c1);
        List<GenericRow> c2 = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            c2.add(pk(RowKind.UPDATE_BEFORE, "eu", i, "eu-" + i));
            c2.add(pk(RowKind.UPDATE_AFTER, "eu", i, "eu-" + i + "-v2"));
        }
        for (int i = 1; i <= 3; i++) {
            c2.add(pk(RowKind.DELETE, "us", i, "us-" + i));
        }
        c2.add(pk(RowKind.INSERT, "eu", 13, "eu-13"));
        c2.add(pk(RowKind.UPDATE_AFTER, "eu", 1, "eu-1-v3"));
        t.commits.add(c2);
        t.commit(
                pk(RowKind.DELETE, "eu", 13, "eu-13"),
                pk(RowKind.INSERT, "us", 2, "us-2-back"),
                pk(RowKind.DELETE, "eu", 99, "ghost"));
        List<GenericRow> c4 = new ArrayList<>();
        for (int i = 5; i <= 8; i++) {
            c4.add(pk(RowKind.UPDATE_AFTER, "us", i, "us-" + i + "-v2"));
        }
        t.commits.add(c4);
        return t;
    }

    private static GenericRow pk(RowKind k, String region, int id, String name) {
        return row(
                k,
                s(region),
                id,
                s(name),
                dec(new BigDecimal(id).multiply(new BigDecimal("1.5")).toPlainString(), 12, 3),
                Timestamp.fromLocalDateTime(
                        LocalDateTime.of(2024, 5, 1, 0, 0, id % 60, id * 1000)));
    }

    /** The rows the table holds after all commits, from the engine's merge semantics. */
    static List<GenericRow> finalRows(Spec t) {
        List<GenericRow> rows = new ArrayList<>();
        for (List<GenericRow> c : t.commits) {
            rows.addAll(c);
        }
        if (t.engine.equals("append")) {
            return rows;
        }
        List<String> names = t.rowType().getFieldNames();
        int[] keyPos = t.schema.primaryKeys().stream().mapToInt(names::indexOf).toArray();
        String seqField = t.schema.options().get("sequence.field");
        int seqPos = seqField == null ? -1 : names.indexOf(seqField);
        Map<List<Object>, GenericRow> state = new LinkedHashMap<>();
        for (GenericRow r : rows) {
            List<Object> key = new ArrayList<>();
            for (int k : keyPos) {
                key.add(r.getField(k));
            }
            GenericRow old = state.get(key);
            boolean retract =
                    r.getRowKind() == RowKind.DELETE || r.getRowKind() == RowKind.UPDATE_BEFORE;
            switch (t.engine) {
                case "deduplicate":
                    if (seqPos >= 0
                            && old != null
                            && (Long) r.getField(seqPos) < (Long) old.getField(seqPos)) {
                        break;
                    }
                    if (retract) {
                        state.remove(key);
                    } else {
                        state.put(key, copy(r));
                    }
                    break;
                case "first-row":
                    if (old == null && !retract) {
                        state.put(key, copy(r));
                    }
                    break;
                case "partial-update":
                    if (old == null) {
                        state.put(key, copy(r));
                    } else {
                        for (int i = 0; i < r.getFieldCount(); i++) {
                            if (r.getField(i) != null) {
                                old.setField(i, r.getField(i));
                            }
                        }
                    }
                    break;
                case "aggregation":
                    if (old == null) {
                        state.put(key, copy(r));
                    } else {
                        for (int i = 0; i < r.getFieldCount(); i++) {
                            String fn =
                                    t.schema.options()
                                            .getOrDefault(
                                                    "fields." + names.get(i) + ".aggregate-function",
                                                    "last_non_null_value");
                            old.setField(i, aggregate(fn, old.getField(i), r.getField(i)));
                        }
                    }
                    break;
                default:
                    throw new IllegalArgumentException("engine " + t.engine);
            }
        }
        return new ArrayList<>(state.values());
    }

    private static Object aggregate(String fn, Object old, Object v) {
        if (v == null) {
            return old;
        }
        if (old == null) {
            return v;
        }
        switch (fn) {
            case "sum":
                return (Long) old + (Long) v;
            case "max":
                return Math.max((Integer) old, (Integer) v);
            default:
                return v;
        }
    }

    private static GenericRow copy(GenericRow r) {
        GenericRow c = new GenericRow(r.getFieldCount());
        for (int i = 0; i < r.getFieldCount(); i++) {
            c.setField(i, r.getField(i));
        }
        return c;
    }

    static List<DataField> fields(Spec t) {
        return t.schema.fields();
    }
}
