package multiwriter_test

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
)

// compactEnv names the stop file of a compactor: a worker process with it
// set runs postpone compactions (commit user "c<id>") in a loop, a short
// random pause after each, until the file exists.
const compactEnv = "MULTIWRITER_COMPACT_UNTIL"

// compactor is the compactor worker: concurrent compactions of the same
// postpone files lose with commit.ErrConflict, which it ignores.
func compactor(id int, url, stop string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tbl, err := paimon.OpenTable(ctx, url)
	if err != nil {
		return err
	}
	defer tbl.Close()
	for {
		if _, err := os.Stat(stop); err == nil {
			return nil
		}
		snap, err := compaction.Compact(ctx, tbl.FileIO(), tbl.Schema(), "c"+strconv.Itoa(id), compaction.Options{})
		switch {
		case errors.Is(err, commit.ErrConflict):
			fmt.Println("conflict")
		case err != nil:
			return err
		case snap == 0:
			fmt.Println("nothing")
		default:
			fmt.Println("committed")
		}
		time.Sleep(time.Duration(rand.IntN(30)) * time.Millisecond)
	}
}

// runCompactors runs n compactor processes on the table at url until stop
// is closed (then the stop file is created and they finish their round).
// With kill set each is killed with SIGKILL once at a random moment and
// started again.
func runCompactors(t *testing.T, url string, n int, kill bool, stop <-chan struct{}) (wait func() int) {
	t.Helper()
	stopFile := filepath.Join(t.TempDir(), "stop")
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	kills := 0
	outcomes := map[string]int{}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			killed := false
			for {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), workerEnv+"="+strconv.Itoa(i), urlEnv+"="+url, compactEnv+"="+stopFile)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Start(); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				var timer *time.Timer
				if kill && !killed {
					killed = true
					timer = time.AfterFunc(time.Duration(100+rand.IntN(1500))*time.Millisecond, func() { _ = cmd.Process.Kill() })
				}
				err := cmd.Wait()
				if timer != nil {
					timer.Stop()
				}
				mu.Lock()
				for _, l := range strings.Fields(stdout.String()) {
					outcomes[l]++
				}
				mu.Unlock()
				var ee *exec.ExitError
				switch {
				case err == nil:
					return // the stop file exists
				case errors.As(err, &ee) && ee.ProcessState.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL:
					mu.Lock()
					kills++
					mu.Unlock()
				default:
					mu.Lock()
					errs = append(errs, fmt.Errorf("compactor %d: %v\n%s", i, err, stderr.String()))
					mu.Unlock()
					return
				}
			}
		}()
	}
	go func() {
		<-stop
		_ = os.WriteFile(stopFile, nil, 0o644)
	}()
	return func() int {
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		t.Logf("compaction rounds: %v", outcomes)
		return kills
	}
}

// postponeFile is a bucket-postpone file an APPEND snapshot added.
type postponeFile struct {
	worker     int
	identifier int64
	snapshot   int64 // the APPEND snapshot that added it
	created    int64
	rows       int64
	deletedBy  int64 // the COMPACT snapshot that deleted it; 0 while live
}

