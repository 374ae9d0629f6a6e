package faultmatrix_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/internal/snapfiles"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/testenv"
	"github.com/paimon-go/paimon/types"
)

var long = flag.Bool("faults.long", false, "fault matrix: fail every request of every operation (default: the requests on snapshot/ files)")

func TestMain(m *testing.M) { testenv.Main(m) }

var fields = []types.DataField{{Name: "k", Type: types.Int()}, {Name: "v", Type: types.String()}}

// operation is one table operation of the matrix.
type operation struct {
	name   string
	schema catalog.Schema
	// setup brings a fresh table into the state the operation starts from
	// (no faults).
	setup func(ctx context.Context, t *testing.T, tbl *catalog.Table)
	// run is the operation; the caller's retry after an error is run again
	// (a new committer of the same commit user and identifier). Commit
	// operations have prepare instead, which writes their data files
	// before the faults and returns the run.
	run     func(ctx context.Context, t *testing.T, tbl *catalog.Table) error
	prepare func(t *testing.T, tbl *catalog.Table) func(ctx context.Context, t *testing.T, tbl *catalog.Table) error
	// want are the rows after the operation (and its retry).
	want []string
}

func appendSchema() catalog.Schema { return catalog.Schema{Fields: fields} }

func pkSchema() catalog.Schema {
	return catalog.Schema{Fields: fields, PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "1"}}
}

// commitRows writes rows with a new writer and commits them as commitUser's
// identifier.
func commitRows(ctx context.Context, t *testing.T, tbl *catalog.Table, commitUser string, identifier int64, rows ...[]any) error {
	rec := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), rows...)
	defer rec.Release()
	_, err := tabletest.Commit(ctx, tbl, commitUser, identifier, rec)
	return err
}

// prepareCommit writes rows with a new writer (before the faults, so that
// they meet only the committer's requests) and returns the run that commits
// them with a new committer of user "op", identifier 1.
func prepareCommit(rows ...[]any) func(t *testing.T, tbl *catalog.Table) func(ctx context.Context, t *testing.T, tbl *catalog.Table) error {
	return func(t *testing.T, tbl *catalog.Table) func(ctx context.Context, t *testing.T, tbl *catalog.Table) error {
		rec := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), rows...)
		defer rec.Release()
		msgs := tabletest.Prepare(t, tbl, "op", rec)
		return func(ctx context.Context, t *testing.T, tbl *catalog.Table) error {
			c, err := commit.New(tbl.FileIO, tbl.Schema, "op")
			if err != nil {
				return err
			}
			_, err = c.Commit(ctx, 1, msgs)
			return errors.Join(err, c.Close())
		}
	}
}

func setupRows(commits ...[][]any) func(ctx context.Context, t *testing.T, tbl *catalog.Table) {
	return func(ctx context.Context, t *testing.T, tbl *catalog.Table) {
		for i, rows := range commits {
			if err := commitRows(ctx, t, tbl, "setup", int64(i+1), rows...); err != nil {
				t.Fatal(err)
			}
		}
	}
}

var pkCommits = [][][]any{
	{{int32(1), "a"}, {int32(2), "b"}},
	{{int32(2), "B"}, {int32(3), "c"}},
	{{int32(4), "d"}},
}

func operations() []operation {
	return []operation{{
		name:    "append commit",
		schema:  appendSchema(),
		setup:   setupRows([][]any{{int32(1), "a"}}),
		prepare: prepareCommit([]any{int32(2), "b"}),
		want:    []string{"1|a", "2|b"},
	}, {
		name:    "primary-key commit",
		schema:  pkSchema(),
		setup:   setupRows(pkCommits[:2]...),
		prepare: prepareCommit([]any{int32(3), "C"}, []any{int32(5), "e"}),
		want:    []string{"1|a", "2|B", "3|C", "5|e"},
	}, {
		name:   "compaction",
		schema: pkSchema(),
		setup:  setupRows(pkCommits...),
		run: func(ctx context.Context, t *testing.T, tbl *catalog.Table) error {
			_, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "compactor", compaction.Options{Full: true})
			return err
		},
		want: []string{"1|a", "2|B", "3|c", "4|d"},
	}, {
		name:   "manifest compaction",
		schema: appendSchema(),
		setup:  setupRows([][]any{{int32(1), "a"}}, [][]any{{int32(2), "b"}}, [][]any{{int32(3), "c"}}),
		run: func(ctx context.Context, t *testing.T, tbl *catalog.Table) error {
			c, err := commit.New(tbl.FileIO, tbl.Schema, "op")
			if err != nil {
				return err
			}
			// A retry after an unknown outcome may find nothing to do.
			_, err = c.CompactManifests(ctx)
			return errors.Join(err, c.Close())
		},
		want: []string{"1|a", "2|b", "3|c"},
	}, {
		name:   "expiration",
		schema: pkSchema(),
		setup: func(ctx context.Context, t *testing.T, tbl *catalog.Table) {
			setupRows(pkCommits...)(ctx, t, tbl)
			if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "compactor", compaction.Options{Full: true}); err != nil {
				t.Fatal(err)
			}
		},
		run: func(ctx context.Context, t *testing.T, tbl *catalog.Table) error {
			_, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{
				RetainMin: 1, RetainMax: 1, OlderThan: time.Now().Add(time.Hour),
			})
			return err
		},
		want: []string{"1|a", "2|B", "3|c", "4|d"},
	}}
}

