package datafile_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

var fields = []types.DataField{
	{Name: "k", Type: types.Int().NotNull()},
	{Name: "v", Type: types.String()},
}

func newSchema(t *testing.T, pk bool, opts map[string]string) *schema.TableSchema {
	t.Helper()
	var keys []string
	if pk {
		keys = []string{"k"}
	}
	ts, err := schema.New(fields, false, nil, keys, opts, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func memIO(t *testing.T) *fileio.FileIO {
	t.Helper()
	fio, err := fileio.Open(context.Background(), "mem://")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fio.Close() })
	return fio
}

// fixedNow is 2024-01-02 03:04:05 in UTC+1: creation times store the local
// wall clock as if it were UTC, 1704164645000 ms.
func fixedNow() time.Time { return time.Date(2024, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 3600)) }

const fixedMillis = 1704164645000

// intKey is the serialized BinaryRow of one INT key k (arity 1, 8 bytes of
// null bits, the value little-endian in an 8-byte slot).
func intKey(k byte) []byte {
	return []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, k, 0, 0, 0, 0, 0, 0, 0}
}

// kvBatch builds a batch of the KeyValue layout of fields from rows of
// (key, sequence number, kind, value).
func kvBatch(t *testing.T, l *datafile.Layout, rows ...[]any) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, types.SchemaToArrow(l.Fields()))
	defer b.Release()
	for _, r := range rows {
		k := r[0].(int32)
		b.Field(0).(*array.Int32Builder).Append(k)
		b.Field(1).(*array.Int64Builder).Append(r[1].(int64))
		b.Field(2).(*array.Int8Builder).Append(r[2].(int8))
		b.Field(3).(*array.Int32Builder).Append(k)
		if r[3] == nil {
			b.Field(4).AppendNull()
		} else {
			b.Field(4).(*array.StringBuilder).Append(r[3].(string))
		}
	}
	return b.NewRecordBatch()
}

// appendBatch builds n rows of the append layout l from id from on:
// (id, "value-<id, 8 digits>-<hex of id·7919>").
func appendBatch(mem memory.Allocator, l *datafile.Layout, from, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, types.SchemaToArrow(l.Fields()))
	defer b.Release()
	for i := from; i < from+n; i++ {
		b.Field(0).(*array.Int32Builder).Append(int32(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("value-%08d-%x", i, i*7919))
	}
	return b.NewRecordBatch()
}

// writeOne writes rec (released) with w and returns the one file Flush
// hands out.
func writeOne(t *testing.T, w *datafile.RollingWriter, rec arrow.RecordBatch) manifest.DataFileMeta {
	t.Helper()
	defer rec.Release()
	ctx := context.Background()
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	files, err := w.Flush(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Fatalf("%d files", len(files))
	}
	return files[0]
}

