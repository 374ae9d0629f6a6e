import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;

import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Java Paimon side of rtbench's peer comparison (interop/peers/peers.py).
 *
 * <pre>
 *   RtbenchPeer WORKLOAD ROWS_CSV WAREHOUSE BATCH_ROWS COMMIT_EVERY BUCKETS
 * </pre>
 *
 * Streams the flights of ROWS_CSV (date as microseconds, delay, distance, origin, destination;
 * no header) into a new table of WORKLOAD (append, pk-dedupe or pk-agg, defined exactly as
 * cmd/rtbench defines them) with a stream write, committing after every COMMIT_EVERY batches of
 * BATCH_ROWS rows, then reads the table back and compares it with the expected state computed
 * here from the same rows. Prints one JSON object: per-commit prepare and commit milliseconds,
 * per-batch freshness (Write returned to snapshot published) in milliseconds, the write loop's
 * seconds, the read-back milliseconds, whether the rows verified and the peak RSS.
 */
public final class RtbenchPeer {
    private RtbenchPeer() {}

    record Flight(long micros, long delay, long distance, String origin, String destination) {}

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: RtbenchPeer WORKLOAD ROWS_CSV WAREHOUSE BATCH_ROWS COMMIT_EVERY BUCKETS");
            System.exit(2);
        }
        String workload = args[0];
        List<Flight> flights = readCsv(args[1]);
        String warehouse = args[2];
        int batchRows = Integer.parseInt(args[3]);
        int commitEvery = Integer.parseInt(args[4]);
        int buckets = Integer.parseInt(args[5]);

        Options options = new Options();
        options.set("warehouse", warehouse);
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
            catalog.createDatabase("rtbench", true);
            Identifier id = Identifier.create("rtbench", workload.replace('-', '_'));
            catalog.createTable(id, schema(workload, buckets), false);
            Table table = catalog.getTable(id);
            run(workload, table, flights, batchRows, commitEvery, warehouse);
        }
    }

    static Schema schema(String workload, int buckets) {
        String bucket = Integer.toString(buckets);
        switch (workload) {
            case "append":
                return Schema.newBuilder()
                        .column("month", DataTypes.STRING())
                        .column("date", DataTypes.TIMESTAMP(6))
                        .column("delay", DataTypes.BIGINT())
                        .column("distance", DataTypes.BIGINT())
                        .column("origin", DataTypes.STRING())
                        .column("destination", DataTypes.STRING())
                        .partitionKeys("month")
                        .option("bucket", bucket)
                        .option("bucket-key", "origin")
                        .build();
            case "pk-dedupe":
                return Schema.newBuilder()
                        .column("origin", DataTypes.STRING().notNull())
                        .column("destination", DataTypes.STRING().notNull())
                        .column("date", DataTypes.TIMESTAMP(6))
                        .column("delay", DataTypes.BIGINT())
                        .column("distance", DataTypes.BIGINT())
                        .primaryKey("origin", "destination")
                        .option("bucket", bucket)
                        .option("merge-engine", "deduplicate")
                        .build();
            case "pk-agg":
                return Schema.newBuilder()
                        .column("origin", DataTypes.STRING().notNull())
                        .column("destination", DataTypes.STRING().notNull())
                        .column("delay_sum", DataTypes.BIGINT())
                        .column("flights", DataTypes.BIGINT())
                        .column("distance_max", DataTypes.BIGINT())
                        .primaryKey("origin", "destination")
                        .option("bucket", bucket)
                        .option("merge-engine", "aggregation")
                        .option("fields.delay_sum.aggregate-function", "sum")
                        .option("fields.flights.aggregate-function", "sum")
                        .option("fields.distance_max.aggregate-function", "max")
                        .build();
            default:
                throw new IllegalArgumentException("unknown workload " + workload);
        }
    }

    static List<Flight> readCsv(String path) throws Exception {
        List<Flight> out = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(Paths.get(path), StandardCharsets.UTF_8)) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isEmpty()) {
                    continue;
                }
                String[] f = line.split(",", -1);
                out.add(new Flight(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), f[3], f[4]));
            }
        }
        return out;
    }

    static String month(long micros) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), 0, ZoneOffset.UTC);
        return String.format("%04d-%02d", t.getYear(), t.getMonthValue());
    }

    static GenericRow row(String workload, Flight f) {
        switch (workload) {
            case "append":
                return GenericRow.of(BinaryString.fromString(month(f.micros())), Timestamp.fromMicros(f.micros()),
                        f.delay(), f.distance(), BinaryString.fromString(f.origin()),
                        BinaryString.fromString(f.destination()));
            case "pk-dedupe":
                return GenericRow.of(BinaryString.fromString(f.origin()), BinaryString.fromString(f.destination()),
                        Timestamp.fromMicros(f.micros()), f.delay(), f.distance());
            default:
                return GenericRow.of(BinaryString.fromString(f.origin()), BinaryString.fromString(f.destination()),
                        f.delay(), 1L, f.distance());
        }
    }

    static void run(String workload, Table table, List<Flight> flights, int batchRows, int commitEvery,
            String warehouse) throws Exception {
        // Rows are built before the clock starts, as rtbench builds its batches.
        List<GenericRow> rows = new ArrayList<>(flights.size());
        for (Flight f : flights) {
            rows.add(row(workload, f));
        }
        List<Double> prepareMs = new ArrayList<>();
        List<Double> commitMs = new ArrayList<>();
        List<Double> freshMs = new ArrayList<>();
        List<Long> pendingWrote = new ArrayList<>();
        java.nio.file.Path tmp = Files.createTempDirectory("rtbench-java-peer");
        StreamWriteBuilder wb = table.newStreamWriteBuilder().withCommitUser("rtbench-java");
        double loopSeconds;
        try (StreamTableWrite w = wb.newWrite(); StreamTableCommit c = wb.newCommit()) {
            w.withIOManager(IOManager.create(tmp.toString()));
            long identifier = 0;
            long start = System.nanoTime();
            int batches = 0;
            for (int i = 0; i < rows.size(); i += batchRows) {
                int end = Math.min(rows.size(), i + batchRows);
                for (int k = i; k < end; k++) {
                    w.write(rows.get(k));
                }
                pendingWrote.add(System.nanoTime());
                batches++;
                if (batches % commitEvery == 0) {
                    commit(w, c, ++identifier, prepareMs, commitMs, freshMs, pendingWrote);
                }
            }
            loopSeconds = (System.nanoTime() - start) / 1e9;
            if (!pendingWrote.isEmpty()) {
                commit(w, c, ++identifier, prepareMs, commitMs, freshMs, pendingWrote);
            }
        } finally {
            try (java.util.stream.Stream<java.nio.file.Path> s = Files.walk(tmp)) {
                for (java.nio.file.Path p : (Iterable<java.nio.file.Path>) s.sorted(java.util.Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(p);
                }
            }
        }

        long t0 = System.nanoTime();
        List<Object[]> read = new ArrayList<>();
        ReadBuilder rb = table.newReadBuilder();
        int fields = table.rowType().getFieldCount();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
            reader.forEachRemaining(r -> read.add(copy(r, workload, fields)));
        }
        double readMs = (System.nanoTime() - t0) / 1e6;
        String err = verify(workload, flights, read);

        String version = org.apache.paimon.table.Table.class.getPackage().getImplementationVersion();
        StringBuilder sb = new StringBuilder();
        sb.append("{\"peer\":\"java paimon ").append(version == null ? "?" : version).append('"');
        sb.append(",\"workload\":\"").append(workload).append('"');
        sb.append(",\"rows\":").append(rows.size());
        sb.append(",\"commits\":").append(commitMs.size());
        sb.append(",\"prepare_ms\":").append(list(prepareMs));
        sb.append(",\"commit_ms\":").append(list(commitMs));
        sb.append(",\"freshness_ms\":").append(list(freshMs));
        sb.append(",\"loop_s\":").append(loopSeconds);
        sb.append(",\"read_ms\":").append(readMs);
        sb.append(",\"rows_read\":").append(read.size());
        sb.append(",\"rows_verified\":").append(err == null);
        sb.append(",\"error\":").append(err == null ? "null" : quote(err));
        sb.append(",\"peak_rss_bytes\":").append(peakRss());
        sb.append("}");
        System.out.println(sb);
    }

    static void commit(StreamTableWrite w, StreamTableCommit c, long identifier, List<Double> prepareMs,
            List<Double> commitMs, List<Double> freshMs, List<Long> pendingWrote) throws Exception {
        long t0 = System.nanoTime();
        List<CommitMessage> msgs = w.prepareCommit(false, identifier);
        long t1 = System.nanoTime();
        c.commit(identifier, msgs);
        long t2 = System.nanoTime();
        prepareMs.add((t1 - t0) / 1e6);
        commitMs.add((t2 - t0) / 1e6);
        for (long wrote : pendingWrote) {
            freshMs.add((t2 - wrote) / 1e6);
        }
        pendingWrote.clear();
    }

    /** A copy of the row's values (readers reuse row objects). */
    static Object[] copy(InternalRow r, String workload, int fields) {
        Object[] v = new Object[fields];
        for (int i = 0; i < fields; i++) {
            if (r.isNullAt(i)) {
                continue;
            }
            boolean str = workload.equals("append") ? (i == 0 || i == 4 || i == 5) : (i == 0 || i == 1);
            boolean ts = workload.equals("append") ? i == 1 : (workload.equals("pk-dedupe") && i == 2);
            if (str) {
                v[i] = r.getString(i).toString();
            } else if (ts) {
                v[i] = r.getTimestamp(i, 6).toMicros();
            } else {
                v[i] = r.getLong(i);
            }
        }
        return v;
    }

    static String verify(String workload, List<Flight> flights, List<Object[]> read) {
        switch (workload) {
            case "append": {
                long delay = 0, distance = 0;
                for (Flight f : flights) {
                    delay += f.delay();
                    distance += f.distance();
                }
                long gd = 0, gs = 0;
                for (Object[] r : read) {
                    gd += (Long) r[2];
                    gs += (Long) r[3];
                }
                if (read.size() != flights.size() || gd != delay || gs != distance) {
                    return "read " + read.size() + " rows, sum(delay) " + gd + ", sum(distance) " + gs + "; wrote "
                            + flights.size() + ", " + delay + ", " + distance;
                }
                return null;
            }
            case "pk-dedupe": {
                Map<String, Flight> want = new HashMap<>();
                for (Flight f : flights) {
                    want.put(f.origin() + "-" + f.destination(), f);
                }
                if (read.size() != want.size()) {
                    return "read " + read.size() + " routes, wrote " + want.size();
                }
                for (Object[] r : read) {
                    Flight f = want.get(r[0] + "-" + r[1]);
                    if (f == null || !Objects.equals(r[2], f.micros()) || !Objects.equals(r[3], f.delay())
                            || !Objects.equals(r[4], f.distance())) {
                        return "route " + r[0] + "-" + r[1] + " differs";
                    }
                }
                return null;
            }
            default: {
                Map<String, long[]> want = new HashMap<>();
                for (Flight f : flights) {
                    long[] a = want.computeIfAbsent(f.origin() + "-" + f.destination(),
                            k -> new long[] {0, 0, Long.MIN_VALUE});
                    a[0] += f.delay();
                    a[1]++;
                    a[2] = Math.max(a[2], f.distance());
                }
                if (read.size() != want.size()) {
                    return "read " + read.size() + " routes, wrote " + want.size();
                }
                for (Object[] r : read) {
                    long[] a = want.get(r[0] + "-" + r[1]);
                    if (a == null || !Objects.equals(r[2], a[0]) || !Objects.equals(r[3], a[1])
                            || !Objects.equals(r[4], a[2])) {
                        return "route " + r[0] + "-" + r[1] + " differs";
                    }
                }
                return null;
            }
        }
    }

    /** VmHWM of this process in bytes (0 where /proc is missing). */
    static long peakRss() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (Exception e) {
            // no /proc
        }
        return 0;
    }

    static String list(List<Double> v) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < v.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(String.format(java.util.Locale.ROOT, "%.3f", v.get(i)));
        }
        return sb.append(']').toString();
    }

    static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }
}
