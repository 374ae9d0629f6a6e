package org.paimongo.interop;

import static org.paimongo.interop.Scenarios.commit;
import static org.paimongo.interop.Tables.date;
import static org.paimongo.interop.Tables.dec;
import static org.paimongo.interop.Tables.ins;
import static org.paimongo.interop.Tables.s;
import static org.paimongo.interop.Tables.ts;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.types.DataTypes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Schema-evolution casts (issue 13): tables whose columns Java's ALTER TABLE changes through
 * lossy type changes (BIGINT to INT wraps, STRING to INT parses, DOUBLE to FLOAT rounds, DATE to
 * STRING formats, BOOLEAN to INT, DOUBLE to DECIMAL through Double.toString, DECIMAL to INT
 * truncates, INT to DECIMAL, DECIMAL to a smaller precision is null on overflow, ...), in Parquet
 * and ORC, append and primary-key. Java's read at every snapshot is the expectation: old files
 * are read through CastExecutors.
 */
final class ScenariosCasts {
    private ScenariosCasts() {}

    /** The scenarios of this file, for {@link Scenarios#all}. */
    static List<Scenario> all() {
        List<Scenario> out = new ArrayList<>();
        for (String format : new String[] {"parquet", "orc", "avro"}) {
            out.add(lossy(format));
            out.add(unparsable(format));
            out.add(overflow(format));
            out.add(nested(format));
        }
        out.add(primaryKey("parquet"));
        out.add(primaryKey("orc"));
        out.add(primaryKey("avro"));
        return out;
    }

