package org.paimongo.interop;

import static org.paimongo.interop.Tables.ins;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.shade.org.apache.datasketches.hll.HllSketch;
import org.apache.paimon.shade.org.apache.datasketches.hll.TgtHllType;
import org.apache.paimon.table.Table;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.utils.HllSketchUtil;

import java.util.Arrays;
import java.util.List;

/**
 * An aggregation table using hll_sketch (DataSketches HLL unions, FieldHllSketchAgg), written in
 * several commits and compacted by Java in between, so that reads at every snapshot merge plain
 * and compacted files. The values cover empty, single-value, LIST, SET and HLL-mode sketches,
 * HLL_4 (with aux exceptions), HLL_6 and HLL_8 images, compact and updatable, and lgConfigK 4,
 * 10, 12 and 14 (unions downsample to the smaller one).
 */
final class ScenariosHll {
    private ScenariosHll() {}

    static List<Scenario> all() {
        return Arrays.asList(HLL);
    }

    static HllSketch hll(int lgK, TgtHllType type, long from, long n) {
        HllSketch s = new HllSketch(lgK, type);
        for (long i = 0; i < n; i++) {
            s.update(from + i);
        }
        return s;
    }

    static final Scenario HLL =
            new Scenario() {
                @Override
                public String name() {
                    return "scenario_agg_hll";
                }

                @Override
                public void run(Catalog catalog, Identifier id) throws Exception {
                    catalog.createTable(
                            id,
                            Schema.newBuilder()
                                    .column("k", DataTypes.INT().notNull())
                                    .column("h", DataTypes.BYTES())
                                    .primaryKey("k")
                                    .option("bucket", "1")
                                    .option("merge-engine", "aggregation")
                                    .option("fields.h.aggregate-function", "hll_sketch")
                                    .build(),
                            false);
                    Table t = catalog.getTable(id);
                    byte[] empty = new HllSketch().toCompactByteArray();
                    // snapshot 1: empty, single value, LIST and SET
                    Scenarios.commit(
                            t,
                            ins(1, HllSketchUtil.sketchOf(1, 2, 3)),
                            ins(2, empty),
                            ins(3, HllSketchUtil.sketchOf(42)),
                            ins(4, hll(12, TgtHllType.HLL_4, 0, 200).toCompactByteArray()));
                    // snapshot 2: HLL mode, HLL_6 and HLL_8 (updatable), other lgConfigK
                    Scenarios.commit(
                            t,
                            ins(1, hll(12, TgtHllType.HLL_4, 0, 5000).toCompactByteArray()),
                            ins(2, hll(10, TgtHllType.HLL_8, 100, 3000).toUpdatableByteArray()),
                            ins(4, hll(14, TgtHllType.HLL_6, 50, 20000).toCompactByteArray()),
                            ins(5, null));
                    // snapshot 3: Java compacts
                    Scenarios.compact(t, BinaryRow.EMPTY_ROW, 0);
                    // snapshot 4: HLL_4 with aux exceptions, small lgConfigK
                    Scenarios.commit(
                            t,
                            ins(1, hll(8, TgtHllType.HLL_4, 0, 3000000).toCompactByteArray()),
                            ins(3, hll(4, TgtHllType.HLL_8, 7, 100).toCompactByteArray()),
                            ins(5, hll(12, TgtHllType.HLL_4, 9, 40).toUpdatableByteArray()));
                    // snapshot 5: more on top
                    Scenarios.commit(
                            t,
                            ins(2, hll(14, TgtHllType.HLL_4, 0, 40000).toCompactByteArray()),
                            ins(4, null),
                            ins(6, hll(12, TgtHllType.HLL_8, 0, 600).toCompactByteArray()));
                    // snapshot 6: compacted again, snapshot 7: one more row after it
                    Scenarios.compact(t, BinaryRow.EMPTY_ROW, 0);
                    Scenarios.commit(
                            t,
                            ins(3, HllSketchUtil.sketchOf(7, 8, 9)),
                            ins(6, HllSketchUtil.sketchOf(5)));
                }
            };
}