// kind is one way of failing a request: faults returns the proxy faults
// that fail the skip-th request of class (0-based) with method.
type kind struct {
	name   string
	faults func(method, class string, skip int) []*testenv.Fault
}

func once(method, class string, skip int, after bool, status, times int) *testenv.Fault {
	return &testenv.Fault{Method: method, Class: class, Skip: skip, After: after, Status: status, Times: times}
}

// kinds returns the ways of failing a request of method.
func kinds(method string) []kind {
	fail := func(name string, after bool, status, times int) kind {
		return kind{name, func(m, c string, k int) []*testenv.Fault {
			return []*testenv.Fault{once(m, c, k, after, status, times)}
		}}
	}
	dropped := kind{"applied, connection closed without an answer", func(m, c string, k int) []*testenv.Fault {
		return []*testenv.Fault{{Method: m, Class: c, Skip: k, After: true, Drop: true, Times: 1}}
	}}
	lostThenRead := func(name string, status, times, putTimes int) kind {
		return kind{name, func(m, c string, k int) []*testenv.Fault {
			put := once(m, c, k, true, 500, putTimes)
			get := once(http.MethodGet, c, 0, false, status, times)
			get.Armed = put
			return []*testenv.Fault{put, get}
		}}
	}
	switch method {
	case http.MethodPut, http.MethodPost: // POST: GCS uploads
		return []kind{
			fail("applied, answer lost (500)", true, 500, 1),
			fail("applied, answer lost (503 SlowDown)", true, 503, 1),
			dropped,
			fail("applied, answered 409 ConditionalRequestConflict", true, 409, 1),
			lostThenRead("applied, answer lost, read-back denied once", 403, 1, 1),
			lostThenRead("applied, answer lost, read-back fails 4 times", 500, 4, 1),
			lostThenRead("applied, every answer lost, every read-back fails", 500, 0, 0),
			fail("refused with 409 ConditionalRequestConflict", false, 409, 1),
			fail("refused with 412", false, 412, 1),
			fail("refused with 503 SlowDown 4 times", false, 503, 4),
			fail("denied", false, 403, 1),
		}
	case http.MethodDelete:
		return []kind{
			fail("applied, answer lost (500)", true, 500, 1),
			dropped,
			fail("fails 4 times", false, 500, 4),
			fail("denied", false, 403, 1),
		}
	case http.MethodGet:
		return []kind{
			fail("answer lost (500)", true, 500, 1),
			dropped,
			fail("fails 4 times", false, 500, 4),
			fail("denied", false, 403, 1),
		}
	}
	return []kind{fail("fails 4 times", false, 500, 4), fail("denied", false, 403, 1)}
}

// target is one request of a clean run: its method, the class of its key
// and how many requests of that method and class came before it.
type target struct {
	method, class string
	skip          int
}

func targets(log []string, all bool) []target {
	var out []target
	seen := map[[2]string]int{}
	for _, l := range log {
		method, key, _ := strings.Cut(l, " ")
		class := testenv.KeyClass(key)
		k := [2]string{method, class}
		n := seen[k]
		seen[k]++
		if !all && (n > 0 || !shortClass.MatchString(class) || (method != http.MethodPut && method != http.MethodPost && method != http.MethodDelete)) {
			continue
		}
		out = append(out, target{method, class, n})
	}
	return out
}