    /**
     * An append table, one commit, every column's type changed in one ALTER TABLE, one more
     * commit in the new types, then a second change on some columns and a third commit.
     */
    static Scenario lossy(String format) {
        return new Scenario() {
            @Override
            public String name() {
                return "casts_lossy_" + format;
            }

            @Override
            public void run(Catalog catalog, Identifier id) throws Exception {
                catalog.createTable(
                        id,
                        Schema.newBuilder()
                                .column("id", DataTypes.INT())
                                .column("a", DataTypes.BIGINT())
                                .column("s", DataTypes.STRING())
                                .column("d", DataTypes.DOUBLE())
                                .column("dt", DataTypes.DATE())
                                .column("b", DataTypes.BOOLEAN())
                                .column("m", DataTypes.DOUBLE())
                                .column("x", DataTypes.DECIMAL(10, 3))
                                .column("c", DataTypes.INT())
                                .column("n", DataTypes.DECIMAL(10, 2))
                                .column("f", DataTypes.FLOAT())
                                .column("t6", DataTypes.TIMESTAMP(6))
                                .column("i", DataTypes.INT())
                                .column("v", DataTypes.VARCHAR(10))
                                .column("bin", DataTypes.BYTES())
                                .column("sd", DataTypes.STRING())
                                .column("t3", DataTypes.TIMESTAMP(3))
                                .column("sb", DataTypes.STRING())
                                .column("de", DataTypes.DECIMAL(5, 2))
                                .column("l", DataTypes.BIGINT())
                                .option("file.format", format)
                                .build(),
                        false);
                commit(
                        catalog.getTable(id),
                        ins(1, 4294967297L, s("12"), 0.1, date("2022-01-08"), true, 1.005,
                                dec("-123.999", 10, 3), 5, dec("12.35", 10, 2), 0.1f,
                                ts("2024-01-02T03:04:05.123456"), 383, s("abcdefgh"),
                                "héllo".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                                s("2024-02-29"), ts("1969-12-31T23:59:58.500"), s("YES"),
                                dec("-999.99", 5, 2), 5L),
                        ins(2, -1L, s("-7.9"), 1e40, date("1969-12-31"), false, 12.5,
                                dec("7.001", 10, 3), 9, dec("-0.05", 10, 2), 1.0e7f,
                                ts("1970-01-01T00:00:00"), -129, s("ab"), new byte[] {'x'},
                                s("2024-2-9"), ts("2024-01-02T03:04:05.678"), s("0"),
                                dec("0.05", 5, 2), -2L),
                        ins(3, 2147483648L, null, null, null, null, null, null, null, null,
                                null, null, null, null, null, null, null, null, null, null));
                catalog.alterTable(
                        id,
                        Arrays.asList(
                                SchemaChange.updateColumnType("a", DataTypes.INT()),
                                SchemaChange.updateColumnType("s", DataTypes.INT()),
                                SchemaChange.updateColumnType("d", DataTypes.FLOAT()),
                                SchemaChange.updateColumnType("dt", DataTypes.STRING()),
                                SchemaChange.updateColumnType("b", DataTypes.INT()),
                                SchemaChange.updateColumnType("m", DataTypes.DECIMAL(10, 2)),
                                SchemaChange.updateColumnType("x", DataTypes.INT()),
                                SchemaChange.updateColumnType("c", DataTypes.DECIMAL(12, 2)),
                                SchemaChange.updateColumnType("n", DataTypes.DECIMAL(3, 1)),
                                SchemaChange.updateColumnType("f", DataTypes.STRING()),
                                SchemaChange.updateColumnType("t6", DataTypes.STRING()),
                                SchemaChange.updateColumnType("i", DataTypes.TINYINT()),
                                SchemaChange.updateColumnType("v", DataTypes.VARCHAR(3)),
                                SchemaChange.updateColumnType("bin", DataTypes.STRING()),
                                SchemaChange.updateColumnType("sd", DataTypes.DATE()),
                                SchemaChange.updateColumnType("t3", DataTypes.DATE()),
                                SchemaChange.updateColumnType("sb", DataTypes.BOOLEAN()),
                                SchemaChange.updateColumnType("de", DataTypes.DOUBLE()),
                                SchemaChange.updateColumnType("l", DataTypes.TIMESTAMP(3))),
                        false);
                commit(
                        catalog.getTable(id),
                        ins(4, 7, 8, 1.5f, s("x"), 1, dec("2.50", 10, 2), 3,
                                dec("4.00", 12, 2), dec("1.5", 3, 1), s("f"), s("t"), (byte) 1,
                                s("abc"), s("b"), date("2000-01-01"), date("2000-01-02"), true,
                                2.5, ts("2000-01-01T00:00:00")));
                // A second change: columns already cast once change again.
                catalog.alterTable(
                        id,
                        Arrays.asList(
                                SchemaChange.updateColumnType("a", DataTypes.SMALLINT()),
                                SchemaChange.updateColumnType("d", DataTypes.DOUBLE()),
                                SchemaChange.updateColumnType("x", DataTypes.STRING()),
                                SchemaChange.updateColumnType("b", DataTypes.BOOLEAN())),
                        false);
                commit(
                        catalog.getTable(id),
                        ins(5, (short) 9, 10, 1.25, s("y"), false,
                                dec("3.75", 10, 2), s("12"), dec("5.00", 12, 2), null, s("g"),
                                s("u"), (byte) 2, s("de"), s("c"), date("2000-01-03"),
                                date("2000-01-04"), false, 3.5, ts("2000-01-02T00:00:00")));
            }
        };
    }

    /**
     * STRING to INT where an old value does not parse: Java's read of the latest snapshot fails
     * (NumberFormatException), the first snapshot (old schema) reads.
     */
    static Scenario unparsable(String format) {
        return new Scenario() {
            @Override
            public String name() {
                return "casts_unparsable_" + format;
            }

            @Override
            public void run(Catalog catalog, Identifier id) throws Exception {
                catalog.createTable(
                        id,
                        Schema.newBuilder()
                                .column("id", DataTypes.INT())
                                .column("s", DataTypes.STRING())
                                .option("file.format", format)
                                .build(),
                        false);
                commit(catalog.getTable(id), ins(1, s("12")), ins(2, s("abc")));
                catalog.alterTable(
                        id, SchemaChange.updateColumnType("s", DataTypes.INT()), false);
                commit(catalog.getTable(id), ins(3, 4));
            }
        };
    }

