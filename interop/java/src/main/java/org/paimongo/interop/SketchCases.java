package org.paimongo.interop;

import org.apache.paimon.mergetree.compact.aggregate.FieldRoaringBitmap64Agg;
import org.apache.paimon.mergetree.compact.aggregate.FieldThetaSketchAgg;
import org.apache.paimon.mergetree.compact.aggregate.FieldHllSketchAgg;
import org.apache.paimon.types.VarBinaryType;
import org.apache.paimon.shade.org.roaringbitmap.longlong.Roaring64Bitmap;
import org.apache.paimon.shade.org.apache.datasketches.theta.UpdateSketch;
import org.apache.paimon.shade.org.apache.datasketches.hll.HllSketch;
import org.apache.paimon.shade.org.apache.datasketches.hll.TgtHllType;
import java.io.*;
import java.util.*;

/**
 * Prints the Java-side unit-test cases of the sketch aggregate functions: lines "name acc input
 * result" in hex, the result being Java Paimon's FieldRoaringBitmap64Agg / FieldThetaSketchAgg
 * agg(acc, input). Run: java -cp 'BUILD/interop-peer.jar:BUILD/lib/*'
 * org.paimongo.interop.SketchCases rbm64|theta|dd OUT; internal/rbm64 and internal/theta keep
 * (a selection of) the output, gzipped, under testdata.
 */
public final class SketchCases {
  static String hex(byte[] b) { StringBuilder sb = new StringBuilder(); for (byte x : b) sb.append(String.format("%02x", x)); return sb.toString(); }

  static byte[] rbm(long[] vals, boolean optimize) throws IOException {
    Roaring64Bitmap r = new Roaring64Bitmap();
    for (long v : vals) r.add(v);
    if (optimize) r.runOptimize();
    ByteArrayOutputStream bos = new ByteArrayOutputStream();
    DataOutputStream dos = new DataOutputStream(bos);
    r.serialize(dos); dos.flush();
    return bos.toByteArray();
  }

  static long[] range(long from, long n, long step) { long[] a = new long[(int) n]; for (int i = 0; i < n; i++) a[i] = from + i * step; return a; }
  static long[] rand(Random rnd, int n, long mask) { long[] a = new long[n]; for (int i = 0; i < n; i++) a[i] = rnd.nextLong() & mask; return a; }
  static long[] cat(long[]... xs) { int n = 0; for (long[] x : xs) n += x.length; long[] o = new long[n]; int k = 0; for (long[] x : xs) for (long v : x) o[k++] = v; return o; }

