package commit_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/testenv"
)

// damagedStores are the stores the tests of damaged snapshot directories
// run on: a warehouse URL ("" is a local temporary directory).
var damagedStores = map[string]func(t *testing.T) string{
	"local": func(*testing.T) string { return "" },
	"minio": func(t *testing.T) string { return testenv.MinIO(t) },
}

// threeSnapshots returns a table of kvSchema on whURL with snapshots 1..3
// (rows 1|a, 2|a, 3|a) committed and their LATEST hint written.
func threeSnapshots(t *testing.T, whURL string) *catalog.Table {
	t.Helper()
	tbl := tabletest.NewTable(t, whURL, kvSchema)
	c, err := commit.New(tbl.FileIO, tbl.Schema, "a")
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 3; i++ {
		if id, err := c.Commit(context.Background(), i, prepare(t, tbl, "a", []int64{i}, "a")); err != nil || id != i {
			t.Fatalf("commit %d: %d, %v", i, id, err)
		}
	}
	c.Close() // waits for the LATEST hint
	return tbl
}

func putFile(t *testing.T, tbl *catalog.Table, p, data string) {
	t.Helper()
	if err := tbl.FileIO.WriteFile(context.Background(), p, []byte(data)); err != nil {
		t.Fatal(err)
	}
}

func snapshotIDs(t *testing.T, tbl *catalog.Table) []int64 {
	t.Helper()
	ids, err := snapshot.NewManager(tbl.FileIO).IDs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func sortedRows(t *testing.T, tbl *catalog.Table) []string {
	t.Helper()
	rows := tabletest.ReadRows(t, tbl.FileIO.URL())
	slices.Sort(rows)
	return rows
}

// TestLatestHintNamesMissingSnapshot: a LATEST hint naming a snapshot that
// does not exist (a rollback interrupted after deleting the newer snapshots
// and before rewriting the hint, or a snapshot deleted by hand) must not
// break reads: they see the latest snapshot that exists, and commits build
// on it.
func TestLatestHintNamesMissingSnapshot(t *testing.T) {
	for store, wh := range damagedStores {
		t.Run(store, func(t *testing.T) {
			for _, tc := range []struct {
				name   string
				hint   string
				delete string // a snapshot file to delete first
				rows   []string
				next   int64
			}{
				{name: "above", hint: "5", rows: []string{"1|a", "2|a", "3|a"}, next: 4},
				{name: "deleted", hint: "3", delete: "snapshot/snapshot-3", rows: []string{"1|a", "2|a"}, next: 3},
			} {
				t.Run(tc.name, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					tbl := threeSnapshots(t, wh(t))
					if tc.delete != "" {
						if err := tbl.FileIO.Delete(ctx, tc.delete); err != nil {
							t.Fatal(err)
						}
					}
					putFile(t, tbl, "snapshot/LATEST", tc.hint)
					sm := snapshot.NewManager(tbl.FileIO)
					if id, err := sm.LatestID(ctx); err != nil || id != tc.next-1 {
						t.Fatalf("LatestID = %d, %v; want %d", id, err, tc.next-1)
					}
					if got := sortedRows(t, tbl); !slices.Equal(got, tc.rows) {
						t.Fatalf("rows %v, want %v", got, tc.rows)
					}
					c, err := commit.New(tbl.FileIO, tbl.Schema, "b")
					if err != nil {
						t.Fatal(err)
					}
					defer c.Close()
					if id, err := c.Commit(ctx, 1, prepare(t, tbl, "b", []int64{9}, "b")); err != nil || id != tc.next {
						t.Fatalf("Commit = %d, %v; want %d", id, err, tc.next)
					}
					if got, want := sortedRows(t, tbl), append(slices.Clone(tc.rows), "9|b"); !slices.Equal(got, want) {
						t.Fatalf("rows after the commit %v, want %v", got, want)
					}
				})
			}
		})
	}
}

