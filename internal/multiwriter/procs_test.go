package multiwriter_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/testenv"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

var long = flag.Bool("multiwriter.long", false, "run the long form of the multi-process tests (4 processes × 50 commits, every merge engine)")

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		os.Exit(worker())
	}
	testenv.Main(m)
}

// The worker: the test binary re-executed with workerEnv set. It writes
// commits rows of one primary-key table as commit user "w<id>" with one
// long-lived writer and committer, as a service replica would, and prints
// one JSON line per acknowledged commit.
const (
	workerEnv = "MULTIWRITER_WORKER" // the worker's id
	urlEnv    = "MULTIWRITER_URL"
	commitEnv = "MULTIWRITER_COMMITS"
	// rtEnv set to "1" makes the worker write through a real-time context
	// (Write, PrepareCommitWithProgress, CommitWithProgress) instead of a
	// plain writer.
	rtEnv = "MULTIWRITER_REALTIME"
	// startEnv is the identifier of the worker's first commit (a restarted
	// worker continues after its last acknowledged one).
	startEnv = "MULTIWRITER_START"
	// deletesEnv set to "1" makes every commit of the worker also insert
	// and delete a key (deletesOf) through the row kind column.
	deletesEnv = "MULTIWRITER_DELETES"
	// barrierEnv names a directory: a worker starting at its first commit
	// writes its first batch (its writer restores the bucket), creates a
	// file there and waits until deleteWorkers files exist before it
	// commits, so every writer's view of the bucket starts empty.
	barrierEnv = "MULTIWRITER_BARRIER"
)

// stores are the stores every multi-process test runs on: a warehouse URL
// for a test ("" is a local temporary directory).
var stores = []struct {
	name string
	url  func(t testing.TB) string
}{
	{"local", func(testing.TB) string { return "" }},
	{"minio", testenv.MinIO},
}

// emulators are the further stores TestWritersShareBucket runs on (the
// deduplicate engine): fake-gcs-server and Azurite. Each sets its
// credentials in the environment (t.Setenv), which the worker processes
// inherit.
var emulators = []struct {
	name string
	url  func(t testing.TB) string
}{
	{"gcs", testenv.FakeGCS},
	{"azure", testenv.Azurite},
}

// keys is the key space the workers write: every commit upserts three keys,
// chosen so that every pair of workers overlaps.
const keys = 6

// ack is a worker's report of one acknowledged commit.
type ack struct {
	Worker     int   `json:"worker"`
	Identifier int64 `json:"identifier"`
	Snapshot   int64 `json:"snapshot"`
	Compacted  bool  `json:"compacted"`         // false: the compaction part was refused
	Refused    int   `json:"refused,omitempty"` // cross-partition commits refused and retried
}

// rowsOf returns the rows worker w writes in its commit with identifier id:
// k, v, f, s (see table). Partial-update tables get nulls in f on odd and
// in s on identifiers not divisible by 3.
func rowsOf(w int, id int64, partial bool) [][]any {
	var out [][]any
	for m := range 3 {
		k := int32((int64(w) + id*3 + int64(m)) % keys)
		v := fmt.Sprintf("w%d-%d-k%d", w, id, k)
		var f, s any = v, int64(w)*1000 + id
		if partial && id%2 == 1 {
			f = nil
		}
		if partial && id%3 != 0 {
			s = nil
		}
		out = append(out, []any{k, v, f, s})
	}
	return out
}

// deleteWorkers is the number of workers of the tests whose workers
// delete (TestWritersShareBucket's procs).
const deleteWorkers = 4

// uniqueKey is the key only worker w's commit with identifier id inserts
// when the workers delete; no other commit upserts it.
func uniqueKey(w int, id int64) int32 { return int32(100 + w*1000 + int(id)) }

// deletesOf returns the extra rows of worker w's commit with identifier id
// when the workers delete: an insert of uniqueKey(w, id), and the key the
// next worker inserted in its previous commit, to delete (ok false for
// the first commit). A delete that is applied after that insert must stay
// applied: a compaction that drops the delete record without having read
// the other writer's file would bring the row back.
func deletesOf(w int, id int64) (insert []any, deleted int32, ok bool) {
	k := uniqueKey(w, id)
	v := fmt.Sprintf("u%d-%d", w, id)
	return []any{k, v, v, int64(w)*1000 + id}, uniqueKey((w+1)%deleteWorkers, id-1), id > 1
}