  public static void main(String[] args) throws Exception {
    String what = args[0];
    PrintStream out = new PrintStream(new FileOutputStream(args[1]));
    Random rnd = new Random(42);
    if (what.equals("rbm64")) {
      FieldRoaringBitmap64Agg agg = new FieldRoaringBitmap64Agg("f", new VarBinaryType());
      List<Object[]> cases = new ArrayList<>();
      cases.add(new Object[]{"empty-empty", new long[0], true, new long[0], true});
      cases.add(new Object[]{"empty-small", new long[0], true, new long[]{1, 2, 3}, true});
      cases.add(new Object[]{"small-empty", new long[]{7}, true, new long[0], true});
      cases.add(new Object[]{"two-high", new long[]{1}, true, new long[]{(1L << 40) + 5, -1L, Long.MIN_VALUE}, true});
      cases.add(new Object[]{"prefix-split", new long[]{0x0102030405060000L, 0x0102030405070000L}, true, new long[]{0x0102030499000000L, 0x0102FF0000000000L, 0x0102030405060001L}, true});
      cases.add(new Object[]{"array-array-4096", range(0, 3000, 3), false, range(1, 3000, 3), false});
      cases.add(new Object[]{"array-array-small-union", range(0, 3000, 2), false, range(0, 2000, 2), false});
      cases.add(new Object[]{"array-bitmap", range(0, 100, 7), false, range(0, 5000, 3), false});
      cases.add(new Object[]{"bitmap-array", range(0, 5000, 3), false, range(1, 100, 7), false});
      cases.add(new Object[]{"bitmap-bitmap-full", range(0, 40000, 1), false, range(30000, 35536, 1), false});
      cases.add(new Object[]{"run-array", range(0, 1000, 1), true, range(5000, 50, 2), false});
      cases.add(new Object[]{"array-run", range(5000, 50, 2), false, range(0, 1000, 1), true});
      cases.add(new Object[]{"run-run", range(0, 1000, 1), true, range(500, 1000, 1), true});
      cases.add(new Object[]{"run-bitmap", range(0, 1000, 1), true, range(2000, 6000, 2), false});
      cases.add(new Object[]{"bitmap-run", range(2000, 6000, 2), false, range(0, 1000, 1), true});
      cases.add(new Object[]{"run-full", range(0, 65536, 1), true, range(3, 10, 5), false});
      cases.add(new Object[]{"array-run-tie", new long[]{0, 2}, false, new long[]{1, 3}, false});
      cases.add(new Object[]{"node48", rand(rnd, 30, 0xFFL << 16), true, rand(rnd, 30, 0xFFL << 16), true});
      cases.add(new Object[]{"node256", rand(rnd, 40, 0xFFL << 16), true, rand(rnd, 200, 0xFFL << 16), true});
      cases.add(new Object[]{"random-wide", rand(rnd, 300, 0x0000FFFF0000FFFFL | 0x00FF000000000000L), true, rand(rnd, 400, 0x0000FF00000FFFFFL), true});
      cases.add(new Object[]{"random-dense", rand(rnd, 9000, 0x1FFFFL), false, rand(rnd, 5000, 0x2FFFFL), false});
      // growth during the union: Node4 -> Node16, Node16 -> Node48 -> Node256
      cases.add(new Object[]{"grow4to16", range(0, 3, 1L << 16), true, range(3L << 16, 8, 1L << 16), true});
      cases.add(new Object[]{"grow16to256", range(0, 10, 1L << 16), true, range(5L << 16, 70, 3L << 16), false});
      cases.add(new Object[]{"grow-deep", rand(rnd, 12, 0x0F0F0F0F0F0F0000L), true, rand(rnd, 90, 0x0707070707070000L), true});
      for (Object[] c : cases) {
        byte[] a = rbm((long[]) c[1], (Boolean) c[2]);
        byte[] b = rbm((long[]) c[3], (Boolean) c[4]);
        byte[] r = (byte[]) agg.agg(a, b);
        out.println(c[0] + " " + hex(a) + " " + hex(b) + " " + hex(r));
      }
      // folds: acc = agg(acc, next) over several inputs, as a merge does
      for (int f = 0; f < 4; f++) {
        byte[] acc = rbm(rand(rnd, 20 + f * 30, 0x000F000F0001FFFFL), f % 2 == 0);
        for (int i = 0; i < 5; i++) {
          byte[] in = rbm(rand(rnd, 5 + i * 40, 0x000F000F0001FFFFL), i % 2 == 1);
          byte[] r = (byte[]) agg.agg(acc, in);
          out.println("fold" + f + "-" + i + " " + hex(acc) + " " + hex(in) + " " + hex(r));
          acc = r;
        }
      }
    }
    if (what.equals("theta")) {
      FieldThetaSketchAgg agg = new FieldThetaSketchAgg("f", new VarBinaryType());
      Map<String, byte[]> sk = new LinkedHashMap<>();
      sk.put("empty", UpdateSketch.builder().build().compact().toByteArray());
      sk.put("emptyupd", UpdateSketch.builder().build().toByteArray());
      UpdateSketch one = UpdateSketch.builder().build(); one.update(42L);
      sk.put("single", one.compact().toByteArray());
      sk.put("singleupd", one.toByteArray());
      UpdateSketch small = UpdateSketch.builder().build(); for (int i = 0; i < 100; i++) small.update(i);
      sk.put("exact", small.compact().toByteArray());
      sk.put("exactunordered", small.compact(false, null).toByteArray());
      sk.put("exactupd", small.toByteArray());
      UpdateSketch mid = UpdateSketch.builder().build(); for (int i = 50; i < 3000; i++) mid.update(i);
      sk.put("mid", mid.compact().toByteArray());
      UpdateSketch big = UpdateSketch.builder().build(); for (int i = 0; i < 10000; i++) big.update(i);
      sk.put("est", big.compact().toByteArray());
      sk.put("estupd", big.toByteArray());
      UpdateSketch big2 = UpdateSketch.builder().build(); for (int i = 5000; i < 30000; i++) big2.update("s" + i);
      sk.put("est2", big2.compact().toByteArray());
      UpdateSketch k512 = UpdateSketch.builder().setNominalEntries(512).build(); for (int i = 0; i < 3000; i++) k512.update(i * 7L);
      sk.put("k512", k512.compact().toByteArray());
      UpdateSketch k16 = UpdateSketch.builder().setNominalEntries(16384).build(); for (int i = 0; i < 9000; i++) k16.update(i * 3L);
      sk.put("k16k", k16.compact().toByteArray());
      UpdateSketch p = UpdateSketch.builder().setP(0.5f).build(); p.update(1L); p.update(2L); p.update(3L);
      sk.put("p05", p.compact().toByteArray());
      List<String> names = new ArrayList<>(sk.keySet());
      for (String a : names) for (String b : names) {
        byte[] r = (byte[]) agg.agg(sk.get(a), sk.get(b));
        out.println(a + "+" + b + " " + hex(sk.get(a)) + " " + hex(sk.get(b)) + " " + hex(r));
      }
      byte[] acc = sk.get("single");
      for (int i = 0; i < 6; i++) {
        UpdateSketch s = UpdateSketch.builder().build();
        for (int j = 0; j < 1500 * i + 10; j++) s.update(rnd.nextInt(20000));
        byte[] in = s.compact().toByteArray();
        byte[] r = (byte[]) agg.agg(acc, in);
        out.println("fold-" + i + " " + hex(acc) + " " + hex(in) + " " + hex(r));
        acc = r;
      }
    }
    if (what.equals("dd")) {
      FieldRoaringBitmap64Agg r = new FieldRoaringBitmap64Agg("f", new VarBinaryType());
      FieldThetaSketchAgg t = new FieldThetaSketchAgg("f", new VarBinaryType());
      byte[] a = org.apache.paimon.utils.RoaringBitmap64.bitmapOf(1, 2, 3).serialize();
      byte[] b = org.apache.paimon.utils.RoaringBitmap64.bitmapOf(1L << 40, -5L).serialize();
      byte[] c = org.apache.paimon.utils.RoaringBitmap64.bitmapOf(range(5, 6, 1)).serialize();
      out.println("rbm a " + hex(a)); out.println("rbm b " + hex(b)); out.println("rbm c " + hex(c));
      out.println("rbm abc " + hex((byte[]) r.agg(r.agg(a, b), c)));
      out.println("rbm ac " + hex((byte[]) r.agg(a, c)));
      byte[] x = org.apache.paimon.utils.ThetaSketch.sketchOf(1, 2, 3);
      byte[] y = org.apache.paimon.utils.ThetaSketch.sketchOf(3, 4);
      byte[] z = org.apache.paimon.utils.ThetaSketch.sketchOf(9);
      out.println("theta x " + hex(x)); out.println("theta y " + hex(y)); out.println("theta z " + hex(z));
      out.println("theta xyz " + hex((byte[]) t.agg(t.agg(x, y), z)));
      out.println("theta xz " + hex((byte[]) t.agg(x, z)));
    }
    out.close();
  }
}
