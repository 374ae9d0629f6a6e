package writer_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

var dataFileName = regexp.MustCompile(`^data-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-[0-9]+\.parquet$`)

func TestAppendUnpartitioned(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, "", catalog.Schema{Fields: []types.DataField{
		{Name: "id", Type: types.Int().NotNull()},
		{Name: "name", Type: types.String()},
		{Name: "v", Type: types.Double()},
	}})
	fs := arrowFields(tbl.Schema)
	id1 := writeCommit(t, tbl, "u1", 1, rec(t, fs, []any{int32(3), "c", 1.5}, []any{int32(1), nil, -2.0}, []any{int32(2), "abcdefghijklmnopqrstuvwxyz", nil}))
	// Columns may come in any order.
	swapped := []arrow.Field{fs[2], fs[0], fs[1]}
	id2 := writeCommit(t, tbl, "u1", 2, rec(t, swapped, []any{9.25, int32(4), "d"}))
	if id1 != 1 || id2 != 2 {
		t.Fatalf("snapshot ids %d, %d; want 1, 2", id1, id2)
	}
	equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), sorted("1|(null)|-2", "2|abcdefghijklmnopqrstuvwxyz|(null)", "3|c|1.5", "4|d|9.25"))
	equalRows(t, "rows of snapshot 1", readRows(t, tbl.FileIO.URL(), reader.WithSnapshot(1)),
		sorted("1|(null)|-2", "2|abcdefghijklmnopqrstuvwxyz|(null)", "3|c|1.5"))

	s, entries := deltaEntries(t, tbl.FileIO, 1)
	if s.Version != 3 || s.SchemaID != 0 || s.CommitUser != "u1" || s.CommitIdentifier != 1 || s.CommitKind != snapshot.KindAppend ||
		s.TotalRecordCount != 3 || s.DeltaRecordCount != 3 || s.NextRowID == nil || *s.NextRowID != 0 ||
		s.BaseManifestListSize == nil || s.DeltaManifestListSize == nil || s.ChangelogRecordCount != nil {
		t.Errorf("snapshot 1 = %+v", s)
	}
	if len(entries) != 1 {
		t.Fatalf("%d entries in snapshot 1, want 1", len(entries))
	}
	e := entries[0]
	f := e.File
	if e.Kind != manifest.Add || e.Bucket != 0 || e.TotalBuckets != -1 || string(e.Partition) != string(manifest.EmptyRow()) ||
		!dataFileName.MatchString(f.FileName) || f.RowCount != 3 || f.MinSequenceNumber != 0 || f.MaxSequenceNumber != 2 ||
		f.Level != 0 || f.SchemaID != 0 || *f.DeleteRowCount != 0 || *f.FileSource != manifest.SourceAppend ||
		string(f.MinKey) != string(manifest.EmptyRow()) || f.ValueStatsCols != nil || len(f.KeyStats.NullCounts) != 0 {
		t.Errorf("entry = %+v", e)
	}
	if ok, _ := tbl.FileIO.Exists(ctx, "bucket-0/"+f.FileName); !ok {
		t.Errorf("bucket-0/%s missing", f.FileName)
	}
	// Default stats mode truncate(16): the 26-character string is cut to 16
	// code points for the min and to 16 with the last one incremented for
	// the max.
	st, err := row.DecodeStats(tbl.Schema.Fields, nil, must(row.Deserialize(f.ValueStats.MinValues)),
		must(row.Deserialize(f.ValueStats.MaxValues)), f.ValueStats.NullCounts)
	if err != nil {
		t.Fatal(err)
	}
	want := row.Stats{
		Min:        []any{int32(1), "abcdefghijklmnop", -2.0},
		Max:        []any{int32(3), "c", 1.5},
		NullCounts: []int64{0, 1, 1},
	}
	if fmt.Sprint(st) != fmt.Sprint(want) {
		t.Errorf("value stats = %v, want %v", st, want)
	}
	// The creation time is the local wall clock read as UTC.
	_, off := time.Now().Zone()
	if ct := *f.CreationTime - int64(off)*1000; ct < s.TimeMillis-60000 || ct > s.TimeMillis {
		t.Errorf("creation time %d (zone offset %d s) vs commit time %d", *f.CreationTime, off, s.TimeMillis)
	}
	// Append tables of unaware buckets restart sequence numbers per writer.
	_, e2 := deltaEntries(t, tbl.FileIO, 2)
	if len(e2) != 1 || e2[0].File.MinSequenceNumber != 0 || e2[0].File.MaxSequenceNumber != 0 {
		t.Errorf("snapshot 2 entries %+v", e2)
	}
}

