package writer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// morTable creates a table with the schema and options of the Java-written
// pk_table_scan_and_read_mor_parquet fixture: partition f1, primary key
// (f0, f1, f2), 2 buckets on f2.
func morTable(t *testing.T) *catalog.Table {
	t.Helper()
	return newTable(t, "", catalog.Schema{
		Fields: []types.DataField{
			{Name: "f0", Type: types.String().NotNull()},
			{Name: "f1", Type: types.Int().NotNull()},
			{Name: "f2", Type: types.Int().NotNull()},
			{Name: "f3", Type: types.Double()},
		},
		PartitionKeys: []string{"f1"},
		PrimaryKeys:   []string{"f0", "f1", "f2"},
		Options:       map[string]string{"bucket": "2", "bucket-key": "f2", "file.format": "parquet", "manifest.format": "avro"},
	})
}

// morBatch1 is the first commit of the fixture (README of the fixture).
var morBatch1 = [][]any{
	{twoRoads, int32(10), int32(1), 11.0, int8(0)}, {"Alice", int32(10), int32(1), 11.1, int8(0)},
	{"Bob", int32(10), int32(0), 12.1, int8(0)}, {"Emily", int32(10), int32(0), 13.1, int8(0)},
	{"Tony", int32(10), int32(0), 14.1, int8(0)}, {"Alex", int32(10), int32(0), 16.1, int8(0)},
	{"David", int32(10), int32(0), 17.1, int8(0)}, {"Lucy", int32(20), int32(1), 14.1, int8(0)},
	{"Paul", int32(20), int32(1), 18.1, int8(0)},
}

// column returns a string or int64 column of r as Go values.
func column(t *testing.T, r arrow.RecordBatch, name string) []any {
	t.Helper()
	idx := r.Schema().FieldIndices(name)
	if len(idx) != 1 {
		t.Fatalf("no column %q in %s", name, r.Schema())
	}
	var out []any
	switch a := r.Column(idx[0]).(type) {
	case *array.String:
		for i := range a.Len() {
			out = append(out, a.Value(i))
		}
	case *array.Int64:
		for i := range a.Len() {
			out = append(out, a.Value(i))
		}
	case *array.Int32:
		for i := range a.Len() {
			out = append(out, a.Value(i))
		}
	default:
		t.Fatalf("column %q is %T", name, a)
	}
	return out
}

func releaseShares(shares []writer.Share) {
	for _, s := range shares {
		s.Record.Release()
	}
}

