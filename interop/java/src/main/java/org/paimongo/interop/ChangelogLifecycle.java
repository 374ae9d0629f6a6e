package org.paimongo.interop;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Decoupled changelog lifecycle (changelog.num-retained.* above the snapshot retention).
 *
 * <p>{@code changelog-expire OUTDIR}: Java writes table interop.cl (changelog-producer = input,
 * 8 commits of one row each), copies it to OUTDIR/go-copy before any expiration, then expires it
 * as its committer does (ExpireSnapshotsImpl, then ExpireChangelogImpl) and follows it from
 * snapshot 6 into OUTDIR/java-follow.txt.
 *
 * <p>{@code changelog-follow TABLE_PATH SNAPSHOT OUT}: Java's streaming read of a table from
 * snapshot SNAPSHOT into OUT, one "kind\tjson" line per row.
 */
final class ChangelogLifecycle {
    private ChangelogLifecycle() {}

    static final Map<String, String> OPTIONS =
            Map.of(
                    "bucket", "1",
                    "changelog-producer", "input",
                    "write-only", "true",
                    "snapshot.num-retained.min", "1",
                    "snapshot.num-retained.max", "2",
                    "snapshot.time-retained", "1 ms",
                    "changelog.num-retained.min", "3",
                    "changelog.num-retained.max", "4",
                    "changelog.time-retained", "1 ms");

    static void expire(String outDir) throws Exception {
        Path out = Paths.get(outDir).toAbsolutePath();
        Options options = new Options();
        options.set("warehouse", out.resolve("warehouse").toString());
        Scenarios.tmp = Files.createDirectories(out.resolve("tmp"));
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
            catalog.createDatabase("interop", true);
            Identifier id = Identifier.create("interop", "cl");
            catalog.createTable(
                    id,
                    Schema.newBuilder()
                            .column("k", DataTypes.INT().notNull())
                            .column("v", DataTypes.STRING())
                            .primaryKey("k")
                            .options(OPTIONS)
                            .build(),
                    false);
            FileStoreTable table = (FileStoreTable) catalog.getTable(id);
            for (int i = 1; i <= 8; i++) {
                Scenarios.commit(table, IncrementalCases.kv(RowKind.INSERT, i, "v" + i));
            }
            Path src = out.resolve("warehouse/interop.db/cl");
            copy(src, out.resolve("go-copy"));
            Thread.sleep(20);
            table = (FileStoreTable) catalog.getTable(id);
            table.newExpireSnapshots().config(table.coreOptions().expireConfig()).expire();
            table.newExpireChangelog().config(table.coreOptions().expireConfig()).expire();
            follow(src.toString(), 6, out.resolve("java-follow.txt").toString());
        }
    }

    static void follow(String tablePath, long snapshot, String outFile) throws Exception {
        FileStoreTable table =
                FileStoreTableFactory.create(LocalFileIO.create(), new org.apache.paimon.fs.Path(tablePath));
        FileStoreTable t =
                table.copy(Map.of("scan.mode", "from-snapshot", "scan.snapshot-id", Long.toString(snapshot)));
        ReadBuilder rb = t.newReadBuilder();
        StreamTableScan scan = rb.newStreamScan();
        TableRead read = rb.newRead();
        RowType type = t.rowType();
        StringBuilder sb = new StringBuilder();
        drain(scan, read, type, line -> sb.append(line).append('\n'));
        Files.writeString(Paths.get(outFile), sb.toString());
    }

    /**
     * Plans scan until two plans in a row are empty and hands each row read to out as
     * "kind\tjson".
     */
    static void drain(StreamTableScan scan, TableRead read, RowType type, java.util.function.Consumer<String> out)
            throws Exception {
        for (int empty = 0; empty < 2; ) {
            List<Split> splits = scan.plan().splits();
            if (splits.isEmpty()) {
                empty++;
                continue;
            }
            for (Split s : splits) {
                try (RecordReader<InternalRow> r = read.createReader(s)) {
                    r.forEachRemaining(row -> out.accept(row.getRowKind().shortString() + "\t" + Jsonl.row(type, row)));
                }
            }
        }
    }

    private static void copy(Path src, Path dst) throws Exception {
        try (Stream<Path> files = Files.walk(src)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Path d = dst.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(d);
                } else {
                    Files.copy(p, d);
                }
            }
        }
    }
}
