package org.paimongo.interop;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.types.DataTypes;

import java.util.Arrays;
import java.util.List;

/**
 * ORC scenarios: Java-written ORC data files whose values sit where ORC's encodings have edge
 * cases, so that Java's own reading of them is the expectation for ours (and for the files our
 * ORC writer produces, which must encode the same values as Java does).
 */
final class ScenariosOrc {
    private ScenariosOrc() {}

    static List<Scenario> all() {
        return Arrays.asList(TIMESTAMPS);
    }

    private static Timestamp nanos(long epochNanos) {
        long ms = Math.floorDiv(epochNanos, 1_000_000L);
        return Timestamp.fromEpochMillis(ms, (int) Math.floorMod(epochNanos, 1_000_000L));
    }

    private static Object[] tsRow(int id, long epochNanos) {
        Timestamp t = nanos(epochNanos);
        Timestamp ms = Timestamp.fromEpochMillis(Math.floorDiv(epochNanos, 1_000_000L));
        return new Object[] {id, ms, t, ms, t, Tables.s(id % 2 == 0 ? "ab" : "abcde")};
    }

    /**
     * An ORC table (zstd, Java's default) of TIMESTAMP(3), TIMESTAMP(9), TIMESTAMP_LTZ(3),
     * TIMESTAMP_LTZ(9) and CHAR(5) values around the epoch: whole seconds, fractions before 1970
     * (ORC stores seconds and nanoseconds apart and readers adjust negative seconds), between -1 s
     * and 0, and a CHAR shorter than its length (ORC pads it; Java's reader trims it). Two commits,
     * then a full compaction, so Java's ORC writer rewrites what it wrote.
     */
    static final Scenario TIMESTAMPS =
            new Scenario() {
                @Override
                public String name() {
                    return "orc_timestamps_epoch";
                }

                @Override
                public void run(Catalog catalog, Identifier id) throws Exception {
                    catalog.createTable(
                            id,
                            Schema.newBuilder()
                                    .column("id", DataTypes.INT())
                                    .column("ts3", DataTypes.TIMESTAMP(3))
                                    .column("ts9", DataTypes.TIMESTAMP(9))
                                    .column("ltz3", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3))
                                    .column("ltz9", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(9))
                                    .column("c", DataTypes.CHAR(5))
                                    .option("file.format", "orc")
                                    .option("bucket", "1")
                                    .option("bucket-key", "id")
                                    .build(),
                            false);
                    long[] values = {
                        -1L, -999_999L, -1_000_000L, -1_000_001L, -500_000_000L, -999_999_999L,
                        -1_000_000_000L, -1_000_000_001L, -1_500_000_000L, -1_999_000_000L,
                        -2_000_000_000L, -86_400_123_456_789L, 0L, 1L, 999_999_999L,
                        1_500_000_000L, -9_000_000_000_123_456_789L
                    };
                    Table table = catalog.getTable(id);
                    org.apache.paimon.data.GenericRow[] first =
                            new org.apache.paimon.data.GenericRow[values.length / 2];
                    org.apache.paimon.data.GenericRow[] second =
                            new org.apache.paimon.data.GenericRow[values.length - values.length / 2];
                    for (int i = 0; i < values.length; i++) {
                        org.apache.paimon.data.GenericRow r = Tables.ins(tsRow(i, values[i]));
                        if (i < first.length) {
                            first[i] = r;
                        } else {
                            second[i - first.length] = r;
                        }
                    }
                    Scenarios.commit(table, first);
                    Scenarios.commit(table, second);
                    Scenarios.compact(catalog.getTable(id), BinaryRow.EMPTY_ROW, 0);
                }
            };
}