// TestRouteMatchesJava routes the fixture's first commit and compares every
// share with the manifest entries Java wrote for it (partition bytes,
// bucket, row count) and with the commit messages of a Write given the same
// rows; the Route-only Write writes nothing.
func TestRouteMatchesJava(t *testing.T) {
	ctx := context.Background()
	java, err := fileio.Open(ctx, "../testdata/paimon-tables/pk_table_scan_and_read_mor_parquet")
	if err != nil {
		t.Fatal(err)
	}
	defer java.Close()
	tbl := morTable(t)
	fs := arrowFields(tbl.Schema, rowKind)
	r := rec(t, fs, morBatch1...)
	defer r.Release()

	rw, err := writer.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	shares, err := rw.Route(ctx, r, false)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseShares(shares)

	// f2 = 1 is bucket 0, f2 = 0 bucket 1 (fixture EXPECTED.md); shares in
	// order of first appearance.
	type want struct {
		part   int32
		bucket int32
		f0     []any
		rows   []int32
	}
	wants := []want{
		{10, 0, []any{twoRoads, "Alice"}, []int32{0, 1}},
		{10, 1, []any{"Bob", "Emily", "Tony", "Alex", "David"}, []int32{2, 3, 4, 5, 6}},
		{20, 0, []any{"Lucy", "Paul"}, []int32{7, 8}},
	}
	_, je := deltaEntries(t, java, 1)
	if len(shares) != len(wants) || len(je) != len(wants) {
		t.Fatalf("%d shares, %d Java entries; want %d", len(shares), len(je), len(wants))
	}
	for i, s := range shares {
		w := wants[i]
		if s.Bucket != w.bucket || fmt.Sprint(s.PartitionValues) != fmt.Sprint([]any{w.part}) {
			t.Errorf("share %d: partition %v bucket %d, want [%d] %d", i, s.PartitionValues, s.Bucket, w.part, w.bucket)
		}
		if got := column(t, s.Record, "f0"); !slices.Equal(got, w.f0) {
			t.Errorf("share %d: f0 %q, want %q", i, got, w.f0)
		}
		if !s.Record.Schema().Equal(types.SchemaToArrow(tbl.Schema.Fields)) {
			t.Errorf("share %d: schema %s", i, s.Record.Schema())
		}
		if !slices.Equal(s.Kinds, make([]int8, len(w.f0))) || !slices.Equal(s.Order, identity(len(w.f0))) {
			t.Errorf("share %d: kinds %v order %v", i, s.Kinds, s.Order)
		}
		if !slices.Equal(s.Rows, w.rows) {
			t.Errorf("share %d: rows %v, want %v", i, s.Rows, w.rows)
		}
		found := false
		for _, e := range je {
			if bytes.Equal(e.Partition, s.Partition) && e.Bucket == s.Bucket && e.File.RowCount == int64(len(w.f0)) {
				found = true
			}
		}
		if !found {
			t.Errorf("share %d (partition %x bucket %d, %d rows) is not among Java's entries", i, s.Partition, s.Bucket, len(w.f0))
		}
	}

	// A Write of the same rows puts them into the same partition-buckets.
	ww, err := writer.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer ww.Close()
	if err := ww.Write(ctx, r); err != nil {
		t.Fatal(err)
	}
	msgs, err := ww.PrepareCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got, exp []string
	for _, m := range msgs {
		var n int64
		for _, f := range m.Data.NewFiles {
			n += f.RowCount
		}
		got = append(got, fmt.Sprintf("%x/%d/%d", m.Partition, m.Bucket, n))
	}
	for _, s := range shares {
		exp = append(exp, fmt.Sprintf("%x/%d/%d", s.Partition, s.Bucket, s.Record.NumRows()))
	}
	slices.Sort(exp)
	if !slices.Equal(got, exp) {
		t.Errorf("Write's messages %v, Route's shares %v", got, exp)
	}

	// The Route-only Write has nothing to commit.
	if msgs, err := rw.PrepareCommit(ctx); err != nil || len(msgs) != 0 {
		t.Errorf("PrepareCommit of Route-only Write = %v, %v", msgs, err)
	}
	if st := rw.BufferStats(); st != (writer.BufferStats{}) {
		t.Errorf("BufferStats of Route-only Write = %+v", st)
	}
}

