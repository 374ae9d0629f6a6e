package writer_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// kvTable creates a primary-key table (k BIGINT, v STRING) with one bucket
// and the given options.
func kvTable(t *testing.T, opts map[string]string) *catalog.Table {
	t.Helper()
	o := map[string]string{"bucket": "1"}
	for k, v := range opts {
		o[k] = v
	}
	return newTable(t, "", catalog.Schema{
		Fields:      []types.DataField{{Name: "k", Type: types.BigInt().NotNull()}, {Name: "v", Type: types.String()}},
		PrimaryKeys: []string{"k"},
		Options:     o,
	})
}

// kvOp is one input row of a kvTable with its row kind.
type kvOp struct {
	kind int8
	k    int64
	v    string
}

// kvBatches are five batches of 100, 50, 10, 5 and 5 rows over keys 0..99
// (sequence numbers 0..169): inserts of every key, updates of the even keys,
// deletes of keys divisible by 10, re-inserts of keys divisible by 20 and
// updates of keys below 5. Every batch except the first arrives in
// descending key order.
func kvBatches() [][]kvOp {
	var bs [][]kvOp
	var b []kvOp
	for k := range int64(100) {
		b = append(b, kvOp{0, k, "a"})
	}
	bs = append(bs, b)
	add := func(kind int8, v string, keep func(int64) bool) {
		var b []kvOp
		for k := int64(99); k >= 0; k-- {
			if keep(k) {
				b = append(b, kvOp{kind, k, fmt.Sprint(v, k)})
			}
		}
		bs = append(bs, b)
	}
	add(2, "b", func(k int64) bool { return k%2 == 0 })
	add(3, "", func(k int64) bool { return k%10 == 0 })
	add(0, "c", func(k int64) bool { return k%20 == 0 })
	add(2, "d", func(k int64) bool { return k < 5 })
	return bs
}

// dedupOracle is the table a deduplicate engine shows after ops: "k|v" rows.
func dedupOracle(batches ...[]kvOp) []string {
	m := map[int64]string{}
	for _, b := range batches {
		for _, op := range b {
			if op.kind == 1 || op.kind == 3 {
				delete(m, op.k)
			} else {
				m[op.k] = op.v
			}
		}
	}
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%d|%s", k, v))
	}
	slices.Sort(out)
	return out
}

func kvRecord(t *testing.T, tbl *catalog.Table, ops []kvOp) arrow.RecordBatch {
	t.Helper()
	rows := make([][]any, len(ops))
	for i, op := range ops {
		rows[i] = []any{op.k, op.v, op.kind}
	}
	return rec(t, arrowFields(tbl.Schema, rowKind), rows...)
}

// spillFiles lists the spill files under dir: the run files of the Write's
// spill directory.
func spillFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "paimon-spill-*", "run-*.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func dirEntries(t *testing.T, dir string) int {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

func commitMsgs(t *testing.T, tbl *catalog.Table, id int64, msgs []commit.Message) {
	t.Helper()
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Commit(context.Background(), id, msgs); err != nil {
		t.Fatal(err)
	}
}

func newFiles(msgs []commit.Message) []manifest.DataFileMeta {
	var out []manifest.DataFileMeta
	for _, m := range msgs {
		out = append(out, m.Data.NewFiles...)
	}
	return out
}