// postponeReplay applies the commits of the table at url in the order its
// postpone compactions routed them: COMPACT snapshots in snapshot order,
// each one's deleted postpone files in creation-time order (ties in commit
// order), as compaction.Postpone replays them. It checks that every
// postpone file an APPEND snapshot added was deleted by exactly one COMPACT
// snapshot, that no other file left bucket-postpone, and that each holds its
// commit's three rows.
func postponeReplay(t *testing.T, url, engine string) []string {
	t.Helper()
	ctx := context.Background()
	tbl, err := paimon.OpenTable(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	snaps := tbl.Snapshots()
	latest, err := snaps.LatestID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*postponeFile{}
	model := map[int32][]any{}
	compactions := 0
	for id := int64(1); id <= latest; id++ {
		s, err := snaps.Get(ctx, id)
		if err != nil {
			t.Fatalf("snapshot %d of %d: %v", id, latest, err)
		}
		if s.CommitUser == "setup" {
			continue
		}
		metas, err := manifest.ReadManifestList(ctx, tbl.FileIO(), s.DeltaManifestList)
		if err != nil {
			t.Fatal(err)
		}
		var es []manifest.Entry
		for _, m := range metas {
			part, err := manifest.ReadManifest(ctx, tbl.FileIO(), m.FileName)
			if err != nil {
				t.Fatal(err)
			}
			es = append(es, part...)
		}
		if s.CommitKind != snapshot.KindCompact {
			w, err := strconv.Atoi(strings.TrimPrefix(s.CommitUser, "w"))
			if err != nil {
				t.Fatalf("snapshot %d by %q", id, s.CommitUser)
			}
			for _, e := range es {
				if e.Kind != manifest.Add || e.Bucket != -2 {
					t.Fatalf("snapshot %d: APPEND entry %v of bucket %d, want ADDs into bucket-postpone only", id, e.Kind, e.Bucket)
				}
				files[e.File.FileName] = &postponeFile{worker: w, identifier: s.CommitIdentifier, snapshot: id, created: *e.File.CreationTime, rows: e.File.RowCount}
			}
			continue
		}
		compactions++
		var routed []*postponeFile
		for _, e := range es {
			if e.Bucket != -2 {
				continue
			}
			f := files[e.File.FileName]
			switch {
			case e.Kind != manifest.Delete:
				t.Fatalf("snapshot %d: COMPACT adds postpone file %s", id, e.File.FileName)
			case f == nil:
				t.Fatalf("snapshot %d: deletes postpone file %s no APPEND snapshot added", id, e.File.FileName)
			case f.deletedBy != 0:
				t.Fatalf("snapshot %d: deletes postpone file %s, deleted already by snapshot %d (its rows applied twice)", id, e.File.FileName, f.deletedBy)
			}
			f.deletedBy = id
			routed = append(routed, f)
		}
		slices.SortStableFunc(routed, func(a, b *postponeFile) int {
			if c := cmp.Compare(a.created, b.created); c != 0 {
				return c
			}
			return cmp.Compare(a.snapshot, b.snapshot)
		})
		for _, f := range routed {
			if f.rows != 3 {
				t.Fatalf("postpone file of commit %d of worker %d holds %d rows, want 3", f.identifier, f.worker, f.rows)
			}
			for _, r := range rowsOf(f.worker, f.identifier, false) {
				k := r[0].(int32)
				old, ok := model[k]
				switch {
				case !ok || engine == "deduplicate" || engine == "deletion-vectors":
					model[k] = r
				case engine == "aggregation":
					model[k] = []any{k, r[1], old[2], old[3].(int64) + r[3].(int64)}
				}
			}
		}
	}
	for name, f := range files {
		if f.deletedBy == 0 {
			t.Fatalf("postpone file %s (commit %d of worker %d) never compacted (its rows lost)", name, f.identifier, f.worker)
		}
	}
	t.Logf("%d postpone files routed by %d COMPACT snapshots", len(files), compactions)
	var out []string
	for _, k := range slices.Sorted(maps.Keys(model)) {
		r := model[k]
		s := make([]string, len(r))
		for i, v := range r {
			s[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(s, "|"))
	}
	return out
}

// TestPostponeWritersAndCompactors: writer processes write overlapping keys
// into bucket-postpone of one postpone-bucket table
// (postpone.batch-write-fixed-bucket = false) while two compactor processes
// run postpone compactions of it over and over; a final compaction routes
// what is left. Every acknowledged commit is published once, every postpone
// file is routed by exactly one COMPACT snapshot (the losers of concurrent
// compactions fail with commit.ErrConflict and publish nothing), and the
// rows read equal the commits applied in the order the compactions routed
// them. Variants: "plain", and "kill", every writer and compactor killed
// with SIGKILL once at a random moment and restarted. Local disk and MinIO;
// short form 4 writers × 10 commits, deduplicate and deduplicate with
// deletion vectors (each compaction lookup-compacts the routed rows up and
// replaces the buckets' deletion-vector index files, so concurrent
// compactions also meet on those); -multiwriter.long: 4 × 50, also
// aggregation.
func TestPostponeWritersAndCompactors(t *testing.T) {
	procs, commits := 4, 10
	if *long {
		commits = 50
	}
	for _, st := range stores {
		for _, e := range procEngines {
			if e.name != "deduplicate" && e.name != "deletion-vectors" && (!*long || e.name != "aggregation") {
				continue
			}
			for _, variant := range []string{"plain", "kill"} {
				t.Run(st.name+"/"+e.name+"/"+variant, func(t *testing.T) {
					opts := map[string]string{"bucket": "-2", "postpone.batch-write-fixed-bucket": "false", "postpone.default-bucket-num": "2"}
					maps.Copy(opts, e.options)
					tbl := tabletest.NewTable(t, st.url(t), catalog.Schema{Fields: fields, PrimaryKeys: []string{"k"}, Options: opts})
					url := tbl.FileIO.URL()
					stop := make(chan struct{})
					wait := runCompactors(t, url, 2, variant == "kill", stop)
					acks, kills := runWorkers(t, url, procs, commits, false, variant == "kill")
					close(stop)
					kills += wait()
					if len(acks) != procs*commits {
						t.Fatalf("%d commits acknowledged, want %d", len(acks), procs*commits)
					}
					replay(t, url, e.name, acks) // every acknowledged commit published once
					if _, err := compaction.Compact(context.Background(), tbl.FileIO, tbl.Schema, "compact", compaction.Options{}); err != nil {
						t.Fatal(err)
					}
					want := postponeReplay(t, url, e.name)
					if len(want) != keys {
						t.Fatalf("replay gives %d rows, want %d", len(want), keys)
					}
					if got := tabletest.ReadRows(t, url); !slices.Equal(got, want) {
						t.Fatalf("rows\n%q\nwant (replay in compaction order)\n%q", got, want)
					}
					t.Logf("%d writers × %d commits, 2 compactors (%s, %d killed): %d rows equal the replay", procs, commits, variant, kills, len(want))
				})
			}
		}
	}
}
