package reader_test

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/fixture"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// memStream yields recs as one in-memory stream; the reader takes
// ownership of them.
func memStream(recs ...arrow.RecordBatch) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for i, r := range recs {
			if !yield(r, nil) {
				for _, rest := range recs[i+1:] {
					rest.Release()
				}
				return
			}
		}
	}
}

// memSchema is the Arrow schema of in-memory batches: the named system
// columns (_VALUE_KIND Int8, _SEQUENCE_NUMBER / _REALTIME_OFFSET Int64)
// followed by fields.
func memSchema(system []string, fields ...types.DataField) *arrow.Schema {
	var fs []arrow.Field
	for _, name := range system {
		t := arrow.DataType(arrow.PrimitiveTypes.Int64)
		if name == "_VALUE_KIND" {
			t = arrow.PrimitiveTypes.Int8
		}
		fs = append(fs, arrow.Field{Name: name, Type: t})
	}
	for _, f := range fields {
		fs = append(fs, arrow.Field{Name: f.Name, Type: types.ToArrow(f.Type), Nullable: true})
	}
	return arrow.NewSchema(fs, nil)
}

// pkMem builds one primary-key memory batch: rows are (kind, sequence
// number, table values...). An _REALTIME_OFFSET column sits between the
// system columns and the table columns, which the reader must ignore.
func pkMem(t *testing.T, fields []types.DataField, rows ...[]any) arrow.RecordBatch {
	t.Helper()
	sc := memSchema([]string{"_VALUE_KIND", "_SEQUENCE_NUMBER", "_REALTIME_OFFSET"}, fields...)
	withOffset := make([][]any, len(rows))
	for i, r := range rows {
		withOffset[i] = append([]any{r[0], r[1], int64(i)}, r[2:]...)
	}
	return tabletest.Batch(t, sc, withOffset...)
}

// readSplit reads sp with mem through ReadSplitWith and returns each row
// as its columns' ValueStr joined by "|", in read order. It checks every
// batch's schema and that no batch exceeds maxRows.
func readSplit(t *testing.T, plan *reader.Plan, sp *reader.Split, maxRows int64, mem ...iter.Seq2[arrow.RecordBatch, error]) []string {
	t.Helper()
	rows, err := tryReadSplit(plan, sp, maxRows, mem...)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func tryReadSplit(plan *reader.Plan, sp *reader.Split, maxRows int64, mem ...iter.Seq2[arrow.RecordBatch, error]) ([]string, error) {
	var out []string
	for rec, err := range plan.ReadSplitWith(context.Background(), sp, mem) {
		if err != nil {
			return out, err
		}
		if !rec.Schema().Equal(plan.ArrowSchema()) {
			rec.Release()
			return out, errors.New("batch schema " + rec.Schema().String() + " differs from the plan's")
		}
		if rec.NumRows() > maxRows {
			rec.Release()
			return out, errors.New("batch exceeds the batch size")
		}
		for r := range int(rec.NumRows()) {
			vals := make([]string, rec.NumCols())
			for c := range vals {
				vals[c] = rec.Column(c).ValueStr(r)
			}
			out = append(out, strings.Join(vals, "|"))
		}
		rec.Release()
	}
	return out, nil
}

func plan(t *testing.T, tbl *catalog.Table, opts ...reader.Option) *reader.Plan {
	t.Helper()
	p, err := reader.NewScan(tbl.FileIO, opts...).Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func onlySplit(t *testing.T, p *reader.Plan) *reader.Split {
	t.Helper()
	if len(p.Splits) != 1 {
		t.Fatalf("plan has %d splits, want 1", len(p.Splits))
	}
	return p.Splits[0]
}

func wantRows(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("rows:\n got %q\nwant %q", got, want)
	}
}

func serializedPartition(t *testing.T, fields []types.DataField, values ...any) []byte {
	t.Helper()
	br, err := row.Encode(row.FieldTypes(fields), values)
	if err != nil {
		t.Fatal(err)
	}
	return row.Serialize(br)
}

var appendFields = []types.DataField{
	{Name: "dt", Type: types.String()},
	{Name: "id", Type: types.Int()},
	{Name: "name", Type: types.String()},
	{Name: "score", Type: types.Double()},
}

// newAppendTable creates an unaware-bucket append table partitioned by dt
// holding (a,1,p,10), (a,2,q,20), (a,3,r,30).
func newAppendTable(t *testing.T) *catalog.Table {
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: appendFields, PartitionKeys: []string{"dt"}})
	rec := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields),
		[]any{"a", int32(1), "p", 10.0}, []any{"a", int32(2), "q", 20.0}, []any{"a", int32(3), "r", 30.0})
	defer rec.Release()
	tabletest.WriteCommit(t, tbl, "u", 1, rec)
	return tbl
}