// TestSpillMergesRunsAtPrepareCommit uses a 1 byte write buffer, so every
// batch overflows it and is spilled to a local file as a sorted run; no data
// file is written until PrepareCommit merges the five runs into one level-0
// file holding the merged record of every key (retractions kept), with the
// sequence number range of the surviving records. The spill files are gone
// after PrepareCommit, their directory after Close.
func TestSpillMergesRunsAtPrepareCommit(t *testing.T) {
	ctx := context.Background()
	tbl := kvTable(t, map[string]string{"write-buffer-size": "1 b"})
	dir := t.TempDir()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u", writer.WithSpillDir(dir), writer.WithAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	batches := kvBatches()
	var spilled int64
	for i, b := range batches {
		r := kvRecord(t, tbl, b)
		if err := w.Write(ctx, r); err != nil {
			t.Fatal(err)
		}
		r.Release()
		st := w.BufferStats()
		if st.Spills != int64(i+1) || st.SpilledRuns != i+1 || st.BufferedBytes != 0 || st.Flushes != 0 || st.SpilledBytes <= spilled {
			t.Errorf("after batch %d: %+v, want %d spills, all spilled, spilled bytes above %d", i, st, i+1, spilled)
		}
		spilled = st.SpilledBytes
		if files := spillFiles(t, dir); len(files) != i+1 {
			t.Errorf("after batch %d: spill files %v, want %d", i, files, i+1)
		}
		if data, err := tbl.FileIO.ListRecursive(ctx, "bucket-0"); err == nil && len(data) != 0 {
			t.Errorf("after batch %d: data files %v before PrepareCommit", i, data)
		}
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	files := newFiles(msgs)
	if len(files) != 1 {
		t.Fatalf("%d level-0 files, want 1", len(files))
	}
	f := files[0]
	// One record per key; keys 10, 30, 50, 70, 90 end deleted. Key 5 keeps
	// its insert (sequence 5), the last batch ends at sequence 169.
	if f.RowCount != 100 || *f.DeleteRowCount != 5 || f.MinSequenceNumber != 5 || f.MaxSequenceNumber != 169 || f.Level != 0 {
		t.Errorf("file: %d rows, %d deletes, sequence %d..%d, level %d; want 100, 5, 5..169, 0",
			f.RowCount, *f.DeleteRowCount, f.MinSequenceNumber, f.MaxSequenceNumber, f.Level)
	}
	if st := w.BufferStats(); st != (writer.BufferStats{Spills: 5}) {
		t.Errorf("after PrepareCommit: %+v", st)
	}
	if files := spillFiles(t, dir); len(files) != 0 {
		t.Errorf("spill files %v left after PrepareCommit", files)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := dirEntries(t, dir); n != 0 {
		t.Errorf("%d entries left in the spill directory's parent after Close", n)
	}
	mem.AssertSize(t, 0)
	commitMsgs(t, tbl, 1, msgs)
	equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), dedupOracle(batches...))
}

// TestSpillMaxDiskSizeFlushes sets write-buffer-spill.max-disk-size to one
// byte: a full buffer spills while the bucket has no spill file and is
// flushed as a level-0 file once it has one; like every flush of a bucket
// with spilled runs, that flush spills the buffer first and merges from
// disk.
func TestSpillMaxDiskSizeFlushes(t *testing.T) {
	ctx := context.Background()
	tbl := kvTable(t, map[string]string{"write-buffer-size": "1 b", "write-buffer-spill.max-disk-size": "1 b"})
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u", writer.WithSpillDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	batches := kvBatches()
	want := []writer.BufferStats{
		{Spills: 1, SpilledRuns: 1}, {Spills: 2, Flushes: 1}, {Spills: 3, SpilledRuns: 1, Flushes: 1},
		{Spills: 4, Flushes: 2}, {Spills: 5, SpilledRuns: 1, Flushes: 2},
	}
	for i, b := range batches {
		r := kvRecord(t, tbl, b)
		if err := w.Write(ctx, r); err != nil {
			t.Fatal(err)
		}
		r.Release()
		st := w.BufferStats()
		st.SpilledBytes = 0
		if st != want[i] {
			t.Errorf("after batch %d: %+v, want %+v", i, st, want[i])
		}
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Batches 0+1, 2+3 and 4: 100, 10 and 5 records.
	var rows []int64
	for _, f := range newFiles(msgs) {
		rows = append(rows, f.RowCount)
	}
	if !slices.Equal(rows, []int64{100, 10, 5}) {
		t.Errorf("level-0 files of %v records, want [100 10 5]", rows)
	}
	commitMsgs(t, tbl, 1, msgs)
	equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), dedupOracle(batches...))
}

