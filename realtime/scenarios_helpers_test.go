package realtime_test

import (
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/memindexer"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// This file holds the helpers of the scenario tests (scenarios_*_test.go),
// which turn the upstream acceptance scenarios of realtime-design.md
// section 13.1 into Go tests. Every name starts with "sc" so that it does
// not collide with the package's other test files.

// scSpyFactory creates built-in stores that record every query they get and
// count the rows their query readers yield (what the store did not prune),
// and can make QueryReaders fail a given number of times.
type scSpyFactory struct {
	mu        sync.Mutex
	queries   []realtime.Query
	rows      int64 // rows yielded by query readers
	batches   []int64
	failQuery int // QueryReaders calls left to fail
}

var errScInjected = errors.New("injected query reader failure")

func (f *scSpyFactory) Create(req realtime.CreateRequest) (realtime.Store, error) {
	s, err := memindexer.Factory{}.Create(req)
	if err != nil {
		return nil, err
	}
	return &scSpyStore{Store: s, f: f}, nil
}

// reset forgets the recorded queries and rows.
func (f *scSpyFactory) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries, f.rows, f.batches = nil, 0, nil
}

// yielded returns the rows the query readers yielded since the last reset.
func (f *scSpyFactory) yielded() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rows
}

type scSpyStore struct {
	realtime.Store
	f *scSpyFactory
}

func (s *scSpyStore) QueryReaders(ctx context.Context, v realtime.ReadView, q realtime.Query) ([]iter.Seq2[arrow.RecordBatch, error], error) {
	f := s.f
	f.mu.Lock()
	f.queries = append(f.queries, q)
	fail := f.failQuery > 0
	if fail {
		f.failQuery--
	}
	f.mu.Unlock()
	if fail {
		return nil, errScInjected
	}
	rs, err := s.Store.QueryReaders(ctx, v, q)
	if err != nil {
		return nil, err
	}
	out := make([]iter.Seq2[arrow.RecordBatch, error], len(rs))
	for i, rd := range rs {
		out[i] = func(yield func(arrow.RecordBatch, error) bool) {
			for b, err := range rd {
				if b != nil {
					f.mu.Lock()
					f.rows += b.NumRows()
					f.batches = append(f.batches, b.NumRows())
					f.mu.Unlock()
				}
				if !yield(b, err) {
					return
				}
			}
		}
	}
	return out, nil
}

// scSpyContext returns a context of tbl whose stores are spied on.
func scSpyContext(t testing.TB, tbl *catalog.Table, opts ...realtime.ContextOption) (*realtime.Context, *scSpyFactory) {
	t.Helper()
	f := &scSpyFactory{}
	rc, err := realtime.NewContext(tbl.FileIO, tbl.Schema, f, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.Close() })
	return rc, f
}