// appendMem builds an append memory batch with the table columns in
// another order, behind an _REALTIME_OFFSET column: rows are
// (score, name, id, dt).
func appendMem(t *testing.T, rows ...[]any) arrow.RecordBatch {
	t.Helper()
	sc := memSchema([]string{"_REALTIME_OFFSET"}, appendFields[3], appendFields[2], appendFields[1], appendFields[0])
	withOffset := make([][]any, len(rows))
	for i, r := range rows {
		withOffset[i] = append([]any{int64(100 + i)}, r...)
	}
	return tabletest.Batch(t, sc, withOffset...)
}

func TestReadSplitWithAppend(t *testing.T) {
	tbl := newAppendTable(t)
	p := plan(t, tbl, reader.WithWhere("score > 15"), reader.WithColumns("name", "id"), reader.WithBatchSize(2))
	sp := onlySplit(t, p)
	wantRows(t, readSplit(t, p, sp, 2), "q|2", "r|3")
	// Files first, then each memory stream in order; the filter and the
	// projection apply to memory rows, and a 3-row memory batch comes out
	// in batches of at most 2 rows.
	m1 := appendMem(t, []any{5.0, "x", int32(4), "a"}, []any{40.0, "y", int32(5), "a"}, []any{50.0, "z", int32(6), "a"})
	m2 := appendMem(t, []any{16.0, "w", int32(7), "a"})
	wantRows(t, readSplit(t, p, sp, 2, memStream(m1), memStream(m2)), "q|2", "r|3", "y|5", "z|6", "w|7")

	// A memory-only partition through EmptySplit.
	part := serializedPartition(t, appendFields[:1], "b")
	es, err := p.EmptySplit(part, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(es.PartitionValues, []any{"b"}) || es.BucketPath != "dt=b/bucket-0" || es.Bucket != 0 ||
		es.TotalBuckets != -1 || es.PrimaryKey || len(es.Files) != 0 || !slices.Equal(es.Partition, part) {
		t.Fatalf("empty split = %+v", es)
	}
	m3 := appendMem(t, []any{1.0, "s", int32(8), "b"}, []any{99.0, "t", int32(9), "b"})
	wantRows(t, readSplit(t, p, es, 2, memStream(m3)), "t|9")
	wantRows(t, readSplit(t, p, es, 2))
}

func TestReadSplitWithBadMemory(t *testing.T) {
	tbl := newAppendTable(t)
	p := plan(t, tbl, reader.WithWhere("score > 15"), reader.WithColumns("name"))
	sp := onlySplit(t, p)
	// score is needed by the filter, name by the projection; id and dt are not.
	noScore := tabletest.Batch(t, memSchema(nil, appendFields[2]), []any{"x"})
	if _, err := tryReadSplit(p, sp, 4096, memStream(noScore)); !errors.Is(err, reader.ErrInvalidScan) {
		t.Fatalf("memory without a filter column: err = %v, want ErrInvalidScan", err)
	}
	enough := tabletest.Batch(t, memSchema(nil, appendFields[3], appendFields[2]), []any{20.0, "x"})
	wantRows(t, readSplit(t, p, sp, 4096, memStream(enough)), "q", "r", "x")
	wrongType := tabletest.Batch(t, memSchema(nil, types.DataField{Name: "score", Type: types.Int()}, appendFields[2]), []any{int32(20), "x"})
	if _, err := tryReadSplit(p, sp, 4096, memStream(wrongType)); !errors.Is(err, reader.ErrInvalidScan) {
		t.Fatalf("memory column of another type: err = %v, want ErrInvalidScan", err)
	}
	if _, err := tryReadSplit(p, nil, 4096); !errors.Is(err, reader.ErrInvalidScan) {
		t.Fatalf("nil split: err = %v, want ErrInvalidScan", err)
	}
	boom := errors.New("boom")
	failing := func(yield func(arrow.RecordBatch, error) bool) { yield(nil, boom) }
	if _, err := tryReadSplit(p, sp, 4096, failing); !errors.Is(err, boom) {
		t.Fatalf("failing memory stream: err = %v, want boom", err)
	}
	if _, err := p.EmptySplit(serializedPartition(t, appendFields[:2], "b", int32(1)), 0); !errors.Is(err, reader.ErrInvalidScan) {
		t.Fatalf("partition of two fields: err = %v, want ErrInvalidScan", err)
	}
	if _, err := p.EmptySplit([]byte{1, 2}, 0); !errors.Is(err, reader.ErrInvalidScan) {
		t.Fatalf("truncated partition: err = %v, want ErrInvalidScan", err)
	}
	if _, err := p.EmptySplit(serializedPartition(t, appendFields[:1], "b"), -1); !errors.Is(err, reader.ErrInvalidScan) {
		t.Fatalf("bucket -1: err = %v, want ErrInvalidScan", err)
	}
}

var kvFields = []types.DataField{{Name: "k", Type: types.BigInt().NotNull()}, {Name: "v", Type: types.String()}}

// newPKTable creates a one-bucket primary-key table of fields with primary
// key k and options opts, and commits each of batches (rows of Go values)
// in its own snapshot.
func newPKTable(t *testing.T, fields []types.DataField, opts map[string]string, batches ...[][]any) *catalog.Table {
	t.Helper()
	o := map[string]string{"bucket": "1"}
	for k, v := range opts {
		o[k] = v
	}
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: fields, PrimaryKeys: []string{"k"}, Options: o})
	for i, rows := range batches {
		rec := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), rows...)
		tabletest.WriteCommit(t, tbl, "u", int64(i+1), rec)
		rec.Release()
	}
	return tbl
}

