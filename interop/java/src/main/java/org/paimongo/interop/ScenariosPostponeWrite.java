package org.paimongo.interop;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Postpone-bucket tables (bucket = -2) written only into bucket-postpone, as Flink's streaming
 * sink and Java's plain batch write do (PostponeBucketWriter): every snapshot reads empty in Java
 * until a postpone compaction routes the rows into real buckets. Go's postpone compaction
 * compacts them in TestJavaPostponeCompactedByGo.
 */
final class ScenariosPostponeWrite {
    private ScenariosPostponeWrite() {}

    static List<Scenario> all() {
        return Arrays.asList(STREAMING, AGG, DV, FIRST_ROW);
    }

    static GenericRow kv(RowKind k, String p, int id, Object v) {
        GenericRow g = GenericRow.of(BinaryString.fromString(p), id, v instanceof String ? BinaryString.fromString((String) v) : v);
        g.setRowKind(k);
        return g;
    }

    /**
     * Three commits into bucket-postpone of a deduplicate table: inserts, then updates, a delete,
     * a re-insert after the delete and a key written twice in one commit.
     */
    static final Scenario STREAMING =
            new Scenario() {
                @Override
                public String name() {
                    return "scenario_postpone_streaming";
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
                                    .option("bucket", "-2")
                                    .option("postpone.default-bucket-num", "2")
                                    .build(),
                            false);
                    FileStoreTable t = (FileStoreTable) catalog.getTable(id);
                    List<GenericRow> c1 = new ArrayList<>();
                    for (int i = 1; i <= 4; i++) {
                        c1.add(kv(RowKind.INSERT, "a", i, "a" + i));
                    }
                    c1.add(kv(RowKind.INSERT, "b", 1, "b1"));
                    ScenariosPostpone.commitPostpone(t, c1);
                    List<GenericRow> c2 = new ArrayList<>();
                    c2.add(kv(RowKind.UPDATE_AFTER, "a", 2, "a2-v2"));
                    c2.add(kv(RowKind.DELETE, "a", 3, null));
                    c2.add(kv(RowKind.INSERT, "a", 5, "a5"));
                    c2.add(kv(RowKind.INSERT, "b", 1, "b1-v2"));
                    ScenariosPostpone.commitPostpone(t, c2);
                    List<GenericRow> c3 = new ArrayList<>();
                    c3.add(kv(RowKind.INSERT, "a", 3, "a3-back"));
                    c3.add(kv(RowKind.INSERT, "a", 4, "a4-v2"));
                    c3.add(kv(RowKind.INSERT, "a", 4, "a4-v3"));
                    c3.add(kv(RowKind.INSERT, "c", 1, "c1"));
                    ScenariosPostpone.commitPostpone(t, c3);
                }
            };

    /** Two commits into bucket-postpone of an aggregation table (sum, last_non_null_value). */
    static final Scenario AGG =
            new Scenario() {
                @Override
                public String name() {
                    return "scenario_postpone_agg";
                }

                @Override
                public void run(Catalog catalog, Identifier id) throws Exception {
                    catalog.createTable(
                            id,
                            Schema.newBuilder()
                                    .column("p", DataTypes.STRING())
                                    .column("id", DataTypes.INT())
                                    .column("n", DataTypes.BIGINT())
                                    .partitionKeys("p")
                                    .primaryKey("p", "id")
                                    .option("bucket", "-2")
                                    .option("postpone.default-bucket-num", "3")
                                    .option("merge-engine", "aggregation")
                                    .option("fields.n.aggregate-function", "sum")
                                    .build(),
                            false);
                    FileStoreTable t = (FileStoreTable) catalog.getTable(id);
                    List<GenericRow> c1 = new ArrayList<>();
                    for (int i = 1; i <= 5; i++) {
                        c1.add(kv(RowKind.INSERT, "a", i, (long) i));
                    }
                    c1.add(kv(RowKind.INSERT, "a", 1, 10L));
                    ScenariosPostpone.commitPostpone(t, c1);
                    List<GenericRow> c2 = new ArrayList<>();
                    c2.add(kv(RowKind.INSERT, "a", 1, 100L));
                    c2.add(kv(RowKind.INSERT, "a", 2, 20L));
                    c2.add(kv(RowKind.INSERT, "a", 6, 6L));
                    ScenariosPostpone.commitPostpone(t, c2);
                }
            };

    /**
     * Two commits into bucket-postpone of a deduplicate table with deletion vectors (batch reads
     * skip level 0, so the postpone compaction must lookup-compact): inserts, then updates, a
     * delete and a key written twice.
     */
    static final Scenario DV =
            new Scenario() {
                @Override
                public String name() {
                    return "scenario_postpone_dv";
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
                                    .option("bucket", "-2")
                                    .option("postpone.default-bucket-num", "2")
                                    .option("deletion-vectors.enabled", "true")
                                    .build(),
                            false);
                    FileStoreTable t = (FileStoreTable) catalog.getTable(id);
                    List<GenericRow> c1 = new ArrayList<>();
                    for (int i = 1; i <= 6; i++) {
                        c1.add(kv(RowKind.INSERT, "a", i, "a" + i));
                    }
                    c1.add(kv(RowKind.INSERT, "b", 1, "b1"));
                    ScenariosPostpone.commitPostpone(t, c1);
                    List<GenericRow> c2 = new ArrayList<>();
                    c2.add(kv(RowKind.UPDATE_AFTER, "a", 2, "a2-v2"));
                    c2.add(kv(RowKind.DELETE, "a", 3, null));
                    c2.add(kv(RowKind.INSERT, "a", 4, "a4-v2"));
                    c2.add(kv(RowKind.INSERT, "a", 4, "a4-v3"));
                    c2.add(kv(RowKind.INSERT, "b", 2, "b2"));
                    ScenariosPostpone.commitPostpone(t, c2);
                }
            };

    /**
     * Two commits into bucket-postpone of a first-row table (batch reads skip level 0): the first
     * row of each key wins, also within one commit.
     */
    static final Scenario FIRST_ROW =
            new Scenario() {
                @Override
                public String name() {
                    return "scenario_postpone_first_row";
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
                                    .option("bucket", "-2")
                                    .option("postpone.default-bucket-num", "2")
                                    .option("merge-engine", "first-row")
                                    .build(),
                            false);
                    FileStoreTable t = (FileStoreTable) catalog.getTable(id);
                    List<GenericRow> c1 = new ArrayList<>();
                    for (int i = 1; i <= 4; i++) {
                        c1.add(kv(RowKind.INSERT, "a", i, "a" + i));
                    }
                    c1.add(kv(RowKind.INSERT, "a", 1, "a1-v2"));
                    ScenariosPostpone.commitPostpone(t, c1);
                    List<GenericRow> c2 = new ArrayList<>();
                    c2.add(kv(RowKind.INSERT, "a", 2, "a2-v2"));
                    c2.add(kv(RowKind.INSERT, "a", 5, "a5"));
                    c2.add(kv(RowKind.INSERT, "b", 1, "b1"));
                    ScenariosPostpone.commitPostpone(t, c2);
                }
            };
}
