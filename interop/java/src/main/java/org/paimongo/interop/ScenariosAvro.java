package org.paimongo.interop;

import static org.paimongo.interop.Tables.date;
import static org.paimongo.interop.Tables.dec;
import static org.paimongo.interop.Tables.ins;
import static org.paimongo.interop.Tables.row;
import static org.paimongo.interop.Tables.s;
import static org.paimongo.interop.Tables.ts;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Scenarios of Avro data files (issue 13): Java writes append and primary-key tables with
 * file.format=avro or file.format.per.level, compacts them, and paimon-go reads every snapshot.
 */
final class ScenariosAvro {
    private ScenariosAvro() {}

    /** The scenarios of this file, registered in {@link Scenarios#all}. */
    static final List<Scenario> ALL = new ArrayList<>();

    static Scenario scenario(String name, Runner r) {
        Scenario s =
                new Scenario() {
                    @Override
                    public String name() {
                        return name;
                    }

                    @Override
                    public void run(Catalog catalog, Identifier id) throws Exception {
                        r.run(catalog, id);
                    }
                };
        ALL.add(s);
        return s;
    }

    interface Runner {
        void run(Catalog catalog, Identifier id) throws Exception;
    }

    static Map<Object, Object> map(Object... kv) {
        Map<Object, Object> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    static BinaryRow part(String p) {
        BinaryRow r = new BinaryRow(1);
        BinaryRowWriter w = new BinaryRowWriter(r);
        w.writeString(0, s(p));
        w.complete();
        return r;
    }

    /** Every type Java writes to Avro, in an append table with file.format=avro (zstd). */
    static final Scenario APPEND_TYPES =
            scenario(
                    "avro_append_types",
                    (catalog, id) -> {
                        catalog.createTable(
                                id,
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
                                        .column("s", DataTypes.STRING())
                                        .column("bin", DataTypes.BINARY(3))
                                        .column("vb", DataTypes.BYTES())
                                        .column("dt", DataTypes.DATE())
                                        .column("tm", DataTypes.TIME(3))
                                        .column("ts3", DataTypes.TIMESTAMP(3))
                                        .column("ts6", DataTypes.TIMESTAMP(6))
                                        .column("ltz3", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3))
                                        .column("ltz6", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6))
                                        .column("arr", DataTypes.ARRAY(DataTypes.INT()))
                                        .column(
                                                "m",
                                                DataTypes.MAP(
                                                        DataTypes.STRING().notNull(),
                                                        DataTypes.INT()))
                                        .column(
                                                "mi",
                                                DataTypes.MAP(
                                                        DataTypes.INT().notNull(),
                                                        DataTypes.STRING()))
                                        .column("ms", DataTypes.MULTISET(DataTypes.STRING().notNull()))
                                        .column(
                                                "r",
                                                DataTypes.ROW(
                                                        DataTypes.FIELD(100, "x", DataTypes.INT()),
                                                        DataTypes.FIELD(
                                                                101,
                                                                "y",
                                                                DataTypes.ARRAY(
                                                                        DataTypes.ROW(
                                                                                DataTypes.FIELD(
                                                                                        102,
                                                                                        "z",
                                                                                        DataTypes
                                                                                                .STRING()))))))
                                        .option("file.format", "avro")
                                        .option("bucket", "-1")
                                        .build(),
                                false);
                        Table t = catalog.getTable(id);
                        Scenarios.commit(
                                t,
                                ins(
                                        1, true, (byte) -128, (short) 32767, Long.MIN_VALUE, 3.1f, 0.1,
                                        dec("12345678.90", 10, 2),
                                        dec("12345678901234567890123456789.123456789", 38, 9),
                                        s("ab   "), s("héllo ✓"), new byte[] {'a', '3', '1'},
                                        new byte[] {0, 1, (byte) 255}, date("2024-02-29"), 3_723_004,
                                        ts("2024-01-02T03:04:05.678"), ts("2024-01-02T03:04:05.678901"),
                                        ts("2024-01-02T03:04:05.123"), ts("1969-12-31T23:59:59.999999"),
                                        new GenericArray(new Object[] {1, null, 3}),
                                        new GenericMap(map(s("k1"), 1, s("k2"), null)),
                                        new GenericMap(map(7, s("seven"), -1, null)),
                                        new GenericMap(map(s("x"), 2)),
                                        GenericRow.of(
                                                7,
                                                new GenericArray(
                                                        new Object[] {
                                                            GenericRow.of(s("deep")), null
                                                        }))),
                                ins(
                                        2, false, (byte) 127, (short) -32768, Long.MAX_VALUE, -0.5f,
                                        1e-7, dec("-0.12", 10, 2), dec("0.000000001", 38, 9), s("x    "),
                                        s(""), new byte[] {0, 0, 0}, new byte[] {},
                                        date("1969-12-31"), 0, ts("1969-12-31T23:59:59.999"),
                                        ts("1970-01-01T00:00:00.000001"), ts("1999-12-31T23:59:59.999"),
                                        ts("9999-12-31T23:59:59.999999"), new GenericArray(new Object[] {}),
                                        new GenericMap(map()), new GenericMap(map()), null,
                                        GenericRow.of(null, null)));
                        Object[] nulls = new Object[24];
                        nulls[0] = 3;
                        Scenarios.commit(t, GenericRow.of(nulls));
                    });

    static GenericRow pk(RowKind k, String region, int id, String name) {
        return row(k, s(region), id, s(name), dec(id * 3 / 2 + "." + (id % 2) * 500, 12, 3));
    }

    static Schema pkSchema(String... options) {
        Schema.Builder b =
                Schema.newBuilder()
                        .column("region", DataTypes.STRING().notNull())
                        .column("id", DataTypes.INT().notNull())
                        .column("name", DataTypes.STRING())
                        .column("amount", DataTypes.DECIMAL(12, 3))
                        .partitionKeys("region")
                        .primaryKey("region", "id")
                        .option("bucket", "2");
        for (int i = 0; i < options.length; i += 2) {
            b.option(options[i], options[i + 1]);
        }
        return b.build();
    }

    /** Writes four commits (inserts, updates, deletes) to a primary-key table. */
    static void pkCommits(Table t, boolean compactBeforeLast) throws Exception {
        List<GenericRow> c1 = new ArrayList<>();
        for (String r : Arrays.asList("eu", "us")) {
            for (int i = 1; i <= 12; i++) {
                c1.add(pk(RowKind.INSERT, r, i, r + "-" + i));
            }
        }
        Scenarios.commit(t, c1.toArray(new GenericRow[0]));
        List<GenericRow> c2 = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            c2.add(pk(RowKind.UPDATE_AFTER, "eu", i, "eu-" + i + "-v2"));
        }
        for (int i = 1; i <= 3; i++) {
            c2.add(pk(RowKind.DELETE, "us", i, "us-" + i));
        }
        Scenarios.commit(t, c2.toArray(new GenericRow[0]));
        if (compactBeforeLast) {
            for (String r : Arrays.asList("eu", "us")) {
                for (int b = 0; b < 2; b++) {
                    Scenarios.compact(t, part(r), b);
                }
            }
        }
        Scenarios.commit(
                t,
                pk(RowKind.INSERT, "us", 2, "us-2-back"),
                pk(RowKind.DELETE, "eu", 5, "eu-5"),
                pk(RowKind.INSERT, "eu", 13, "eu-13"));
    }

    /** A primary-key table with file.format=avro (level-0 and compacted files are Avro). */
    static final Scenario PK =
            scenario(
                    "avro_pk",
                    (catalog, id) -> {
                        catalog.createTable(id, pkSchema("file.format", "avro"), false);
                        pkCommits(catalog.getTable(id), true);
                    });

    /**
     * file.format.per.level: level-0 files Avro (snappy), compaction outputs Parquet; the latest
     * snapshot holds both.
     */
    static final Scenario PK_LEVELS =
            scenario(
                    "avro_pk_levels",
                    (catalog, id) -> {
                        catalog.createTable(
                                id,
                                pkSchema(
                                        "file.format", "parquet",
                                        "file.format.per.level", "0:avro",
                                        "file.compression.per.level", "0:snappy"),
                                false);
                        pkCommits(catalog.getTable(id), true);
                    });

    /** file.format=avro with compaction outputs at level 5 in Parquet (per level). */
    static final Scenario PK_LEVELS_AVRO_DEFAULT =
            scenario(
                    "avro_pk_levels_parquet_top",
                    (catalog, id) -> {
                        catalog.createTable(
                                id,
                                pkSchema(
                                        "file.format", "avro",
                                        "file.format.per.level", "5:parquet",
                                        "deletion-vectors.enabled", "true"),
                                false);
                        pkCommits(catalog.getTable(id), true);
                    });

    /**
     * ALTER TABLE on an Avro table: a renamed column, an added column and INT widened to BIGINT;
     * the old Avro file is read under the new schema by field id.
     */
    static final Scenario EVOLVED =
            scenario(
                    "avro_append_evolved",
                    (catalog, id) -> {
                        catalog.createTable(
                                id,
                                Schema.newBuilder()
                                        .column("id", DataTypes.INT())
                                        .column("s", DataTypes.STRING())
                                        .column("f", DataTypes.FLOAT())
                                        .option("file.format", "avro")
                                        .option("bucket", "-1")
                                        .build(),
                                false);
                        Scenarios.commit(catalog.getTable(id), ins(1, s("a"), 1.5f), ins(2, null, null));
                        catalog.alterTable(
                                id,
                                Arrays.asList(
                                        org.apache.paimon.schema.SchemaChange.renameColumn("s", "s2"),
                                        org.apache.paimon.schema.SchemaChange.addColumn(
                                                "n", DataTypes.BIGINT()),
                                        org.apache.paimon.schema.SchemaChange.updateColumnType(
                                                "id", DataTypes.BIGINT()),
                                        org.apache.paimon.schema.SchemaChange.updateColumnType(
                                                "f", DataTypes.DOUBLE())),
                                false);
                        Scenarios.commit(catalog.getTable(id), ins(3L, s("c"), 2.25, 30L));
                    });
}
