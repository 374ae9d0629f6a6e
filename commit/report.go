package commit

import (
	"context"
	"sync"
	"time"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/metrics"
)

// WithReporter makes the Committer hand r a *metrics.CommitReport at the
// end of every Commit, CommitWithProgress, Overwrite, OverwriteDynamic,
// DropPartitions and Truncate (Java CommitMetrics): the snapshots
// published, attempts and lost races, the phases of WithTrace, the data
// files of the messages and the store requests. nil reports nothing.
func WithReporter(r metrics.Reporter) Option { return func(c *Committer) { c.reporter = r } }

// timed reports whether commits are timed: for WithTrace or WithReporter.
func (c *Committer) timed() bool { return c.trace != nil || c.reporter != nil }

// phase records a phase's wall-clock time for WithTrace and for the tally
// of the call ctx belongs to.
func (c *Committer) phase(ctx context.Context, p Phase, d time.Duration) {
	if c.trace != nil {
		c.trace(p, d)
	}
	if t := tallyOf(ctx); t != nil {
		t.phase(p, d)
	}
}

// tally gathers one reported call's figures while it runs; it travels in
// the call's context (tallyKey), since a Committer serves concurrent calls.
type tally struct {
	mu        sync.Mutex
	start     time.Time
	before    fileio.Stats
	snapshots []int64
	attempts  int
	lost      int
	phases    map[string]time.Duration
}

type tallyKey struct{}

// tallyOf returns the tally of ctx's call, or nil when it is not reported.
func tallyOf(ctx context.Context) *tally {
	t, _ := ctx.Value(tallyKey{}).(*tally)
	return t
}

func (t *tally) phase(p Phase, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p == PhaseRetry {
		t.lost++
	}
	t.phases[p.String()] += d
}

// attempt counts a snapshot creation tried.
func (t *tally) attempt() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.attempts++
	t.mu.Unlock()
}

// published records a snapshot the call created.
func (t *tally) published(id int64) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.snapshots = append(t.snapshots, id)
	t.mu.Unlock()
}

// startReport returns ctx carrying a new tally when the Committer reports,
// else ctx and nil.
func (c *Committer) startReport(ctx context.Context) (context.Context, *tally) {
	if c.reporter == nil {
		return ctx, nil
	}
	t := &tally{start: c.now(), before: c.fio.Stats(), phases: map[string]time.Duration{}}
	return context.WithValue(ctx, tallyKey{}, t), t
}

// finishReport hands the call's report to the reporter.
func (c *Committer) finishReport(ctx context.Context, t *tally, identifier int64, msgs []Message, err error) {
	if t == nil {
		return
	}
	s := c.fio.Stats().Since(t.before)
	t.mu.Lock()
	r := &metrics.CommitReport{
		Table: fileio.Redact(c.fio.URL()), CommitUser: c.commitUser, Identifier: identifier,
		Snapshots: t.snapshots, Duration: c.now().Sub(t.start), Attempts: t.attempts, LostRaces: t.lost,
		Phases:   t.phases,
		Requests: metrics.Requests(s),
		Err:      err,
	}
	t.mu.Unlock()
	for i := range msgs {
		m := &msgs[i]
		for _, fs := range [][]manifest.DataFileMeta{m.Data.NewFiles, m.Compact.After} {
			for j := range fs {
				r.AddedFiles++
				r.AddedBytes += fs[j].FileSize
				r.AddedRecords += fs[j].RowCount
			}
		}
		for _, fs := range [][]manifest.DataFileMeta{m.Data.DeletedFiles, m.Compact.Before} {
			for j := range fs {
				r.DeletedFiles++
				r.DeletedBytes += fs[j].FileSize
			}
		}
		r.ChangelogFiles += len(m.Data.ChangelogFiles) + len(m.Compact.ChangelogFiles)
	}
	c.reporter.Report(ctx, r)
}
