package org.paimongo.interop;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.RowType;

import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the bucket-postpone files of a table as Flink's postpone compaction does
 * (CompactAction.buildForPostponeBucketCompaction, PostponeBucketCompactSplitSource, ReadOperator
 * with the table's newRead): the table copied with bucket = postpone.default-bucket-num, the
 * bucket -2 splits, each file as a split of its own in creation-time order. Prints one line per
 * row: the row kind, a tab, the row as JSON. Usage: PostponeRead TABLE_PATH.
 */
public final class PostponeRead {
    private PostponeRead() {}

    public static void main(String[] args) throws Exception {
        FileStoreTable table = FileStoreTableFactory.create(LocalFileIO.create(), new Path(args[0]));
        int defaultNum = new Options(table.options()).get(CoreOptions.POSTPONE_DEFAULT_BUCKET_NUM);
        Map<String, String> o = new HashMap<>(table.options());
        o.put(CoreOptions.BUCKET.key(), String.valueOf(defaultNum));
        FileStoreTable real = table.copy(table.schema().copy(o));
        RowType type = real.rowType();
        try (Writer w = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8))) {
            for (Split split : real.newSnapshotReader().withBucket(BucketMode.POSTPONE_BUCKET).read().splits()) {
                DataSplit ds = (DataSplit) split;
                List<DataFileMeta> files = new ArrayList<>(ds.dataFiles());
                files.sort(Comparator.comparing(DataFileMeta::creationTime));
                for (DataFileMeta f : files) {
                    DataSplit s =
                            DataSplit.builder()
                                    .withPartition(ds.partition())
                                    .withBucket(ds.bucket())
                                    .withBucketPath(ds.bucketPath())
                                    .withTotalBuckets(ds.totalBuckets())
                                    .withDataFiles(Collections.singletonList(f))
                                    .isStreaming(false)
                                    .build();
                    try (RecordReader<InternalRow> r = real.newRead().createReader(s)) {
                        r.forEachRemaining(
                                row -> {
                                    try {
                                        w.write(row.getRowKind().shortString());
                                        w.write('\t');
                                        w.write(Jsonl.row(type, row));
                                        w.write('\n');
                                    } catch (java.io.IOException e) {
                                        throw new java.io.UncheckedIOException(e);
                                    }
                                });
                    }
                }
            }
        }
    }
}