// TestSpillFanIn merges six spilled runs with at most two files open
// (local-sort.max-num-file-handles = 2): intermediate merges first, then one
// level-0 file with every key once.
func TestSpillFanIn(t *testing.T) {
	ctx := context.Background()
	tbl := kvTable(t, map[string]string{"write-buffer-size": "1 b", "local-sort.max-num-file-handles": "2"})
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u", writer.WithSpillDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	batches := append(kvBatches(), []kvOp{{0, 1000, "x"}, {3, 2, ""}})
	for _, b := range batches {
		r := kvRecord(t, tbl, b)
		if err := w.Write(ctx, r); err != nil {
			t.Fatal(err)
		}
		r.Release()
	}
	if st := w.BufferStats(); st.SpilledRuns != 6 {
		t.Fatalf("%+v, want 6 spilled runs", st)
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	files := newFiles(msgs)
	if len(files) != 1 || files[0].RowCount != 101 || *files[0].DeleteRowCount != 6 {
		t.Fatalf("files %+v, want one of 101 records with 6 deletes", files)
	}
	commitMsgs(t, tbl, 1, msgs)
	equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), dedupOracle(batches...))
}

// TestSpillCompression spills the same batches with each spill-compression
// value and reads back the same rows; zstd and lz4 files are smaller than
// uncompressed ones.
func TestSpillCompression(t *testing.T) {
	ctx := context.Background()
	batches := kvBatches()
	size := map[string]int64{}
	for _, codec := range []string{"zstd", "lz4", "LZO", "none"} {
		tbl := kvTable(t, map[string]string{"write-buffer-size": "1 b", "spill-compression": codec})
		w, err := writer.New(tbl.FileIO, tbl.Schema, "u", writer.WithSpillDir(t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range batches {
			r := kvRecord(t, tbl, b)
			if err := w.Write(ctx, r); err != nil {
				t.Fatal(err)
			}
			r.Release()
		}
		size[codec] = w.BufferStats().SpilledBytes
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		commitMsgs(t, tbl, 1, msgs)
		equalRows(t, codec, readRows(t, tbl.FileIO.URL()), dedupOracle(batches...))
	}
	if size["zstd"] >= size["none"] || size["lz4"] >= size["none"] || size["LZO"] != size["lz4"] {
		t.Errorf("spilled bytes %v: want zstd and lz4 below none, LZO written as lz4", size)
	}
}

// TestSpillCloseRemovesFiles closes a Write with spilled runs and no
// PrepareCommit: the spill directory and every data file are gone.
func TestSpillCloseRemovesFiles(t *testing.T) {
	ctx := context.Background()
	tbl := kvTable(t, map[string]string{"write-buffer-size": "1 b", "write-buffer-spill.max-disk-size": "1 b"})
	dir := t.TempDir()
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u", writer.WithSpillDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range kvBatches()[:3] { // spill, flush, spill
		r := kvRecord(t, tbl, b)
		if err := w.Write(ctx, r); err != nil {
			t.Fatal(err)
		}
		r.Release()
	}
	if n := len(spillFiles(t, dir)); n != 1 {
		t.Fatalf("%d spill files, want 1", n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := dirEntries(t, dir); n != 0 {
		t.Errorf("%d entries left in the spill directory's parent after Close", n)
	}
	if files, err := tbl.FileIO.ListRecursive(ctx, "bucket-0"); err != nil || len(files) != 0 {
		t.Errorf("data files after Close: %v, %v", files, err)
	}
}

// TestSpillDirUnusable points the spill directory at a regular file: the
// Write that overflows the buffer fails with ErrSpill naming the path, and
// nothing is written.
func TestSpillDirUnusable(t *testing.T) {
	ctx := context.Background()
	tbl := kvTable(t, map[string]string{"write-buffer-size": "1 b"})
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u", writer.WithSpillDir(notDir))
	if err != nil {
		t.Fatal(err)
	}
	r := kvRecord(t, tbl, kvBatches()[0])
	defer r.Release()
	err = w.Write(ctx, r)
	if !errors.Is(err, writer.ErrSpill) || !strings.Contains(err.Error(), notDir) {
		t.Errorf("Write = %v, want ErrSpill naming %s", err, notDir)
	}
	if err := w.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if files, err := tbl.FileIO.ListRecursive(ctx, "bucket-0"); err != nil || len(files) != 0 {
		t.Errorf("data files: %v, %v", files, err)
	}
}

// TestSpillOptionErrors: malformed spill options are schema.ErrInvalidOption
// errors from New. The catalog refuses the unparseable ones at create and
// open (catalog.ValidateOptions), so they are set on a copy of the schema, as
// a caller that builds schemas itself could.
func TestSpillOptionErrors(t *testing.T) {
	for key, val := range map[string]string{
		"write-buffer-spillable":           "maybe",
		"write-buffer-spill.max-disk-size": "lots",
		"local-sort.max-num-file-handles":  "1",
		"spill-compression":                "snappy",
		"spill-compression.zstd-level":     "high",
	} {
		tbl := kvTable(t, nil)
		ts := *tbl.Schema
		ts.Options = ts.Options.Clone()
		ts.Options[key] = val
		_, err := writer.New(tbl.FileIO, &ts, "u")
		if !errors.Is(err, schema.ErrInvalidOption) || !strings.Contains(err.Error(), key) {
			t.Errorf("%s = %s: New = %v, want ErrInvalidOption naming the key", key, val, err)
		}
	}
}

// TestSpillMatchesInMemory writes the same random operations (inserts,
// updates, deletes, update-befores) over 3 commits into two tables of each
// merge engine, one with a write buffer so small that every batch spills
// and one that holds everything in memory, and reads both back: the rows
// must be equal, and for deduplicate equal to the oracle.
func TestSpillMatchesInMemory(t *testing.T) {
	ctx := context.Background()
	engines := map[string]map[string]string{
		"deduplicate":    {},
		"sequence.field": {"sequence.field": "s"},
		"partial-update": {"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
		"aggregation":    {"merge-engine": "aggregation", "fields.n.aggregate-function": "sum", "fields.v.aggregate-function": "last_non_null_value"},
	}
	for name, opts := range engines {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(name))))
			commits := make([][][][]any, 3) // commit -> batch -> row
			for c := range commits {
				for range 6 {
					var batch [][]any
					for range 40 {
						kind := int8(0)
						switch x := rng.IntN(10); {
						case x < 2:
							kind = 2
						case x < 3 && name != "aggregation":
							kind = 3
						case x < 4 && name == "aggregation":
							kind = 1
						}
						var v any = fmt.Sprint("v", rng.IntN(1000))
						if rng.IntN(5) == 0 {
							v = nil
						}
						batch = append(batch, []any{int64(rng.IntN(60)), v, int64(rng.IntN(100)), int64(rng.IntN(20)), kind})
					}
					commits[c] = append(commits[c], batch)
				}
			}
			read := map[bool][]string{}
			for _, spill := range []bool{true, false} {
				o := map[string]string{"bucket": "2"}
				for k, v := range opts {
					o[k] = v
				}
				if spill {
					o["write-buffer-size"] = "1 kb"
				}
				tbl := newTable(t, "", catalog.Schema{
					Fields: []types.DataField{
						{Name: "k", Type: types.BigInt().NotNull()}, {Name: "v", Type: types.String()},
						{Name: "n", Type: types.BigInt()}, {Name: "s", Type: types.BigInt()},
					},
					PrimaryKeys: []string{"k"},
					Options:     o,
				})
				fs := arrowFields(tbl.Schema, rowKind)
				w, err := writer.New(tbl.FileIO, tbl.Schema, "u", writer.WithSpillDir(t.TempDir()))
				if err != nil {
					t.Fatal(err)
				}
				for c, batches := range commits {
					for _, b := range batches {
						r := rec(t, fs, b...)
						if err := w.Write(ctx, r); err != nil {
							t.Fatal(err)
						}
						r.Release()
					}
					msgs, err := w.PrepareCommit(ctx)
					if err != nil {
						t.Fatal(err)
					}
					commitMsgs(t, tbl, int64(c+1), msgs)
				}
				if st := w.BufferStats(); spill != (st.Spills > 0) {
					t.Errorf("spill %v: %+v", spill, st)
				}
				w.Close()
				read[spill] = readRows(t, tbl.FileIO.URL())
			}
			equalRows(t, "spilled vs in-memory", read[true], read[false])
			if len(read[true]) < 20 {
				t.Errorf("only %d rows", len(read[true]))
			}
			if name == "deduplicate" {
				last := map[int64][]any{}
				for _, batches := range commits {
					for _, b := range batches {
						for _, row := range b {
							if k := row[0].(int64); row[4].(int8) == 3 {
								delete(last, k)
							} else {
								last[k] = row
							}
						}
					}
				}
				var want []string
				for _, row := range last {
					v := "(null)"
					if row[1] != nil {
						v = row[1].(string)
					}
					want = append(want, fmt.Sprintf("%d|%s|%d|%d", row[0], v, row[2], row[3]))
				}
				slices.Sort(want)
				equalRows(t, "oracle", read[true], want)
			}
		})
	}
}