    /**
     * DECIMAL(10, 2) to DECIMAL(3, 1) where an old value needs more digits: Java's cast returns
     * null for a slot its row reports non-null and its read fails; ours fails with an error.
     */
    static Scenario overflow(String format) {
        return new Scenario() {
            @Override
            public String name() {
                return "casts_overflow_" + format;
            }

            @Override
            public void run(Catalog catalog, Identifier id) throws Exception {
                catalog.createTable(
                        id,
                        Schema.newBuilder()
                                .column("id", DataTypes.INT())
                                .column("n", DataTypes.DECIMAL(10, 2))
                                .option("file.format", format)
                                .build(),
                        false);
                commit(catalog.getTable(id), ins(1, dec("12.35", 10, 2)), ins(2, dec("123.45", 10, 2)));
                catalog.alterTable(
                        id, SchemaChange.updateColumnType("n", DataTypes.DECIMAL(3, 1)), false);
                commit(catalog.getTable(id), ins(3, dec("1.5", 3, 1)));
            }
        };
    }

    /**
     * Type changes inside nested columns: an ARRAY element BIGINT to INT, a MAP value DOUBLE to
     * FLOAT, a ROW field INT to STRING (SchemaEvolutionUtil's nested cast executors).
     */
    static Scenario nested(String format) {
        return new Scenario() {
            @Override
            public String name() {
                return "casts_nested_" + format;
            }

            @Override
            public void run(Catalog catalog, Identifier id) throws Exception {
                catalog.createTable(
                        id,
                        Schema.newBuilder()
                                .column("id", DataTypes.INT())
                                .column("l", DataTypes.ARRAY(DataTypes.BIGINT()))
                                .column("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.DOUBLE()))
                                .column(
                                        "st",
                                        DataTypes.ROW(
                                                DataTypes.FIELD(10, "a", DataTypes.INT()),
                                                DataTypes.FIELD(11, "b", DataTypes.STRING())))
                                .option("file.format", format)
                                .build(),
                        false);
                java.util.Map<Object, Object> m1 = new java.util.HashMap<>();
                m1.put(s("x"), 0.1);
                m1.put(s("y"), null);
                commit(
                        catalog.getTable(id),
                        ins(1, new org.apache.paimon.data.GenericArray(new Object[] {4294967297L, null, -1L}),
                                new org.apache.paimon.data.GenericMap(m1),
                                org.apache.paimon.data.GenericRow.of(-5, s("b"))),
                        ins(2, null, null, null));
                catalog.alterTable(
                        id,
                        Arrays.asList(
                                SchemaChange.updateColumnType(new String[] {"l", "element"}, DataTypes.INT(), false),
                                SchemaChange.updateColumnType(new String[] {"m", "value"}, DataTypes.FLOAT(), false),
                                SchemaChange.updateColumnType(new String[] {"st", "a"}, DataTypes.STRING(), false)),
                        false);
                java.util.Map<Object, Object> m2 = new java.util.HashMap<>();
                m2.put(s("z"), 2.5f);
                commit(
                        catalog.getTable(id),
                        ins(3, new org.apache.paimon.data.GenericArray(new Object[] {7}),
                                new org.apache.paimon.data.GenericMap(m2),
                                org.apache.paimon.data.GenericRow.of(s("q"), s("c"))));
            }
        };
    }

    /**
     * A primary-key table (one bucket): rows of the old schema are merged with updates written
     * after BIGINT became INT and DOUBLE became DECIMAL.
     */
    static Scenario primaryKey(String format) {
        return new Scenario() {
            @Override
            public String name() {
                return "casts_pk_" + format;
            }

            @Override
            public void run(Catalog catalog, Identifier id) throws Exception {
                catalog.createTable(
                        id,
                        Schema.newBuilder()
                                .column("k", DataTypes.INT().notNull())
                                .column("a", DataTypes.BIGINT())
                                .column("m", DataTypes.DOUBLE())
                                .column("s", DataTypes.STRING())
                                .primaryKey("k")
                                .option("bucket", "1")
                                .option("file.format", format)
                                .build(),
                        false);
                commit(
                        catalog.getTable(id),
                        ins(1, 4294967297L, 1.005, s("7")),
                        ins(2, -1L, 2.5, s("8")),
                        ins(3, 2147483648L, -0.125, s("9")));
                catalog.alterTable(
                        id,
                        Arrays.asList(
                                SchemaChange.updateColumnType("a", DataTypes.INT()),
                                SchemaChange.updateColumnType("m", DataTypes.DECIMAL(6, 2)),
                                SchemaChange.updateColumnType("s", DataTypes.INT())),
                        false);
                commit(catalog.getTable(id), ins(2, 20, dec("20.00", 6, 2), 21));
            }
        };
    }
}