// TestAppendBucketsMatchJava writes the rows of the Java-written
// append_09_parquet fixture (bucket = 2, bucket-key f2, partitioned by f1)
// commit by commit and checks that every row lands in the partition and
// bucket directory Java chose, with the sequence numbers Java gave.
func TestAppendBucketsMatchJava(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, "", catalog.Schema{
		Fields: []types.DataField{
			{Name: "f0", Type: types.String()},
			{Name: "f1", Type: types.Int()},
			{Name: "f2", Type: types.Int()},
			{Name: "f3", Type: types.Double()},
		},
		PartitionKeys: []string{"f1"},
		Options:       map[string]string{"bucket": "2", "bucket-key": "f2"},
	})
	fs := arrowFields(tbl.Schema)
	commits := [][][]any{
		{{"Alice", int32(10), int32(1), 11.1}, {"Bob", int32(10), int32(0), 12.1}, {"Emily", int32(10), int32(0), 13.1}, {"Tony", int32(10), int32(0), 14.1}, {"Lucy", int32(20), int32(1), 14.1}},
		{{"Emily", int32(10), int32(0), 15.1}, {"Bob", int32(10), int32(0), 12.1}, {"Alex", int32(10), int32(0), 16.1}, {"Paul", int32(20), int32(1), nil}},
		{{"David", int32(10), int32(0), 17.1}},
		{{"Lily", int32(10), int32(0), 17.1}},
	}
	for i, rows := range commits {
		writeCommit(t, tbl, "u", int64(i+1), rec(t, fs, rows...))
	}
	// Java (EXPECTED.md): f1=10/bucket-0 holds Alice, f1=10/bucket-1 the
	// f2=0 rows, f1=20/bucket-0 Lucy and Paul.
	got := map[string][]string{}
	plan, err := must(paimon.OpenTable(ctx, tbl.FileIO.URL())).NewScan().Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range plan.Splits {
		for b, err := range plan.ReadSplit(ctx, sp) {
			if err != nil {
				t.Fatal(err)
			}
			for i := range int(b.NumRows()) {
				got[sp.BucketPath] = append(got[sp.BucketPath], b.Column(0).ValueStr(i))
			}
			b.Release()
		}
		// Sequence numbers continue per bucket across writers, as Java's
		// BucketedAppendFileStoreWrite restores them.
		var next int64
		for _, f := range sp.Files {
			if f.MinSequenceNumber != next || f.MaxSequenceNumber != next+f.RowCount-1 {
				t.Errorf("%s: file %s has sequence numbers %d..%d, want from %d", sp.BucketPath, f.FileName, f.MinSequenceNumber, f.MaxSequenceNumber, next)
			}
			next = f.MaxSequenceNumber + 1
		}
		if sp.TotalBuckets != 2 {
			t.Errorf("%s: total buckets %d", sp.BucketPath, sp.TotalBuckets)
		}
	}
	want := map[string][]string{
		"f1=10/bucket-0": {"Alice"},
		"f1=10/bucket-1": {"Bob", "Emily", "Tony", "Emily", "Bob", "Alex", "David", "Lily"},
		"f1=20/bucket-0": {"Lucy", "Paul"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows by bucket directory:\n got %v\nwant %v", got, want)
	}
	// The same bucket from BinaryRow hashing of the key.
	for _, k := range []int32{0, 1} {
		br := must(row.Encode([]types.DataType{types.Int()}, []any{k}))
		if b := row.Bucket(br, 2); (k == 1) != (b == 0) {
			t.Errorf("row.Bucket(f2=%d) = %d", k, b)
		}
	}
}

func TestWriteRejectsBadInput(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, "", catalog.Schema{
		Fields: []types.DataField{
			{Name: "id", Type: types.Int().NotNull()},
			{Name: "s", Type: types.String()},
			{Name: "p", Type: types.String()},
		},
		PartitionKeys: []string{"p"},
	})
	fs := arrowFields(tbl.Schema)
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cases := []struct {
		name string
		rec  arrow.RecordBatch
		want error
	}{
		{"null in NOT NULL", rec(t, fs, []any{int32(1), "a", "x"}, []any{nil, "b", "y"}), writer.ErrNullViolation},
		{"missing column", rec(t, fs[:2], []any{int32(1), "a"}), writer.ErrSchemaMismatch},
		{"extra column", rec(t, append(fs, arrow.Field{Name: "z", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), []any{int32(1), "a", "x", int32(1)}), writer.ErrSchemaMismatch},
		{"wrong type", rec(t, []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, fs[1], fs[2]}, []any{int64(1), "a", "x"}), writer.ErrSchemaMismatch},
		{"delete into append table", rec(t, append(fs, arrow.Field{Name: "_ROW_KIND", Type: arrow.PrimitiveTypes.Int8}), []any{int32(1), "a", "x", int8(3)}), writer.ErrRowKind},
		{"bad row kind", rec(t, append(fs, arrow.Field{Name: "_ROW_KIND", Type: arrow.BinaryTypes.String}), []any{int32(1), "a", "x", "+X"}), writer.ErrRowKind},
	}
	for _, tc := range cases {
		if err := w.Write(ctx, tc.rec); !errors.Is(err, tc.want) {
			t.Errorf("%s: Write = %v, want %v", tc.name, err, tc.want)
		}
		tc.rec.Release()
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil || len(msgs) != 0 {
		t.Errorf("PrepareCommit after rejected writes = %v, %v; want nothing", msgs, err)
	}
	if files, _ := tbl.FileIO.ListRecursive(ctx, ""); len(files) != 1 { // schema-0 only
		t.Errorf("files after rejected writes: %v", files)
	}
}

