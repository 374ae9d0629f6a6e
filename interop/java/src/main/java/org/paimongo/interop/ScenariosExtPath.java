package org.paimongo.interop;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

import java.util.Arrays;
import java.util.List;

/**
 * Scenarios of issue 13's external-path writes: Java writes data files below two roots outside
 * the table (data-file.external-paths) with strategies round-robin and entropy-inject; the Go
 * test TestJavaExtPathScenariosWrittenByGo then writes into the same tables.
 */
final class ScenariosExtPath {
    private ScenariosExtPath() {}

    static List<Scenario> all() {
        return Arrays.asList(PK_ROUND_ROBIN, APPEND_ENTROPY);
    }

    /** The two external roots of a scenario: OUTDIR/external/NAME/{a,b}, as file:// URIs. */
    static String roots(Identifier id) {
        String base = System.getenv("PAIMON_INTEROP_EXTERNAL_DIR");
        if (base == null || base.isEmpty()) {
            // OUTDIR/warehouse/interop.db/NAME -> OUTDIR/external
            base = Scenarios.tmp.toAbsolutePath().getParent().resolve("external").toString();
        }
        String dir = "file://" + base + "/" + id.getObjectName();
        return dir + "/a," + dir + "/b";
    }

    /**
     * A partitioned primary-key table (2 buckets) written round-robin to two roots: two commits
     * (inserts, an update, a delete) and a full compaction of partition p=1.
     */
    static final Scenario PK_ROUND_ROBIN =
            ScenariosLayout.of(
                    "extpath_pk_round_robin",
                    (catalog, id) -> {
                        catalog.createTable(
                                id,
                                ScenariosLayout.pkSchema()
                                        .option("data-file.external-paths", roots(id))
                                        .option("data-file.external-paths.strategy", "round-robin")
                                        .build(),
                                false);
                        Table t = catalog.getTable(id);
                        Scenarios.commit(
                                t,
                                Tables.ins(1, 1, Tables.s("a")),
                                Tables.ins(1, 2, Tables.s("b")),
                                Tables.ins(2, 3, Tables.s("c")),
                                Tables.ins(2, 4, Tables.s("d")));
                        Scenarios.commit(
                                t,
                                Tables.ins(1, 1, Tables.s("A")),
                                ScenariosLayout.row(RowKind.DELETE, 2, 4, Tables.s("d")),
                                Tables.ins(1, 5, Tables.s("e")));
                        for (int b = 0; b < 2; b++) {
                            Scenarios.compact(catalog.getTable(id), BinaryRow.singleColumn(1), b);
                        }
                    });

    /**
     * An unpartitioned append table below data-file.path-directory = data, written with
     * entropy-inject (hash directories before each file name) in two commits.
     */
    static final Scenario APPEND_ENTROPY =
            ScenariosLayout.of(
                    "extpath_append_entropy",
                    (catalog, id) -> {
                        catalog.createTable(
                                id,
                                Schema.newBuilder()
                                        .column("id", DataTypes.INT())
                                        .column("s", DataTypes.STRING())
                                        .option("data-file.path-directory", "data")
                                        .option("data-file.external-paths", roots(id))
                                        .option("data-file.external-paths.strategy", "entropy-inject")
                                        .build(),
                                false);
                        Table t = catalog.getTable(id);
                        Scenarios.commit(t, Tables.ins(1, Tables.s("x")), Tables.ins(2, null));
                        Scenarios.commit(t, Tables.ins(3, Tables.s("z")));
                    });
}