func TestReadSplitWithDeduplicate(t *testing.T) {
	tbl := newPKTable(t, kvFields, nil, [][]any{{int64(1), "a"}, {int64(2), "b"}})
	p := plan(t, tbl)
	sp := onlySplit(t, p)
	wantRows(t, readSplit(t, p, sp, 4096), "1|a", "2|b")
	mem := func() iter.Seq2[arrow.RecordBatch, error] {
		return memStream(pkMem(t, tbl.Schema.Fields,
			[]any{int8(2), int64(100), int64(1), "x"},
			[]any{int8(3), int64(101), int64(2), nil},
			[]any{int8(0), int64(102), int64(3), "c"}))
	}
	wantRows(t, readSplit(t, p, sp, 4096, mem()), "1|x", "3|c")

	// Projection of the value column alone still merges by key.
	pv := plan(t, tbl, reader.WithColumns("v"))
	wantRows(t, readSplit(t, pv, onlySplit(t, pv), 4096, mem()), "x", "c")

	// The filter applies after the merge: (1,a) on disk matches v = 'a', but
	// its newer memory version (1,x) does not, so key 1 is gone.
	pf := plan(t, tbl, reader.WithWhere("v = 'a' OR v = 'c'"))
	wantRows(t, readSplit(t, pf, onlySplit(t, pf), 4096, mem()), "3|c")

	// Batch size bounds the merged output.
	pb := plan(t, tbl, reader.WithBatchSize(1))
	wantRows(t, readSplit(t, pb, onlySplit(t, pb), 1, mem()), "1|x", "3|c")

	// A memory run that lacks a value column cannot be merged.
	short := tabletest.Batch(t, memSchema([]string{"_VALUE_KIND", "_SEQUENCE_NUMBER"}, kvFields[0]), []any{int8(0), int64(100), int64(1)})
	if _, err := tryReadSplit(p, sp, 4096, memStream(short)); !errors.Is(err, reader.ErrInvalidScan) {
		t.Fatalf("memory run without v: err = %v, want ErrInvalidScan", err)
	}
	nullSeq := tabletest.Batch(t, memSchema([]string{"_VALUE_KIND", "_SEQUENCE_NUMBER"}, kvFields...), []any{int8(0), nil, int64(1), "x"})
	if _, err := tryReadSplit(p, sp, 4096, memStream(nullSeq)); !errors.Is(err, reader.ErrInvalidScan) {
		t.Fatalf("memory run with a null sequence number: err = %v, want ErrInvalidScan", err)
	}
}

