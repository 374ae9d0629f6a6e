package org.paimongo.interop;

import static org.paimongo.interop.Tables.ins;
import static org.paimongo.interop.Tables.row;
import static org.paimongo.interop.Tables.s;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.utils.RoaringBitmap32;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Aggregation tables using the collection and bitmap aggregate functions (collect, distinct
 * collect, merge_map, merge_map_with_keytime, rbm32, product, nested_update with and without a
 * nested key, nested_partial_update), written in several commits with retractions and compacted
 * by Java in between, so that reads at every snapshot need merges of plain and compacted files.
 */
final class ScenariosAgg {
    private ScenariosAgg() {}

    static List<Scenario> all() {
        return Arrays.asList(COLLECTIONS, PARTIAL_UPDATE);
    }

    static GenericArray arr(Object... v) {
        return new GenericArray(v);
    }

    static GenericMap map(Object... kv) {
        Map<Object, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return new GenericMap(m);
    }

    static byte[] rbm(int... v) {
        return RoaringBitmap32.bitmapOf(v).serialize();
    }

    static int[] range(int from, int to) {
        int[] out = new int[to - from];
        for (int i = from; i < to; i++) {
            out[i - from] = i;
        }
        return out;
    }

    static final Scenario COLLECTIONS =
            new Scenario() {
                @Override
                public String name() {
                    return "scenario_agg_collections";
                }

                @Override
                public void run(Catalog catalog, Identifier id) throws Exception {
                    DataType idRow =
                            DataTypes.ROW(
                                    DataTypes.FIELD(100, "id", DataTypes.INT()),
                                    DataTypes.FIELD(101, "v", DataTypes.STRING()));
                    DataType partRow =
                            DataTypes.ROW(
                                    DataTypes.FIELD(102, "id", DataTypes.INT()),
                                    DataTypes.FIELD(103, "a", DataTypes.INT()),
                                    DataTypes.FIELD(104, "b", DataTypes.STRING()));
                    DataType tsRow =
                            DataTypes.ROW(
                                    DataTypes.FIELD(105, "v", DataTypes.INT()),
                                    DataTypes.FIELD(106, "ts", DataTypes.STRING()));
                    catalog.createTable(
                            id,
                            Schema.newBuilder()
                                    .column("k", DataTypes.INT().notNull())
                                    .column("c", DataTypes.ARRAY(DataTypes.INT()))
                                    .column("d", DataTypes.ARRAY(DataTypes.STRING()))
                                    .column("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()))
                                    .column("kt", DataTypes.MAP(DataTypes.INT(), tsRow))
                                    .column("r", DataTypes.BYTES())
                                    .column("p", DataTypes.BIGINT())
                                    .column("nu", DataTypes.ARRAY(idRow))
                                    .column("nn", DataTypes.ARRAY(idRow))
                                    .column("np", DataTypes.ARRAY(partRow))
                                    .primaryKey("k")
                                    .option("bucket", "1")
                                    .option("merge-engine", "aggregation")
                                    .option("fields.c.aggregate-function", "collect")
                                    .option("fields.d.aggregate-function", "collect")
                                    .option("fields.d.distinct", "true")
                                    .option("fields.m.aggregate-function", "merge_map")
                                    .option("fields.kt.aggregate-function", "merge_map_with_keytime")
                                    .option("fields.kt.ignore-retract", "true")
                                    .option("fields.r.aggregate-function", "rbm32")
                                    .option("fields.r.ignore-retract", "true")
                                    .option("fields.p.aggregate-function", "product")
                                    .option("fields.nu.aggregate-function", "nested_update")
                                    .option("fields.nu.nested-key", "id")
                                    .option("fields.nn.aggregate-function", "nested_update")
                                    .option("fields.nn.count-limit", "4")
                                    .option("fields.np.aggregate-function", "nested_partial_update")
                                    .option("fields.np.nested-key", "id")
                                    .option("fields.np.ignore-retract", "true")
                                    .build(),
                            false);
                    Table t = catalog.getTable(id);
                    // snapshot 1: first rows; the arrays of the nested functions hold one row each
                    Scenarios.commit(
                            t,
                            ins(1, arr(1, 2), arr(s("b"), s("a"), s("b")), map(s("x"), 1, s("b"), 2),
                                    map(1, GenericRow.of(10, s("2024-01-02")), 2, GenericRow.of(20, s("2024-01-01"))),
                                    rbm(1, 2, 3, 100000), 2L,
                                    arr(GenericRow.of(1, s("a"))), arr(GenericRow.of(1, s("a"))),
                                    arr(GenericRow.of(1, 10, null))),
                            ins(2, arr(5), arr(s("q")), map(s("q"), 1), null, rbm(7), 3L,
                                    arr(GenericRow.of(5, s("a"))), arr(GenericRow.of(9, s("z"))), null));
                    // snapshot 2: merged with snapshot 1 on read
                    Scenarios.commit(
                            t,
                            ins(1, arr(2, null), arr(s("apple"), s("c"), s("a"), null),
                                    map(s("b"), 3, s("a"), 4, s("zz"), null),
                                    map(1, GenericRow.of(11, s("2024-01-01")), 2, GenericRow.of(21, s("2024-01-03")),
                                            3, GenericRow.of(30, null), 4, GenericRow.of(40, s("2024-01-01"))),
                                    rbm(range(4, 21)), 5L,
                                    arr(GenericRow.of(2, s("c")), GenericRow.of(17, s("d")), null),
                                    arr(GenericRow.of(3, s("c")), GenericRow.of(4, s("d"))),
                                    arr(GenericRow.of(1, null, s("y")), GenericRow.of(1, 11, null), GenericRow.of(3, 3, s("z")))),
                            ins(3, arr(7, 7), arr(s("h"), s("h")), map(s("k"), 7), null, rbm(range(0, 5000)), 7L,
                                    arr(GenericRow.of(3, s("x"))), arr(GenericRow.of(3, s("x"))),
                                    arr(GenericRow.of(3, null, s("x")))));
                    // snapshot 3: Java compacts
                    Scenarios.compact(t, BinaryRow.EMPTY_ROW, 0);
                    // snapshot 4: retractions merged with the compacted file
                    Scenarios.commit(
                            t,
                            row(RowKind.UPDATE_BEFORE, 1, arr(2), arr(s("a")), map(s("x"), 0), null, null, null,
                                    arr(GenericRow.of(1, s("zzz"))), arr(GenericRow.of(1, s("a"))), null),
                            ins(2, arr(6, 5), arr(s("r"), s("q"), s("p")), map(s("a"), 2), map(9, GenericRow.of(1, s("t"))),
                                    rbm(range(60000, 70000)), -1L,
                                    arr(GenericRow.of(5, s("b")), GenericRow.of(6, s("c"))), arr(GenericRow.of(10, s("y"))),
                                    arr(GenericRow.of(1, 1, null))));
                    // snapshot 5: more rows on top
                    Scenarios.commit(
                            t,
                            ins(1, arr(9), arr(s("b"), s("zz")), map(s("zz"), 9),
                                    map(1, null, 17, GenericRow.of(170, s("x"))), rbm(1 << 20), 7L,
                                    arr(GenericRow.of(2, s("e"))), arr(GenericRow.of(5, s("e"))),
                                    arr(GenericRow.of(1, 12, null))),
                            ins(3, null, arr(s("i")), null, null, null, null, null, null, null));
                    // snapshot 6: compacted again, snapshot 7: one more row after it
                    Scenarios.compact(t, BinaryRow.EMPTY_ROW, 0);
                    Scenarios.commit(
                            t,
                            ins(3, arr(8), arr(s("h"), s("j")), map(s("k"), 8, s("l"), 9), null, rbm(5000), 2L,
                                    arr(GenericRow.of(4, s("y"))), arr(GenericRow.of(4, s("y"))),
                                    arr(GenericRow.of(3, 33, null))));
                }
            };

    /**
     * Partial update with a sequence group over collect and merge_map fields: records older than
     * the group's latest are aggregated reversed (collect keeps the accumulator first, unless
     * wrapped by ignore-retract).
     */
    static final Scenario PARTIAL_UPDATE =
            new Scenario() {
                @Override
                public String name() {
                    return "scenario_agg_partial_update_collect";
                }

                @Override
                public void run(Catalog catalog, Identifier id) throws Exception {
                    catalog.createTable(
                            id,
                            Schema.newBuilder()
                                    .column("k", DataTypes.INT().notNull())
                                    .column("g", DataTypes.INT())
                                    .column("c", DataTypes.ARRAY(DataTypes.INT()))
                                    .column("c2", DataTypes.ARRAY(DataTypes.INT()))
                                    .column("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()))
                                    .column("v", DataTypes.STRING())
                                    .primaryKey("k")
                                    .option("bucket", "1")
                                    .option("merge-engine", "partial-update")
                                    .option("fields.g.sequence-group", "c,c2,m")
                                    .option("fields.c.aggregate-function", "collect")
                                    .option("fields.c2.aggregate-function", "collect")
                                    .option("fields.c2.ignore-retract", "true")
                                    .option("fields.m.aggregate-function", "merge_map")
                                    .build(),
                            false);
                    Table t = catalog.getTable(id);
                    Scenarios.commit(
                            t,
                            ins(1, 2, arr(1), arr(1), map(s("a"), 1), s("x")),
                            ins(2, 5, arr(9), arr(9), map(s("z"), 9), s("y")));
                    Scenarios.commit(
                            t,
                            ins(1, 1, arr(2), arr(2), map(s("b"), 2, s("a"), 0), null),
                            ins(2, 6, arr(8, 8), arr(8), map(s("q"), 8), null));
                    Scenarios.compact(t, BinaryRow.EMPTY_ROW, 0);
                    Scenarios.commit(
                            t,
                            ins(1, 3, arr(3), arr(3), map(s("c"), 3), s("w")),
                            ins(2, 4, arr(7), arr(7), map(s("z"), 7), null));
                }
            };
}
