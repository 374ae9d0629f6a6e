package realtime_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/memindexer"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/testenv"
	"github.com/paimon-go/paimon/types"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// This file holds the helpers of the realtime tests; other test files of
// the package reuse them. The table of the upstream integration tests
// (realtime-design.md section 13.1) is "foo": id BIGINT, payload STRING,
// pt STRING, bucket = 1, realtime.enabled = true; rows are
// (id, "value-<id>", pt).

// fooFields are the columns of the upstream fixture table. A primary-key
// column must be NOT NULL, so pk names the columns to make non-null.
func fooFields(pk ...string) []types.DataField {
	f := []types.DataField{
		{Name: "id", Type: types.BigInt()},
		{Name: "payload", Type: types.String()},
		{Name: "pt", Type: types.String()},
	}
	for i := range f {
		if slices.Contains(pk, f[i].Name) {
			f[i].Type.Nullable = false
		}
	}
	return f
}

// tableOpts are the options every real-time test table has, merged with
// extra (extra wins; a "" value deletes the key).
func tableOpts(extra map[string]string) map[string]string {
	o := map[string]string{"realtime.enabled": "true", "bucket": "1", "file.format": "parquet"}
	maps.Copy(o, extra)
	for k, v := range o {
		if v == "" {
			delete(o, k)
		}
	}
	return o
}

// newFooTable creates the fixture table in a fresh local warehouse with
// the given primary key (none for an append table, which then gets
// bucket-key = id), partition keys and extra options.
func newFooTable(t testing.TB, pk, partition []string, extra map[string]string) *catalog.Table {
	t.Helper()
	o := map[string]string{}
	if len(pk) == 0 {
		o["bucket-key"] = "id"
	}
	maps.Copy(o, extra)
	return tabletest.NewTable(t, "", catalog.Schema{
		Fields: fooFields(pk...), PartitionKeys: partition, PrimaryKeys: pk, Options: tableOpts(o),
	})
}

// newContext returns a real-time context of tbl with the built-in store;
// it is closed when the test ends.
func newContext(t testing.TB, tbl *catalog.Table, opts ...realtime.ContextOption) *realtime.Context {
	t.Helper()
	rc, err := realtime.NewContext(tbl.FileIO, tbl.Schema, memindexer.Factory{}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.Close() })
	return rc
}

// newWrite returns a real-time writer of rc as user; it is closed (after
// the context) when the test ends.
func newWrite(t testing.TB, rc *realtime.Context, user string) *realtime.Write {
	t.Helper()
	w, err := rc.NewWrite(user)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.Close(); w.Close() })
	return w
}

// newCommit returns a real-time committer of rc as user, closed when the
// test ends.
func newCommit(t testing.TB, rc *realtime.Context, user string) *realtime.Commit {
	t.Helper()
	cm, err := rc.NewCommit(user)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cm.Close() })
	return cm
}

// batch builds a record of the given columns from rows of Go values
// (int8, int64, string, nil).
func batch(t testing.TB, fields []arrow.Field, rows ...[]any) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for _, r := range rows {
		if len(r) != len(fields) {
			t.Fatalf("row %v has %d values for %d columns", r, len(r), len(fields))
		}
		for i, v := range r {
			fb := b.Field(i)
			if v == nil {
				fb.AppendNull()
				continue
			}
			switch x := fb.(type) {
			case *array.Int8Builder:
				x.Append(v.(int8))
			case *array.Int64Builder:
				x.Append(v.(int64))
			case *array.StringBuilder:
				x.Append(v.(string))
			default:
				t.Fatalf("unsupported builder %T", fb)
			}
		}
	}
	return b.NewRecordBatch()
}

var (
	idField      = arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64}
	payloadField = arrow.Field{Name: "payload", Type: arrow.BinaryTypes.String, Nullable: true}
	ptField      = arrow.Field{Name: "pt", Type: arrow.BinaryTypes.String, Nullable: true}
	offsetField  = arrow.Field{Name: realtime.OffsetColumn, Type: arrow.PrimitiveTypes.Int64}
	kindField    = arrow.Field{Name: "_ROW_KIND", Type: arrow.BinaryTypes.String}
	fooArrow     = []arrow.Field{idField, payloadField, ptField}
)

// fooRows builds rows (id, "value-<id>", pt) for ids.
func fooRows(t testing.TB, pt string, ids ...int64) arrow.RecordBatch {
	t.Helper()
	rows := make([][]any, len(ids))
	for i, id := range ids {
		rows[i] = []any{id, "value-" + itoa(id), pt}
	}
	return batch(t, fooArrow, rows...)
}

// fooOffsetRows builds rows (offset, id, "value-<id>", pt): application
// offsets first.
func fooOffsetRows(t testing.TB, pt string, offs, ids []int64) arrow.RecordBatch {
	t.Helper()
	rows := make([][]any, len(ids))
	for i, id := range ids {
		rows[i] = []any{offs[i], id, "value-" + itoa(id), pt}
	}
	return batch(t, append([]arrow.Field{offsetField}, fooArrow...), rows...)
}

