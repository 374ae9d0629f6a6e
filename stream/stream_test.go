package stream_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/consumer"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/stream"
	"github.com/paimon-go/paimon/types"
)

var kvFields = []types.DataField{{Name: "k", Type: types.BigInt()}, {Name: "v", Type: types.String()}}

func write(t *testing.T, tbl *catalog.Table, rows ...[]any) int64 {
	t.Helper()
	r := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), rows...)
	defer r.Release()
	return tabletest.WriteCommit(t, tbl, "u", commit.BatchIdentifier, r)
}

// history builds an append table with snapshots 1 APPEND {1 a, 2 a},
// 2 APPEND {3 b}, 3 COMPACT, 4 OVERWRITE {7 o}, 5 APPEND {9 e}.
func history(t *testing.T) *catalog.Table {
	t.Helper()
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: kvFields})
	write(t, tbl, []any{int64(1), "a"}, []any{int64(2), "a"})
	write(t, tbl, []any{int64(3), "b"})
	if id, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "u", compaction.Options{Full: true}); err != nil || id != 3 {
		t.Fatalf("Compact = %d, %v; want snapshot 3", id, err)
	}
	r := tabletest.Batch(t, types.SchemaToArrow(kvFields), []any{int64(7), "o"})
	defer r.Release()
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if id, err := c.Overwrite(ctx, commit.BatchIdentifier, commit.PartitionSpec{}, tabletest.Prepare(t, tbl, "u", r)); err != nil || id != 4 {
		t.Fatalf("Overwrite = %d, %v", id, err)
	}
	if id := write(t, tbl, []any{int64(9), "e"}); id != 5 {
		t.Fatalf("write = %d, want 5", id)
	}
	sm := snapshot.NewManager(tbl.FileIO)
	for id, kind := range map[int64]snapshot.CommitKind{1: snapshot.KindAppend, 3: snapshot.KindCompact, 4: snapshot.KindOverwrite} {
		s, err := sm.Get(ctx, id)
		if err != nil || s.CommitKind != kind {
			t.Fatalf("snapshot %d: %v %v, want %s", id, s, err, kind)
		}
	}
	return tbl
}

// source reads full snapshots through the reader and stands in for the
// per-snapshot change read with one row per snapshot: (rowkind "+I",
// snapshot id, changelog flag). The follower's job is to pick the snapshots.
type source struct{ full *stream.ReaderSource }

func (s source) Full(ctx context.Context, id int64) iter.Seq2[arrow.RecordBatch, error] {
	return s.full.Full(ctx, id)
}

func (s source) Schema() *arrow.Schema { return s.full.Schema() }

func (s source) Changes(ctx context.Context, id int64, changelog bool) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		kb := array.NewStringBuilder(memory.DefaultAllocator)
		kb.Append(fmt.Sprintf("changes@%d changelog=%v", id, changelog))
		a := kb.NewArray()
		defer a.Release()
		sc := arrow.NewSchema([]arrow.Field{{Name: "rowkind", Type: arrow.BinaryTypes.String}}, nil)
		yield(array.NewRecordBatch(sc, []arrow.Array{a}, 1), nil)
	}
}

func follower(tbl *catalog.Table, o stream.Options) *stream.Follower {
	if o.Interval == 0 {
		o.Interval = 5 * time.Millisecond
	}
	return stream.New(tbl.FileIO, tbl.Schema, source{&stream.ReaderSource{FIO: tbl.FileIO, Table: tbl.Schema}}, o)
}

// describe renders a delivery: "full@N: rows" or the change marker.
func describe(s *stream.Snapshot) string {
	var rows []string
	for _, b := range s.Batches {
		for i := range int(b.NumRows()) {
			var cells []string
			for c := range int(b.NumCols()) {
				cells = append(cells, b.Column(c).ValueStr(i))
			}
			rows = append(rows, strings.Join(cells, " "))
		}
	}
	if s.Full {
		slices.Sort(rows)
		return fmt.Sprintf("full@%d: %s", s.ID, strings.Join(rows, ", "))
	}
	return strings.Join(rows, "\n")
}

// take reads n deliveries, then checks that no further one arrives.
func take(t *testing.T, f *stream.Follower, n int) []string {
	t.Helper()
	var out []string
	for range n {
		s, err := f.Next(context.Background())
		if err != nil {
			t.Fatalf("Next after %v: %v", out, err)
		}
		out = append(out, describe(s))
		s.Release()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if s, err := f.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("after %v: Next = %v, %v; want to wait for a new snapshot", out, s, err)
	}
	return out
}

