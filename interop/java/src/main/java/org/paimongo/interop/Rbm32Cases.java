package org.paimongo.interop;

import org.apache.paimon.mergetree.compact.aggregate.FieldRoaringBitmap32Agg;
import org.apache.paimon.types.VarBinaryType;
import org.apache.paimon.shade.org.roaringbitmap.RoaringBitmap;
import java.io.*;
import java.nio.ByteBuffer;
import java.util.*;

/**
 * Prints the Java-side unit-test cases of the rbm32 aggregate function: lines "name acc input
 * result" in hex, the result being Java Paimon's FieldRoaringBitmap32Agg.agg(acc, input). Inputs
 * are RoaringBitmap serializations with and without run containers (runOptimize or not).
 * internal/rbm keeps the output, gzipped, as testdata/java-unions32.txt.gz.
 *
 * <p>Run: java -cp ... org.paimongo.interop.Rbm32Cases OUT
 */
public final class Rbm32Cases {
  private Rbm32Cases() {}

  static byte[] rbm(int[] vals, boolean optimize) {
    RoaringBitmap r = new RoaringBitmap();
    for (int v : vals) r.add(v);
    if (optimize) r.runOptimize();
    ByteBuffer buf = ByteBuffer.allocate(r.serializedSizeInBytes());
    r.serialize(buf);
    return buf.array();
  }

  static int[] range(long from, int n, long step) { int[] a = new int[n]; for (int i = 0; i < n; i++) a[i] = (int) (from + i * step); return a; }
  static int[] rand(Random rnd, int n, int mask) { int[] a = new int[n]; for (int i = 0; i < n; i++) a[i] = rnd.nextInt() & mask; return a; }

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(new FileOutputStream(args[0]));
    Random rnd = new Random(42);
    FieldRoaringBitmap32Agg agg = new FieldRoaringBitmap32Agg("f", new VarBinaryType());
    List<Object[]> cases = new ArrayList<>();
    cases.add(new Object[]{"empty-empty", new int[0], true, new int[0], true});
    cases.add(new Object[]{"empty-small", new int[0], true, new int[]{1, 2, 3}, false});
    cases.add(new Object[]{"small-empty", new int[]{7}, true, new int[0], true});
    cases.add(new Object[]{"engine-run-array", new int[]{1, 2, 3, 4, 70000}, true, new int[]{1, 100}, false});
    cases.add(new Object[]{"two-keys", new int[]{1}, false, new int[]{(1 << 20) + 5, -1, Integer.MIN_VALUE}, false});
    cases.add(new Object[]{"array-array-4096", range(0, 3000, 3), false, range(1, 3000, 3), false});
    cases.add(new Object[]{"array-array-small-union", range(0, 3000, 2), false, range(0, 2000, 2), false});
    cases.add(new Object[]{"array-bitmap", range(0, 100, 7), false, range(0, 5000, 3), false});
    cases.add(new Object[]{"bitmap-array", range(0, 5000, 3), false, range(1, 100, 7), false});
    cases.add(new Object[]{"bitmap-bitmap-full", range(0, 40000, 1), false, range(30000, 35536, 1), false});
    cases.add(new Object[]{"bitmap-dense-runs", range(0, 60000, 1), false, range(60000, 10, 1), false});
    cases.add(new Object[]{"run-array", range(0, 1000, 1), true, range(5000, 50, 2), false});
    cases.add(new Object[]{"array-run", range(5000, 50, 2), false, range(0, 1000, 1), true});
    cases.add(new Object[]{"run-run", range(0, 1000, 1), true, range(500, 1000, 1), true});
    cases.add(new Object[]{"run-run-to-array", new int[]{0, 1, 10, 11}, true, new int[]{20, 21, 30, 31, 40, 41}, true});
    cases.add(new Object[]{"run-bitmap", range(0, 1000, 1), true, range(2000, 6000, 2), false});
    cases.add(new Object[]{"bitmap-run", range(2000, 6000, 2), false, range(0, 1000, 1), true});
    cases.add(new Object[]{"run-full", range(0, 65536, 1), true, range(3, 10, 5), false});
    cases.add(new Object[]{"array-run-tie", new int[]{0, 2}, false, new int[]{1, 3}, false});
    cases.add(new Object[]{"many-keys", rand(rnd, 300, 0x00FF00FF), true, rand(rnd, 400, 0x01F0001F), false});
    cases.add(new Object[]{"random-dense", rand(rnd, 9000, 0x1FFFF), false, rand(rnd, 5000, 0x2FFFF), false});
    cases.add(new Object[]{"random-dense-opt", rand(rnd, 9000, 0x1FFFF), true, rand(rnd, 5000, 0x2FFFF), true});
    for (Object[] c : cases) {
      byte[] a = rbm((int[]) c[1], (Boolean) c[2]);
      byte[] b = rbm((int[]) c[3], (Boolean) c[4]);
      byte[] r = (byte[]) agg.agg(a, b);
      out.println(c[0] + " " + hex(a) + " " + hex(b) + " " + hex(r));
    }
    for (int f = 0; f < 4; f++) {
      byte[] acc = rbm(rand(rnd, 20 + f * 30, 0x000F3FFF), f % 2 == 0);
      for (int i = 0; i < 5; i++) {
        byte[] in = rbm(rand(rnd, 5 + i * 40, 0x000F3FFF), i % 2 == 1);
        byte[] r = (byte[]) agg.agg(acc, in);
        out.println("fold" + f + "-" + i + " " + hex(acc) + " " + hex(in) + " " + hex(r));
        acc = r;
      }
    }
    out.close();
  }

  static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) s.append(String.format("%02x", x));
    return s.length() == 0 ? "-" : s.toString();
  }
}