// shortClass matches the keys whose PUTs and DELETEs the short form fails:
// snapshot files and the EARLIEST hint.
var shortClass = regexp.MustCompile(`/snapshot/(snapshot-[0-9]+|EARLIEST)$`)

// tally counts the outcomes of the matrix.
type tally struct {
	operations, cases, failedOps, corrupt, lost, duplicated int
}

// store opens a fresh bucket behind a fault proxy and returns the proxy
// and the bucket's URL for fileio.Open.
type store func(t *testing.T) (*testenv.FaultProxy, string)

func minio(t *testing.T) (*testenv.FaultProxy, string) {
	return testenv.NewFaultProxy(t, testenv.MinIO(t))
}

func fakeGCS(t *testing.T) (*testenv.FaultProxy, string) {
	u := testenv.FakeGCS(t)
	return testenv.NewGCSFaultProxy(t, u), u
}

func azurite(t *testing.T) (*testenv.FaultProxy, string) {
	return testenv.NewAzureFaultProxy(t, testenv.Azurite(t))
}

func TestFaultMatrix(t *testing.T) {
	testenv.MinIO(t) // skips (or fails in CI) without MinIO, once for all cases
	runMatrix(t, minio, *long, kinds)
}

// TestFaultMatrixGCS is the matrix on fake-gcs-server (skipped without
// it), where uploads are POSTs and the GCS client retries a request after
// a lost answer itself: the retry of an applied create answers 412. Faults
// that repeat without end are left out: the client retries uploads for
// 32 s.
func TestFaultMatrixGCS(t *testing.T) {
	testenv.FakeGCS(t)
	runMatrix(t, fakeGCS, *long, func(method string) []kind {
		var out []kind
		for _, k := range kinds(method) {
			if !strings.Contains(k.name, "every") && !strings.Contains(k.name, "4 times") {
				out = append(out, k)
			}
		}
		return out
	})
}

// TestFaultMatrixAzure is the matrix on Azurite, whose client fileio
// builds without the SDK's retries, as on S3: every fault kind applies.
func TestFaultMatrixAzure(t *testing.T) {
	testenv.Azurite(t)
	runMatrix(t, azurite, *long, kinds)
}

func runMatrix(t *testing.T, st store, all bool, kinds func(method string) []kind) {
	var sum tally
	for _, op := range operations() {
		t.Run(strings.ReplaceAll(op.name, " ", "_"), func(t *testing.T) {
			sum.operations++
			log := record(t, st, op)
			for _, tg := range targets(log, all) {
				for _, k := range kinds(tg.method) {
					name := fmt.Sprintf("%s_%s#%d/%s", tg.method, strings.TrimPrefix(tg.class, "db.db/t/"), tg.skip, k.name)
					t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
						sum.cases++
						runCase(t, st, op, k.faults(tg.method, tg.class, tg.skip), &sum)
					})
				}
			}
		})
	}
	t.Logf("fault matrix (long=%v): %d operations, %d faults, %d operations failed and were retried, %d corrupt tables, %d rows lost, %d rows duplicated",
		all, sum.operations, sum.cases, sum.failedOps, sum.corrupt, sum.lost, sum.duplicated)
}

// newTable returns a fresh table of op behind a fault proxy, set up, and
// the operation's run on it.
func newTable(t *testing.T, st store, op operation) (*testenv.FaultProxy, *catalog.Table, func(context.Context, *testing.T, *catalog.Table) error) {
	proxy, u := st(t)
	tbl := newTableAt(t, u, op.schema)
	op.setup(context.Background(), t, tbl)
	run := op.run
	if op.prepare != nil {
		run = op.prepare(t, tbl)
	}
	proxy.TakeLog()
	return proxy, tbl, run
}

// newTableAt creates table db.t with schema s in the warehouse at u.
func newTableAt(t *testing.T, u string, s catalog.Schema) *catalog.Table {
	return tabletest.NewTable(t, u, s)
}

// record runs op without faults and returns the requests it made.
func record(t *testing.T, st store, op operation) []string {
	proxy, tbl, run := newTable(t, st, op)
	if err := run(context.Background(), t, tbl); err != nil {
		t.Fatalf("%s without faults: %v", op.name, err)
	}
	log := proxy.TakeLog()
	if problems := check(t, tbl, op.want, nil); len(problems) > 0 {
		t.Fatalf("%s without faults: %v", op.name, problems)
	}
	return log
}