// TestPartitionDirectories: NULL and blank partition values go to
// __DEFAULT_PARTITION__, special characters are escaped as Java's
// PartitionPathUtils does, DATE partitions use the epoch day (issue cases c
// and d), and the rows read back unchanged.
func TestPartitionDirectories(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, "", catalog.Schema{
		Fields:        []types.DataField{{Name: "id", Type: types.Int()}, {Name: "p", Type: types.String()}},
		PartitionKeys: []string{"p"},
	})
	fs := arrowFields(tbl.Schema)
	writeCommit(t, tbl, "u", 1, rec(t, fs,
		[]any{int32(1), "a/b"}, []any{int32(2), nil}, []any{int32(3), " "}, []any{int32(4), "x:y=z%"}, []any{int32(5), "a/b"}))
	files, err := tbl.FileIO.ListRecursive(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]int{}
	for _, f := range files {
		if dataFileName.MatchString(f.Path[strings.LastIndexByte(f.Path, '/')+1:]) {
			dirs[f.Path[:strings.LastIndexByte(f.Path, '/')]]++
		}
	}
	want := map[string]int{"p=a%2Fb/bucket-0": 1, "p=__DEFAULT_PARTITION__/bucket-0": 2, "p=x%3Ay%3Dz%25/bucket-0": 1}
	if fmt.Sprint(dirs) != fmt.Sprint(want) {
		t.Errorf("data files per directory %v, want %v", dirs, want)
	}
	equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), sorted("1|a/b", "2|(null)", "3| ", "4|x:y=z%", "5|a/b"))
}

// TestBucketCountChanged: writing a partition whose files were written for
// another bucket count fails before anything is written.
func TestBucketCountChanged(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, "", catalog.Schema{
		Fields:  []types.DataField{{Name: "k", Type: types.Int()}, {Name: "v", Type: types.Int()}},
		Options: map[string]string{"bucket": "2", "bucket-key": "k"},
	})
	fs := arrowFields(tbl.Schema)
	writeCommit(t, tbl, "u", 1, rec(t, fs, []any{int32(1), int32(1)}))
	ts := *tbl.Schema
	ts.Options = ts.Options.Clone()
	ts.Options["bucket"] = "3"
	w, err := writer.New(tbl.FileIO, &ts, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r := rec(t, fs, []any{int32(2), int32(2)})
	defer r.Release()
	if err := w.Write(ctx, r); !errors.Is(err, writer.ErrBucketCountChanged) {
		t.Errorf("Write = %v, want ErrBucketCountChanged", err)
	}
}

// TestCloseDiscardsUnpreparedFiles: Close deletes data files that were
// written but never handed out by PrepareCommit, and keeps those that were.
func TestCloseDiscardsUnpreparedFiles(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, "", catalog.Schema{
		Fields:      []types.DataField{{Name: "k", Type: types.Int()}, {Name: "v", Type: types.Int()}},
		PrimaryKeys: []string{"k"},
		Options:     map[string]string{"bucket": "1", "write-buffer-size": "1 b", "write-buffer-spillable": "false"},
	})
	fs := arrowFields(tbl.Schema)
	dataFiles := func() int {
		files, err := tbl.FileIO.ListRecursive(ctx, "bucket-0")
		if err != nil {
			t.Fatal(err)
		}
		return len(files)
	}
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	r := rec(t, fs, []any{int32(1), int32(1)})
	defer r.Release()
	if err := w.Write(ctx, r); err != nil { // spills a level-0 file at once
		t.Fatal(err)
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("PrepareCommit = %d messages, %v", len(msgs), err)
	}
	if err := w.Write(ctx, r); err != nil {
		t.Fatal(err)
	}
	if n := dataFiles(); n != 2 {
		t.Fatalf("%d data files before Close, want 2", n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := dataFiles(); n != 1 {
		t.Errorf("%d data files after Close, want 1 (the prepared one)", n)
	}
	if err := w.Write(ctx, r); !errors.Is(err, writer.ErrClosed) {
		t.Errorf("Write after Close = %v, want ErrClosed", err)
	}
}