func decodeStats(t *testing.T, b []byte) []any {
	t.Helper()
	r, err := row.Deserialize(b)
	if err != nil {
		t.Fatal(err)
	}
	v, err := row.Decode([]types.DataType{types.Int().NotNull(), types.String()}, r)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestKeyValueFileMeta: the metadata of a key-value file as Java's
// KeyValueDataFileWriter records it: first and last key, key stats,
// value stats under the default truncate(16) mode, the sequence range, the
// -U/-D count, the layout's level and source, the schema id and the creation
// time; the name is "<data-file.prefix><uuid>-0.parquet".
func TestKeyValueFileMeta(t *testing.T) {
	ctx := context.Background()
	fio := memIO(t)
	ts := newSchema(t, true, map[string]string{"data-file.prefix": "pre-"})
	l, err := datafile.NewLayout(ts, datafile.Config{Level: 2, Source: manifest.SourceCompact, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if names := types.FieldNames(l.Fields()); !slices.Equal(names, []string{"_KEY_k", "_SEQUENCE_NUMBER", "_VALUE_KIND", "k", "v"}) {
		t.Fatalf("fields %v", names)
	}
	w := datafile.NewRollingWriter(fio, "bucket-0", l, datafile.NewNamer("u1"), 99)
	f := writeOne(t, w, kvBatch(t, l,
		[]any{int32(1), int64(10), int8(0), "apple-pie-and-more-stuff"},
		[]any{int32(2), int64(7), int8(3), nil},
		[]any{int32(5), int64(12), int8(1), "zebra-crossing-lights"},
		[]any{int32(5), int64(13), int8(2), "m"}))
	size, err := fio.Size(ctx, "bucket-0/pre-u1-0.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if f.FileName != "pre-u1-0.parquet" || f.FileSize != size || f.RowCount != 4 || f.Level != 2 || f.SchemaID != 0 ||
		*f.FileSource != manifest.SourceCompact || *f.CreationTime != fixedMillis || *f.DeleteRowCount != 2 ||
		f.MinSequenceNumber != 7 || f.MaxSequenceNumber != 13 || !slices.Equal(f.ExtraFiles, []string{}) || f.ValueStatsCols != nil {
		t.Fatalf("meta %+v", f)
	}
	if !slices.Equal(f.MinKey, intKey(1)) || !slices.Equal(f.MaxKey, intKey(5)) ||
		!slices.Equal(f.KeyStats.MinValues, intKey(1)) || !slices.Equal(f.KeyStats.MaxValues, intKey(5)) ||
		!slices.Equal(f.KeyStats.NullCounts, []int64{0}) {
		t.Fatalf("keys %x %x, key stats %+v", f.MinKey, f.MaxKey, f.KeyStats)
	}
	lo, hi := decodeStats(t, f.ValueStats.MinValues), decodeStats(t, f.ValueStats.MaxValues)
	if fmt.Sprint(lo) != "[1 apple-pie-and-mo]" || fmt.Sprint(hi) != "[5 zebra-crossing-m]" || !slices.Equal(f.ValueStats.NullCounts, []int64{0, 1}) {
		t.Fatalf("value stats %v %v %v", lo, hi, f.ValueStats.NullCounts)
	}
	// A key-value writer ignores the append sequence counter.
	if w.NextSequenceNumber() != 99 {
		t.Errorf("next sequence number %d", w.NextSequenceNumber())
	}
}

// TestStatsModePerLevel: metadata.stats-mode.per.level applies to the
// key-value files of that level (value stats "none": dense storage keeps no
// column), not to system columns; file.format.per.level asking for a
// format this library does not write is refused for that level only, and append files
// ignore per-level settings.
func TestStatsModePerLevel(t *testing.T) {
	opts := map[string]string{"metadata.stats-mode.per.level": "0:full,2:none", "file.format.per.level": "3:lance"}
	ts := newSchema(t, true, opts)
	l, err := datafile.NewLayout(ts, datafile.Config{Level: 2})
	if err != nil {
		t.Fatal(err)
	}
	w := datafile.NewRollingWriter(memIO(t), "bucket-0", l, datafile.NewNamer("u"), 0)
	f := writeOne(t, w, kvBatch(t, l, []any{int32(3), int64(0), int8(0), "x"}))
	if f.ValueStatsCols == nil || len(f.ValueStatsCols) != 0 || len(f.ValueStats.NullCounts) != 0 ||
		!slices.Equal(f.KeyStats.MinValues, intKey(3)) || *f.FileSource != manifest.SourceAppend || f.Level != 2 {
		t.Fatalf("meta %+v", f)
	}
	if _, err := datafile.NewLayout(ts, datafile.Config{Level: 3}); !errors.Is(err, datafile.ErrUnsupported) {
		t.Errorf("lance at level 3: %v", err)
	}
	if _, err := datafile.NewLayout(newSchema(t, false, opts), datafile.Config{Level: 3}); err != nil {
		t.Errorf("append layout: %v", err)
	}
	if _, err := datafile.NewLayout(newSchema(t, true, map[string]string{"file.format.per.level": "x"}), datafile.Config{}); !errors.Is(err, schema.ErrInvalidOption) {
		t.Errorf("malformed per-level option: %v", err)
	}
}

// TestAppendRolling: append files roll at target-file-size; their sequence
// numbers continue from the writer's counter, one per row; Flush hands the
// files out (Abort leaves them), Abort deletes the files rolled since.
func TestAppendRolling(t *testing.T) {
	ctx := context.Background()
	fio := memIO(t)
	ts := newSchema(t, false, map[string]string{"target-file-size": "4 kb"})
	l, err := datafile.NewLayout(ts, datafile.Config{})
	if err != nil {
		t.Fatal(err)
	}
	w := datafile.NewRollingWriter(fio, "bucket-0", l, datafile.NewNamer("u"), 100)
	batch := func(from, n int) arrow.RecordBatch { return appendBatch(memory.DefaultAllocator, l, from, n) }
	rec := batch(0, 3000)
	err = w.Write(ctx, rec)
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	files, err := w.Flush(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("%d files, want rolling at 4 KiB", len(files))
	}
	next := int64(100)
	for i, f := range files {
		if f.FileName != fmt.Sprintf("data-u-%d.parquet", i) || f.MinSequenceNumber != next || f.MaxSequenceNumber != next+f.RowCount-1 ||
			*f.DeleteRowCount != 0 || !slices.Equal(f.MinKey, manifest.EmptyRow()) || f.Level != 0 {
			t.Fatalf("file %d: %+v", i, f)
		}
		next += f.RowCount
	}
	if next != 3100 || w.NextSequenceNumber() != 3100 {
		t.Fatalf("rows end at %d, counter %d", next, w.NextSequenceNumber())
	}
	rec = batch(3000, 3000)
	err = w.Write(ctx, rec)
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(ctx); err != nil {
		t.Fatal(err)
	}
	list, err := fio.List(ctx, "bucket-0")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range list {
		names = append(names, f.Path)
	}
	var want []string
	for _, f := range files {
		want = append(want, "bucket-0/"+f.FileName)
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("after Abort: %v, want the flushed %v", names, want)
	}
}

// TestKeyValueSchemaMismatch: a key-value batch whose _SEQUENCE_NUMBER is
// not BIGINT is refused with ErrSchema.
func TestKeyValueSchemaMismatch(t *testing.T) {
	ts := newSchema(t, true, nil)
	l, err := datafile.NewLayout(ts, datafile.Config{})
	if err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "_KEY_k", Type: arrow.PrimitiveTypes.Int32},
		{Name: "_SEQUENCE_NUMBER", Type: arrow.PrimitiveTypes.Int32},
		{Name: "_VALUE_KIND", Type: arrow.PrimitiveTypes.Int8},
		{Name: "k", Type: arrow.PrimitiveTypes.Int32},
		{Name: "v", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.Int32Builder).Append(1)
	b.Field(1).(*array.Int32Builder).Append(1)
	b.Field(2).(*array.Int8Builder).Append(0)
	b.Field(3).(*array.Int32Builder).Append(1)
	b.Field(4).(*array.StringBuilder).Append("a")
	rec := b.NewRecordBatch()
	defer rec.Release()
	w := datafile.NewRollingWriter(memIO(t), "bucket-0", l, datafile.NewNamer("u"), 0)
	if err := w.Write(context.Background(), rec); !errors.Is(err, datafile.ErrSchema) {
		t.Fatalf("write: %v", err)
	}
	if err := w.Abort(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestRecordSize: fixed-width columns count n·(bits+7)/8 bytes, strings
// their bytes plus 4-byte offsets, validity bitmaps only with nulls; a slice
// counts its own rows.
func TestRecordSize(t *testing.T) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil))
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3, 4}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"ab", "cde", "", "f"}, []bool{true, true, false, true})
	rec := b.NewRecordBatch()
	defer rec.Release()
	// i: 4·71/8 = 35; s: 1 validity byte + 4·4 offsets + 6 value bytes = 23.
	if got := datafile.RecordSize(rec); got != 58 {
		t.Errorf("size %d, want 58", got)
	}
	s := rec.NewSlice(1, 3)
	defer s.Release()
	// i: 2·71/8 = 17; s: 1 validity byte + 2·4 + 3 bytes ("cde", "") = 12.
	if got := datafile.RecordSize(s); got != 29 {
		t.Errorf("slice size %d, want 29", got)
	}
}