func TestStartModes(t *testing.T) {
	tbl := history(t)
	s5, err := snapshot.NewManager(tbl.FileIO).Get(context.Background(), 5)
	if err != nil {
		t.Fatal(err)
	}
	s1, _ := snapshot.NewManager(tbl.FileIO).Get(context.Background(), 1)
	for _, c := range []struct {
		name string
		o    stream.Options
		want []string
	}{
		{"latest", stream.Options{Mode: stream.ModeLatest}, nil},
		{"latest-full", stream.Options{Mode: stream.ModeLatestFull}, []string{"full@5: +I 7 o, +I 9 e"}},
		{"default", stream.Options{}, []string{"full@5: +I 7 o, +I 9 e"}},
		{"from-snapshot", stream.Options{Mode: stream.ModeFromSnapshot, SnapshotID: 1},
			[]string{"changes@1 changelog=false", "changes@2 changelog=false", "changes@5 changelog=false"}},
		{"default+snapshot-id", stream.Options{SnapshotID: 2},
			[]string{"changes@2 changelog=false", "changes@5 changelog=false"}},
		{"from-snapshot-full", stream.Options{Mode: stream.ModeFromSnapshotFull, SnapshotID: 2},
			[]string{"full@2: +I 1 a, +I 2 a, +I 3 b", "changes@5 changelog=false"}},
		{"compacted-full", stream.Options{Mode: stream.ModeCompactedFull},
			[]string{"full@3: +I 1 a, +I 2 a, +I 3 b", "changes@5 changelog=false"}},
		{"from-timestamp-first", stream.Options{Mode: stream.ModeFromTimestamp, TimestampMillis: s1.TimeMillis},
			[]string{"changes@1 changelog=false", "changes@2 changelog=false", "changes@5 changelog=false"}},
		{"from-timestamp-after-last", stream.Options{Mode: stream.ModeFromTimestamp, TimestampMillis: s5.TimeMillis + 1}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := take(t, follower(tbl, c.o), len(c.want))
			if !slices.Equal(got, c.want) {
				t.Fatalf("deliveries\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestFollowsNewSnapshots: a follower waiting at the latest snapshot
// delivers a snapshot committed while it polls.
func TestFollowsNewSnapshots(t *testing.T) {
	tbl := history(t)
	f := follower(tbl, stream.Options{Mode: stream.ModeLatest})
	if got := take(t, f, 0); len(got) != 0 {
		t.Fatal(got)
	}
	done := make(chan int64)
	go func() {
		time.Sleep(20 * time.Millisecond)
		r, _ := tabletest.NewBatch(types.SchemaToArrow(kvFields), []any{int64(10), "x"})
		id, err := tabletest.Commit(context.Background(), tbl, "u", commit.BatchIdentifier, r)
		r.Release()
		if err != nil {
			t.Error(err)
		}
		done <- id
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := f.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if id := <-done; id != 6 || describe(s) != "changes@6 changelog=false" || s.Next != 7 {
		t.Fatalf("delivery %q next %d for commit %d", describe(s), s.Next, id)
	}
}

func TestConsumerExactlyOnce(t *testing.T) {
	ctx := context.Background()
	tbl := history(t)
	cm := consumer.New(tbl.FileIO, "")
	o := stream.Options{Mode: stream.ModeFromSnapshot, SnapshotID: 1, ConsumerID: "sink"}
	f := follower(tbl, o)
	s, err := f.Next(ctx)
	if err != nil || s.ID != 1 || s.Next != 2 {
		t.Fatalf("Next = %v, %v", s, err)
	}
	if _, err := f.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := cm.Read(ctx, "sink"); ok {
		t.Fatal("exactly-once wrote the consumer before a checkpoint")
	}
	if err := f.Checkpoint(ctx, s.Next); err != nil {
		t.Fatal(err)
	}
	if n, ok, err := cm.Read(ctx, "sink"); n != 2 || !ok || err != nil {
		t.Fatalf("consumer = %d %v %v, want 2", n, ok, err)
	}
	// A restarted follower resumes at the consumer, not at scan.snapshot-id.
	if got := take(t, follower(tbl, o), 2); !slices.Equal(got, []string{"changes@2 changelog=false", "changes@5 changelog=false"}) {
		t.Fatalf("resumed: %q", got)
	}
	o.IgnoreProgress = true
	o.SnapshotID = 5
	if got := take(t, follower(tbl, o), 1); !slices.Equal(got, []string{"changes@5 changelog=false"}) {
		t.Fatalf("ignore-progress: %q", got)
	}
}

func TestConsumerAtLeastOnce(t *testing.T) {
	ctx := context.Background()
	tbl := history(t)
	cm := consumer.New(tbl.FileIO, "")
	f := follower(tbl, stream.Options{Mode: stream.ModeFromSnapshot, SnapshotID: 1, ConsumerID: "c", ConsumerMode: stream.AtLeastOnce})
	for _, want := range []int64{0, 2, 3} { // progress seen when asking for deliveries 1, 2, 5
		if _, err := f.Next(ctx); err != nil {
			t.Fatal(err)
		}
		n, _, err := cm.Read(ctx, "c")
		if n != want || err != nil {
			t.Fatalf("consumer = %d, %v; want %d", n, err, want)
		}
	}
}

// TestExpiredNext: a next snapshot expired meanwhile is ErrSnapshotExpired
// naming it; a consumer at it keeps it from expiring.
func TestExpiredNext(t *testing.T) {
	ctx := context.Background()
	tbl := history(t)
	o := stream.Options{Mode: stream.ModeFromSnapshot, SnapshotID: 2, ConsumerID: "keep"}
	f := follower(tbl, o)
	if err := f.Checkpoint(ctx, 2); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(time.Hour)
	if _, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1, RetainMax: 1, OlderThan: old}); err != nil {
		t.Fatal(err)
	}
	if got := take(t, f, 2); !slices.Equal(got, []string{"changes@2 changelog=false", "changes@5 changelog=false"}) {
		t.Fatalf("protected: %q", got)
	}
	if err := consumer.New(tbl.FileIO, "").Delete(ctx, "keep"); err != nil {
		t.Fatal(err)
	}
	if _, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1, RetainMax: 1, OlderThan: old}); err != nil {
		t.Fatal(err)
	}
	_, err := follower(tbl, stream.Options{Mode: stream.ModeFromSnapshot, SnapshotID: 2}).Next(ctx)
	if !errors.Is(err, stream.ErrSnapshotExpired) || !strings.Contains(err.Error(), "snapshot 2") {
		t.Fatalf("Next = %v, want ErrSnapshotExpired naming snapshot 2", err)
	}
}