func TestReadSplitWithAggregation(t *testing.T) {
	fields := []types.DataField{{Name: "k", Type: types.BigInt().NotNull()}, {Name: "n", Type: types.BigInt()}}
	tbl := newPKTable(t, fields, map[string]string{"merge-engine": "aggregation", "fields.n.aggregate-function": "sum"},
		[][]any{{int64(1), int64(10)}, {int64(2), int64(20)}},
		[][]any{{int64(1), int64(5)}})
	p := plan(t, tbl)
	sp := onlySplit(t, p)
	if len(sp.Files) != 2 {
		t.Fatalf("split has %d files, want 2 level-0 runs", len(sp.Files))
	}
	m1 := pkMem(t, tbl.Schema.Fields, []any{int8(0), int64(100), int64(1), int64(1)}, []any{int8(0), int64(101), int64(3), int64(7)})
	m2 := pkMem(t, tbl.Schema.Fields, []any{int8(0), int64(102), int64(1), int64(100)}, []any{int8(0), int64(103), int64(2), int64(2)})
	wantRows(t, readSplit(t, p, sp, 4096, memStream(m1), memStream(m2)), "1|116", "2|22", "3|7")
}

func TestReadSplitWithSequenceField(t *testing.T) {
	fields := append(slices.Clone(kvFields), types.DataField{Name: "ts", Type: types.BigInt()})
	tbl := newPKTable(t, fields, map[string]string{"sequence.field": "ts"},
		[][]any{{int64(1), "a", int64(10)}, {int64(2), "b", int64(10)}})
	p := plan(t, tbl)
	// Key 1's memory row has a higher sequence number but a lower ts: the
	// disk row wins. Key 2's memory row has the higher ts and wins.
	m := pkMem(t, tbl.Schema.Fields, []any{int8(2), int64(100), int64(1), "x", int64(5)}, []any{int8(2), int64(101), int64(2), "y", int64(20)})
	wantRows(t, readSplit(t, p, onlySplit(t, p), 4096, memStream(m)), "1|a|10", "2|y|20")
}

func TestReadSplitWithPartialUpdate(t *testing.T) {
	fields := append(slices.Clone(kvFields[:1]), types.DataField{Name: "a", Type: types.String()}, types.DataField{Name: "b", Type: types.String()})
	tbl := newPKTable(t, fields, map[string]string{"merge-engine": "partial-update"},
		[][]any{{int64(1), "a1", nil}, {int64(2), nil, "b2"}})
	p := plan(t, tbl, reader.WithColumns("b", "a"))
	m := pkMem(t, tbl.Schema.Fields,
		[]any{int8(0), int64(100), int64(1), nil, "b1"},
		[]any{int8(0), int64(101), int64(2), "a2", nil},
		[]any{int8(0), int64(102), int64(3), "a3", nil})
	wantRows(t, readSplit(t, p, onlySplit(t, p), 4096, memStream(m)), "b1|a1", "b2|a2", "(null)|a3")
}

