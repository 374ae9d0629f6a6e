package org.paimongo.interop;

import static org.paimongo.interop.Tables.ins;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.shade.org.apache.datasketches.theta.UpdateSketch;
import org.apache.paimon.shade.org.roaringbitmap.longlong.Roaring64Bitmap;
import org.apache.paimon.table.Table;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.utils.RoaringBitmap64;
import org.apache.paimon.utils.ThetaSketch;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Aggregation tables using rbm64 (Roaring64Bitmap's own serialization) and theta_sketch
 * (DataSketches theta unions), written in several commits and compacted by Java in between, so
 * that reads at every snapshot merge plain and compacted files. The values cover empty, single
 * item, exact and estimation-mode (more than 4096 distinct) sketches, update sketches in hash
 * table form, other nominal entries, and bitmaps with array, bitmap and run containers over many
 * high keys (the tree grows to Node48 and Node256).
 */
final class ScenariosSketch {
    private ScenariosSketch() {}

    static List<Scenario> all() {
        return Arrays.asList(SKETCHES);
    }

    /** A bitmap as Paimon's RoaringBitmap64.serialize writes it (run-optimized). */
    static byte[] rb(long... v) throws IOException {
        return RoaringBitmap64.bitmapOf(v).serialize();
    }

    /** A bitmap serialized without runOptimize (array and bitmap containers stay). */
    static byte[] rawRb(long... v) throws IOException {
        Roaring64Bitmap r = new Roaring64Bitmap();
        for (long x : v) {
            r.add(x);
        }
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (DataOutputStream dos = new DataOutputStream(bos)) {
            r.serialize(dos);
        }
        return bos.toByteArray();
    }

    static long[] range(long from, long to, long step) {
        long[] out = new long[(int) ((to - from + step - 1) / step)];
        for (int i = 0; i < out.length; i++) {
            out[i] = from + i * step;
        }
        return out;
    }

    static long[] cat(long[]... xs) {
        int n = 0;
        for (long[] x : xs) {
            n += x.length;
        }
        long[] out = new long[n];
        int i = 0;
        for (long[] x : xs) {
            for (long v : x) {
                out[i++] = v;
            }
        }
        return out;
    }

    static long[] random(long seed, int n, long mask) {
        Random r = new Random(seed);
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            out[i] = r.nextLong() & mask;
        }
        return out;
    }

    static byte[] theta(int from, int to) {
        UpdateSketch s = UpdateSketch.builder().build();
        for (int i = from; i < to; i++) {
            s.update(i);
        }
        return s.compact().toByteArray();
    }

    static byte[] thetaStrings(int from, int to) {
        UpdateSketch s = UpdateSketch.builder().build();
        for (int i = from; i < to; i++) {
            s.update("s" + i);
        }
        return s.compact().toByteArray();
    }

    static final Scenario SKETCHES =
            new Scenario() {
                @Override
                public String name() {
                    return "scenario_agg_sketches";
                }

                @Override
                public void run(Catalog catalog, Identifier id) throws Exception {
                    catalog.createTable(
                            id,
                            Schema.newBuilder()
                                    .column("k", DataTypes.INT().notNull())
                                    .column("r", DataTypes.BYTES())
                                    .column("t", DataTypes.BYTES())
                                    .primaryKey("k")
                                    .option("bucket", "1")
                                    .option("merge-engine", "aggregation")
                                    .option("fields.r.aggregate-function", "rbm64")
                                    .option("fields.t.aggregate-function", "theta_sketch")
                                    .build(),
                            false);
                    Table t = catalog.getTable(id);
                    byte[] emptyTheta = UpdateSketch.builder().build().compact().toByteArray();
                    UpdateSketch one = UpdateSketch.builder().build();
                    one.update(42L);
                    byte[] single = one.compact().toByteArray();
                    UpdateSketch upd = UpdateSketch.builder().build();
                    for (int i = 100; i < 200; i++) {
                        upd.update(i);
                    }
                    UpdateSketch k512 = UpdateSketch.builder().setNominalEntries(512).build();
                    for (int i = 0; i < 3000; i++) {
                        k512.update(i * 7L);
                    }
                    // snapshot 1: empty, single-item and small values
                    Scenarios.commit(
                            t,
                            ins(1, rb(1, 2, 3), ThetaSketch.sketchOf(1, 2, 3)),
                            ins(2, rb(1L << 40, -1L, Long.MIN_VALUE), emptyTheta),
                            ins(3, rb(), single));
                    // snapshot 2: merged with snapshot 1 on read; estimation-mode sketches
                    Scenarios.commit(
                            t,
                            ins(1, rb(cat(range(0, 70000, 1), random(1, 5, -1L))), theta(0, 10000)),
                            ins(2, null, thetaStrings(5000, 30000)),
                            ins(4, rb(random(2, 300, 0xFF00FF0000FFL)), k512.compact().toByteArray()));
                    // snapshot 3: Java compacts
                    Scenarios.compact(t, BinaryRow.EMPTY_ROW, 0);
                    // snapshot 4: containers that were not run-optimized, a hash-table sketch
                    Scenarios.commit(
                            t,
                            ins(1, rawRb(range(0, 20000, 2)), upd.toByteArray()),
                            ins(2, rb(random(3, 200, 0xFFFF000003FFFFL)), single),
                            ins(3, rawRb(7, 1L << 33), theta(1, 3000)));
                    // snapshot 5: more on top
                    Scenarios.commit(
                            t,
                            ins(4, rawRb(random(4, 3000, 0xFF0001FFFFL)), theta(2000, 9000)),
                            ins(1, rb(range(65000, 140000, 3)), null),
                            ins(5, null, null));
                    // snapshot 6: compacted again, snapshot 7: one more row after it
                    Scenarios.compact(t, BinaryRow.EMPTY_ROW, 0);
                    Scenarios.commit(
                            t,
                            ins(3, rb(8), ThetaSketch.sketchOf(7, 8, 9)),
                            ins(5, rb(5), ThetaSketch.sketchOf(5)));
                }
            };
}