var fields = []types.DataField{
	{Name: "k", Type: types.Int().NotNull()}, {Name: "v", Type: types.String()},
	{Name: "f", Type: types.String()}, {Name: "s", Type: types.BigInt()},
}

// externalRootsTemp in procEngines stands for two temporary external data
// roots of the test.
const externalRootsTemp = "<temp>"

// procEngines are the merge engines of the multi-process test.
var procEngines = []struct {
	name    string
	options map[string]string
	short   bool // part of the short (CI) form
	// deletes: every commit also inserts a key of its own and deletes
	// another worker's (deletesOf), so a compaction that drops delete
	// records over rows it did not read shows as a resurrected row.
	deletes bool
}{
	{"deduplicate", nil, true, false},
	{"deduplicate deletes", map[string]string{"num-sorted-run.compaction-trigger": "2"}, true, true},
	{"aggregation", map[string]string{"merge-engine": "aggregation", "fields.v.aggregate-function": "last_value",
		"fields.f.aggregate-function": "first_value", "fields.s.aggregate-function": "sum"}, true, false},
	// Lookup changelog: each compaction output holds the key's whole
	// history and reads take the lowest level's record (lookup merge), so a
	// compaction committed over another writer's would count twice.
	{"aggregation lookup", map[string]string{"merge-engine": "aggregation", "fields.v.aggregate-function": "last_value",
		"fields.f.aggregate-function": "first_value", "fields.s.aggregate-function": "sum", "changelog-producer": "lookup"}, true, false},
	// File indexes: re-sequenced copies get indexes of their own (a
	// <data file>.index file here); the copies of an attempt that was not
	// published are deleted with their index files.
	{"deduplicate file index", map[string]string{"file-index.bloom-filter.columns": "k,v",
		"file-index.bloom-filter.k.items": "1000", "file-index.bloom-filter.v.items": "1000", "file-index.in-manifest-threshold": "1"}, true, false},
	// External data paths (data-file.external-paths; local disk only, the
	// roots are a temporary directory): re-sequenced copies are read from
	// and written below the external roots.
	{"deduplicate external paths", map[string]string{"data-file.external-paths": externalRootsTemp,
		"data-file.external-paths.strategy": "round-robin"}, true, false},
	{"partial-update", map[string]string{"merge-engine": "partial-update"}, false, false},
	{"first-row", map[string]string{"merge-engine": "first-row"}, false, false},
	// Deletion vectors: reads skip level 0 (as in Java), and a writer whose
	// level-0 compaction is refused leaves its files there until a later
	// compaction, so the rows are compared after the full compaction only.
	{"deletion-vectors", map[string]string{"deletion-vectors.enabled": "true"}, false, false},
	{"deletion-vectors deletes", map[string]string{"deletion-vectors.enabled": "true"}, false, true},
	{"deduplicate deletes lookup", map[string]string{"changelog-producer": "lookup"}, false, true},
	{"deletion-vectors aggregation lookup", map[string]string{"deletion-vectors.enabled": "true", "changelog-producer": "lookup",
		"merge-engine": "aggregation", "fields.v.aggregate-function": "last_value",
		"fields.f.aggregate-function": "first_value", "fields.s.aggregate-function": "sum"}, false, false},
}

func worker() int {
	id, _ := strconv.Atoi(os.Getenv(workerEnv))
	if stop := os.Getenv(plannerEnv); stop != "" {
		if err := planner(os.Getenv(urlEnv), stop, os.Getenv(dupsEnv) == "1"); err != nil {
			fmt.Fprintf(os.Stderr, "planner: %v\n", err)
			return 1
		}
		return 0
	}
	if stop := os.Getenv(compactEnv); stop != "" {
		if err := compactor(id, os.Getenv(urlEnv), stop); err != nil {
			fmt.Fprintf(os.Stderr, "compactor %d: %v\n", id, err)
			return 1
		}
		return 0
	}
	commits, _ := strconv.Atoi(os.Getenv(commitEnv))
	first, _ := strconv.Atoi(os.Getenv(startEnv))
	work := work
	if os.Getenv(xpartEnv) == "1" {
		work = func(id, first, commits int, url string, _ bool) error { return xpartWork(id, first, commits, url) }
	}
	if err := work(id, first, commits, os.Getenv(urlEnv), os.Getenv(rtEnv) == "1"); err != nil {
		fmt.Fprintf(os.Stderr, "worker %d: %v\n", id, err)
		return 1
	}
	return 0
}

