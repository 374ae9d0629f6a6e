package org.paimongo.interop;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.system.AuditLogTable;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code incremental OUTDIR} command: Java writes primary-key tables with each changelog
 * producer (input, lookup, full-compaction; lookup also with partial-update, aggregation and
 * first-row), a deletion-vector table and an append table under
 * OUTDIR/warehouse (database interop, tables incr_*), then reads each with incremental-between
 * options through {@code table.copy(options)}: the audit_log read (rowkind first) into
 * OUTDIR/expected/TABLE/CASE.audit.jsonl and the plain read into CASE.jsonl (or CASE.error).
 * OUTDIR/incremental.json lists the tables and cases.
 */
final class IncrementalCases {
    private IncrementalCases() {}

    static GenericRow kv(RowKind k, int key, String v) {
        return GenericRow.ofKind(k, key, v == null ? null : BinaryString.fromString(v));
    }

    static void run(String outDir) throws Exception {
        java.nio.file.Path out = Paths.get(outDir).toAbsolutePath();
        Options options = new Options();
        options.set("warehouse", out.resolve("warehouse").toString());
        Scenarios.tmp = Files.createDirectories(out.resolve("tmp"));
        Map<String, Map<String, String>> tables = new java.util.LinkedHashMap<>();
        tables.put("incr_none", Map.of());
        tables.put("incr_input", Map.of("changelog-producer", "input"));
        tables.put("incr_lookup", Map.of("changelog-producer", "lookup"));
        tables.put("incr_lookup_pu", Map.of("changelog-producer", "lookup", "merge-engine", "partial-update",
                "partial-update.remove-record-on-delete", "true"));
        tables.put("incr_lookup_agg", Map.of("changelog-producer", "lookup", "merge-engine", "aggregation",
                "fields.v.aggregate-function", "listagg", "aggregation.remove-record-on-delete", "true"));
        tables.put("incr_lookup_first", Map.of("changelog-producer", "lookup", "merge-engine", "first-row",
                "ignore-delete", "true"));
        tables.put("incr_full", Map.of("changelog-producer", "full-compaction", "full-compaction.delta-commits", "1"));
        tables.put("incr_dv", Map.of("deletion-vectors.enabled", "true"));
        tables.put("incr_dv_lookup", Map.of("deletion-vectors.enabled", "true", "changelog-producer", "lookup"));
        tables.put("incr_dv_lookup_agg", Map.of("deletion-vectors.enabled", "true", "changelog-producer", "lookup",
                "merge-engine", "aggregation", "fields.v.aggregate-function", "listagg",
                "aggregation.remove-record-on-delete", "true"));
        tables.put("incr_append", null);
        List<String> listing = new ArrayList<>();
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
            catalog.createDatabase("interop", true);
            for (Map.Entry<String, Map<String, String>> e : tables.entrySet()) {
                Identifier id = Identifier.create("interop", e.getKey());
                Schema.Builder b =
                        Schema.newBuilder()
                                .column("k", DataTypes.INT().notNull())
                                .column("v", DataTypes.STRING());
                boolean pk = e.getValue() != null;
                if (pk) {
                    b.primaryKey("k").option("bucket", "1").options(e.getValue());
                }
                catalog.createTable(id, b.build(), false);
                Table t = catalog.getTable(id);
                Scenarios.commit(t, kv(RowKind.INSERT, 1, "a"), kv(RowKind.INSERT, 2, "b"));
                if (pk) {
                    Scenarios.commit(
                            t, kv(RowKind.UPDATE_AFTER, 2, "B"), kv(RowKind.DELETE, 1, "a"), kv(RowKind.INSERT, 3, "c"));
                    Scenarios.commit(t, kv(RowKind.INSERT, 4, "d"), kv(RowKind.UPDATE_AFTER, 3, "C"));
                    Scenarios.compact(t, BinaryRow.EMPTY_ROW, 0);
                    Scenarios.commit(t, kv(RowKind.DELETE, 4, "d"), kv(RowKind.INSERT, 5, "e"));
                } else {
                    Scenarios.commit(t, kv(RowKind.INSERT, 3, "c"));
                    Scenarios.commit(t, kv(RowKind.INSERT, 4, "d"), kv(RowKind.INSERT, 1, "a"));
                }
                FileStoreTable table = (FileStoreTable) catalog.getTable(id);
                java.nio.file.Path exp = Files.createDirectories(out.resolve("expected").resolve(e.getKey()));
                List<String> cases = readCases(table, exp);
                listing.add("{\"name\":" + Jsonl.quote(e.getKey()) + ",\"path\":"
                        + Jsonl.quote("warehouse/interop.db/" + e.getKey()) + ",\"cases\":["
                        + String.join(",", cases) + "]}");
            }
        }
        Files.writeString(out.resolve("incremental.json"), "{\"tables\":[\n" + String.join(",\n", listing) + "\n]}\n");
    }

    /**
     * The {@code incremental-read TABLE_PATH OUTDIR} command: the reads of {@link #run} on a table
     * someone else wrote (ours), into OUTDIR/CASE(.audit).jsonl or .error, listed in
     * OUTDIR/cases.json.
     */
    static void read(String tablePath, String outDir) throws Exception {
        java.nio.file.Path out = Files.createDirectories(Paths.get(outDir).toAbsolutePath());
        FileStoreTable table =
                org.apache.paimon.table.FileStoreTableFactory.create(
                        org.apache.paimon.fs.local.LocalFileIO.create(), new org.apache.paimon.fs.Path(tablePath));
        List<String> cases = readCases(table, out);
        Files.writeString(out.resolve("cases.json"), "[" + String.join(",\n", cases) + "]\n");
    }

    /**
     * Reads table with incremental-between over 5 ranges (from before the first snapshot, the whole
     * history, 1-2, the last snapshot, 2-2) in every scan mode, plainly and through AuditLogTable,
     * into exp; returns the cases as JSON objects.
     */
    private static List<String> readCases(FileStoreTable table, java.nio.file.Path exp) throws Exception {
        long latest = table.snapshotManager().latestSnapshotId();
        List<String> cases = new ArrayList<>();
        String[] ranges = {"0," + latest, "1," + latest, "1,2", (latest - 1) + "," + latest, "2,2"};
        for (String range : ranges) {
            for (String mode : new String[] {"auto", "delta", "changelog", "diff"}) {
                String name = range.replace(',', '-') + "_" + mode;
                Map<String, String> dyn = new HashMap<>();
                dyn.put("incremental-between", range);
                dyn.put("incremental-between-scan-mode", mode);
                FileStoreTable copy = table.copy(dyn);
                readTo(copy, copy.rowType(), exp, name);
                AuditLogTable audit = new AuditLogTable(copy);
                readTo(audit, audit.rowType(), exp, name + ".audit");
                cases.add("{\"between\":" + Jsonl.quote(range) + ",\"mode\":" + Jsonl.quote(mode)
                        + ",\"name\":" + Jsonl.quote(name) + "}");
            }
        }
        return cases;
    }

    private static void readTo(Table table, RowType type, java.nio.file.Path dir, String base) throws Exception {
        StringBuilder sb = new StringBuilder();
        try {
            ReadBuilder rb = table.newReadBuilder();
            try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
                reader.forEachRemaining(row -> sb.append(Jsonl.row(type, row)).append('\n'));
            }
        } catch (Exception ex) {
            java.io.StringWriter sw = new java.io.StringWriter();
            ex.printStackTrace(new java.io.PrintWriter(sw));
            Files.writeString(dir.resolve(base + ".error"), sw.toString());
            return;
        }
        Files.writeString(dir.resolve(base + ".jsonl"), sb.toString());
    }
}
