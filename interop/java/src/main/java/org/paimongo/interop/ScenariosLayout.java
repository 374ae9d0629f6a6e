package org.paimongo.interop;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.variant.GenericVariant;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Scenarios of issue 13's layout options and format gaps: data-file.path-directory,
 * data-file.external-paths, manifest.format=parquet, Parquet with file.compression=lz4 (parquet-mr's
 * Hadoop-framed LZ4), MULTISET columns in ORC and Parquet, VARIANT columns.
 */
final class ScenariosLayout {
    private ScenariosLayout() {}

    /** The body of a scenario. */
    interface Body {
        void run(Catalog catalog, Identifier id) throws Exception;
    }

    static Scenario of(String name, Body body) {
        return new Scenario() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void run(Catalog catalog, Identifier id) throws Exception {
                body.run(catalog, id);
            }
        };
    }

    static List<Scenario> all() {
        return Arrays.asList(
                PATH_DIRECTORY,
                EXTERNAL_PATHS,
                MANIFEST_PARQUET,
                PARQUET_LZ4,
                multiset("layout_multiset_orc", "orc"),
                multiset("layout_multiset_parquet", "parquet"),
                VARIANT);
    }

    static GenericRow row(RowKind kind, Object... v) {
        GenericRow r = Tables.ins(v);
        r.setRowKind(kind);
        return r;
    }

    /** A partitioned primary-key table (p INT, k INT, v STRING; key p, k; 2 buckets). */
    static Schema.Builder pkSchema() {
        return Schema.newBuilder()
                .column("p", DataTypes.INT())
                .column("k", DataTypes.INT())
                .column("v", DataTypes.STRING())
                .partitionKeys("p")
                .primaryKey("p", "k")
                .option("bucket", "2");
    }

    /** Three commits (insert, update and delete) and a full compaction of partition p=1. */
    static void pkHistory(Catalog catalog, Identifier id) throws Exception {
        Table t = catalog.getTable(id);
        Scenarios.commit(
                t,
                Tables.ins(1, 1, Tables.s("a")),
                Tables.ins(1, 2, Tables.s("b")),
                Tables.ins(2, 3, Tables.s("c")));
        Scenarios.commit(
                t,
                Tables.ins(1, 1, Tables.s("A")),
                Tables.ins(2, 4, Tables.s("d")),
                Tables.ins(1, 5, Tables.s("e")));
        Scenarios.commit(t, row(RowKind.DELETE, 1, 2, Tables.s("b")), Tables.ins(2, 3, Tables.s("C")));
        for (int b = 0; b < 2; b++) {
            Scenarios.compact(catalog.getTable(id), BinaryRow.singleColumn(1), b);
        }
    }

    /** Data files below data/p=N/bucket-B (FileStorePathFactory.relativeBucketPath). */
    static final Scenario PATH_DIRECTORY =
            of(
                    "layout_path_directory",
                    (catalog, id) -> {
                        catalog.createTable(
                                id,
                                pkSchema().option("data-file.path-directory", "data").build(),
                                false);
                        pkHistory(catalog, id);
                    });

    /**
     * Data files written round-robin below two local directories outside the table root
     * (PAIMON_INTEROP_EXTERNAL_DIR, else OUTDIR/external), stored in _EXTERNAL_PATH.
     */
    static final Scenario EXTERNAL_PATHS =
            of(
                    "layout_external_paths",
                    (catalog, id) -> {
                        String base = System.getenv("PAIMON_INTEROP_EXTERNAL_DIR");
                        if (base == null || base.isEmpty()) {
                            // OUTDIR/warehouse/interop.db/NAME -> OUTDIR/external
                            java.nio.file.Path root =
                                    Scenarios.tmp.toAbsolutePath().getParent();
                            base = root.resolve("external").toString();
                        }
                        String a = "file://" + base + "/" + id.getObjectName() + "/a";
                        String b = "file://" + base + "/" + id.getObjectName() + "/b";
                        catalog.createTable(
                                id,
                                pkSchema()
                                        .option("data-file.external-paths", a + "," + b)
                                        .option("data-file.external-paths.strategy", "round-robin")
                                        .build(),
                                false);
                        pkHistory(catalog, id);
                    });

    /** Manifests, manifest lists and index manifests (deletion vectors) stored as Parquet. */
    static final Scenario MANIFEST_PARQUET =
            of(
                    "layout_manifest_parquet",
                    (catalog, id) -> {
                        catalog.createTable(
                                id,
                                pkSchema()
                                        .option("manifest.format", "parquet")
                                        .option("deletion-vectors.enabled", "true")
                                        .build(),
                                false);
                        pkHistory(catalog, id);
                    });

    /** Parquet data files compressed with parquet-mr's LZ4 codec. */
    static final Scenario PARQUET_LZ4 =
            of(
                    "layout_parquet_lz4",
                    (catalog, id) -> {
                        catalog.createTable(
                                id,
                                pkSchema()
                                        .option("file.format", "parquet")
                                        .option("file.compression", "lz4")
                                        .build(),
                                false);
                        pkHistory(catalog, id);
                    });

    static GenericMap bag(Object... kv) {
        Map<Object, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return new GenericMap(m);
    }

    /**
     * An append table with MULTISET<STRING> and MULTISET<INT> columns in the given format (Java
     * 1.4.2 cannot write MULTISET to Avro: AvroSchemaVisitor casts it to ArrayType).
     */
    static Scenario multiset(String name, String format) {
        return of(
                name,
                (catalog, id) -> {
                    catalog.createTable(
                            id,
                            Schema.newBuilder()
                                    .column("id", DataTypes.INT())
                                    .column("tags", DataTypes.MULTISET(DataTypes.STRING()))
                                    .column("nums", DataTypes.MULTISET(DataTypes.INT().notNull()))
                                    .option("file.format", format)
                                    .build(),
                            false);
                    Table t = catalog.getTable(id);
                    Scenarios.commit(
                            t,
                            Tables.ins(1, bag(Tables.s("a"), 2, Tables.s("b"), 1), bag(7, 3)),
                            Tables.ins(2, bag(), null),
                            Tables.ins(3, null, bag(1, 1, 2, 1)));
                    Scenarios.commit(t, Tables.ins(4, bag(Tables.s("z"), 5), bag()));
                });
    }

    /** An append table with a VARIANT column (Parquet: group of value and metadata). */
    static final Scenario VARIANT =
            of(
                    "layout_variant",
                    (catalog, id) -> {
                        catalog.createTable(
                                id,
                                Schema.newBuilder()
                                        .column("id", DataTypes.INT())
                                        .column("v", DataTypes.VARIANT())
                                        .option("file.format", "parquet")
                                        .build(),
                                false);
                        Table t = catalog.getTable(id);
                        List<GenericRow> rows = new ArrayList<>();
                        String[] docs = {
                            "{\"b\":1,\"a\":\"x\",\"n\":null,\"arr\":[1,2.5,true,\"s\"]}",
                            "123",
                            "-4.25",
                            "1.0E10",
                            "\"quote\\\" and \\\\ and \\n\"",
                            "[]",
                            "{}",
                            "false",
                            "12345678901234567890",
                            "{\"nested\":{\"deep\":[{\"k\":1e-7}]}}"
                        };
                        for (int i = 0; i < docs.length; i++) {
                            rows.add(Tables.ins(i, GenericVariant.fromJson(docs[i])));
                        }
                        rows.add(Tables.ins(docs.length, null));
                        Scenarios.commit(t, rows.toArray(new GenericRow[0]));
                    });
}