func TestReadSplitWithEmptyPK(t *testing.T) {
	for _, thin := range []string{"false", "true"} {
		t.Run("thin="+thin, func(t *testing.T) {
			tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: kvFields, PrimaryKeys: []string{"k"},
				Options: map[string]string{"bucket": "2", "data-file.thin-mode": thin}})
			p := plan(t, tbl)
			if p.Snapshot != nil || p.Schema == nil || len(p.Splits) != 0 {
				t.Fatalf("plan of an empty table: snapshot %v, schema %v, %d splits", p.Snapshot, p.Schema, len(p.Splits))
			}
			sp, err := p.EmptySplit(row.Serialize(row.EmptyRow()), 1)
			if err != nil {
				t.Fatal(err)
			}
			if !sp.PrimaryKey || sp.TotalBuckets != 2 || sp.Bucket != 1 || sp.BucketPath != "bucket-1" || len(sp.PartitionValues) != 0 {
				t.Fatalf("empty split = %+v", sp)
			}
			// One run with several records per key, and a newer second run.
			m1 := pkMem(t, tbl.Schema.Fields,
				[]any{int8(0), int64(0), int64(1), "a"},
				[]any{int8(2), int64(1), int64(1), "b"},
				[]any{int8(0), int64(2), int64(2), "c"},
				[]any{int8(3), int64(3), int64(2), "c"},
				[]any{int8(0), int64(4), int64(4), "d"})
			m2 := pkMem(t, tbl.Schema.Fields, []any{int8(2), int64(5), int64(4), "z"})
			wantRows(t, readSplit(t, p, sp, 4096, memStream(m1), memStream(m2)), "1|b", "4|z")
			wantRows(t, readSplit(t, p, sp, 4096))
			if _, err := p.EmptySplit(row.Serialize(row.EmptyRow()), 2); !errors.Is(err, reader.ErrInvalidScan) {
				t.Fatalf("bucket 2 of 2: err = %v, want ErrInvalidScan", err)
			}
		})
	}
}

