package org.paimongo.interop;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.RowKeyExtractor;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;

import java.nio.file.Files;
import java.util.AbstractMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Writes rows into dynamic-bucket primary-key tables (bucket = -1) through Java's own assigner, as
 * Flink's HashBucketAssignerOperator does with one assigner: the bucket of each row is {@link
 * HashBucketAssigner#assign} of its partition and trimmed primary key hash, restored from the
 * table's HASH index files. Other tables write rows with {@link BatchTableWrite#write(InternalRow)}.
 */
final class DynBucket {
    private final HashBucketAssigner assigner;
    private final RowKeyExtractor extractor;

    private DynBucket(FileStoreTable table, String commitUser) {
        CoreOptions o = table.coreOptions();
        this.assigner =
                new HashBucketAssigner(
                        table.snapshotManager(),
                        commitUser,
                        table.store().newIndexFileHandler(),
                        1,
                        1,
                        0,
                        o.dynamicBucketTargetRowNum(),
                        o.dynamicBucketMaxBuckets());
        this.extractor = table.createRowKeyExtractor();
    }

    /** The writer of table's rows: null unless the table is a dynamic-bucket table. */
    static DynBucket of(FileStoreTable table, String commitUser) {
        return table.bucketMode() == BucketMode.HASH_DYNAMIC ? new DynBucket(table, commitUser) : null;
    }

    /** Writes r into w, with its assigned bucket when d is not null. */
    static void write(DynBucket d, BatchTableWrite w, InternalRow r) throws Exception {
        if (d == null) {
            w.write(r);
            return;
        }
        d.extractor.setRecord(r);
        int bucket = d.assigner.assign(d.extractor.partition(), d.extractor.trimmedPrimaryKey().hashCode());
        w.write(r, bucket);
    }

    /** Fully compacts every partition-bucket of the table at tablePath in one commit. */
    static void compactAll(String tablePath) throws Exception {
        FileStoreTable table = FileStoreTableFactory.create(LocalFileIO.create(), new Path(tablePath));
        Set<Map.Entry<BinaryRow, Integer>> pbs = new LinkedHashSet<>();
        for (Split s : table.newReadBuilder().newScan().plan().splits()) {
            DataSplit ds = (DataSplit) s;
            pbs.add(new AbstractMap.SimpleEntry<>(ds.partition(), ds.bucket()));
        }
        java.nio.file.Path tmp = Files.createTempDirectory("paimon-interop");
        BatchWriteBuilder wb = table.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite();
                BatchTableCommit c = wb.newCommit()) {
            w.withIOManager(IOManager.create(tmp.toString()));
            for (Map.Entry<BinaryRow, Integer> pb : pbs) {
                w.compact(pb.getKey(), pb.getValue(), true);
            }
            c.commit(w.prepareCommit());
        }
    }
}
