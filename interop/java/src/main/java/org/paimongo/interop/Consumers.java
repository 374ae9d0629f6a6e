package org.paimongo.interop;

import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.types.RowType;

import java.time.Duration;
import java.util.Collections;

/**
 * Consumer cells of the interop harness (paimon-go issue 14).
 *
 * <pre>
 *   Consumers expire TABLE_PATH
 *       expires snapshots with Java's ExpireSnapshotsImpl keeping one (retain min = max = 1,
 *       time retained 1 ms), which must honour the table's consumer files; prints the snapshot
 *       ids left, one per line
 *   Consumers stream TABLE_PATH CONSUMER_ID
 *       streaming read with consumer-id = CONSUMER_ID (scan.mode from-snapshot 1, or the
 *       consumer's progress) until a plan has no splits; prints each row as "KIND\tJSON";
 *       then checkpoints, which writes the consumer file as Flink's source does
 *       (StreamTableScan.notifyCheckpointComplete)
 * </pre>
 */
public final class Consumers {
    private Consumers() {}

    public static void main(String[] args) throws Exception {
        FileStoreTable table = FileStoreTableFactory.create(LocalFileIO.create(), new Path(args[1]));
        if (args[0].equals("expire")) {
            table.newExpireSnapshots()
                    .config(
                            ExpireConfig.builder()
                                    .snapshotRetainMin(1)
                                    .snapshotRetainMax(1)
                                    .snapshotTimeRetain(Duration.ofMillis(1))
                                    .build())
                    .expire();
            long earliest = table.snapshotManager().earliestSnapshotId();
            long latest = table.snapshotManager().latestSnapshotId();
            for (long id = earliest; id <= latest; id++) {
                System.out.println(id);
            }
            return;
        }
        FileStoreTable t =
                table.copy(
                        java.util.Map.of(
                                "consumer-id", args[2],
                                "scan.mode", "from-snapshot",
                                "scan.snapshot-id", "1"));
        ReadBuilder rb = t.newReadBuilder();
        StreamTableScan scan = rb.newStreamScan();
        TableRead read = rb.newRead();
        RowType type = t.rowType();
        ChangelogLifecycle.drain(scan, read, type, System.out::println);
        scan.notifyCheckpointComplete(scan.checkpoint());
    }
}
