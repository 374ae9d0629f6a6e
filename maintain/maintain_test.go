package maintain_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/maintain"
	"github.com/paimon-go/paimon/memindexer"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

var fields = []types.DataField{{Name: "k", Type: types.BigInt()}, {Name: "dt", Type: types.String()}}

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// env is a table with a committer whose Maintainer uses a test clock and
// collects errors.
type env struct {
	t    *testing.T
	tbl  *catalog.Table
	clk  *clock
	m    *maintain.Maintainer
	c    *commit.Committer
	errs []error
	next int64
}

func newEnv(t *testing.T, s catalog.Schema, start time.Time) *env {
	t.Helper()
	e := &env{t: t, tbl: tabletest.NewTable(t, "", s), clk: &clock{t: start}}
	var err error
	e.m, err = maintain.New(e.tbl.FileIO, e.tbl.Schema, "u", maintain.Options{
		Now: e.clk.now, Zone: time.UTC, OnError: func(err error) { e.errs = append(e.errs, err) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if e.c, err = commit.New(e.tbl.FileIO, e.tbl.Schema, "u", commit.WithMaintainer(e.m)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.c.Close() })
	return e
}

// commit writes rows (k, dt) and commits them; it returns the snapshot id.
func (e *env) commit(rows ...[]any) int64 {
	e.t.Helper()
	rec := tabletest.Batch(e.t, types.SchemaToArrow(e.tbl.Schema.Fields), rows...)
	defer rec.Release()
	msgs := tabletest.Prepare(e.t, e.tbl, "u", rec)
	e.next++
	id, err := e.c.Commit(context.Background(), e.next, msgs)
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

func (e *env) ids() []int64 {
	e.t.Helper()
	ids, err := snapshot.NewManager(e.tbl.FileIO).IDs(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return ids
}

func span(from, to int64) []int64 {
	var out []int64
	for id := from; id <= to; id++ {
		out = append(out, id)
	}
	return out
}

// TestRetainMinAfterTimeRetained: once every snapshot is older than
// snapshot.time-retained, commits keep exactly snapshot.num-retained.min
// snapshots, one expiration per commit, and every row stays readable.
func TestRetainMinAfterTimeRetained(t *testing.T) {
	e := newEnv(t, catalog.Schema{Fields: fields}, time.Now().Add(2*time.Hour))
	var want []string
	for i := range 30 {
		e.commit([]any{int64(i), "a"})
		want = append(want, fmt.Sprintf("%d|a", i))
	}
	if got := e.ids(); !slices.Equal(got, span(21, 30)) {
		t.Fatalf("snapshots %v, want 21..30", got)
	}
	if st := e.m.Stats(); st.SnapshotRuns != 20 || st.SnapshotsExpired != 20 || st.Errors != 0 {
		t.Fatalf("stats %+v, want 20 runs expiring 20 snapshots", st)
	}
	slices.Sort(want)
	if got := tabletest.ReadRows(t, e.tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
}

// TestTimeRetained: snapshots younger than snapshot.time-retained stay,
// however many there are, and the check costs no listing; once the clock
// passes the retention, the next commit expires down to the minimum.
func TestTimeRetained(t *testing.T) {
	now := time.Now()
	e := newEnv(t, catalog.Schema{Fields: fields, Options: map[string]string{
		"snapshot.num-retained.min": "2", "snapshot.time-retained": "1 h",
	}}, now)
	// The first check that finds more than num-retained.min snapshots reads
	// the earliest id (listing the snapshots when there is no EARLIEST hint
	// yet); later ones read nothing but the successor's commit time, once.
	for i := range 3 {
		e.commit([]any{int64(i), "a"})
	}
	before := e.tbl.FileIO.Stats()
	for i := 3; i < 6; i++ {
		e.commit([]any{int64(i), "a"})
	}
	if d := e.tbl.FileIO.Stats().Since(before); d.List != 0 {
		t.Fatalf("%d listings for 3 commits with nothing due", d.List)
	}
	if got := e.ids(); !slices.Equal(got, span(1, 6)) {
		t.Fatalf("snapshots %v, want 1..6", got)
	}
	if st := e.m.Stats(); st.SnapshotRuns != 0 {
		t.Fatalf("stats %+v: no run may happen while nothing is due", st)
	}
	e.clk.set(now.Add(61 * time.Minute))
	e.commit([]any{int64(6), "a"})
	if got := e.ids(); !slices.Equal(got, span(6, 7)) {
		t.Fatalf("snapshots %v, want 6..7", got)
	}
	if st := e.m.Stats(); st.SnapshotRuns != 1 || st.SnapshotsExpired != 5 {
		t.Fatalf("stats %+v, want one run expiring 5", st)
	}
}

// TestExpireLimit: snapshot.expire.limit bounds one run, as in Java.
func TestExpireLimit(t *testing.T) {
	e := newEnv(t, catalog.Schema{Fields: fields, Options: map[string]string{
		"snapshot.num-retained.min": "1", "snapshot.expire.limit": "2", "write-only": "true",
	}}, time.Now().Add(2*time.Hour))
	if e.m.Enabled() {
		t.Fatal("write-only table: Maintainer enabled")
	}
	for i := range 6 {
		e.commit([]any{int64(i), "a"})
	}
	if got := e.ids(); !slices.Equal(got, span(1, 6)) {
		t.Fatalf("write-only: snapshots %v, want 1..6", got)
	}
	// The same table without write-only: each run expires at most 2.
	ts := *e.tbl.Schema
	ts.Options = ts.Options.Clone()
	delete(ts.Options, "write-only")
	m, err := maintain.New(e.tbl.FileIO, &ts, "u", maintain.Options{Now: e.clk.now})
	if err != nil {
		t.Fatal(err)
	}
	m.AfterCommit(context.Background(), 6, 6)
	if got := e.ids(); !slices.Equal(got, span(3, 6)) {
		t.Fatalf("after one run with limit 2: snapshots %v, want 3..6", got)
	}
}

// TestErrorDoesNotFailCommit: an expiration that fails (a table whose
// changelog outlives its snapshots, which package expire refuses) is
// reported to OnError; the commit succeeds.
func TestErrorDoesNotFailCommit(t *testing.T) {
	e := newEnv(t, catalog.Schema{Fields: fields, Options: map[string]string{
		"snapshot.num-retained.min": "1", "snapshot.num-retained.max": "1", "changelog.num-retained.max": "5",
	}}, time.Now())
	e.commit([]any{int64(0), "a"})
	if id := e.commit([]any{int64(1), "a"}); id != 2 {
		t.Fatalf("commit made snapshot %d, want 2", id)
	}
	// Reported once: the Maintainer stops trying.
	e.commit([]any{int64(2), "a"})
	if len(e.errs) != 1 || !errors.Is(e.errs[0], maintain.ErrSnapshotExpiration) || !errors.Is(e.errs[0], expire.ErrUnsupported) {
		t.Fatalf("reported %v, want one ErrSnapshotExpiration wrapping expire.ErrUnsupported", e.errs)
	}
	if !errors.Is(e.m.LastError(), expire.ErrUnsupported) {
		t.Fatalf("LastError %v", e.m.LastError())
	}
}

// TestAsync: in async mode the expiration runs in the background and
// Committer.Close waits for it.
func TestAsync(t *testing.T) {
	e := newEnv(t, catalog.Schema{Fields: fields, Options: map[string]string{
		"snapshot.num-retained.min": "3", "snapshot.expire.execution-mode": "async",
	}}, time.Now().Add(2*time.Hour))
	for i := range 10 {
		e.commit([]any{int64(i), "a"})
	}
	e.c.Close()
	if got := e.ids(); !slices.Equal(got, span(8, 10)) {
		t.Fatalf("snapshots %v, want 8..10", got)
	}
}

// TestConcurrentCommitters: committers of several users expiring in
// parallel keep every row and a contiguous run of snapshots.
func TestConcurrentCommitters(t *testing.T) {
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: fields, Options: map[string]string{
		"snapshot.num-retained.min": "2", "snapshot.num-retained.max": "3",
	}})
	const writers, commits = 4, 8
	var wg sync.WaitGroup
	errs := make(chan error, writers*commits)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := fmt.Sprintf("w%d", w)
			m, err := maintain.New(tbl.FileIO, tbl.Schema, user, maintain.Options{OnError: func(error) {}})
			if err != nil {
				errs <- err
				return
			}
			c, err := commit.New(tbl.FileIO, tbl.Schema, user, commit.WithMaintainer(m))
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for i := range commits {
				rec := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), []any{int64(w*100 + i), user})
				msgs := tabletest.Prepare(t, tbl, user, rec)
				rec.Release()
				if _, err := c.Commit(context.Background(), int64(i+1), msgs); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var want []string
	for w := range writers {
		for i := range commits {
			want = append(want, fmt.Sprintf("%d|w%d", w*100+i, w))
		}
	}
	slices.Sort(want)
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	ids, err := snapshot.NewManager(tbl.FileIO).IDs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	last := ids[len(ids)-1]
	if last != writers*commits || ids[0] < last-2 || !slices.Equal(ids, span(ids[0], last)) {
		t.Fatalf("snapshots %v: want a contiguous run ending at %d of at most 3", ids, writers*commits)
	}
}

// TestCommitWithProgress: real-time commits expire too, the progress of the
// latest snapshot stays readable and the offsets files of the expired
// snapshots are gone.
func TestCommitWithProgress(t *testing.T) {
	e := newEnv(t, catalog.Schema{Fields: fields, Options: map[string]string{
		"realtime.enabled": "true", "snapshot.num-retained.min": "2",
	}}, time.Now().Add(2*time.Hour))
	pb := progress.PartitionBucket{Partition: map[string]string{}, Bucket: 0}
	for i := range 8 {
		rec := tabletest.Batch(t, types.SchemaToArrow(e.tbl.Schema.Fields), []any{int64(i), "a"})
		msgs := tabletest.Prepare(t, e.tbl, "u", rec)
		rec.Release()
		adv := []progress.Advance{{PartitionBucket: pb, Range: progress.Range{Begin: int64(i), End: int64(i + 1)}}}
		if id, err := e.c.CommitWithProgress(context.Background(), int64(i+1), msgs, adv, nil); err != nil || id != int64(i+1) {
			t.Fatalf("CommitWithProgress %d = %d, %v", i+1, id, err)
		}
	}
	if got := e.ids(); !slices.Equal(got, span(7, 8)) {
		t.Fatalf("snapshots %v, want 7..8", got)
	}
	o, err := progress.ReadCommitted(context.Background(), e.tbl.FileIO, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if es := o.Entries(); len(es) != 1 || es[0].End != 8 {
		t.Fatalf("committed progress %v, want end 8", es)
	}
	files, err := e.tbl.FileIO.List(context.Background(), "metadata")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("metadata/ holds %d offsets files, want the 2 of snapshots 7 and 8", len(files))
	}
	if len(e.errs) != 0 {
		t.Fatal(e.errs)
	}
}

// partSchema is partitioned by dt.
func partSchema(opts map[string]string) catalog.Schema {
	o := map[string]string{"partition.expiration-time": "2 d", "partition.expiration-check-interval": "0"}
	maps.Copy(o, opts)
	return catalog.Schema{Fields: fields, PartitionKeys: []string{"dt"}, Options: o}
}

// TestPartitionValuesTime: partitions whose dt is before now − 2 days are
// dropped in one OVERWRITE snapshot; the others, and values that are no
// dates, stay.
func TestPartitionValuesTime(t *testing.T) {
	now := time.Date(2024, 1, 10, 12, 0, 0, 0, time.UTC)
	e := newEnv(t, partSchema(nil), now)
	e.commit([]any{int64(1), "2024-01-01"}, []any{int64(2), "2024-01-05"}, []any{int64(3), "2024-01-08 13:00:00"},
		[]any{int64(4), "2024-01-10"}, []any{int64(5), "x"})
	// 2024-01-08 13:00 is after the cutoff (01-08 12:00): kept.
	want := []string{"3|2024-01-08 13:00:00", "4|2024-01-10", "5|x"}
	if got := tabletest.ReadRows(t, e.tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	s, err := snapshot.NewManager(e.tbl.FileIO).Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != 2 || s.CommitKind != snapshot.KindOverwrite || s.CommitUser != "u" {
		t.Fatalf("latest snapshot %d %s by %s, want 2 OVERWRITE by u", s.ID, s.CommitKind, s.CommitUser)
	}
	if st := e.m.Stats(); st.PartitionsDropped != 2 || st.PartitionChecks != 1 {
		t.Fatalf("stats %+v", st)
	}
	// A day later 2024-01-08 goes too.
	e.clk.set(now.Add(24 * time.Hour))
	e.commit([]any{int64(6), "2024-01-11"})
	want = []string{"4|2024-01-10", "5|x", "6|2024-01-11"}
	if got := tabletest.ReadRows(t, e.tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
}

// TestPartitionCheckInterval: with the default interval of 1 h, counted
// from the Maintainer's creation, no check happens before it passes; with
// end-input.check-partition-expire a batch commit checks at once.
func TestPartitionCheckInterval(t *testing.T) {
	now := time.Date(2024, 1, 10, 12, 0, 0, 0, time.UTC)
	e := newEnv(t, partSchema(map[string]string{"partition.expiration-check-interval": "1 h"}), now)
	e.commit([]any{int64(1), "2024-01-01"})
	if st := e.m.Stats(); st.PartitionChecks != 0 {
		t.Fatalf("checked before the interval: %+v", st)
	}
	e.clk.set(now.Add(61 * time.Minute))
	e.commit([]any{int64(2), "2024-01-10"})
	if got, want := tabletest.ReadRows(t, e.tbl.FileIO.URL()), []string{"2|2024-01-10"}; !slices.Equal(got, want) {
		t.Fatalf("rows %q, want %q", got, want)
	}

	b := newEnv(t, partSchema(map[string]string{"partition.expiration-check-interval": "1 h", "end-input.check-partition-expire": "true"}), now)
	rec := tabletest.Batch(t, types.SchemaToArrow(b.tbl.Schema.Fields), []any{int64(1), "2024-01-01"}, []any{int64(2), "2024-01-10"})
	msgs := tabletest.Prepare(t, b.tbl, "u", rec)
	rec.Release()
	if _, err := b.c.Commit(context.Background(), commit.BatchIdentifier, msgs); err != nil {
		t.Fatal(err)
	}
	if got, want := tabletest.ReadRows(t, b.tbl.FileIO.URL()), []string{"2|2024-01-10"}; !slices.Equal(got, want) {
		t.Fatalf("end input: rows %q, want %q", got, want)
	}
}

// TestPartitionPatternFormatter: partition.timestamp-pattern combines
// several keys, partition.timestamp-formatter parses them;
// partition.expiration-max-num and -batch-size bound the drops.
func TestPartitionPatternFormatter(t *testing.T) {
	now := time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC)
	s := catalog.Schema{
		Fields:        []types.DataField{{Name: "k", Type: types.BigInt()}, {Name: "y", Type: types.Int()}, {Name: "md", Type: types.String()}},
		PartitionKeys: []string{"y", "md"},
		Options: map[string]string{
			"partition.expiration-time": "1 d", "partition.expiration-check-interval": "0",
			"partition.timestamp-pattern": "$y$md", "partition.timestamp-formatter": "yyyyMMdd",
			"partition.expiration-max-num": "2", "partition.expiration-batch-size": "1",
		},
	}
	e := newEnv(t, s, now)
	e.commit([]any{int64(1), int32(2024), "0101"}, []any{int64(2), int32(2024), "0102"}, []any{int64(3), int32(2024), "0103"},
		[]any{int64(4), int32(2024), "0310"})
	// Three partitions are expired; max-num 2 drops the first two (sorted by
	// values), one per OVERWRITE snapshot.
	if got, want := tabletest.ReadRows(t, e.tbl.FileIO.URL()), []string{"3|2024|0103", "4|2024|0310"}; !slices.Equal(got, want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	if got := e.ids(); !slices.Equal(got, span(1, 3)) {
		t.Fatalf("snapshots %v, want 1..3 (one drop each)", got)
	}
}

// TestPartitionUpdateTime: update-time expires partitions whose newest file
// is older than the expiration time.
func TestPartitionUpdateTime(t *testing.T) {
	now := time.Now()
	e := newEnv(t, partSchema(map[string]string{"partition.expiration-strategy": "update-time"}), now)
	e.commit([]any{int64(1), "a"}, []any{int64(2), "b"})
	if got := e.ids(); !slices.Equal(got, span(1, 1)) {
		t.Fatalf("snapshots %v: nothing may expire yet", got)
	}
	// Files are stamped with the real clock: 49 h later every partition,
	// including the one just written, is older than 2 days.
	e.clk.set(now.Add(49 * time.Hour))
	e.commit([]any{int64(3), "c"})
	if got := tabletest.ReadRows(t, e.tbl.FileIO.URL()); len(got) != 0 {
		t.Fatalf("rows %q, want none", got)
	}
	if st := e.m.Stats(); st.PartitionsDropped != 3 || st.PartitionChecks != 2 {
		t.Fatalf("stats %+v, want 2 checks dropping 3 partitions", st)
	}
}

// TestUnsupportedFormatter: a formatter outside the supported letters
// turns partition expiration off and says so; committing still works.
func TestUnsupportedFormatter(t *testing.T) {
	tbl := tabletest.NewTable(t, "", partSchema(map[string]string{"partition.timestamp-formatter": "yyyy-MM-dd EEE"}))
	var errs []error
	m, err := maintain.New(tbl.FileIO, tbl.Schema, "u", maintain.Options{OnError: func(err error) { errs = append(errs, err) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != 1 || !errors.Is(errs[0], maintain.ErrPartitionExpiration) || !errors.Is(errs[0], schema.ErrInvalidOption) ||
		!strings.Contains(errs[0].Error(), "partition.timestamp-formatter") {
		t.Fatalf("reported %v", errs)
	}
	if !m.Enabled() {
		t.Fatal("snapshot expiration must stay on")
	}
}

// TestReadExpiredSnapshot: a plan made on a snapshot that the automatic
// expiration removes before it is read fails with reader.ErrSnapshotExpired
// naming the missing file, never with fewer rows; planning an expired
// snapshot id says so too.
func TestReadExpiredSnapshot(t *testing.T) {
	e := newEnv(t, catalog.Schema{Fields: fields, Options: map[string]string{
		"snapshot.num-retained.min": "1", "snapshot.num-retained.max": "1",
	}}, time.Now())
	ctx := context.Background()
	e.commit([]any{int64(1), "a"})
	// Snapshot 2 deletes the file of snapshot 1 (an overwrite), so
	// expiring snapshot 1 deletes that data file.
	plan, err := reader.NewScan(e.tbl.FileIO).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rec := tabletest.Batch(t, types.SchemaToArrow(e.tbl.Schema.Fields), []any{int64(2), "b"})
	msgs := tabletest.Prepare(t, e.tbl, "u", rec)
	rec.Release()
	if _, err := e.c.OverwriteDynamic(ctx, 2, msgs); err != nil {
		t.Fatal(err)
	}
	if got := e.ids(); !slices.Equal(got, span(2, 2)) {
		t.Fatalf("snapshots %v, want 2", got)
	}
	var rows int
	for r, err := range plan.Records(ctx) {
		if err != nil {
			if !errors.Is(err, reader.ErrSnapshotExpired) || !errors.Is(err, fileio.ErrNotExist) || !strings.Contains(err.Error(), ".parquet") {
				t.Fatalf("read error %v, want ErrSnapshotExpired wrapping fileio.ErrNotExist naming the data file", err)
			}
			rows = -1
			break
		}
		rows += int(r.NumRows())
		r.Release()
	}
	if rows != -1 {
		t.Fatalf("read %d rows of an expired snapshot without error", rows)
	}
	_, err = reader.NewScan(e.tbl.FileIO, reader.WithSnapshot(1)).Plan(ctx)
	if !errors.Is(err, reader.ErrNoSnapshot) || !errors.Is(err, reader.ErrSnapshotExpired) {
		t.Fatalf("plan of snapshot 1: %v, want ErrNoSnapshot and ErrSnapshotExpired", err)
	}
}

// TestRealtimeContext: the committers of realtime.Context.NewCommit expire
// snapshots by default; a real-time loop keeps snapshot.num-retained.max
// snapshots, its committed progress stays readable and a real-time scan
// returns every row.
func TestRealtimeContext(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: fields, Options: map[string]string{
		"realtime.enabled": "true", "bucket": "1", "bucket-key": "k",
		"snapshot.num-retained.min": "1", "snapshot.num-retained.max": "3",
	}})
	rc, err := realtime.NewContext(tbl.FileIO, tbl.Schema, memindexer.Factory{})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	w, err := rc.NewWrite("rt")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cm, err := rc.NewCommit("rt")
	if err != nil {
		t.Fatal(err)
	}
	defer cm.Close()
	var want []string
	for i := range 8 {
		rec := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), []any{int64(i), "a"})
		err := w.Write(ctx, rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("%d|a", i))
		prog, err := w.PrepareCommitWithProgress(ctx, int64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		id, err := cm.CommitWithProgress(ctx, prog, int64(i+1), nil)
		if err != nil || id == 0 {
			t.Fatalf("commit %d = %d, %v", i+1, id, err)
		}
		if err := rc.RefreshCommittedSnapshot(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := snapshot.NewManager(tbl.FileIO).IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The writer's own compactions add COMPACT snapshots: the last three
	// snapshots, whatever their ids, are kept.
	if last := ids[len(ids)-1]; last < 8 || !slices.Equal(ids, span(last-2, last)) {
		t.Fatalf("snapshots %v, want the last 3", ids)
	}
	o, err := progress.ReadCommitted(ctx, tbl.FileIO, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if es := o.Entries(); len(es) != 1 || es[0].End != 8 {
		t.Fatalf("committed progress %v, want end 8", es)
	}
	plan, err := rc.NewScan().Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rec, err := range plan.Records(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		ks := rec.Column(0).(*array.Int64)
		for r := range int(rec.NumRows()) {
			got = append(got, fmt.Sprintf("%d|a", ks.Value(r)))
		}
		rec.Release()
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("real-time scan %q, want %q", got, want)
	}
}