// TestAllLevelsDeletionVectors reads the Java-written deletion-vector table
// at snapshot 6 with all levels: partition f1=10 bucket 1 holds level-0
// files (snapshots 5 and 6) over compacted files with deletion vectors, so
// the split must be merged, not read raw (which would lose the level-0
// deletes and double updated keys). EXPECTED.md section A lists the rows.
func TestAllLevelsDeletionVectors(t *testing.T) {
	ctx := context.Background()
	table, err := paimon.OpenTable(ctx, fixture.Dir(t, "pk_table_scan_and_read_dv_parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer table.Close()
	p, err := table.NewScan(reader.WithSnapshot(6), reader.WithAllLevels()).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	find := func(bucket int32) *reader.Split {
		for _, sp := range p.Splits {
			if slices.Equal(sp.PartitionValues, []any{int32(10)}) && sp.Bucket == bucket {
				return sp
			}
		}
		t.Fatalf("no split f1=10 bucket %d", bucket)
		return nil
	}
	sp := find(1)
	var level0, upper, withDV int
	var maxSeq int64
	for _, f := range sp.Files {
		if f.Level == 0 {
			level0++
		} else {
			upper++
			if _, ok := sp.DeletionFiles[f.FileName]; ok {
				withDV++
			}
		}
		maxSeq = max(maxSeq, f.MaxSequenceNumber)
	}
	if level0 == 0 || upper == 0 || withDV == 0 || sp.RawConvertible {
		t.Fatalf("split f1=10 bucket 1: %d level-0 files, %d upper files (%d with a deletion vector), raw convertible %v",
			level0, upper, withDV, sp.RawConvertible)
	}
	bucket1 := []string{"Bob|10|0|12.1", "David|10|0|17.1", "Emily|10|0|13.1", "Marco|10|0|21.1", "Marco2|10|0|31.1",
		"Skye|10|0|21", "Skye2|10|0|31"}
	wantRows(t, readSplit(t, p, sp, 4096), bucket1...)

	// Memory rows merge on top of the level-0 and deletion-vector runs.
	m := pkMem(t, p.Schema.Fields,
		[]any{int8(2), maxSeq + 1, "Bob", int32(10), int32(0), 99.5},
		[]any{int8(3), maxSeq + 2, "David", int32(10), int32(0), 17.1},
		[]any{int8(0), maxSeq + 3, "Zoe", int32(10), int32(0), 1.5})
	wantRows(t, readSplit(t, p, sp, 4096, memStream(m)),
		"Bob|10|0|99.5", "Emily|10|0|13.1", "Marco|10|0|21.1", "Marco2|10|0|31.1", "Skye|10|0|21", "Skye2|10|0|31", "Zoe|10|0|1.5")

	// Bucket 0 is raw convertible (levels 4 and 5, the old Alice deleted by
	// a deletion vector); a memory update of Alice forces the merge, so the
	// disk Alice does not come out next to the memory one.
	sp0 := find(0)
	if !sp0.RawConvertible || len(sp0.DeletionFiles) != 1 {
		t.Fatalf("split f1=10 bucket 0: raw convertible %v, %d deletion files", sp0.RawConvertible, len(sp0.DeletionFiles))
	}
	twoRoads := "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference.|10|1|11"
	wantRows(t, readSplit(t, p, sp0, 4096), "Alice|10|1|19.1", twoRoads)
	m0 := pkMem(t, p.Schema.Fields, []any{int8(2), int64(3), "Alice", int32(10), int32(1), 0.5})
	wantRows(t, readSplit(t, p, sp0, 4096, memStream(m0)), "Alice|10|1|0.5", twoRoads)
}

// TestPartitionDecidesFilter: a filter on partition keys only that the
// split's partition satisfies is not applied to the rows, and its columns
// are not read (a memory batch without them is accepted); a filter that
// also names other columns, or that the partition fails, filters the rows.
func TestPartitionDecidesFilter(t *testing.T) {
	tbl := newAppendTable(t)
	p := plan(t, tbl, reader.WithWhere("dt = 'a'"), reader.WithColumns("name"))
	sp := onlySplit(t, p)
	nameOnly := tabletest.Batch(t, memSchema(nil, appendFields[2]), []any{"x"})
	wantRows(t, readSplit(t, p, sp, 4096, memStream(nameOnly)), "p", "q", "r", "x")

	p = plan(t, tbl, reader.WithWhere("dt = 'a' AND score > 15"), reader.WithColumns("name"))
	sp = onlySplit(t, p)
	m := appendMem(t, []any{5.0, "x", int32(4), "a"}, []any{40.0, "y", int32(5), "a"})
	wantRows(t, readSplit(t, p, sp, 4096, memStream(m)), "q", "r", "y")
	if _, err := tryReadSplit(p, sp, 4096, memStream(nameOnly)); !errors.Is(err, reader.ErrInvalidScan) {
		t.Fatalf("memory without score under dt = 'a' AND score > 15: err = %v, want ErrInvalidScan", err)
	}

	p = plan(t, tbl, reader.WithWhere("dt = 'a'"), reader.WithColumns("name"))
	es, err := p.EmptySplit(serializedPartition(t, appendFields[:1], "b"), 0)
	if err != nil {
		t.Fatal(err)
	}
	mb := appendMem(t, []any{1.0, "s", int32(8), "b"}, []any{2.0, "t", int32(9), "a"})
	wantRows(t, readSplit(t, p, es, 4096, memStream(mb)), "t")
}
