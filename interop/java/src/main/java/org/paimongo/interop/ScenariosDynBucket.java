package org.paimongo.interop;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import java.util.ArrayList;
import java.util.List;

/**
 * Dynamic-bucket primary-key tables (bucket = -1, Java's default for primary-key tables) written
 * through Java's HashBucketAssigner, with a small dynamic-bucket.target-row-num so that several
 * buckets and HASH index files appear, updates, deletes and a compaction.
 */
final class ScenariosDynBucket {
    private ScenariosDynBucket() {}

    static List<Scenario> all() {
        List<Scenario> out = new ArrayList<>();
        out.add(DYNAMIC);
        return out;
    }

    static GenericRow r(RowKind k, String p, int id, String v) {
        GenericRow g = GenericRow.of(BinaryString.fromString(p), id, v == null ? null : BinaryString.fromString(v));
        g.setRowKind(k);
        return g;
    }

    /** One batch commit through a fresh HashBucketAssigner (restored from the index files). */
    static void commit(FileStoreTable table, List<GenericRow> rows) throws Exception {
        BatchWriteBuilder wb = table.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite();
                BatchTableCommit c = wb.newCommit()) {
            w.withIOManager(IOManager.create(Scenarios.tmp.toString()));
            DynBucket d = DynBucket.of(table, "scenario");
            for (GenericRow g : rows) {
                DynBucket.write(d, w, g);
            }
            c.commit(w.prepareCommit());
        }
    }

    static final Scenario DYNAMIC =
            new Scenario() {
                @Override
                public String name() {
                    return "scenario_dynamic_bucket";
                }

                @Override
                public void run(Catalog catalog, Identifier id) throws Exception {
                    catalog.createTable(
                            id,
                            Schema.newBuilder()
                                    .column("p", DataTypes.STRING())
                                    .column("id", DataTypes.INT())
                                    .column("v", DataTypes.STRING())
                                    .partitionKeys("p")
                                    .primaryKey("p", "id")
                                    .option("bucket", "-1")
                                    .option("dynamic-bucket.target-row-num", "3")
                                    .build(),
                            false);
                    FileStoreTable t = (FileStoreTable) catalog.getTable(id);
                    List<GenericRow> c1 = new ArrayList<>();
                    for (int i = 1; i <= 8; i++) {
                        c1.add(r(RowKind.INSERT, "a", i, "a" + i));
                    }
                    c1.add(r(RowKind.INSERT, "b", 1, "b1"));
                    commit(t, c1);
                    List<GenericRow> c2 = new ArrayList<>();
                    c2.add(r(RowKind.UPDATE_AFTER, "a", 2, "a2-v2"));
                    c2.add(r(RowKind.DELETE, "a", 7, null));
                    c2.add(r(RowKind.INSERT, "a", 9, "a9"));
                    c2.add(r(RowKind.INSERT, "a", 10, "a10"));
                    c2.add(r(RowKind.INSERT, "b", 2, "b2"));
                    commit(t, c2);
                    BinaryRow a =
                            new InternalRowSerializer(RowType.of(DataTypes.STRING()))
                                    .toBinaryRow(GenericRow.of(BinaryString.fromString("a")))
                                    .copy();
                    Scenarios.compact(t, a, 0);
                    List<GenericRow> c3 = new ArrayList<>();
                    c3.add(r(RowKind.INSERT, "a", 1, "a1-v3"));
                    c3.add(r(RowKind.INSERT, "a", 11, "a11"));
                    commit(t, c3);
                }
            };
}