// TestEarliestHintNamesMissingSnapshot: an EARLIEST hint naming a snapshot
// that does not exist, at or above the next id (a rollback to a tag older
// than the earliest snapshot interrupted before it rewrote the hint), made
// every commit take back its snapshot as "created in an expired gap" and
// redo it, forever. Commits must proceed, and readers ignore the hint.
func TestEarliestHintNamesMissingSnapshot(t *testing.T) {
	for store, wh := range damagedStores {
		t.Run(store, func(t *testing.T) {
			for _, hint := range []int64{4, 6} {
				t.Run(strconv.FormatInt(hint, 10), func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					tbl := threeSnapshots(t, wh(t))
					putFile(t, tbl, "snapshot/EARLIEST", strconv.FormatInt(hint, 10))
					sm := snapshot.NewManager(tbl.FileIO)
					if id, err := sm.EarliestID(ctx); err != nil || id != 1 {
						t.Fatalf("EarliestID = %d, %v; want 1", id, err)
					}
					c, err := commit.New(tbl.FileIO, tbl.Schema, "b")
					if err != nil {
						t.Fatal(err)
					}
					defer c.Close()
					for i := int64(1); i <= 2; i++ {
						if id, err := c.Commit(ctx, i, prepare(t, tbl, "b", []int64{10 + i}, "b")); err != nil || id != 3+i {
							t.Fatalf("Commit %d = %d, %v; want %d", i, id, err, 3+i)
						}
					}
					if got := snapshotIDs(t, tbl); !slices.Equal(got, []int64{1, 2, 3, 4, 5}) {
						t.Fatalf("snapshot files %v, want 1..5", got)
					}
					want := []string{"11|b", "12|b", "1|a", "2|a", "3|a"}
					if got := sortedRows(t, tbl); !slices.Equal(got, want) {
						t.Fatalf("rows %v, want %v", got, want)
					}
				})
			}
		})
	}
}

// TestBlockedSnapshotPath: something at snapshot/snapshot-4 that the store
// treats as taken but that is no snapshot (a directory, or a refused write
// the store reports as a failed precondition) made each commit lose
// commit.max-retries races for id 4. It must fail after a few attempts with
// commit.ErrNoProgress naming the path, publish nothing, and leave reads
// alone.
func TestBlockedSnapshotPath(t *testing.T) {
	type tc struct {
		name   string
		whURL  func(t *testing.T) string
		damage func(t *testing.T, tbl *catalog.Table)
	}
	dir := func(t *testing.T, tbl *catalog.Table) { putFile(t, tbl, "snapshot/snapshot-4/junk", "x") }
	var proxy *testenv.FaultProxy
	cases := []tc{
		{name: "local/directory", whURL: damagedStores["local"], damage: dir},
		{name: "minio/precondition-failed", whURL: func(t *testing.T) string {
			var u string
			proxy, u = testenv.NewFaultProxy(t, testenv.MinIO(t))
			return u
		}, damage: func(t *testing.T, tbl *catalog.Table) {
			proxy.Inject(&testenv.Fault{Method: http.MethodPut, Key: "snapshot/snapshot-4", Status: http.StatusPreconditionFailed})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			tbl := threeSnapshots(t, c.whURL(t))
			c.damage(t, tbl)
			cm, err := commit.New(tbl.FileIO, tbl.Schema, "b")
			if err != nil {
				t.Fatal(err)
			}
			defer cm.Close()
			id, err := cm.Commit(ctx, 1, prepare(t, tbl, "b", []int64{9}, "b"))
			if !errors.Is(err, commit.ErrNoProgress) || !strings.Contains(err.Error(), "snapshot/snapshot-4:") || id != 0 {
				t.Fatalf("Commit = %d, %v; want commit.ErrNoProgress naming snapshot/snapshot-4", id, err)
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Commit ran into the test's deadline: %v", err)
			}
			if got := snapshotIDs(t, tbl); !slices.Equal(got, []int64{1, 2, 3}) {
				t.Fatalf("snapshot files %v, want 1..3", got)
			}
			if got, want := sortedRows(t, tbl), []string{"1|a", "2|a", "3|a"}; !slices.Equal(got, want) {
				t.Fatalf("rows %v, want %v", got, want)
			}
		})
	}
}

