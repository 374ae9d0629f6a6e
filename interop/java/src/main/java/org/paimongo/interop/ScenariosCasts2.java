package org.paimongo.interop;

import static org.paimongo.interop.Scenarios.commit;
import static org.paimongo.interop.Tables.date;
import static org.paimongo.interop.Tables.dec;
import static org.paimongo.interop.Tables.ins;
import static org.paimongo.interop.Tables.s;
import static org.paimongo.interop.Tables.ts;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Schema-evolution casts, second part (issue 13): ARRAY, MAP and ROW columns (and a ROW field
 * and an ARRAY element holding them) changed to STRING, VARCHAR(n) and CHAR(n), read through
 * Java's ArrayToStringCastRule, MapToStringCastRule and RowToStringCastRule; and the laziness of
 * Java's casts (CastedRow casts a field only when it is read): old values that cannot be cast
 * in rows a filter drops, or in columns a projection leaves out. Besides the harness's reads,
 * the lazy scenarios record Java's filtered and projected reads as
 * expected/NAME/query-Q.jsonl (or .error), Q as in {@link #QUERIES}.
 */
final class ScenariosCasts2 {
    private ScenariosCasts2() {}

    /** The scenarios of this file, for {@link Scenarios#all}. */
    static List<Scenario> all() {
        List<Scenario> out = new ArrayList<>();
        for (String format : new String[] {"parquet", "orc", "avro"}) {
            out.add(toString(format));
            out.add(lazy(format));
            out.add(lazyPrimaryKey(format));
        }
        return out;
    }

    /**
     * The queries of the lazy scenarios: name, projected columns, and an optional filter
     * "column = int literal" (column among the projected ones). The engine's part of a filter
     * (Flink's and Spark's exact row filter) is the predicate tested on each row Java returns.
     */
    static final String[][] QUERIES = {
        {"where_id_2", "id,s,n", "id", "2"},
        {"where_id_1_cols_id", "id", "id", "1"},
        {"cols_id", "id", null, null},
        {"cols_id_s_where_id_3", "id,s", "id", "3"},
        {"where_id_1_cols_id_n", "id,n", "id", "1"},
        {"where_s_12", "id,s", "s", "12"},
    };

    private static GenericArray arr(Object... v) {
        return new GenericArray(v);
    }

    private static GenericMap map(Object... kv) {
        Map<Object, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return new GenericMap(m);
    }

    /**
     * An append table with ARRAY, MAP and ROW columns (the MAP's entries in the order Java's Avro
     * reader returns them, the iteration order of a HashMap of its keys, so that the file's order
     * and Java's read agree in every format) of many element types, one commit, every
     * column changed to a character string type in one ALTER TABLE (a ROW field by path), one
     * commit in the new types.
     */
    static Scenario toString(String format) {
        return new Scenario() {
            @Override
            public String name() {
                return "casts2_tostring_" + format;
            }

            @Override
            public void run(Catalog catalog, Identifier id) throws Exception {
                catalog.createTable(
                        id,
                        Schema.newBuilder()
                                .column("id", DataTypes.INT())
                                .column("l", DataTypes.ARRAY(DataTypes.INT()))
                                .column("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.DOUBLE()))
                                .column(
                                        "r",
                                        DataTypes.ROW(
                                                DataTypes.FIELD(20, "a", DataTypes.INT()),
                                                DataTypes.FIELD(21, "b", DataTypes.STRING()),
                                                DataTypes.FIELD(22, "c", DataTypes.BOOLEAN())))
                                .column("lv", DataTypes.ARRAY(DataTypes.STRING()))
                                .column("lc", DataTypes.ARRAY(DataTypes.FLOAT()))
                                .column("ld", DataTypes.ARRAY(DataTypes.DATE()))
                                .column("lt", DataTypes.ARRAY(DataTypes.TIMESTAMP(6)))
                                .column("lb", DataTypes.ARRAY(DataTypes.BYTES()))
                                .column("le", DataTypes.ARRAY(DataTypes.DECIMAL(5, 2)))
                                .column(
                                        "nest",
                                        DataTypes.ROW(
                                                DataTypes.FIELD(
                                                        30, "x", DataTypes.ARRAY(DataTypes.ARRAY(DataTypes.BIGINT()))),
                                                DataTypes.FIELD(
                                                        31,
                                                        "y",
                                                        DataTypes.MAP(
                                                                DataTypes.INT(),
                                                                DataTypes.ROW(
                                                                        DataTypes.FIELD(32, "p", DataTypes.STRING()),
                                                                        DataTypes.FIELD(33, "q", DataTypes.DOUBLE()))))))
                                .column(
                                        "pr",
                                        DataTypes.ROW(
                                                DataTypes.FIELD(40, "k", DataTypes.INT()),
                                                DataTypes.FIELD(41, "arr", DataTypes.ARRAY(DataTypes.INT()))))
                                .column("lr", DataTypes.ARRAY(DataTypes.ROW(
                                        DataTypes.FIELD(50, "u", DataTypes.INT()),
                                        DataTypes.FIELD(51, "w", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())))))
                                .option("file.format", format)
                                .build(),
                        false);
                commit(
                        catalog.getTable(id),
                        ins(1, arr(1, null, 3), map(s("x"), 0.1, s("z"), 1e40, s("y"), null),
                                GenericRow.of(-5, s("b, c"), true),
                                arr(s("a"), null, s(""), s("{q}")), arr(0.1f, -1.5f, 1.0e7f, Float.NaN),
                                arr(date("2024-02-29"), null, date("1969-12-31")),
                                arr(ts("2024-01-02T03:04:05.123456"), ts("1970-01-01T00:00:00")),
                                arr("héllo".getBytes(StandardCharsets.UTF_8), new byte[0]),
                                arr(dec("1.50", 5, 2), dec("-0.05", 5, 2)),
                                GenericRow.of(arr(arr(1L, 2L), arr(), null),
                                        map(7, GenericRow.of(s("p"), 2.5), 8, null)),
                                GenericRow.of(9, arr(4, 5)),
                                arr(GenericRow.of(1, map(s("k"), 2)), null, GenericRow.of(null, null))),
                        ins(2, arr(), map(), GenericRow.of(null, null, null), arr(), arr(), arr(), arr(),
                                arr(), arr(), GenericRow.of(null, null), GenericRow.of(null, null), arr()),
                        ins(3, null, null, null, null, null, null, null, null, null, null, null, null));
                catalog.alterTable(
                        id,
                        Arrays.asList(
                                SchemaChange.updateColumnType("l", DataTypes.STRING()),
                                SchemaChange.updateColumnType("m", DataTypes.VARCHAR(5)),
                                SchemaChange.updateColumnType("r", DataTypes.CHAR(3)),
                                SchemaChange.updateColumnType("lv", DataTypes.STRING()),
                                SchemaChange.updateColumnType("lc", DataTypes.STRING()),
                                SchemaChange.updateColumnType("ld", DataTypes.STRING()),
                                SchemaChange.updateColumnType("lt", DataTypes.STRING()),
                                SchemaChange.updateColumnType("lb", DataTypes.STRING()),
                                SchemaChange.updateColumnType("le", DataTypes.STRING()),
                                SchemaChange.updateColumnType("nest", DataTypes.STRING()),
                                SchemaChange.updateColumnType(
                                        new String[] {"pr", "arr"}, DataTypes.STRING(), false),
                                SchemaChange.updateColumnType("lr", DataTypes.STRING())),
                        false);
                commit(
                        catalog.getTable(id),
                        ins(4, s("new"), s("abcde"), s("xyz"), s("v"), s("c"), s("d"), s("t"), s("b"),
                                s("e"), s("n"), GenericRow.of(10, s("[6]")), s("r")));
            }
        };
    }

    /**
     * STRING to INT where one old value does not parse ('abc'), DECIMAL(10, 2) to DECIMAL(4, 2)
     * where one overflows (123.45), both in row 1; row 2 holds castable values. The harness's
     * full reads fail at the latest snapshot; the queries select or project around row 1.
     */
    static Scenario lazy(String format) {
        return new Scenario() {
            @Override
            public String name() {
                return "casts2_lazy_" + format;
            }

            @Override
            public void run(Catalog catalog, Identifier id) throws Exception {
                catalog.createTable(
                        id,
                        Schema.newBuilder()
                                .column("id", DataTypes.INT())
                                .column("s", DataTypes.STRING())
                                .column("n", DataTypes.DECIMAL(10, 2))
                                .option("file.format", format)
                                .build(),
                        false);
                commit(
                        catalog.getTable(id),
                        ins(1, s("abc"), dec("123.45", 10, 2)),
                        ins(2, s("12"), dec("1.50", 10, 2)));
                catalog.alterTable(
                        id,
                        Arrays.asList(
                                SchemaChange.updateColumnType("s", DataTypes.INT()),
                                SchemaChange.updateColumnType("n", DataTypes.DECIMAL(4, 2))),
                        false);
                commit(catalog.getTable(id), ins(3, 4, dec("2.25", 4, 2)));
                Path exp =
                        Files.createDirectories(
                                Scenarios.tmp.getParent().resolve("expected").resolve(name()));
                Table table = catalog.getTable(id);
                for (String[] q : QUERIES) {
                    query(table, exp, q);
                }
            }
        };
    }

    /**
     * A primary-key table (one bucket, merged on read): key 1's old value 'abc' (no INT) is
     * superseded by a later commit before STRING becomes INT; key 2's old value '12' parses.
     * Java's merge keeps only the latest value of each key, so whether the superseded value is
     * ever cast is the question this scenario asks.
     */
    static Scenario lazyPrimaryKey(String format) {
        return new Scenario() {
            @Override
            public String name() {
                return "casts2_lazy_pk_" + format;
            }

            @Override
            public void run(Catalog catalog, Identifier id) throws Exception {
                catalog.createTable(
                        id,
                        Schema.newBuilder()
                                .column("id", DataTypes.INT().notNull())
                                .column("s", DataTypes.STRING())
                                .column("n", DataTypes.DECIMAL(10, 2))
                                .primaryKey("id")
                                .option("bucket", "1")
                                .option("file.format", format)
                                .build(),
                        false);
                commit(
                        catalog.getTable(id),
                        ins(1, s("abc"), dec("123.45", 10, 2)),
                        ins(2, s("12"), dec("1.50", 10, 2)));
                commit(catalog.getTable(id), ins(1, s("5"), dec("2.25", 10, 2)));
                catalog.alterTable(
                        id,
                        Arrays.asList(
                                SchemaChange.updateColumnType("s", DataTypes.INT()),
                                SchemaChange.updateColumnType("n", DataTypes.DECIMAL(4, 2))),
                        false);
                commit(catalog.getTable(id), ins(3, 4, dec("2.25", 4, 2)));
                Path exp =
                        Files.createDirectories(
                                Scenarios.tmp.getParent().resolve("expected").resolve(name()));
                Table table = catalog.getTable(id);
                for (String[] q : QUERIES) {
                    query(table, exp, q);
                }
            }
        };
    }

    /** Runs one query of {@link #QUERIES} into dir/query-NAME.jsonl (or .error). */
    private static void query(Table table, Path dir, String[] q) throws Exception {
        StringBuilder sb = new StringBuilder();
        try {
            RowType full = table.rowType();
            String[] cols = q[1].split(",");
            int[] projection = new int[cols.length];
            for (int i = 0; i < cols.length; i++) {
                projection[i] = full.getFieldIndex(cols[i]);
            }
            RowType type = full.project(projection);
            ReadBuilder rb = table.newReadBuilder().withProjection(projection);
            Predicate test = null;
            if (q[2] != null) {
                int lit = Integer.parseInt(q[3]);
                rb.withFilter(new PredicateBuilder(full).equal(full.getFieldIndex(q[2]), lit));
                test = new PredicateBuilder(type).equal(type.getFieldIndex(q[2]), lit);
            }
            try (RecordReader<InternalRow> reader =
                    rb.newRead().createReader(rb.newScan().plan())) {
                final Predicate t = test;
                reader.forEachRemaining(
                        row -> {
                            if (t == null || t.test(row)) {
                                sb.append(Jsonl.row(type, row));
                                sb.append('\n');
                            }
                        });
            }
        } catch (Exception e) {
            java.io.StringWriter sw = new java.io.StringWriter();
            e.printStackTrace(new java.io.PrintWriter(sw));
            Files.writeString(dir.resolve("query-" + q[0] + ".error"), sw.toString());
            return;
        }
        Files.writeString(dir.resolve("query-" + q[0] + ".jsonl"), sb.toString());
    }
}
