package org.paimongo.interop;

import org.apache.paimon.mergetree.compact.aggregate.FieldHllSketchAgg;
import org.apache.paimon.types.VarBinaryType;
import org.apache.paimon.shade.org.apache.datasketches.hll.HllSketch;
import org.apache.paimon.shade.org.apache.datasketches.hll.TgtHllType;
import org.apache.paimon.shade.org.apache.datasketches.hll.Union;
import java.io.*;
import java.util.*;

/**
 * Prints the Java-side unit-test cases of the hll_sketch aggregate function: lines "name acc
 * input result" in hex, the result being Java Paimon's FieldHllSketchAgg.agg(acc, input). Every
 * pairing of a set of sketches (empty, single value, LIST, SET and HLL modes; HLL_4 with and
 * without aux exceptions, HLL_6, HLL_8; compact and updatable; lgConfigK 4..21; union results
 * with the out-of-order flag) and folds as a merge does them. Run: java -cp
 * 'BUILD/interop-peer.jar:BUILD/lib/*' org.paimongo.interop.HllCases OUT; internal/hll keeps the
 * output, gzipped, under testdata.
 */
public final class HllCases {
  static HllSketch sk(int lgK, TgtHllType t, long from, long n, long step) {
    HllSketch s = new HllSketch(lgK, t);
    for (long i = 0; i < n; i++) s.update(from + i * step);
    return s;
  }

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(new FileOutputStream(args[0]));
    FieldHllSketchAgg agg = new FieldHllSketchAgg("f", new VarBinaryType());
    if (args.length > 1 && args[1].equals("dd")) {
      // values for merge/testdata and interop/gotables_hll_test.go
      byte[] x = org.apache.paimon.utils.HllSketchUtil.sketchOf(1, 2, 3);
      byte[] y = org.apache.paimon.utils.HllSketchUtil.sketchOf(3, 4);
      byte[] z = org.apache.paimon.utils.HllSketchUtil.sketchOf(9);
      byte[] h = sk(10, TgtHllType.HLL_4, 0, 1000, 1).toCompactByteArray();
      byte[] g = sk(8, TgtHllType.HLL_8, 500, 600, 1).toCompactByteArray();
      out.println("x " + SketchCases.hex(x)); out.println("y " + SketchCases.hex(y)); out.println("z " + SketchCases.hex(z));
      out.println("h " + SketchCases.hex(h)); out.println("g " + SketchCases.hex(g));
      out.println("xyz " + SketchCases.hex((byte[]) agg.agg(agg.agg(x, y), z)));
      out.println("xz " + SketchCases.hex((byte[]) agg.agg(x, z)));
      out.println("xhg " + SketchCases.hex((byte[]) agg.agg(agg.agg(x, h), g)));
      out.println("hg " + SketchCases.hex((byte[]) agg.agg(h, g)));
      out.close();
      return;
    }
    Map<String, byte[]> m = new LinkedHashMap<>();
    m.put("empty", new HllSketch().toCompactByteArray());
    m.put("emptyupd", new HllSketch(12, TgtHllType.HLL_8).toUpdatableByteArray());
    m.put("single", org.apache.paimon.utils.HllSketchUtil.sketchOf(42));
    m.put("list", sk(12, TgtHllType.HLL_4, 1, 5, 1).toCompactByteArray());
    m.put("listupd", sk(12, TgtHllType.HLL_6, 3, 6, 2).toUpdatableByteArray());
    m.put("set", sk(12, TgtHllType.HLL_4, 0, 100, 1).toCompactByteArray());
    m.put("setupd", sk(12, TgtHllType.HLL_8, 50, 200, 1).toUpdatableByteArray());
    m.put("set10", sk(10, TgtHllType.HLL_4, 7, 60, 3).toCompactByteArray());
    m.put("hll4", sk(12, TgtHllType.HLL_4, 0, 5000, 1).toCompactByteArray());
    m.put("hll4upd", sk(12, TgtHllType.HLL_4, 2000, 9000, 1).toUpdatableByteArray());
    m.put("hll6", sk(12, TgtHllType.HLL_6, 100, 4000, 3).toCompactByteArray());
    m.put("hll8", sk(12, TgtHllType.HLL_8, 0, 20000, 1).toCompactByteArray());
    m.put("hll8upd", sk(12, TgtHllType.HLL_8, 7, 3000, 5).toUpdatableByteArray());
    m.put("lg4", sk(4, TgtHllType.HLL_4, 0, 100, 1).toCompactByteArray());
    m.put("lg4list", sk(4, TgtHllType.HLL_8, 0, 3, 1).toCompactByteArray());
    m.put("lg7", sk(7, TgtHllType.HLL_4, 11, 10, 1).toCompactByteArray());
    m.put("lg10hll8", sk(10, TgtHllType.HLL_8, 0, 3000, 1).toCompactByteArray());
    m.put("lg14", sk(14, TgtHllType.HLL_4, 0, 30000, 1).toCompactByteArray());
    m.put("lg14hll6", sk(14, TgtHllType.HLL_6, 100000, 40000, 1).toCompactByteArray());
    // HLL_4 with aux exceptions: few slots, many values
    m.put("aux4", sk(4, TgtHllType.HLL_4, 0, 200000, 1).toCompactByteArray());
    m.put("aux4upd", sk(4, TgtHllType.HLL_4, 5, 300000, 7).toUpdatableByteArray());
    m.put("aux8", sk(8, TgtHllType.HLL_4, 0, 3000000, 1).toCompactByteArray());
    m.put("aux8upd", sk(8, TgtHllType.HLL_4, 0, 3000000, 1).toUpdatableByteArray());
    // a union result: out of order, no HIP
    Union u = new Union(12);
    u.update(sk(12, TgtHllType.HLL_8, 0, 6000, 1));
    u.update(sk(11, TgtHllType.HLL_4, 3000, 6000, 1));
    m.put("unionres", u.getResult(TgtHllType.HLL_4).toCompactByteArray());
    m.put("unionupd", u.toUpdatableByteArray());
    // a union gadget image in writable memory: HLL_8 with the rebuild-kxq flag still set
    byte[] mem = new byte[Union.getMaxSerializationBytes(10)];
    Union du = new Union(10, org.apache.paimon.shade.org.apache.datasketches.memory.WritableMemory.writableWrap(mem));
    du.update(sk(10, TgtHllType.HLL_8, 0, 3000, 1));
    du.update(sk(10, TgtHllType.HLL_4, 2000, 3000, 1));
    m.put("gadgetmem", mem.clone());
    // disjoint values: LIST and SET gadgets promoted during the union (HIP seeded by the
    // coupon-count interpolation), coupons raising registers of an HLL copy
    m.put("lg7list", sk(7, TgtHllType.HLL_8, 700000, 6, 1).toCompactByteArray());
    m.put("lg7list2", sk(7, TgtHllType.HLL_4, 800000, 6, 1).toCompactByteArray());
    m.put("setfar", sk(12, TgtHllType.HLL_4, 500000, 300, 1).toCompactByteArray());
    m.put("setfar2", sk(12, TgtHllType.HLL_8, 600000, 300, 1).toUpdatableByteArray());
    m.put("listfar", sk(10, TgtHllType.HLL_4, 900000, 7, 1).toCompactByteArray());
    List<String> names = new ArrayList<>(m.keySet());
    for (String a : names) for (String b : names) {
      byte[] r = (byte[]) agg.agg(m.get(a), m.get(b));
      out.println(a + "+" + b + " " + SketchCases.hex(m.get(a)) + " " + SketchCases.hex(m.get(b)) + " " + SketchCases.hex(r));
    }
    // wide lgK, and a few big operands against the rest
    Map<String, byte[]> big = new LinkedHashMap<>();
    big.put("lg21", sk(21, TgtHllType.HLL_4, 0, 100000, 1).toCompactByteArray());
    big.put("lg21list", sk(21, TgtHllType.HLL_8, 0, 4, 1).toCompactByteArray());
    big.put("lg18hll8", sk(18, TgtHllType.HLL_8, 0, 1000000, 1).toCompactByteArray());
    for (String a : big.keySet()) for (String b : new String[]{"empty", "single", "set", "hll4", "hll8", "aux4", "lg14", "lg21", "lg21list", "lg18hll8"}) {
      byte[] bb = m.containsKey(b) ? m.get(b) : big.get(b);
      for (int dir = 0; dir < 2; dir++) {
        byte[] x = dir == 0 ? big.get(a) : bb, y = dir == 0 ? bb : big.get(a);
        String n = dir == 0 ? a + "+" + b : b + "+" + a;
        out.println(n + " " + SketchCases.hex(x) + " " + SketchCases.hex(y) + " " + SketchCases.hex((byte[]) agg.agg(x, y)));
      }
    }
    // folds: acc = agg(acc, next), as a merge does
    Random rnd = new Random(7);
    for (int f = 0; f < 3; f++) {
      byte[] acc = m.get(names.get(f * 3));
      for (int i = 0; i < 8; i++) {
        int lgK = 4 + rnd.nextInt(12);
        TgtHllType t = TgtHllType.values()[rnd.nextInt(3)];
        HllSketch s = new HllSketch(lgK, t);
        int n = rnd.nextInt(1 << (lgK + 2)) + 1;
        for (int j = 0; j < n; j++) s.update(rnd.nextInt(1 << 20));
        byte[] in = rnd.nextBoolean() ? s.toCompactByteArray() : s.toUpdatableByteArray();
        byte[] r = (byte[]) agg.agg(acc, in);
        out.println("fold" + f + "-" + i + " " + SketchCases.hex(acc) + " " + SketchCases.hex(in) + " " + SketchCases.hex(r));
        acc = r;
      }
    }
    out.close();
  }
}
