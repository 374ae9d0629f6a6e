package org.paimongo.interop;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.crosspartition.BucketAssigner;
import org.apache.paimon.crosspartition.ExistingProcessor;
import org.apache.paimon.crosspartition.IndexBootstrap;
import org.apache.paimon.crosspartition.KeyPartPartitionKeyExtractor;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.RowPartitionAllPrimaryKeyExtractor;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.IDMapping;
import org.apache.paimon.utils.ProjectToRowFunction;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Cross-partition upsert tables (bucket = -1 with a primary key that lacks the partition field,
 * Java's KEY_DYNAMIC bucket mode): keys move between partitions (deduplicate) or stay in their
 * first partition (partial-update) over several commits, with a compaction in between.
 *
 * <p>Rows are routed as Flink's GlobalIndexAssigner does with one assigner: the key index is
 * bootstrapped from the table by IndexBootstrap for every commit (a job restart), new keys get
 * buckets from Java's BucketAssigner and keys found in another partition go through Java's
 * ExistingProcessor of the merge engine. Only the key index's storage differs: a HashMap instead
 * of RocksDB, which the interop classpath does not carry.
 */
final class ScenariosXPart {
    private ScenariosXPart() {}

    static List<Scenario> all() {
        List<Scenario> out = new ArrayList<>();
        out.add(DEDUP);
        out.add(PARTIAL);
        return out;
    }

    /** GlobalIndexAssigner.processInput over a HashMap key index. */
    static final class Assigner {
        private final Map<BinaryRow, int[]> keyIndex = new HashMap<>();
        private final IDMapping<BinaryRow> partMapping = new IDMapping<>(BinaryRow::copy);
        private final BucketAssigner buckets = new BucketAssigner();
        private final RowPartitionAllPrimaryKeyExtractor extractor;
        private final ExistingProcessor processor;
        private final int target;
        private final BatchTableWrite write;

        /** The assigner of a cross-partition upsert table (KEY_DYNAMIC), else null. */
        static Assigner of(FileStoreTable table, BatchTableWrite write) throws Exception {
            return table.bucketMode() == BucketMode.KEY_DYNAMIC ? new Assigner(table, write) : null;
        }

        Assigner(FileStoreTable table, BatchTableWrite write) throws Exception {
            this.write = write;
            this.target = (int) table.coreOptions().dynamicBucketTargetRowNum();
            this.extractor = new RowPartitionAllPrimaryKeyExtractor(table.schema());
            this.processor =
                    ExistingProcessor.create(
                            table.coreOptions().mergeEngine(),
                            new ProjectToRowFunction(table.rowType(), table.partitionKeys()),
                            buckets,
                            this::collect);
            KeyPartPartitionKeyExtractor kp = new KeyPartPartitionKeyExtractor(table.schema());
            int bucketIndex = IndexBootstrap.bootstrapType(table.schema()).getFieldCount() - 1;
            try (RecordReader<InternalRow> r = new IndexBootstrap(table).bootstrap(1, 0)) {
                r.forEachRemaining(
                        row -> {
                            BinaryRow part = kp.partition(row);
                            int bucket = row.getInt(bucketIndex);
                            buckets.bootstrapBucket(part, bucket);
                            keyIndex.put(
                                    kp.trimmedPrimaryKey(row).copy(),
                                    new int[] {partMapping.index(part), bucket});
                        });
            }
        }

        private void collect(InternalRow row, int bucket) {
            try {
                write.write(row, bucket);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        }

        void process(InternalRow value) {
            BinaryRow partition = extractor.partition(value);
            BinaryRow key = extractor.trimmedPrimaryKey(value);
            int partId = partMapping.index(partition);
            int[] loc = keyIndex.get(key);
            if (loc != null && loc[0] == partId) {
                collect(value, loc[1]);
                return;
            }
            if (loc != null
                    && !processor.processExists(value, partMapping.get(loc[0]), loc[1])) {
                return;
            }
            int bucket = buckets.assignBucket(partition, b -> true, target);
            keyIndex.put(key.copy(), new int[] {partId, bucket});
            collect(value, bucket);
        }
    }

    static void commit(FileStoreTable table, List<GenericRow> rows) throws Exception {
        BatchWriteBuilder wb = table.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite();
                BatchTableCommit c = wb.newCommit()) {
            w.withIOManager(IOManager.create(Scenarios.tmp.toString()));
            Assigner a = new Assigner(table, w);
            for (GenericRow g : rows) {
                a.process(g);
            }
            c.commit(w.prepareCommit());
        }
    }

    static BinaryString s(String v) {
        return v == null ? null : BinaryString.fromString(v);
    }

    static GenericRow r(RowKind k, Object... vals) {
        Object[] out = new Object[vals.length];
        for (int i = 0; i < vals.length; i++) {
            out[i] = vals[i] instanceof String ? s((String) vals[i]) : vals[i];
        }
        GenericRow g = GenericRow.of(out);
        g.setRowKind(k);
        return g;
    }

    static GenericRow r(Object... vals) {
        return r(RowKind.INSERT, vals);
    }

    static BinaryRow part(String dt) {
        return new InternalRowSerializer(RowType.of(DataTypes.STRING()))
                .toBinaryRow(GenericRow.of(s(dt)))
                .copy();
    }

    static final Scenario DEDUP =
            new Scenario() {
                @Override
                public String name() {
                    return "scenario_xpart_dedup";
                }

                @Override
                public void run(Catalog catalog, Identifier id) throws Exception {
                    catalog.createTable(
                            id,
                            Schema.newBuilder()
                                    .column("id", DataTypes.INT().notNull())
                                    .column("dt", DataTypes.STRING())
                                    .column("v", DataTypes.STRING())
                                    .partitionKeys("dt")
                                    .primaryKey("id")
                                    .option("bucket", "-1")
                                    .option("dynamic-bucket.target-row-num", "2")
                                    .build(),
                            false);
                    FileStoreTable t = (FileStoreTable) catalog.getTable(id);
                    List<GenericRow> c1 = new ArrayList<>();
                    c1.add(r(1, "a", "v1"));
                    c1.add(r(2, "a", "v2"));
                    c1.add(r(3, "a", "v3"));
                    c1.add(r(4, "b", "v4"));
                    c1.add(r(1, "b", "v1b"));
                    commit(t, c1);
                    List<GenericRow> c2 = new ArrayList<>();
                    c2.add(r(2, "b", "v2b"));
                    c2.add(r(3, "a", "v3x"));
                    c2.add(r(5, "c", "v5"));
                    c2.add(r(RowKind.DELETE, 4, "b", "v4"));
                    commit(t, c2);
                    Scenarios.compact(t, part("a"), 0);
                    List<GenericRow> c3 = new ArrayList<>();
                    c3.add(r(2, "c", "v2c"));
                    c3.add(r(4, "a", "v4again"));
                    c3.add(r(6, "a", "v6"));
                    commit(t, c3);
                }
            };

    static final Scenario PARTIAL =
            new Scenario() {
                @Override
                public String name() {
                    return "scenario_xpart_partial";
                }

                @Override
                public void run(Catalog catalog, Identifier id) throws Exception {
                    catalog.createTable(
                            id,
                            Schema.newBuilder()
                                    .column("id", DataTypes.INT().notNull())
                                    .column("dt", DataTypes.STRING())
                                    .column("a", DataTypes.STRING())
                                    .column("b", DataTypes.STRING())
                                    .partitionKeys("dt")
                                    .primaryKey("id")
                                    .option("bucket", "-1")
                                    .option("merge-engine", "partial-update")
                                    .build(),
                            false);
                    FileStoreTable t = (FileStoreTable) catalog.getTable(id);
                    List<GenericRow> c1 = new ArrayList<>();
                    c1.add(r(1, "x", "a1", null));
                    c1.add(r(2, "x", null, "b2"));
                    c1.add(r(1, "y", null, "b1"));
                    commit(t, c1);
                    List<GenericRow> c2 = new ArrayList<>();
                    c2.add(r(1, "z", "a1v2", null));
                    c2.add(r(3, "y", "a3", "b3"));
                    c2.add(r(2, "y", "a2", null));
                    commit(t, c2);
                    List<GenericRow> c3 = new ArrayList<>();
                    c3.add(r(3, "x", null, "b3v2"));
                    commit(t, c3);
                }
            };
}