// TestSpillUnclosedWriteCleanup drops a Write that holds spilled runs
// without closing it: once the Write is garbage collected, its spill
// directory is gone.
func TestSpillUnclosedWriteCleanup(t *testing.T) {
	ctx := context.Background()
	tbl := kvTable(t, map[string]string{"write-buffer-size": "1 b"})
	dir := t.TempDir()
	func() {
		w, err := writer.New(tbl.FileIO, tbl.Schema, "u", writer.WithSpillDir(dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range kvBatches()[:2] {
			r := kvRecord(t, tbl, b)
			if err := w.Write(ctx, r); err != nil {
				t.Fatal(err)
			}
			r.Release()
		}
		if n := len(spillFiles(t, dir)); n != 2 {
			t.Fatalf("%d spill files, want 2", n)
		}
	}()
	// Cleanups run on their own goroutine after a collection.
	for i := 0; i < 200 && dirEntries(t, dir) != 0; i++ {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	if n := dirEntries(t, dir); n != 0 {
		t.Errorf("%d entries left in the spill directory's parent", n)
	}
}

// TestSpillFileDamaged truncates or overwrites a spill file before
// PrepareCommit: PrepareCommit fails with ErrSpill naming the file, without
// panicking, and Close leaves nothing behind.
func TestSpillFileDamaged(t *testing.T) {
	ctx := context.Background()
	for _, codec := range []string{"zstd", "lz4", "none"} {
		for _, damage := range []string{"truncate", "garbage"} {
			t.Run(codec+"/"+damage, func(t *testing.T) {
				tbl := kvTable(t, map[string]string{"write-buffer-size": "1 b", "spill-compression": codec})
				dir := t.TempDir()
				w, err := writer.New(tbl.FileIO, tbl.Schema, "u", writer.WithSpillDir(dir))
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range kvBatches()[:2] {
					r := kvRecord(t, tbl, b)
					if err := w.Write(ctx, r); err != nil {
						t.Fatal(err)
					}
					r.Release()
				}
				files := spillFiles(t, dir)
				if len(files) != 2 {
					t.Fatalf("spill files %v", files)
				}
				data, err := os.ReadFile(files[0])
				if err != nil {
					t.Fatal(err)
				}
				if damage == "truncate" {
					data = data[:len(data)/2]
				} else {
					for i := 16; i < len(data); i += 7 {
						data[i] ^= 0x5a
					}
				}
				if err := os.WriteFile(files[0], data, 0o600); err != nil {
					t.Fatal(err)
				}
				_, err = w.PrepareCommit(ctx)
				if !errors.Is(err, writer.ErrSpill) || !strings.Contains(err.Error(), files[0]) {
					t.Errorf("PrepareCommit = %v, want ErrSpill naming %s", err, files[0])
				}
				if err := w.Close(); err != nil {
					t.Errorf("Close = %v", err)
				}
				if n := dirEntries(t, dir); n != 0 {
					t.Errorf("%d entries left in the spill directory's parent", n)
				}
			})
		}
	}
}