func runCase(t *testing.T, st store, op operation, faults []*testenv.Fault, sum *tally) {
	ctx := context.Background()
	proxy, tbl, run := newTable(t, st, op)
	proxy.Inject(faults...)
	err := run(ctx, t, tbl)
	proxy.Clear()
	if err != nil {
		sum.failedOps++
		t.Logf("%s failed under the fault (the caller retries): %v", op.name, err)
		if err := run(ctx, t, tbl); err != nil {
			t.Errorf("the caller's retry of %s: %v", op.name, err)
		}
	}
	if problems := check(t, tbl, op.want, sum); len(problems) > 0 {
		sum.corrupt++
		t.Errorf("table after %s (error %v): %s", op.name, err, strings.Join(problems, "; "))
	}
}

// check reads every snapshot of tbl, checks that every file it refers to
// exists, reads the table's rows (which must equal want exactly), commits
// one more row and reads again. It returns the problems found; sum, when
// not nil, counts lost and duplicated rows.
func check(t *testing.T, tbl *catalog.Table, want []string, sum *tally) []string {
	ctx := context.Background()
	var problems []string
	sf, err := snapfiles.Open(tbl.FileIO, tbl.Schema, "")
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	ids, err := sf.Snapshots.IDs(ctx)
	if err != nil {
		return []string{fmt.Sprintf("list snapshots: %v", err)}
	}
	for _, id := range ids {
		s, err := sf.Snapshots.Get(ctx, id)
		if err != nil {
			problems = append(problems, fmt.Sprintf("snapshot %d: %v", id, err))
			continue
		}
		meta, err := sf.MetaOf(ctx, s, false)
		if err != nil {
			problems = append(problems, fmt.Sprintf("snapshot %d: %v", id, err))
			continue
		}
		live, err := sf.LiveDataFiles(ctx, s)
		if err != nil {
			problems = append(problems, fmt.Sprintf("snapshot %d: %v", id, err))
			continue
		}
		paths := meta.All()
		for p := range live {
			paths = append(paths, p)
		}
		for _, p := range paths {
			if ok, err := tbl.FileIO.Exists(ctx, p); err != nil || !ok {
				problems = append(problems, fmt.Sprintf("snapshot %d refers to %s, which does not exist (%v)", id, p, err))
			}
		}
	}
	got, err := readRows(ctx, tbl)
	if err != nil {
		return append(problems, fmt.Sprintf("read: %v", err))
	}
	if lost, dup := diff(want, got); lost+dup > 0 {
		problems = append(problems, fmt.Sprintf("rows %v, want %v", got, want))
		if sum != nil {
			sum.lost += lost
			sum.duplicated += dup
		}
	}
	// Later commits work.
	if err := commitRows(ctx, t, tbl, "after", 1, []any{int32(9), "z"}); err != nil {
		return append(problems, fmt.Sprintf("a later commit: %v", err))
	}
	got, err = readRows(ctx, tbl)
	if err != nil {
		return append(problems, fmt.Sprintf("read after a later commit: %v", err))
	}
	if want := append(slices.Clone(want), "9|z"); !slices.Equal(got, want) {
		problems = append(problems, fmt.Sprintf("rows after a later commit %v, want %v", got, want))
	}
	return problems
}

// diff counts the rows of want missing from got and the rows of got beyond
// want (both sorted).
func diff(want, got []string) (lost, dup int) {
	count := map[string]int{}
	for _, r := range want {
		count[r]++
	}
	for _, r := range got {
		count[r]--
	}
	for _, n := range count {
		if n > 0 {
			lost += n
		} else {
			dup -= n
		}
	}
	return lost, dup
}

// readRows reads tbl's latest snapshot as sorted "k|v" rows.
func readRows(ctx context.Context, tbl *catalog.Table) ([]string, error) {
	plan, err := reader.NewScan(tbl.FileIO).Plan(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for rec, err := range plan.Records(ctx) {
		if err != nil {
			return nil, err
		}
		for i := range int(rec.NumRows()) {
			out = append(out, rec.Column(0).ValueStr(i)+"|"+rec.Column(1).ValueStr(i))
		}
		rec.Release()
	}
	slices.Sort(out)
	return out, nil
}