// committer writes one batch and commits it as ident: the snapshot id and
// whether the compaction part landed.
type committer func(ctx context.Context, ident int64, rec arrow.RecordBatch) (snap int64, compacted bool, err error)

// work makes the commits first..commits of worker id and prints an ack for
// each. rt writes through a real-time context (rows are served from memory
// at once and committed with their progress; the committer re-sequences
// the flushed files like any others), otherwise through a plain writer.
func work(id, first, commits int, url string, rt bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tbl, err := paimon.OpenTable(ctx, url)
	if err != nil {
		return err
	}
	defer tbl.Close()
	user := "w" + strconv.Itoa(id)
	var commit committer
	wait := func() error { return nil }
	if dir := os.Getenv(barrierEnv); dir != "" && first == 1 {
		wait = func() error { return barrier(ctx, dir, id) }
	}
	if rt {
		commit, err = realtimeCommitter(tbl, user, wait)
	} else {
		commit, err = plainCommitter(tbl, user, wait)
	}
	if err != nil {
		return err
	}
	engine, err := tbl.Schema().Options.MergeEngine()
	if err != nil {
		return err
	}
	partial := engine == schema.MergePartialUpdate
	sc := types.SchemaToArrow(tbl.Schema().Fields)
	deletes := os.Getenv(deletesEnv) == "1"
	if deletes {
		sc = arrow.NewSchema(append(sc.Fields(), arrow.Field{Name: writer.DefaultRowKindColumn, Type: arrow.BinaryTypes.String}), nil)
	}
	out := json.NewEncoder(os.Stdout)
	unique := os.Getenv(uniqueEnv) == "1"
	for ident := int64(first); ident <= int64(commits); ident++ {
		rows := rowsOf(id, ident, partial)
		if unique {
			rows = uniqueRowsOf(id, ident)
		}
		if deletes {
			ins, del, ok := deletesOf(id, ident)
			rows = append(rows, ins)
			for i := range rows {
				rows[i] = append(rows[i], "+I")
			}
			if ok {
				rows = append(rows, []any{del, nil, nil, nil, "-D"})
			}
		}
		rec, err := tabletest.NewBatch(sc, rows...)
		if err != nil {
			return err
		}
		snap, compacted, err := commit(ctx, ident, rec)
		rec.Release()
		if err != nil {
			return fmt.Errorf("commit %d: %w", ident, err)
		}
		if err := out.Encode(ack{Worker: id, Identifier: ident, Snapshot: snap, Compacted: compacted}); err != nil {
			return err
		}
	}
	return nil
}

// plainCommitter writes with one long-lived writer.Write and commits with
// one Committer, restoring the writer when its compaction is refused. The
// process exits when done, so nothing is closed.
func plainCommitter(tbl *paimon.Table, user string, wait func() error) (committer, error) {
	w, err := tbl.NewWrite(user)
	if err != nil {
		return nil, err
	}
	c, err := tbl.NewCommit(user)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, ident int64, rec arrow.RecordBatch) (int64, bool, error) {
		if err := w.Write(ctx, rec); err != nil {
			return 0, false, err
		}
		if err := wait(); err != nil {
			return 0, false, err
		}
		wait = func() error { return nil }
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			return 0, false, err
		}
		// A refusal the writer takes over (it reloads its levels) is
		// counted as a refused compaction too.
		refused := false
		for i := range msgs {
			if f := msgs[i].OnCompactionRefused; f != nil {
				msgs[i].OnCompactionRefused = func(p []byte, b int32) { refused = true; f(p, b) }
			}
		}
		snap, err := c.Commit(ctx, ident, msgs)
		if errors.Is(err, commit.ErrCompactionNotCommitted) {
			// The data is committed; the writer's levels describe a
			// compaction the table refused.
			return snap, false, w.Restore(ctx)
		}
		return snap, !refused, err
	}, nil
}