// kindRows builds rows (id, payload, pt, kind) with kinds "+I", "-D", ...
func kindRows(t testing.TB, rows ...[]any) arrow.RecordBatch {
	t.Helper()
	return batch(t, append(slices.Clone(fooArrow), kindField), rows...)
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// seq returns from, from+1, ..., to-1.
func seq(from, to int64) []int64 {
	out := make([]int64, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// write writes rec with w and releases it.
func write(t testing.TB, w *realtime.Write, rec arrow.RecordBatch) {
	t.Helper()
	defer rec.Release()
	if err := w.Write(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
}

// prepare runs PrepareCommitWithProgress.
func prepare(t testing.TB, w *realtime.Write, identifier int64) []realtime.Progress {
	t.Helper()
	prog, err := w.PrepareCommitWithProgress(context.Background(), identifier)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// commitProg commits prog and returns the snapshot id.
func commitProg(t testing.TB, cm *realtime.Commit, prog []realtime.Progress, identifier int64) int64 {
	t.Helper()
	id, err := cm.CommitWithProgress(context.Background(), prog, identifier, nil)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// refresh runs RefreshCommittedSnapshot.
func refresh(t testing.TB, rc *realtime.Context, id int64) {
	t.Helper()
	if err := rc.RefreshCommittedSnapshot(context.Background(), id); err != nil {
		t.Fatal(err)
	}
}

// ranges renders the partition-buckets and ranges of prog, e.g.
// "{}/bucket-0[0,3)".
func ranges(prog []realtime.Progress) []string {
	out := make([]string, len(prog))
	for i, p := range prog {
		out[i] = p.PartitionBucket.String() + p.Range.String()
	}
	return out
}

// offsetsOf renders committed offsets as "pb=end" strings.
func offsetsOf(o progress.Offsets) []string {
	var out []string
	for _, e := range o.Entries() {
		out = append(out, e.PartitionBucket.String()+"="+itoa(e.End))
	}
	return out
}

// committed renders the progress snapshot id of tbl records (latest when
// id is 0).
func committed(t testing.TB, tbl *catalog.Table, id int64) []string {
	t.Helper()
	o, err := realtime.ReadCommittedOffsets(context.Background(), tbl.FileIO, id)
	if err != nil {
		t.Fatal(err)
	}
	return offsetsOf(o)
}

// recStrings renders each row of rec as its columns' Arrow ValueStr joined
// by "|".
func recStrings(rec arrow.RecordBatch) []string {
	out := make([]string, rec.NumRows())
	for r := range out {
		parts := make([]string, rec.NumCols())
		for c := range parts {
			parts[c] = rec.Column(c).ValueStr(r)
		}
		out[r] = strings.Join(parts, "|")
	}
	return out
}

// readSplits reads the given splits of p in order and returns the rows.
func readSplits(t testing.TB, p *realtime.Plan, splits ...*realtime.Split) []string {
	t.Helper()
	rows, err := tryReadSplits(p, splits...)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func tryReadSplits(p *realtime.Plan, splits ...*realtime.Split) ([]string, error) {
	var out []string
	for _, sp := range splits {
		for rec, err := range p.ReadSplit(context.Background(), sp) {
			if err != nil {
				return out, err
			}
			out = append(out, recStrings(rec)...)
			rec.Release()
		}
	}
	return out, nil
}

// plan plans a real-time scan of rc.
func plan(t testing.TB, rc *realtime.Context, opts ...reader.Option) *realtime.Plan {
	t.Helper()
	p, err := rc.NewScan(opts...).Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Release)
	return p
}

// readPlan reads every split of p in order.
func readPlan(t testing.TB, p *realtime.Plan) []string {
	t.Helper()
	return readSplits(t, p, p.Splits...)
}

// scanRows plans and reads a real-time scan of rc, rows in read order.
func scanRows(t testing.TB, rc *realtime.Context, opts ...reader.Option) []string {
	t.Helper()
	return readPlan(t, plan(t, rc, opts...))
}

// sortedScan is scanRows sorted.
func sortedScan(t testing.TB, rc *realtime.Context, opts ...reader.Option) []string {
	t.Helper()
	return slices.Sorted(slices.Values(scanRows(t, rc, opts...)))
}

// diskRows reads tbl without any real-time context (a plain reader scan
// of its latest snapshot), rows sorted.
func diskRows(t testing.TB, tbl *catalog.Table, opts ...reader.Option) []string {
	t.Helper()
	return tabletest.ReadRows(t, tbl.FileIO.URL(), opts...)
}

// fooStrings renders rows (id, "value-<id>", pt) as recStrings does.
func fooStrings(pt string, ids ...int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		p := pt
		if p == "" {
			p = "(null)"
		}
		out[i] = itoa(id) + "|value-" + itoa(id) + "|" + p
	}
	return out
}

// splitInfo renders the shape of a split: "rt" or "disk", its
// partition-bucket, number of disk splits, snapshot, C and M.
func splitInfo(sp *realtime.Split) string {
	kind := "disk"
	if sp.Realtime() {
		kind = "rt"
	}
	return kind + " " + sp.PartitionBucket.String() + " disk=" + itoa(int64(len(sp.Disk))) +
		" snap=" + itoa(sp.SnapshotID) + " C=" + itoa(sp.CommittedEnd) + " M=" + itoa(sp.MemoryEnd)
}

func splitInfos(p *realtime.Plan) []string {
	out := make([]string, len(p.Splits))
	for i, sp := range p.Splits {
		out[i] = splitInfo(sp)
	}
	return out
}

// wantErr fails the test unless errors.Is(err, target).
func wantErr(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v, want %v", err, target)
	}
}

// equal fails the test unless got equals want.
func equal[T comparable](t testing.TB, what string, got, want []T) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\n got %v\nwant %v", what, got, want)
	}
}
