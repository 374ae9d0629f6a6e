package org.paimongo.interop;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.types.RowType;

import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * Java Paimon peer of the paimon-go interop harness.
 *
 * <pre>
 *   write OUTDIR       writes the table set of {@link Tables} with the filesystem catalog into
 *                      OUTDIR/warehouse/interop.db/NAME (one BatchWriteBuilder commit per
 *                      commit), the expected final rows into OUTDIR/expected/NAME.jsonl and
 *                      the list into OUTDIR/tables.json
 *   read TABLE_PATH    prints the rows of the table's latest snapshot as JSON Lines
 *   scenarios OUTDIR [NAME...]
 *                      runs the scenarios of {@link Scenarios#all} (or those named) into
 *                      OUTDIR/warehouse/interop.db/NAME, then reads each table with Java at
 *                      every snapshot and at the latest: OUTDIR/expected/NAME/snapshot-N.jsonl
 *                      and latest.jsonl, or snapshot-N.error / latest.error holding Java's
 *                      exception when its read fails; the list goes to OUTDIR/scenarios.json
 *   apply TABLE_PATH ROWS_JSONL
 *                      commits the rows of ROWS_JSONL (one JSON object per row in the same
 *                      format, scalar columns only) to the table with one BatchWriteBuilder
 *                      commit; row kinds come from the table's rowkind.field column, if any
 *                      (dynamic-bucket tables through Java's HashBucketAssigner, {@link DynBucket})
 *   compact TABLE_PATH fully compacts every partition-bucket of the table in one commit
 * </pre>
 *
 * Rows are printed in the format of {@code paimon cat --format jsonl} ({@link Jsonl}).
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("write")) {
            write(args[1]);
        } else if (args.length == 2 && args[0].equals("read")) {
            read(args[1]);
        } else if (args.length >= 2 && args[0].equals("scenarios")) {
            scenarios(args[1], java.util.Arrays.asList(args).subList(2, args.length));
        } else if (args.length == 3 && args[0].equals("apply")) {
            apply(args[1], args[2]);
        } else if (args.length == 2 && args[0].equals("incremental")) {
            IncrementalCases.run(args[1]);
        } else if (args.length == 3 && args[0].equals("incremental-read")) {
            IncrementalCases.read(args[1], args[2]);
        } else if (args.length == 2 && args[0].equals("changelog-expire")) {
            ChangelogLifecycle.expire(args[1]);
        } else if (args.length == 4 && args[0].equals("changelog-follow")) {
            ChangelogLifecycle.follow(args[1], Long.parseLong(args[2]), args[3]);
        } else if (args.length == 2 && args[0].equals("compact")) {
            DynBucket.compactAll(args[1]);
        } else if (args.length == 4 && args[0].equals("read-eq")) {
            readEqual(args[1], args[2], Long.parseLong(args[3]));
        } else {
            System.err.println("usage: write OUTDIR | read TABLE_PATH | scenarios OUTDIR [NAME...] | apply TABLE_PATH ROWS_JSONL");
            System.exit(2);
        }
    }

    static void write(String outDir) throws Exception {
        java.nio.file.Path out = Paths.get(outDir).toAbsolutePath();
        Files.createDirectories(out.resolve("expected"));
        Options options = new Options();
        options.set("warehouse", out.resolve("warehouse").toString());
        List<String> listing = new ArrayList<>();
        java.nio.file.Path tmp = Files.createDirectories(out.resolve("tmp"));
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
            catalog.createDatabase("interop", false);
            for (Tables.Spec t : Tables.all()) {
                Identifier id = Identifier.create("interop", t.name);
                catalog.createTable(id, t.schema, false);
                Table table = catalog.getTable(id);
                for (List<GenericRow> rows : t.commits) {
                    BatchWriteBuilder wb = table.newBatchWriteBuilder();
                    try (BatchTableWrite w = wb.newWrite();
                            BatchTableCommit c = wb.newCommit()) {
                        // Lookup compaction (deletion vectors, first-row) spills to local disk.
                        w.withIOManager(IOManager.create(tmp.toString()));
                        for (GenericRow r : rows) {
                            w.write(r);
                        }
                        c.commit(w.prepareCommit());
                    }
                }
                RowType type = table.rowType();
                String expected = "expected/" + t.name + ".jsonl";
                try (Writer w = Files.newBufferedWriter(out.resolve(expected))) {
                    for (GenericRow r : Tables.finalRows(t)) {
                        w.write(Jsonl.row(type, r));
                        w.write('\n');
                    }
                }
                listing.add(
                        "{\"name\":"
                                + Jsonl.quote(t.name)
                                + ",\"path\":"
                                + Jsonl.quote("warehouse/interop.db/" + t.name)
                                + ",\"expected\":"
                                + Jsonl.quote(expected)
                                + ",\"commits\":"
                                + t.commits.size()
                                + "}");
            }
        }
        deleteTree(tmp);
        String version = org.apache.paimon.table.Table.class.getPackage().getImplementationVersion();
        Files.writeString(
                out.resolve("tables.json"),
                "{\"writer\":"
                        + Jsonl.quote("java paimon " + (version == null ? "?" : version))
                        + ",\"tables\":[\n"
                        + String.join(",\n", listing)
                        + "\n]}\n");
    }

    static void scenarios(String outDir, List<String> names) throws Exception {
        java.nio.file.Path out = Paths.get(outDir).toAbsolutePath();
        Options options = new Options();
        options.set("warehouse", out.resolve("warehouse").toString());
        Scenarios.tmp = Files.createDirectories(out.resolve("tmp"));
        List<String> listing = new ArrayList<>();
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
            catalog.createDatabase("interop", true);
            for (Scenario sc : Scenarios.all()) {
                if (!names.isEmpty() && !names.contains(sc.name())) {
                    continue;
                }
                Identifier id = Identifier.create("interop", sc.name());
                sc.run(catalog, id);
                FileStoreTable table = (FileStoreTable) catalog.getTable(id);
                java.nio.file.Path exp = Files.createDirectories(out.resolve("expected").resolve(sc.name()));
                List<String> snaps = new ArrayList<>();
                Long latest = table.snapshotManager().latestSnapshotId();
                Long earliest = table.snapshotManager().earliestSnapshotId();
                if (latest != null) {
                    for (long n = earliest; n <= latest; n++) {
                        java.util.Map<String, String> dyn = new java.util.HashMap<>();
                        dyn.put("scan.snapshot-id", Long.toString(n));
                        readTo(table.copy(dyn), exp, "snapshot-" + n);
                        snaps.add(Long.toString(n));
                    }
                }
                readTo(table, exp, "latest");
                listing.add(
                        "{\"name\":"
                                + Jsonl.quote(sc.name())
                                + ",\"path\":"
                                + Jsonl.quote("warehouse/interop.db/" + sc.name())
                                + ",\"snapshots\":["
                                + String.join(",", snaps)
                                + "]}");
            }
        }
        deleteTree(Scenarios.tmp);
        Files.writeString(
                out.resolve("scenarios.json"),
                "{\"scenarios\":[\n" + String.join(",\n", listing) + "\n]}\n");
    }

    /** Reads the table into dir/base.jsonl, or its exception into dir/base.error. */
    private static void readTo(Table table, java.nio.file.Path dir, String base) throws Exception {
        StringBuilder sb = new StringBuilder();
        try {
            ReadBuilder rb = table.newReadBuilder();
            RowType type = table.rowType();
            try (RecordReader<InternalRow> reader =
                    rb.newRead().createReader(rb.newScan().plan())) {
                reader.forEachRemaining(
                        row -> {
                            sb.append(Jsonl.row(type, row));
                            sb.append('\n');
                        });
            }
        } catch (Exception e) {
            java.io.StringWriter sw = new java.io.StringWriter();
            e.printStackTrace(new java.io.PrintWriter(sw));
            Files.writeString(dir.resolve(base + ".error"), sw.toString());
            return;
        }
        Files.writeString(dir.resolve(base + ".jsonl"), sb.toString());
    }

    private static void deleteTree(java.nio.file.Path dir) throws java.io.IOException {
        try (java.util.stream.Stream<java.nio.file.Path> s = Files.walk(dir)) {
            for (java.nio.file.Path p : (Iterable<java.nio.file.Path>) s.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    static void apply(String tablePath, String rowsFile) throws Exception {
        FileStoreTable table =
                FileStoreTableFactory.create(LocalFileIO.create(), new Path(tablePath));
        RowType type = table.rowType();
        List<GenericRow> rows = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(rowsFile), StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                rows.add(Rows.fromJson(type, Json.parse(line)));
            }
        }
        java.nio.file.Path tmp = Files.createTempDirectory("paimon-interop");
        BatchWriteBuilder wb = table.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite();
                BatchTableCommit c = wb.newCommit()) {
            w.withIOManager(IOManager.create(tmp.toString()));
            DynBucket d = DynBucket.of(table, "interop-java-apply");
            ScenariosXPart.Assigner x = ScenariosXPart.Assigner.of(table, w);
            for (GenericRow r : rows) {
                if (x != null) {
                    x.process(r);
                } else {
                    DynBucket.write(d, w, r);
                }
            }
            c.commit(w.prepareCommit());
        } finally {
            deleteTree(tmp);
        }
    }

    static void read(String tablePath) throws Exception {
        FileStoreTable table =
                FileStoreTableFactory.create(LocalFileIO.create(), new Path(tablePath));
        ReadBuilder rb = table.newReadBuilder();
        RowType type = table.rowType();
        PrintStream stdout = System.out;
        try (Writer w =
                        new BufferedWriter(
                                new OutputStreamWriter(stdout, StandardCharsets.UTF_8));
                RecordReader<InternalRow> reader =
                        rb.newRead().createReader(rb.newScan().plan())) {
            reader.forEachRemaining(
                    row -> {
                        try {
                            w.write(Jsonl.row(type, row));
                            w.write('\n');
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
        }
    }

    /**
     * read-eq TABLE COLUMN VALUE: plans the table with the filter COLUMN = VALUE (a BIGINT column),
     * so that Java prunes files by statistics and by their file indexes, prints "files N" (the data
     * files planned), then the rows of those files (the filter prunes, it does not drop rows).
     */
    static void readEqual(String tablePath, String column, long value) throws Exception {
        FileStoreTable table =
                FileStoreTableFactory.create(LocalFileIO.create(), new Path(tablePath));
        RowType type = table.rowType();
        Predicate p = new PredicateBuilder(type).equal(type.getFieldIndex(column), value);
        ReadBuilder rb = table.newReadBuilder().withFilter(p);
        TableScan.Plan plan = rb.newScan().plan();
        int files = 0;
        for (Split s : plan.splits()) {
            files += ((DataSplit) s).dataFiles().size();
        }
        try (Writer w =
                        new BufferedWriter(
                                new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
                RecordReader<InternalRow> reader = rb.newRead().createReader(plan)) {
            w.write("files " + files + "\n");
            reader.forEachRemaining(
                    row -> {
                        try {
                            w.write(Jsonl.row(type, row));
                            w.write('\n');
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
        }
    }
}
