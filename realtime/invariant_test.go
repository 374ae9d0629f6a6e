package realtime_test

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/testenv"
	"github.com/paimon-go/paimon/types"
)

var longRun = flag.Bool("realtime.long", false, "run the real-time invariant tests for 30 s each instead of 2 s")

// flight is one generated input row of the invariant tests, shaped like
// the flights data set: a route (origin, dest), a carrier, a delay, and n,
// the row's position in the input stream.
type flight struct {
	origin, dest, carrier string
	delay, n              int64
}

var (
	airports = []string{"ATL", "DFW", "DEN", "ORD", "LAX", "JFK", "LAS", "MCO", "MIA", "CLT", "SEA", "PHX", "EWR"}
	carriers = []string{"AA", "DL", "UA", "WN", "B6"}
)

func flightAt(i int64) flight {
	return flight{
		origin:  airports[i%13],
		dest:    airports[(i/13+i%7)%13],
		carrier: carriers[i%5],
		delay:   (i*7919)%300 - 30,
		n:       i,
	}
}

func flightFields(pk bool) []types.DataField {
	origin, dest := types.String(), types.String()
	if pk {
		origin.Nullable, dest.Nullable = false, false
	}
	return []types.DataField{
		{Name: "origin", Type: origin},
		{Name: "dest", Type: dest},
		{Name: "carrier", Type: types.String()},
		{Name: "delay", Type: types.BigInt()},
		{Name: "n", Type: types.BigInt()},
	}
}

