package realtime_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/realtime"
)

// scConcurrent runs the harness of upstream scenarios 43 and 58: one
// goroutine writes n single-row batches (mk(i)), preparers goroutines call
// PrepareCommitWithProgress in a loop, one committer commits the prepared
// ranges strictly in offset order (buffering those that arrive early), one
// refresher refreshes every committed snapshot, and readers goroutines
// plan and read the context in a loop. check(rows, before, after) judges
// each read, where before is the number of writes completed before the
// plan and after the number started when the read ended. It returns the
// context, for the final checks, once everything is committed and
// refreshed.
func scConcurrent(t *testing.T, tbl *catalog.Table, n int64, preparers, readers int,
	mk func(i int64) arrow.RecordBatch, check func(rows []string, before, after int64) error) *realtime.Context {
	ctx := context.Background()
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")

	var started, completed atomic.Int64
	writerDone := make(chan struct{})
	progCh := make(chan realtime.Progress, 64)
	idCh := make(chan int64, 64)
	stopReads := make(chan struct{})
	errs := make(chan error, 64)
	fail := func(err error) {
		select {
		case errs <- err:
		default:
		}
	}

	var wg, prep sync.WaitGroup
	wg.Add(1)
	go func() { // writer
		defer wg.Done()
		defer close(writerDone)
		for i := int64(0); i < n; i++ {
			rec := mk(i)
			started.Add(1)
			err := w.Write(ctx, rec)
			rec.Release()
			if err != nil {
				fail(fmt.Errorf("write %d: %w", i, err))
				return
			}
			completed.Add(1)
		}
	}()
	var ident atomic.Int64
	for range preparers {
		prep.Add(1)
		go func() {
			defer prep.Done()
			for {
				done := false
				select {
				case <-writerDone:
					done = true
				default:
				}
				prog, err := w.PrepareCommitWithProgress(ctx, ident.Add(1))
				if err != nil {
					fail(fmt.Errorf("prepare: %w", err))
					return
				}
				for _, p := range prog {
					progCh <- p
				}
				if done && len(prog) == 0 {
					return
				}
			}
		}()
	}
	go func() { prep.Wait(); close(progCh) }()
	wg.Add(1)
	go func() { // committer: strictly in offset order
		defer wg.Done()
		defer close(idCh)
		pending := map[int64]realtime.Progress{}
		var end, id int64
		for p := range progCh {
			pending[p.Range.Begin] = p
			for {
				q, ok := pending[end]
				if !ok {
					break
				}
				delete(pending, end)
				id++
				sid, err := cm.CommitWithProgress(ctx, []realtime.Progress{q}, id, nil)
				if err != nil {
					fail(fmt.Errorf("commit %s: %w", q.Range, err))
					return
				}
				end = q.Range.End
				idCh <- sid
			}
		}
		if len(pending) > 0 || end != n {
			fail(fmt.Errorf("committer stopped at %d with %d ranges pending", end, len(pending)))
		}
	}()
	wg.Add(1)
	go func() { // refresher
		defer wg.Done()
		for id := range idCh {
			if err := rc.RefreshCommittedSnapshot(ctx, id); err != nil {
				fail(fmt.Errorf("refresh %d: %w", id, err))
			}
		}
	}()
	var reads atomic.Int64
	var rwg sync.WaitGroup
	for range readers {
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			for {
				select {
				case <-stopReads:
					return
				default:
				}
				before := completed.Load()
				p, err := rc.NewScan().Plan(ctx)
				if err != nil {
					fail(fmt.Errorf("plan: %w", err))
					return
				}
				rows, err := tryReadSplits(p, p.Splits...)
				p.Release()
				if err != nil {
					fail(fmt.Errorf("read: %w", err))
					return
				}
				after := started.Load()
				if err := check(rows, before, after); err != nil {
					fail(err)
					return
				}
				reads.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stopReads)
	rwg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	if reads.Load() == 0 {
		t.Fatal("no read completed")
	}
	t.Logf("%d reads", reads.Load())
	return rc
}

// Scenario 43 (TestConcurrentWritePrepareCommitReadAndRefresh): 1 writer,
// 4 preparers, 1 committer (ranges strictly in offset order), 1 refresher,
// 4 readers. Every read is a gap-free, duplicate-free prefix of the
// written rows, in order, and holds at least the rows written before its
// plan; at the end 24 rows, committed end 24, memory 0.
func TestScenario43ConcurrentWritePrepareCommitReadRefresh(t *testing.T) {
	const n = 24
	tbl := newFooTable(t, nil, nil, nil)
	all := fooStrings("p0", seq(0, n)...)
	mk := func(i int64) arrow.RecordBatch { return fooRows(t, "p0", i) }
	check := func(rows []string, before, after int64) error {
		k := int64(len(rows))
		if k < before || k > after || !slices.Equal(rows, all[:k]) {
			return fmt.Errorf("read %v: want the first k rows in order, %d <= k <= %d", rows, before, after)
		}
		return nil
	}
	rc := scConcurrent(t, tbl, n, 4, 4, mk, check)
	equal(t, "final rows", scanRows(t, rc), all)
	equal(t, "plain read", diskRows(t, tbl), sortedStrings(all))
	equal(t, "committed", committed(t, tbl, 0), []string{"{}/bucket-0=24"})
	scUsageZero(t, rc, "at the end")
}

func sortedStrings(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}

// Scenario 58 (TestPkConcurrency): the primary-key variant of 43. 40
// single-row changes of keys 0-4 (upserts, every seventh a delete); every
// read equals the merged state after some number of completed writes,
// between those completed before its plan and those started when it
// ended. The states are computed here from the change list.
func TestScenario58PkConcurrency(t *testing.T) {
	const n = 40
	tbl := newFooTable(t, []string{"id"}, nil, nil)
	change := func(i int64) (key int64, payload, kind string) {
		key = i % 5
		if i%7 == 6 {
			return key, "", "-D"
		}
		return key, "v" + itoa(i), "+U"
	}
	states := make([][]string, n+1)
	cur := map[int64]string{}
	for i := int64(0); i <= n; i++ {
		var st []string
		for k := int64(0); k < 5; k++ {
			if v, ok := cur[k]; ok {
				st = append(st, itoa(k)+"|"+v+"|x")
			}
		}
		states[i] = st
		if i < n {
			k, v, kind := change(i)
			if kind == "-D" {
				delete(cur, k)
			} else {
				cur[k] = v
			}
		}
	}
	mk := func(i int64) arrow.RecordBatch {
		k, v, kind := change(i)
		var payload any = v
		if kind == "-D" {
			payload = nil
		}
		return kindRows(t, []any{k, payload, "x", kind})
	}
	check := func(rows []string, before, after int64) error {
		for j := before; j <= after; j++ {
			if slices.Equal(rows, states[j]) {
				return nil
			}
		}
		return fmt.Errorf("read %v is no state after %d..%d writes", rows, before, after)
	}
	rc := scConcurrent(t, tbl, n, 2, 4, mk, check)
	equal(t, "final rows", scanRows(t, rc), states[n])
	equal(t, "plain read", diskRows(t, tbl), states[n])
	equal(t, "committed", committed(t, tbl, 0), []string{"{}/bucket-0=40"})
	scUsageZero(t, rc, "at the end")
}