// TestSnapshotPrefixObjectOnObjectStore: on an object store a key
// snapshot/snapshot-4/junk does not occupy snapshot/snapshot-4 (keys are
// not directories): listing shows a directory there, which is no snapshot,
// and the commit creates snapshot 4 next to it.
func TestSnapshotPrefixObjectOnObjectStore(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tbl := threeSnapshots(t, testenv.MinIO(t))
	putFile(t, tbl, "snapshot/snapshot-4/junk", "x")
	cm, err := commit.New(tbl.FileIO, tbl.Schema, "b")
	if err != nil {
		t.Fatal(err)
	}
	defer cm.Close()
	if id, err := cm.Commit(ctx, 1, prepare(t, tbl, "b", []int64{9}, "b")); err != nil || id != 4 {
		t.Fatalf("Commit = %d, %v; want 4", id, err)
	}
	if got, want := sortedRows(t, tbl), []string{"1|a", "2|a", "3|a", "9|b"}; !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
}

// TestJunkSnapshotFile: a file snapshot/snapshot-4 that is not snapshot JSON
// is the latest snapshot file: reads and commits fail at once with
// snapshot.ErrCorrupt naming it (they never skip it: it may be a snapshot
// damaged in transit, and committing past it would hide its rows).
func TestJunkSnapshotFile(t *testing.T) {
	for store, wh := range damagedStores {
		t.Run(store, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			tbl := threeSnapshots(t, wh(t))
			putFile(t, tbl, "snapshot/snapshot-4", "junk")
			if _, err := tabletest.Cat(ctx, tbl.FileIO.URL()); !errors.Is(err, snapshot.ErrCorrupt) || !strings.Contains(err.Error(), "snapshot/snapshot-4") {
				t.Fatalf("read: %v; want snapshot.ErrCorrupt naming snapshot/snapshot-4", err)
			}
			cm, err := commit.New(tbl.FileIO, tbl.Schema, "b")
			if err != nil {
				t.Fatal(err)
			}
			defer cm.Close()
			id, err := cm.Commit(ctx, 1, prepare(t, tbl, "b", []int64{9}, "b"))
			if !errors.Is(err, snapshot.ErrCorrupt) || !strings.Contains(err.Error(), "snapshot/snapshot-4") || id != 0 {
				t.Fatalf("Commit = %d, %v; want snapshot.ErrCorrupt naming snapshot/snapshot-4", id, err)
			}
		})
	}
}

// TestSnapshotIDOverflow: after snapshot 9223372036854775807 (math.MaxInt64)
// the next id wrapped around and commits wrote
// snapshot--9223372036854775808 and more. Commits and manifest compaction
// must refuse with snapshot.ErrIDOverflow and write no snapshot.
func TestSnapshotIDOverflow(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tbl := threeSnapshots(t, "")
	sm := snapshot.NewManager(tbl.FileIO)
	s, err := sm.Get(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	s.ID = math.MaxInt64
	data, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	putFile(t, tbl, sm.Path(math.MaxInt64), string(data))
	putFile(t, tbl, "snapshot/LATEST", strconv.FormatInt(math.MaxInt64, 10))
	cm, err := commit.New(tbl.FileIO, tbl.Schema, "b")
	if err != nil {
		t.Fatal(err)
	}
	defer cm.Close()
	id, err := cm.Commit(ctx, 1, prepare(t, tbl, "b", []int64{9}, "b"))
	if !errors.Is(err, snapshot.ErrIDOverflow) || !strings.Contains(err.Error(), "snapshot/snapshot-9223372036854775807") || id != 0 {
		t.Fatalf("Commit = %d, %v; want snapshot.ErrIDOverflow naming snapshot-9223372036854775807", id, err)
	}
	if id, err := cm.CompactManifests(ctx); !errors.Is(err, snapshot.ErrIDOverflow) || id != 0 {
		t.Fatalf("CompactManifests = %d, %v; want snapshot.ErrIDOverflow", id, err)
	}
	infos, err := tbl.FileIO.List(ctx, "snapshot")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, fi := range infos {
		names = append(names, fi.Path[strings.LastIndex(fi.Path, "/")+1:])
	}
	want := []string{"LATEST", "snapshot-1", "snapshot-2", "snapshot-3", "snapshot-9223372036854775807"}
	if slices.Sort(names); !slices.Equal(names, want) {
		t.Fatalf("snapshot directory %v, want %v", names, want)
	}
}