// realtimeCommitter writes through a real-time context.
func realtimeCommitter(tbl *paimon.Table, user string, wait func() error) (committer, error) {
	rc, err := tbl.NewRealtimeContext()
	if err != nil {
		return nil, err
	}
	w, err := rc.NewWrite(user)
	if err != nil {
		return nil, err
	}
	cm, err := rc.NewCommit(user)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, ident int64, rec arrow.RecordBatch) (int64, bool, error) {
		if err := w.Write(ctx, rec); err != nil {
			return 0, false, err
		}
		if err := wait(); err != nil {
			return 0, false, err
		}
		wait = func() error { return nil }
		prog, err := w.PrepareCommitWithProgress(ctx, ident)
		if err != nil {
			return 0, false, err
		}
		snap, err := cm.CommitWithProgress(ctx, prog, ident, nil)
		if err != nil {
			return 0, false, err
		}
		return snap, true, rc.RefreshCommittedSnapshot(ctx, snap)
	}, nil
}

// barrier creates worker id's file in dir and waits until deleteWorkers
// files are there (see barrierEnv).
func barrier(ctx context.Context, dir string, id int) error {
	if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(id)), nil, 0o644); err != nil {
		return err
	}
	for {
		es, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		if len(es) >= deleteWorkers {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("barrier: %d of %d workers: %w", len(es), deleteWorkers, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// runWorkers starts n worker processes on the table at url, each making
// commits commits (worker 0 through a real-time context when rt is set),
// waits for them and returns their acknowledgements. With kill set, each
// worker is killed with SIGKILL once at a random moment of its run and
// started again from its first unacknowledged commit with the same commit
// user, as a restarted replica would be (the committer's idempotency skips
// a commit the killed process published without acknowledging it).
func runWorkers(t *testing.T, url string, n, commits int, rt, kill bool) (acks []ack, kills int) {
	t.Helper()
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first, killed := 1, false
			for first <= commits {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), workerEnv+"="+strconv.Itoa(i), urlEnv+"="+url,
					commitEnv+"="+strconv.Itoa(commits), startEnv+"="+strconv.Itoa(first))
				if rt && i == 0 {
					cmd.Env = append(cmd.Env, rtEnv+"=1")
				}
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Start(); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				var timer *time.Timer
				// The real-time worker is not killed: replaying after a crash
				// is the real-time layer's own protocol (package realtime,
				// recovery), tested there.
				if kill && !killed && !(rt && i == 0) {
					killed = true
					timer = time.AfterFunc(time.Duration(200+rand.IntN(1800))*time.Millisecond, func() { _ = cmd.Process.Kill() })
				}
				err := cmd.Wait()
				if timer != nil {
					timer.Stop()
				}
				sc := bufio.NewScanner(&stdout)
				mu.Lock()
				for sc.Scan() {
					var a ack
					if jerr := json.Unmarshal(sc.Bytes(), &a); jerr != nil {
						errs = append(errs, fmt.Errorf("worker %d printed %q: %w", i, sc.Text(), jerr))
						continue
					}
					acks = append(acks, a)
					first = int(a.Identifier) + 1
				}
				var ee *exec.ExitError
				switch {
				case err == nil:
				case errors.As(err, &ee) && ee.ProcessState.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL:
					kills++
				default:
					errs = append(errs, fmt.Errorf("worker %d: %v\n%s", i, err, stderr.String()))
					first = commits + 1
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return acks, kills
}

// replay applies the APPEND snapshots of the table at url in snapshot order
// to a model of the merge engine and returns the rows it gives, checking
// that they are exactly the acknowledged commits, each once.
func replay(t *testing.T, url, engine string, acks []ack) []string {
	rows, _ := replayDeletes(t, url, engine, acks, false)
	return rows
}

// replayDeletes is replay for workers that also delete a key per commit
// when deletes is set (deduplicate tables); it also returns the number of
// COMPACT snapshots.
func replayDeletes(t *testing.T, url, engine string, acks []ack, deletes bool) (rows []string, compacts int) {
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
	acked := map[[2]int64]int64{} // (worker, identifier) -> snapshot
	for _, a := range acks {
		acked[[2]int64{int64(a.Worker), a.Identifier}] = a.Snapshot
	}
	model := map[int32][]any{}
	seen := map[[2]int64]bool{}
	for id := int64(1); id <= latest; id++ {
		s, err := snaps.Get(ctx, id)
		if err != nil {
			t.Fatalf("snapshot %d of %d: %v", id, latest, err)
		}
		if s.CommitKind == snapshot.KindCompact {
			compacts++
		}
		if s.CommitKind == snapshot.KindCompact || s.CommitUser == "setup" {
			continue
		}
		w, err := strconv.Atoi(strings.TrimPrefix(s.CommitUser, "w"))
		if err != nil {
			t.Fatalf("snapshot %d by %q", id, s.CommitUser)
		}
		key := [2]int64{int64(w), s.CommitIdentifier}
		if seen[key] {
			t.Fatalf("snapshot %d: commit %d of worker %d published twice", id, s.CommitIdentifier, w)
		}
		seen[key] = true
		// Commit returns the id of the last snapshot it created: the
		// APPEND snapshot or its COMPACT snapshot, later.
		if got, ok := acked[key]; !ok || got < id {
			t.Fatalf("snapshot %d: commit %d of worker %d acknowledged as snapshot %d (present %v)", id, s.CommitIdentifier, w, got, ok)
		}
		for _, r := range rowsOf(w, s.CommitIdentifier, engine == "partial-update") {
			k := r[0].(int32)
			old, ok := model[k]
			switch {
			case !ok || engine == "deduplicate":
				model[k] = r
			case engine == "first-row":
			case engine == "aggregation":
				model[k] = []any{k, r[1], old[2], old[3].(int64) + r[3].(int64)}
			case engine == "partial-update":
				next := slices.Clone(old)
				for c := 1; c < len(r); c++ {
					if r[c] != nil {
						next[c] = r[c]
					}
				}
				model[k] = next
			}
		}
		if deletes {
			ins, del, ok := deletesOf(w, s.CommitIdentifier)
			model[ins[0].(int32)] = ins
			if ok {
				delete(model, del)
			}
		}
	}
	if len(seen) != len(acked) {
		t.Fatalf("%d commits published, %d acknowledged", len(seen), len(acked))
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(model)) {
		r := model[k]
		s := make([]string, len(r))
		for i, v := range r {
			if v == nil {
				s[i] = "(null)"
			} else {
				s[i] = fmt.Sprint(v)
			}
		}
		out = append(out, strings.Join(s, "|"))
	}
	slices.Sort(out)
	return out, compacts
}

// rowsDiff describes how the sorted rows got differ from want: the rows
// only got has and those only want has.
func rowsDiff(got, want []string) string {
	var extra, missing []string
	for _, r := range got {
		if _, ok := slices.BinarySearch(want, r); !ok {
			extra = append(extra, r)
		}
	}
	for _, r := range want {
		if _, ok := slices.BinarySearch(got, r); !ok {
			missing = append(missing, r)
		}
	}
	return fmt.Sprintf("%d rows, want %d; not in the replay %q; missing %q", len(got), len(want), extra, missing)
}

// TestWritersShareBucket is issue 11's acceptance test of part 2: worker
// processes upsert overlapping keys of one bucket at once, each with its
// own writer and committer; the rows read equal a serial replay of the
// published commits in snapshot order, before and after a full compaction,
// on local disk and MinIO. Variants: "rt", worker 0 writes through a
// real-time context (realtime.enabled); "kill", every plain worker is
// killed with SIGKILL once at a random moment and restarted. The
// deduplicate engine's plain and kill variants also run on fake-gcs-server
// and Azurite. Short form: 4
// processes × 10 commits, deduplicate and aggregation; -multiwriter.long:
// 4 × 50, every engine.
func TestWritersShareBucket(t *testing.T) {
	procs, commits := 4, 10
	if *long {
		commits = 50
	}
	variants := []string{"plain", "rt", "kill"}
	for i, st := range append(stores[:len(stores):len(stores)], emulators...) {
		for _, e := range procEngines {
			for _, variant := range variants {
				if !*long && (!e.short || (variant != "plain" && e.name != "deduplicate")) {
					continue
				}
				if i >= len(stores) && (e.name != "deduplicate" || variant == "rt") {
					continue // the emulators: the engine-independent commit races
				}
				if variant == "rt" && e.name == "first-row" {
					continue // the real-time layer refuses first-row tables
				}
				if e.options["data-file.external-paths"] != "" && st.name != "local" {
					continue
				}
				t.Run(st.name+"/"+e.name+"/"+variant, func(t *testing.T) {
					if e.deletes {
						t.Setenv(deletesEnv, "1")
						t.Setenv(barrierEnv, t.TempDir())
					}
					shareBucket(t, st.url(t), e.name, e.options, procs, commits, variant)
				})
			}
		}
	}
}

// shareBucket runs the test on a new table at whURL and returns the
// table's URL.
func shareBucket(t *testing.T, whURL, engine string, options map[string]string, procs, commits int, variant string) string {
	opts := map[string]string{"bucket": "1"}
	maps.Copy(opts, options)
	if opts["data-file.external-paths"] == externalRootsTemp {
		opts["data-file.external-paths"] = "file://" + filepath.ToSlash(t.TempDir()) + "/ext1,file://" + filepath.ToSlash(t.TempDir()) + "/ext2"
	}
	if variant == "rt" {
		opts["realtime.enabled"] = "true"
	}
	tbl := tabletest.NewTable(t, whURL, catalog.Schema{Fields: fields, PrimaryKeys: []string{"k"}, Options: opts})
	url := tbl.FileIO.URL()
	acks, kills := runWorkers(t, url, procs, commits, variant == "rt", variant == "kill")
	if len(acks) != procs*commits {
		t.Fatalf("%d commits acknowledged, want %d", len(acks), procs*commits)
	}
	refused := 0
	for _, a := range acks {
		if !a.Compacted {
			refused++
		}
	}
	model := engine
	switch {
	case strings.HasPrefix(engine, "deletion-vectors") && !strings.Contains(engine, "aggregation"), strings.HasPrefix(engine, "deduplicate"):
		model = "deduplicate"
	case strings.Contains(engine, "aggregation"):
		model = "aggregation"
	}
	deletes := os.Getenv(deletesEnv) == "1"
	want, compacts := replayDeletes(t, url, model, acks, deletes)
	if !deletes && len(want) != keys {
		t.Fatalf("replay gives %d rows, want %d", len(want), keys)
	}
	if got := tabletest.ReadRows(t, url); !slices.Equal(got, want) && !strings.HasPrefix(engine, "deletion-vectors") {
		t.Fatalf("rows differ from the serial replay: %s", rowsDiff(got, want))
	}
	if opts["file-index.bloom-filter.columns"] != "" && variant != "kill" {
		// Every index file has its data file: the copies of attempts that
		// were not published went with their index files.
		infos, err := tbl.FileIO.List(context.Background(), "bucket-0")
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, fi := range infos {
			names[path.Base(fi.Path)] = true
		}
		indexes := 0
		for n := range names {
			if data, ok := strings.CutSuffix(n, ".index"); ok {
				indexes++
				if !names[data] {
					t.Errorf("index file %s without its data file", n)
				}
			}
		}
		if indexes == 0 {
			t.Errorf("no index file in bucket-0 (%d files)", len(names))
		}
	}
	if _, err := compaction.Compact(context.Background(), tbl.FileIO, tbl.Schema, "compact", compaction.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	if got := tabletest.ReadRows(t, url); !slices.Equal(got, want) {
		t.Fatalf("rows after full compaction differ from the serial replay: %s", rowsDiff(got, want))
	}
	t.Logf("%d processes × %d commits (%s, %d killed): %d rows equal the serial replay; %d COMPACT snapshots by the writers, %d commits reported a refused compaction",
		procs, commits, variant, kills, len(want), compacts, refused)
	return url
}