// TestHandRows: a RollingWriter with a RowsHook hands each finished file's
// rows to it once, as written (rolled files get their own slices, in
// order: together the input, file by file as many rows as its meta says),
// under the file's path; a file whose rows pass MaxBytes, and a file
// aborted, are handed nothing; every reference the writer took is
// released.
func TestHandRows(t *testing.T) {
	ctx := context.Background()
	fio := memIO(t)
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	ts := newSchema(t, false, map[string]string{"target-file-size": "4 kb"})
	l, err := datafile.NewLayout(ts, datafile.Config{})
	if err != nil {
		t.Fatal(err)
	}
	batch := func(from, n int) arrow.RecordBatch { return appendBatch(mem, l, from, n) }
	type handed struct {
		path string
		ids  []int32
	}
	var got []handed
	hook := &datafile.RowsHook{MaxBytes: 1 << 20, Fn: func(path string, rows []arrow.RecordBatch) {
		h := handed{path: path}
		for _, r := range rows {
			h.ids = append(h.ids, r.Column(0).(*array.Int32).Int32Values()...)
		}
		got = append(got, h)
	}}
	w := datafile.NewRollingWriter(fio, "bucket-0", l, datafile.NewNamer("u"), 0)
	w.HandRows(hook)
	for _, r := range []arrow.RecordBatch{batch(0, 1500), batch(1500, 1500)} {
		err := w.Write(ctx, r)
		r.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	files, err := w.Flush(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 || len(got) != len(files) {
		t.Fatalf("%d files, %d handed, want rolling at 4 KiB and one hand-over per file", len(files), len(got))
	}
	next := int32(0)
	for i, f := range files {
		h := got[i]
		if h.path != "bucket-0/"+f.FileName || int64(len(h.ids)) != f.RowCount {
			t.Fatalf("file %d (%s, %d rows): handed %s with %d rows", i, f.FileName, f.RowCount, h.path, len(h.ids))
		}
		for _, id := range h.ids {
			if id != next {
				t.Fatalf("file %d: row %d, want %d", i, id, next)
			}
			next++
		}
	}
	if next != 3000 {
		t.Fatalf("handed %d rows, want 3000", next)
	}

	// Over the bound: the file is written, its rows not handed.
	got = nil
	hook.MaxBytes = 100
	rec := batch(0, 50)
	if f := writeOne(t, w, rec); f.RowCount != 50 || len(got) != 0 {
		t.Errorf("rows over the bound: file of %d rows, %d hand-overs", f.RowCount, len(got))
	}
	// Aborted: nothing handed.
	hook.MaxBytes = 1 << 20
	rec = batch(0, 10)
	err = w.Write(ctx, rec)
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(ctx); err != nil || len(got) != 0 {
		t.Errorf("abort: %v, %d hand-overs", err, len(got))
	}
}