// scSnapshot returns snapshot id of tbl (the latest when id is 0).
func scSnapshot(t testing.TB, tbl *catalog.Table, id int64) *snapshot.Snapshot {
	t.Helper()
	m := snapshot.NewManager(tbl.FileIO)
	var s *snapshot.Snapshot
	var err error
	if id == 0 {
		s, err = m.Latest(context.Background())
	} else {
		s, err = m.Get(context.Background(), id)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// scLatestID returns the latest snapshot id of tbl.
func scLatestID(t testing.TB, tbl *catalog.Table) int64 {
	t.Helper()
	id, err := snapshot.NewManager(tbl.FileIO).LatestID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// scDiskSplits plans a plain (context-less) scan of tbl's latest snapshot.
func scDiskSplits(t testing.TB, tbl *catalog.Table) *reader.Plan {
	t.Helper()
	p, err := reader.NewScan(tbl.FileIO).Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// scCompactAppend simulates a full compaction of every partition-bucket of
// an append table (compaction itself is not built yet): it reads the
// bucket's rows, writes them with an ordinary writer into new files and
// commits a message whose Compact increment replaces the old files by the
// new ones, as user with identifier 1. It returns the COMPACT snapshot's
// id and the new files.
func scCompactAppend(t testing.TB, tbl *catalog.Table, user string) (int64, []manifest.DataFileMeta) {
	t.Helper()
	ctx := context.Background()
	p := scDiskSplits(t, tbl)
	w, err := writer.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var msgs []commit.Message
	var after []manifest.DataFileMeta
	for _, sp := range p.Splits {
		for rec, err := range p.ReadSplit(ctx, sp) {
			if err != nil {
				t.Fatal(err)
			}
			err = w.Write(ctx, rec)
			rec.Release()
			if err != nil {
				t.Fatal(err)
			}
		}
		out, err := w.PrepareCommit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 1 {
			t.Fatalf("compaction of one bucket gave %d messages", len(out))
		}
		m := out[0]
		// Java's append compaction rewrites the files with the sequence
		// numbers of its inputs (AppendOnlyCompactManager's rewriter counts
		// from the first input's minimum), so the output keeps their place
		// in the bucket's order; the numbers are only in the file metadata.
		next := slices.MinFunc(sp.Files, func(a, b manifest.DataFileMeta) int {
			return cmp.Compare(a.MinSequenceNumber, b.MinSequenceNumber)
		}).MinSequenceNumber
		for i := range m.Data.NewFiles {
			f := &m.Data.NewFiles[i]
			f.MinSequenceNumber, f.MaxSequenceNumber = next, next+f.RowCount-1
			next += f.RowCount
		}
		msgs = append(msgs, commit.Message{
			Partition: m.Partition, Bucket: m.Bucket, TotalBuckets: m.TotalBuckets,
			Compact: commit.CompactIncrement{Before: sp.Files, After: m.Data.NewFiles},
		})
		after = append(after, m.Data.NewFiles...)
	}
	return scCommitCompact(t, tbl, user, msgs), after
}

// scCommitCompact commits compaction messages as user and checks that the
// snapshot is a COMPACT one.
func scCommitCompact(t testing.TB, tbl *catalog.Table, user string, msgs []commit.Message) int64 {
	t.Helper()
	cm, err := commit.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		t.Fatal(err)
	}
	defer cm.Close()
	id, err := cm.Commit(context.Background(), 1, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if k := scSnapshot(t, tbl, id).CommitKind; k != snapshot.KindCompact {
		t.Fatalf("compaction snapshot %d is %s", id, k)
	}
	return id
}

// scAdmin returns a committer of tbl as a commit user of its own, for
// partition drops and truncations (which commit with the batch identifier
// and so must not share the user of the real-time committer).
func scAdmin(t testing.TB, tbl *catalog.Table) *commit.Committer {
	t.Helper()
	cm, err := commit.New(tbl.FileIO, tbl.Schema, "admin")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cm.Close() })
	return cm
}

// scBucketOf returns the bucket of a BIGINT bucket key value among n
// buckets, computed as Java does (BinaryRow hash of the key row).
func scBucketOf(t testing.TB, id int64, n int) int32 {
	t.Helper()
	r, err := row.Encode([]types.DataType{types.BigInt()}, []any{id})
	if err != nil {
		t.Fatal(err)
	}
	return int32(row.Bucket(r, n))
}

// scIDsInBucket returns the first n non-negative ids whose bucket among
// buckets is b.
func scIDsInBucket(t testing.TB, b int32, buckets, n int) []int64 {
	t.Helper()
	var out []int64
	for id := int64(0); len(out) < n; id++ {
		if scBucketOf(t, id, buckets) == b {
			out = append(out, id)
		}
	}
	return out
}

// scValue renders element i of a: null as "null", strings as is, binary as
// hex, structs as {name:value,...}, maps as {key:value,...} in stored
// order, lists as [v,...], other types with ValueStr.
func scValue(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	switch x := a.(type) {
	case *array.String:
		return x.Value(i)
	case *array.Binary:
		return hex.EncodeToString(x.Value(i))
	case *array.Struct:
		st := x.DataType().(*arrow.StructType)
		parts := make([]string, x.NumField())
		for f := range parts {
			parts[f] = st.Field(f).Name + ":" + scValue(x.Field(f), i)
		}
		return "{" + strings.Join(parts, ",") + "}"
	case *array.Map:
		from, to := x.ValueOffsets(i)
		keys, items := x.Keys(), x.Items()
		parts := make([]string, 0, to-from)
		for j := from; j < to; j++ {
			parts = append(parts, scValue(keys, int(j))+":"+scValue(items, int(j)))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case *array.List:
		from, to := x.ValueOffsets(i)
		parts := make([]string, 0, to-from)
		for j := from; j < to; j++ {
			parts = append(parts, scValue(x.ListValues(), int(j)))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return a.ValueStr(i)
}

// scRecRows renders each row of rec with scValue, columns joined by "|".
func scRecRows(rec arrow.RecordBatch) []string {
	out := make([]string, rec.NumRows())
	for r := range out {
		parts := make([]string, rec.NumCols())
		for c := range parts {
			parts[c] = scValue(rec.Column(c), r)
		}
		out[r] = strings.Join(parts, "|")
	}
	return out
}

// scReadPlan reads every split of p in order, rendering rows with
// scRecRows, and returns the rows and the size of every batch.
func scReadPlan(t testing.TB, p *realtime.Plan) (rows []string, sizes []int64) {
	t.Helper()
	for rec, err := range p.Records(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, scRecRows(rec)...)
		sizes = append(sizes, rec.NumRows())
		rec.Release()
	}
	return rows, sizes
}

// scScan plans a real-time scan of rc and reads it with scReadPlan.
func scScan(t testing.TB, rc *realtime.Context, opts ...reader.Option) []string {
	t.Helper()
	rows, _ := scReadPlan(t, plan(t, rc, opts...))
	return rows
}

// scDiskRows reads tbl's latest snapshot without a context, in split
// order, rendered with scRecRows.
func scDiskRows(t testing.TB, tbl *catalog.Table, opts ...reader.Option) []string {
	t.Helper()
	p, err := reader.NewScan(tbl.FileIO, opts...).Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rec, err := range p.Records(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, scRecRows(rec)...)
		rec.Release()
	}
	return out
}

// scBatch builds a record batch of the table columns fields (plus extra
// input columns) from Go values, as tabletest.Batch does.
func scBatch(t testing.TB, fields []types.DataField, extra []arrow.Field, rows ...[]any) arrow.RecordBatch {
	t.Helper()
	sc := types.SchemaToArrow(fields)
	if len(extra) > 0 {
		sc = arrow.NewSchema(append(slices.Clone(sc.Fields()), extra...), nil)
	}
	rec, err := tabletest.NewBatch(sc, rows...)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// scCount plans rc and counts its rows with Plan.Count.
func scCount(t testing.TB, rc *realtime.Context, opts ...reader.Option) int64 {
	t.Helper()
	n, err := plan(t, rc, opts...).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// scUsageZero fails unless rc holds no memory at all.
func scUsageZero(t testing.TB, rc *realtime.Context, what string) {
	t.Helper()
	if u := rc.Usage(); u != (realtime.Usage{}) {
		t.Fatalf("%s: usage %+v, want zero", what, u)
	}
	for k, v := range rc.Metrics() {
		if v != 0 {
			t.Fatalf("%s: metric %s = %d, want 0", what, k, v)
		}
	}
}

// scSeqRange renders the sequence numbers of the files of prog as
// "min-max" per file.
func scSeqRange(prog []realtime.Progress) []string {
	var out []string
	for _, p := range prog {
		for _, f := range p.Message.Data.NewFiles {
			out = append(out, fmt.Sprintf("%d-%d", f.MinSequenceNumber, f.MaxSequenceNumber))
		}
	}
	return out
}

// scSnapshotIDs returns the ids of tbl's snapshots.
func scSnapshotIDs(tbl *catalog.Table) ([]int64, error) {
	return snapshot.NewManager(tbl.FileIO).IDs(context.Background())
}