func identity(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// TestRouteSorted: with sortByKey every share is stably sorted by the trimmed
// primary key (f0, f2 here: f1 is the partition) and Order maps back; row
// kinds follow their rows.
func TestRouteSorted(t *testing.T) {
	ctx := context.Background()
	tbl := morTable(t)
	fs := arrowFields(tbl.Schema, rowKind)
	rows := slices.Clone(morBatch1)
	rows[4] = []any{"Tony", int32(10), int32(0), 14.1, int8(3)}
	rows[1] = []any{"Alice", int32(10), int32(1), 11.1, int8(2)}
	r := rec(t, fs, rows...)
	defer r.Release()
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	shares, err := w.Route(ctx, r, true)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseShares(shares)
	wants := []struct {
		f0    []any
		order []int32
		kinds []int8
		rows  []int32
	}{
		{[]any{"Alice", twoRoads}, []int32{1, 0}, []int8{2, 0}, []int32{1, 0}},
		{[]any{"Alex", "Bob", "David", "Emily", "Tony"}, []int32{3, 0, 4, 1, 2}, []int8{0, 0, 0, 0, 3}, []int32{5, 2, 6, 3, 4}},
		{[]any{"Lucy", "Paul"}, []int32{0, 1}, []int8{0, 0}, []int32{7, 8}},
	}
	if len(shares) != len(wants) {
		t.Fatalf("%d shares, want %d", len(shares), len(wants))
	}
	for i, s := range shares {
		if got := column(t, s.Record, "f0"); !slices.Equal(got, wants[i].f0) {
			t.Errorf("share %d: f0 %q, want %q", i, got, wants[i].f0)
		}
		if !slices.Equal(s.Order, wants[i].order) || !slices.Equal(s.Kinds, wants[i].kinds) {
			t.Errorf("share %d: order %v kinds %v, want %v %v", i, s.Order, s.Kinds, wants[i].order, wants[i].kinds)
		}
		if !slices.Equal(s.Rows, wants[i].rows) {
			t.Errorf("share %d: rows %v, want %v", i, s.Rows, wants[i].rows)
		}
	}
}

// TestRouteDuplicateKeys: rows of one key keep their input order when
// sorted; ignore-delete drops -U and -D rows before routing, and Order
// counts the rows that remain.
func TestRouteDuplicateKeys(t *testing.T) {
	ctx := context.Background()
	tbl := kvTable(t, map[string]string{"ignore-delete": "true"})
	fs := arrowFields(tbl.Schema, rowKind)
	r := rec(t, fs,
		[]any{int64(3), "a", int8(0)}, []any{int64(1), "b", int8(0)}, []any{int64(2), "x", int8(3)},
		[]any{int64(3), "c", int8(2)}, []any{int64(1), "e", int8(1)}, []any{int64(1), "f", int8(0)})
	defer r.Release()
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, tc := range []struct {
		sort  bool
		k, v  []any
		order []int32
		kinds []int8
		rows  []int32 // rows 2 (-D) and 4 (-U) are dropped
	}{
		{false, []any{int64(3), int64(1), int64(3), int64(1)}, []any{"a", "b", "c", "f"}, []int32{0, 1, 2, 3}, []int8{0, 0, 2, 0}, []int32{0, 1, 3, 5}},
		{true, []any{int64(1), int64(1), int64(3), int64(3)}, []any{"b", "f", "a", "c"}, []int32{1, 3, 0, 2}, []int8{0, 0, 0, 2}, []int32{1, 5, 0, 3}},
	} {
		shares, err := w.Route(ctx, r, tc.sort)
		if err != nil {
			t.Fatal(err)
		}
		if len(shares) != 1 || shares[0].Bucket != 0 || len(shares[0].PartitionValues) != 0 {
			t.Fatalf("sort %v: shares %+v", tc.sort, shares)
		}
		s := shares[0]
		if k, v := column(t, s.Record, "k"), column(t, s.Record, "v"); !slices.Equal(k, tc.k) || !slices.Equal(v, tc.v) ||
			!slices.Equal(s.Order, tc.order) || !slices.Equal(s.Kinds, tc.kinds) {
			t.Errorf("sort %v: k %v v %v order %v kinds %v; want %v %v %v %v", tc.sort, k, v, s.Order, s.Kinds, tc.k, tc.v, tc.order, tc.kinds)
		}
		if !slices.Equal(s.Rows, tc.rows) {
			t.Errorf("sort %v: rows %v, want %v", tc.sort, s.Rows, tc.rows)
		}
		releaseShares(shares)
	}
}

// TestRouteErrorsMatchWrite: Route rejects what Write rejects, with the same
// error, and neither writes anything.
func TestRouteErrorsMatchWrite(t *testing.T) {
	ctx := context.Background()
	pk := newTable(t, "", catalog.Schema{
		Fields: []types.DataField{
			{Name: "id", Type: types.Int().NotNull()},
			{Name: "s", Type: types.String()},
			{Name: "p", Type: types.String()},
		},
		PartitionKeys: []string{"p"},
		PrimaryKeys:   []string{"id", "p"},
		Options:       map[string]string{"bucket": "2"},
	})
	app := newTable(t, "", catalog.Schema{
		Fields:  []types.DataField{{Name: "k", Type: types.Int()}, {Name: "v", Type: types.Int()}},
		Options: map[string]string{"bucket": "2", "bucket-key": "k"},
	})
	seed := tabletest.Batch(t, types.SchemaToArrow(app.Schema.Fields), []any{int32(1), int32(1)})
	tabletest.WriteCommit(t, app, "u", 1, seed)
	seed.Release()
	// The append table's partition now has files of 2 buckets; a schema with
	// 3 buckets must not take rows.
	rescaled := *app.Schema
	rescaled.Options = rescaled.Options.Clone()
	rescaled.Options["bucket"] = "3"

	pfs := arrowFields(pk.Schema)
	kindI8 := arrow.Field{Name: writer.DefaultRowKindColumn, Type: arrow.PrimitiveTypes.Int8}
	afs := arrowFields(app.Schema)
	cases := []struct {
		name     string
		tbl      *catalog.Table
		rescaled bool
		rec      arrow.RecordBatch
		want     error
	}{
		{"null in NOT NULL", pk, false, rec(t, pfs, []any{int32(1), "a", "x"}, []any{nil, "b", "y"}), writer.ErrNullViolation},
		{"bad row kind byte", pk, false, rec(t, append(pfs, kindI8), []any{int32(1), "a", "x", int8(0)}, []any{int32(2), "a", "x", int8(7)}), writer.ErrRowKind},
		{"bad row kind string", pk, false, rec(t, append(pfs, arrow.Field{Name: writer.DefaultRowKindColumn, Type: arrow.BinaryTypes.String}), []any{int32(1), "a", "x", "+X"}), writer.ErrRowKind},
		{"missing column", pk, false, rec(t, pfs[:2], []any{int32(1), "a"}), writer.ErrSchemaMismatch},
		{"delete into append table", app, false, rec(t, append(afs, kindI8), []any{int32(1), int32(2), int8(3)}), writer.ErrRowKind},
		{"bucket count changed", app, true, rec(t, afs, []any{int32(2), int32(2)}), writer.ErrBucketCountChanged},
	}
	for _, tc := range cases {
		ts := tc.tbl.Schema
		if tc.rescaled {
			ts = &rescaled
		}
		rw, err := writer.New(tc.tbl.FileIO, ts, "u")
		if err != nil {
			t.Fatal(err)
		}
		ww, err := writer.New(tc.tbl.FileIO, ts, "u")
		if err != nil {
			t.Fatal(err)
		}
		shares, rerr := rw.Route(ctx, tc.rec, true)
		werr := ww.Write(ctx, tc.rec)
		if !errors.Is(rerr, tc.want) || shares != nil {
			t.Errorf("%s: Route = %v, %v; want %v", tc.name, shares, rerr, tc.want)
		}
		if werr == nil || rerr == nil || rerr.Error() != werr.Error() {
			t.Errorf("%s: Route error %q, Write error %q", tc.name, rerr, werr)
		}
		for _, w := range []*writer.Write{rw, ww} {
			if msgs, err := w.PrepareCommit(ctx); err != nil || len(msgs) != 0 {
				t.Errorf("%s: PrepareCommit = %v, %v; want nothing", tc.name, msgs, err)
			}
			w.Close()
		}
		tc.rec.Release()
	}
	if files, _ := pk.FileIO.ListRecursive(ctx, ""); len(files) != 1 { // schema-0 only
		t.Errorf("files of the primary-key table: %v", files)
	}
}

// TestRouteAppendUnaware: a bucket-unaware append table routes every row of
// a partition to bucket 0 (its files live in bucket-0), in input order even
// with sortByKey; PartitionValues are Go values, nil for NULL.
func TestRouteAppendUnaware(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, "", catalog.Schema{
		Fields:        []types.DataField{{Name: "id", Type: types.Int()}, {Name: "p", Type: types.String()}},
		PartitionKeys: []string{"p"},
	})
	r := rec(t, arrowFields(tbl.Schema), []any{int32(3), "a"}, []any{int32(2), nil}, []any{int32(1), "a"})
	defer r.Release()
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	shares, err := w.Route(ctx, r, true)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseShares(shares)
	got := ""
	for _, s := range shares {
		got += fmt.Sprintf("%v/%d/%v/%v/%v ", s.PartitionValues, s.Bucket, column(t, s.Record, "id"), s.Order, s.Rows)
	}
	if want := "[a]/0/[3 1]/[0 1]/[0 2] [<nil>]/0/[2]/[0]/[1] "; got != want {
		t.Errorf("shares %q, want %q", got, want)
	}
	msgs := tabletest.Prepare(t, tbl, "u", r)
	var parts []string
	for _, m := range msgs {
		parts = append(parts, fmt.Sprintf("%x/%d", m.Partition, m.Bucket))
	}
	exp := []string{fmt.Sprintf("%x/0", shares[0].Partition), fmt.Sprintf("%x/0", shares[1].Partition)}
	slices.Sort(exp)
	if !slices.Equal(parts, exp) {
		t.Errorf("Write's messages %v, Route's shares %v", parts, exp)
	}
}

