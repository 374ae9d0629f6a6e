package org.paimongo.interop;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.bucket.BucketFunction;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.PostponeUtils;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Postpone-bucket primary-key tables (bucket = -2) as Flink's batch sink writes them with
 * postpone.batch-write-fixed-bucket = true (PostponeBatchWriteOperator: each partition's rows go
 * straight into its known number of real buckets, else a default), plus a plain Java batch write,
 * which goes into bucket-postpone and stays invisible to batch reads.
 */
final class ScenariosPostpone {
    private ScenariosPostpone() {}

    static List<Scenario> all() {
        List<Scenario> out = new ArrayList<>();
        out.add(FIXED);
        return out;
    }

    static GenericRow r(RowKind k, String p, int id, String v) {
        GenericRow g = GenericRow.of(BinaryString.fromString(p), id, v == null ? null : BinaryString.fromString(v));
        g.setRowKind(k);
        return g;
    }

    /**
     * One batch commit as PostponeBatchWriteOperator makes it: the write-only fixed-bucket copy of
     * the table writes each row into bucket(id, numBuckets of its partition), numBuckets from the
     * partition's real-bucket files or defaultNum; the messages carry that count.
     */
    static void commitFixed(FileStoreTable table, int defaultNum, List<GenericRow> rows) throws Exception {
        Map<BinaryRow, Integer> known = PostponeUtils.getKnownNumBuckets(table);
        FileStoreTable fixed = PostponeUtils.tableForFixBucketWrite(table);
        BucketFunction fn =
                BucketFunction.create(new CoreOptions(table.options()), table.schema().logicalBucketKeyType());
        InternalRowSerializer partSer = new InternalRowSerializer(RowType.of(DataTypes.STRING()));
        InternalRowSerializer keySer = new InternalRowSerializer(RowType.of(DataTypes.INT()));
        List<CommitMessage> out = new ArrayList<>();
        BatchWriteBuilder wb = fixed.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite()) {
            w.withIOManager(IOManager.create(Scenarios.tmp.toString()));
            TableWriteImpl<?> tw = (TableWriteImpl<?>) w;
            tw.getWrite().withIgnoreNumBucketCheck(true);
            for (GenericRow g : rows) {
                BinaryRow part = partSer.toBinaryRow(GenericRow.of(g.getString(0))).copy();
                int n = known.computeIfAbsent(part, p -> defaultNum);
                int bucket = fn.bucket(keySer.toBinaryRow(GenericRow.of(g.getInt(1))).copy(), n);
                tw.write(g, bucket);
            }
            for (CommitMessage m : w.prepareCommit()) {
                CommitMessageImpl c = (CommitMessageImpl) m;
                out.add(
                        new CommitMessageImpl(
                                c.partition(),
                                c.bucket(),
                                known.get(c.partition()),
                                c.newFilesIncrement(),
                                c.compactIncrement()));
            }
        }
        BatchWriteBuilder cb = PostponeUtils.tableForCommit(table).newBatchWriteBuilder();
        try (BatchTableCommit c = cb.newCommit()) {
            c.commit(out);
        }
    }

    /** A plain batch write: files into bucket-postpone (PostponeBucketWriter). */
    static void commitPostpone(FileStoreTable table, List<GenericRow> rows) throws Exception {
        BatchWriteBuilder wb = table.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite();
                BatchTableCommit c = wb.newCommit()) {
            w.withIOManager(IOManager.create(Scenarios.tmp.toString()));
            for (GenericRow g : rows) {
                w.write(g);
            }
            c.commit(w.prepareCommit());
        }
    }

    static final Scenario FIXED =
            new Scenario() {
                @Override
                public String name() {
                    return "scenario_postpone_fixed";
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
                                    .build(),
                            false);
                    FileStoreTable t = (FileStoreTable) catalog.getTable(id);
                    List<GenericRow> c1 = new ArrayList<>();
                    for (int i = 1; i <= 8; i++) {
                        c1.add(r(RowKind.INSERT, "a", i, "a" + i));
                    }
                    commitFixed(t, 2, c1);
                    List<GenericRow> c2 = new ArrayList<>();
                    c2.add(r(RowKind.UPDATE_AFTER, "a", 2, "a2-v2"));
                    c2.add(r(RowKind.DELETE, "a", 7, null));
                    c2.add(r(RowKind.INSERT, "a", 9, "a9"));
                    for (int i = 1; i <= 5; i++) {
                        c2.add(r(RowKind.INSERT, "b", i, "b" + i));
                    }
                    commitFixed(t, 3, c2);
                    // Into bucket-postpone: invisible until a postpone compaction.
                    List<GenericRow> c3 = new ArrayList<>();
                    c3.add(r(RowKind.INSERT, "a", 1, "a1-postponed"));
                    c3.add(r(RowKind.INSERT, "c", 1, "c1-postponed"));
                    commitPostpone(t, c3);
                }
            };
}
