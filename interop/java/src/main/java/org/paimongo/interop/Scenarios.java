package org.paimongo.interop;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.types.DataTypes;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The registry of {@link Scenario}s (one line per scenario, or per scenario list, in {@link
 * #all}) and helpers for writing them.
 */
final class Scenarios {
    private Scenarios() {}

    /** Every scenario the {@code scenarios} command runs, in order. */
    static List<Scenario> all() {
        List<Scenario> out = new ArrayList<>();
        out.add(SMOKE);
        out.addAll(ScenariosOrc.all());
        out.addAll(ScenariosCasts.all());
        out.addAll(ScenariosCasts2.all());
        out.addAll(ScenariosAvro.ALL);
        out.addAll(ScenariosAgg.all());
        out.addAll(ScenariosLayout.all());
        out.addAll(ScenariosDynBucket.all());
        out.addAll(ScenariosPostpone.all());
        out.addAll(ScenariosSketch.all());
        out.addAll(ScenariosPostponeWrite.all());
        out.addAll(ScenariosExtPath.all());
        out.addAll(ScenariosXPart.all());
        out.addAll(ScenariosHll.all());
        return out;
    }

    /** Spill directory for lookup compaction; set by the harness before the scenarios run. */
    static Path tmp;

    /** Commits rows to the table in one batch commit. */
    static void commit(Table table, GenericRow... rows) throws Exception {
        BatchWriteBuilder wb = table.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite();
                BatchTableCommit c = wb.newCommit()) {
            w.withIOManager(IOManager.create(tmp.toString()));
            for (GenericRow r : rows) {
                w.write(r);
            }
            c.commit(w.prepareCommit());
        }
    }

    /**
     * Fully compacts one partition-bucket of the table in a commit of its own (a COMPACT
     * snapshot); {@code partition} is {@link BinaryRow#EMPTY_ROW} for unpartitioned tables.
     */
    static void compact(Table table, BinaryRow partition, int bucket) throws Exception {
        BatchWriteBuilder wb = table.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite();
                BatchTableCommit c = wb.newCommit()) {
            w.withIOManager(IOManager.create(tmp.toString()));
            w.compact(partition, bucket, true);
            c.commit(w.prepareCommit());
        }
    }

    /**
     * The harness's own check: an append table, a commit, a column added, a commit. Its rows at
     * snapshot 1 have two columns, at snapshot 2 three (old rows null in the new column).
     */
    static final Scenario SMOKE =
            new Scenario() {
                @Override
                public String name() {
                    return "scenario_smoke";
                }

                @Override
                public void run(Catalog catalog, Identifier id) throws Exception {
                    catalog.createTable(
                            id,
                            Schema.newBuilder()
                                    .column("id", DataTypes.INT())
                                    .column("s", DataTypes.STRING())
                                    .build(),
                            false);
                    commit(catalog.getTable(id), Tables.ins(1, Tables.s("a")), Tables.ins(2, null));
                    catalog.alterTable(
                            id, SchemaChange.addColumn("n", DataTypes.BIGINT()), false);
                    commit(catalog.getTable(id), Tables.ins(3, Tables.s("c"), 30L));
                }
            };
}