// TestNextSequenceNumber: 0 before any commit, the highest sequence number
// plus one per partition-bucket after commits (also commits made after the
// Write restored), 0 for a bucket without files.
func TestNextSequenceNumber(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, "", catalog.Schema{
		Fields:        []types.DataField{{Name: "p", Type: types.Int().NotNull()}, {Name: "k", Type: types.BigInt().NotNull()}, {Name: "v", Type: types.String()}},
		PartitionKeys: []string{"p"},
		PrimaryKeys:   []string{"p", "k"},
		Options:       map[string]string{"bucket": "1"},
	})
	sc := types.SchemaToArrow(tbl.Schema.Fields)
	w, err := writer.New(tbl.FileIO, tbl.Schema, "reader")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Partition bytes as Route gives them.
	probe := tabletest.Batch(t, sc, []any{int32(1), int64(0), "x"}, []any{int32(2), int64(0), "x"}, []any{int32(3), int64(0), "x"})
	shares, err := w.Route(ctx, probe, false)
	probe.Release()
	if err != nil || len(shares) != 3 {
		t.Fatalf("Route = %v, %v", shares, err)
	}
	releaseShares(shares)
	p1, p2, p3 := shares[0].Partition, shares[1].Partition, shares[2].Partition
	next := func(p []byte, bucket int32) int64 {
		t.Helper()
		n, err := w.NextSequenceNumber(ctx, p, bucket)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := next(p1, 0); n != 0 {
		t.Errorf("empty table: %d, want 0", n)
	}
	var rows [][]any
	for k := range int64(5) {
		rows = append(rows, []any{int32(1), k, "a"})
	}
	rows = append(rows, []any{int32(2), int64(0), "b"}, []any{int32(2), int64(1), "b"})
	b := tabletest.Batch(t, sc, rows...)
	tabletest.WriteCommit(t, tbl, "u", 1, b)
	b.Release()
	if a, b, c, d := next(p1, 0), next(p2, 0), next(p3, 0), next(p1, 1); a != 5 || b != 2 || c != 0 || d != 0 {
		t.Errorf("after commit 1: %d %d %d %d, want 5 2 0 0", a, b, c, d)
	}
	b = tabletest.Batch(t, sc, []any{int32(1), int64(9), "c"}, []any{int32(1), int64(1), "c"}, []any{int32(1), int64(7), "c"})
	tabletest.WriteCommit(t, tbl, "u", 2, b)
	b.Release()
	if a, b := next(p1, 0), next(p2, 0); a != 8 || b != 2 {
		t.Errorf("after commit 2: %d %d, want 8 2", a, b)
	}
	// A writer the Write opens now starts from the same number.
	b = tabletest.Batch(t, sc, []any{int32(1), int64(20), "d"})
	if err := w.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	b.Release()
	msgs, err := w.PrepareCommit(ctx)
	if err != nil || len(msgs) != 1 || len(msgs[0].Data.NewFiles) != 1 {
		t.Fatalf("PrepareCommit = %v, %v", msgs, err)
	}
	if f := msgs[0].Data.NewFiles[0]; f.MinSequenceNumber != 8 || f.MaxSequenceNumber != 8 {
		t.Errorf("new writer's file has sequence numbers %d..%d, want 8..8", f.MinSequenceNumber, f.MaxSequenceNumber)
	}

	// Bucket-unaware append tables start every writer at 0.
	app := newTable(t, "", catalog.Schema{Fields: []types.DataField{{Name: "a", Type: types.Int()}}})
	seed := tabletest.Batch(t, types.SchemaToArrow(app.Schema.Fields), []any{int32(1)}, []any{int32(2)})
	tabletest.WriteCommit(t, app, "u", 1, seed)
	seed.Release()
	aw, err := writer.New(app.FileIO, app.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer aw.Close()
	if n, err := aw.NextSequenceNumber(ctx, p3[:0:0], 0); err != nil || n != 0 {
		t.Errorf("unaware append table: %d, %v; want 0", n, err)
	}
	aw.Close()
	if _, err := aw.NextSequenceNumber(ctx, nil, 0); !errors.Is(err, writer.ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
	if _, err := aw.Route(ctx, nil, false); !errors.Is(err, writer.ErrClosed) {
		t.Errorf("Route after Close: %v, want ErrClosed", err)
	}
}

// TestWriteBucket: WriteBucket of each share of Route puts the rows into
// the partition-buckets Write puts them in; a share given under another
// bucket or partition is refused with ErrNotInBucket and writes nothing.
func TestWriteBucket(t *testing.T) {
	ctx := context.Background()
	tbl := morTable(t)
	r := rec(t, arrowFields(tbl.Schema, rowKind), morBatch1...)
	defer r.Release()
	rw, err := writer.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	shares, err := rw.Route(ctx, r, false)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseShares(shares)
	summary := func(msgs []commit.Message) []string {
		var out []string
		for _, m := range msgs {
			var n int64
			for _, f := range m.Data.NewFiles {
				n += f.RowCount
			}
			out = append(out, fmt.Sprintf("%x/%d/%d", m.Partition, m.Bucket, n))
		}
		slices.Sort(out)
		return out
	}

	ww := must(writer.New(tbl.FileIO, tbl.Schema, "u"))
	defer ww.Close()
	if err := ww.Write(ctx, r); err != nil {
		t.Fatal(err)
	}
	want := summary(must(ww.PrepareCommit(ctx)))

	bw := must(writer.New(tbl.FileIO, tbl.Schema, "u"))
	defer bw.Close()
	for _, s := range shares {
		if err := bw.WriteBucket(ctx, s.Partition, s.Bucket, s.Record); err != nil {
			t.Fatal(err)
		}
	}
	if got := summary(must(bw.PrepareCommit(ctx))); !slices.Equal(got, want) {
		t.Errorf("WriteBucket's messages %v, Write's %v", got, want)
	}
	if len(want) != 3 {
		t.Fatalf("Write's messages %v, want 3 partition-buckets", want)
	}

	// shares[0] is bucket 0 of partition 10, shares[2] bucket 0 of 20.
	for _, bad := range []struct {
		part   []byte
		bucket int32
	}{{shares[0].Partition, 1}, {shares[2].Partition, 0}} {
		err := bw.WriteBucket(ctx, bad.part, bad.bucket, shares[0].Record)
		if !errors.Is(err, writer.ErrNotInBucket) {
			t.Errorf("WriteBucket under partition %x bucket %d: %v, want ErrNotInBucket", bad.part, bad.bucket, err)
		}
	}
	if msgs := must(bw.PrepareCommit(ctx)); len(msgs) != 0 {
		t.Errorf("refused WriteBucket calls wrote %v", summary(msgs))
	}
}