var flightArrow = []arrow.Field{
	{Name: "origin", Type: arrow.BinaryTypes.String},
	{Name: "dest", Type: arrow.BinaryTypes.String},
	{Name: "carrier", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "delay", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}

func flightBatch(t testing.TB, from, to int64) arrow.RecordBatch {
	rows := make([][]any, 0, to-from)
	for i := from; i < to; i++ {
		f := flightAt(i)
		rows = append(rows, []any{f.origin, f.dest, f.carrier, f.delay, f.n})
	}
	return batch(t, flightArrow, rows...)
}

// invariantKind is one table of the invariant test and its expected state
// after the first k input rows.
type invariantKind struct {
	name string
	pk   bool
	opts map[string]string
	// state renders the table's rows after the first k input rows, sorted.
	state func(k int64) []string
}

func flightString(origin, dest, carrier string, delay, n int64) string {
	return fmt.Sprintf("%s|%s|%s|%d|%d", origin, dest, carrier, delay, n)
}

var invariantKinds = []invariantKind{
	{name: "append", opts: map[string]string{"bucket-key": "origin"}, state: func(k int64) []string {
		out := make([]string, 0, k)
		for i := range k {
			f := flightAt(i)
			out = append(out, flightString(f.origin, f.dest, f.carrier, f.delay, f.n))
		}
		slices.Sort(out)
		return out
	}},
	{name: "deduplicate", pk: true, state: func(k int64) []string {
		last := map[string]flight{}
		for i := range k {
			f := flightAt(i)
			last[f.origin+"|"+f.dest] = f
		}
		out := make([]string, 0, len(last))
		for _, f := range last {
			out = append(out, flightString(f.origin, f.dest, f.carrier, f.delay, f.n))
		}
		slices.Sort(out)
		return out
	}},
	{name: "aggregation", pk: true, opts: map[string]string{
		"merge-engine": "aggregation", "fields.delay.aggregate-function": "sum",
		"fields.n.aggregate-function": "max", "fields.carrier.aggregate-function": "last_non_null_value",
	}, state: func(k int64) []string {
		agg := map[string]*flight{}
		for i := range k {
			f := flightAt(i)
			key := f.origin + "|" + f.dest
			if a := agg[key]; a != nil {
				a.delay += f.delay
				a.n = max(a.n, f.n)
				a.carrier = f.carrier
			} else {
				agg[key] = &f
			}
		}
		out := make([]string, 0, len(agg))
		for _, f := range agg {
			out = append(out, flightString(f.origin, f.dest, f.carrier, f.delay, f.n))
		}
		slices.Sort(out)
		return out
	}},
}

// TestInvariantLocal: one goroutine writes flights rows continuously,
// another prepares, commits and refreshes every few milliseconds, a third
// queries; every query returns exactly the state after some k input rows
// with k at least the rows accepted before the query began and at most
// those offered (in a Write begun) when it ended (append: rows 0..k-1 once each; primary
// keys: the merged state). Run with -realtime.long for 30 s per table.
func TestInvariantLocal(t *testing.T) {
	for _, kind := range invariantKinds {
		t.Run(kind.name, func(t *testing.T) {
			runInvariant(t, "", kind)
		})
	}
}

// TestInvariantMinIO is TestInvariantLocal on a MinIO bucket (skipped when
// no MinIO binary is installed, see package testenv).
func TestInvariantMinIO(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, kind := range invariantKinds {
		t.Run(kind.name, func(t *testing.T) {
			runInvariant(t, testenv.MinIO(t), kind)
		})
	}
}

func runInvariant(t *testing.T, whURL string, kind invariantKind) {
	d := 2 * time.Second / time.Duration(len(invariantKinds))
	if *longRun {
		d = 30 * time.Second
	}
	o := tableOpts(kind.opts)
	var pk []string
	if kind.pk {
		pk = []string{"origin", "dest"}
	}
	tbl := tabletest.NewTable(t, whURL, catalog.Schema{Fields: flightFields(kind.pk), PrimaryKeys: pk, Options: o})
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "inv")
	cm := newCommit(t, rc, "inv")
	ctx := context.Background()

	// accepted counts the rows whose Write returned, offered those whose
	// Write began: rows become visible during Write, so a query may see up
	// to offered rows.
	var accepted, offered atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var queries, commits atomic.Int64
	var stopOnce sync.Once
	done := func() { stopOnce.Do(func() { close(stop) }) }
	fail := func(format string, args ...any) {
		t.Errorf(format, args...)
		done()
	}

	wg.Add(3)
	go func() { // writer
		defer wg.Done()
		next := int64(0)
		for size := int64(1); ; size = size%97 + 13 {
			select {
			case <-stop:
				return
			default:
			}
			rec := flightBatch(t, next, next+size)
			offered.Store(next + size)
			err := w.Write(ctx, rec)
			rec.Release()
			if err != nil {
				fail("write: %v", err)
				return
			}
			next += size
			accepted.Store(next)
			time.Sleep(200 * time.Microsecond) // leave the two cores to commits and queries too
		}
	}()
	var ident int64
	commitOnce := func() bool {
		ident++
		prog, err := w.PrepareCommitWithProgress(ctx, ident)
		if err != nil {
			fail("prepare: %v", err)
			return false
		}
		if len(prog) == 0 {
			return true
		}
		id, err := cm.CommitWithProgress(ctx, prog, ident, nil)
		if err != nil {
			fail("commit: %v", err)
			return false
		}
		if err := rc.RefreshCommittedSnapshot(ctx, id); err != nil {
			fail("refresh: %v", err)
			return false
		}
		commits.Add(1)
		return true
	}
	go func() { // committer
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(3 * time.Millisecond):
			}
			if !commitOnce() {
				return
			}
		}
	}()
	go func() { // reader
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			n0 := accepted.Load()
			p, err := rc.NewScan().Plan(ctx)
			if err != nil {
				fail("plan: %v", err)
				return
			}
			var rows []string
			var maxN int64 = -1
			for rec, err := range p.Records(ctx) {
				if err != nil {
					fail("read: %v", err)
					return
				}
				nCol := rec.Column(4).(*array.Int64)
				for i := 0; i < int(rec.NumRows()); i++ {
					maxN = max(maxN, nCol.Value(i))
				}
				rows = append(rows, recStrings(rec)...)
				rec.Release()
			}
			n1 := offered.Load()
			k := maxN + 1
			if k < n0 || k > n1 {
				fail("query saw rows up to %d, accepted before %d, offered after %d", k, n0, n1)
				return
			}
			slices.Sort(rows)
			if want := kind.state(k); !slices.Equal(rows, want) {
				fail("query state after %d rows: %d rows, want %d; first diff %s", k, len(rows), len(want), firstDiff(rows, want))
				return
			}
			queries.Add(1)
		}
	}()
	select {
	case <-time.After(d):
	case <-stop:
	}
	done()
	wg.Wait()
	if t.Failed() {
		return
	}
	if !commitOnce() {
		return
	}
	total := accepted.Load()
	want := kind.state(total)
	equal(t, "final union read", sortedScan(t, rc), want)
	got := tabletest.ReadRows(t, tbl.FileIO.URL())
	equal(t, "final plain read", got, want)
	equal(t, "committed", committed(t, tbl, 0), []string{"{}/bucket-0=" + itoa(total)})
	if u := rc.Usage(); u != (realtime.Usage{}) {
		t.Fatalf("usage after the final refresh %+v", u)
	}
	t.Logf("%s: %d rows, %d commits, %d checked queries", kind.name, total, commits.Load(), queries.Load())
	if queries.Load() == 0 || commits.Load() == 0 {
		t.Fatalf("no query or commit ran")
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("at %d: %q vs %q", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d", len(a), len(b))
}
