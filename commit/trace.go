package commit

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Phase is a step of publishing a snapshot whose wall-clock time WithTrace
// reports. Java Paimon has no counterpart: its CommitMetrics
// (lastCommitDuration, lastCommitAttempts) time whole commits only.
type Phase uint8

// The phases, in the order they are reported for one snapshot: a
// PhaseRetry per lost race, then for the attempt that published the
// snapshot PhaseManifests, PhaseManifestLists, PhaseOffsets (only when the
// attempt wrote an offsets file) and PhaseSnapshot.
//
// The writes of an attempt go out in one round of concurrent PUTs (see the
// package documentation), so PhaseManifests, PhaseManifestLists and
// PhaseOffsets are wall-clock spans that overlap each other: each runs from
// the start of the first PUT of its kind to the end of the last one, cut to
// the attempt (a file written before the attempt began, such as a base list
// prepared after the previous commit or delta manifests reused from a lost
// attempt, costs the attempt nothing and counts 0). Encoding, reading the
// base and conflict checks belong to no phase. PhaseSnapshot starts only
// after all of them ended, and lost attempts end before the published one
// starts; so for one snapshot the sum of its PhaseRetry durations, the
// longest of the three overlapping spans and PhaseSnapshot is at most the
// wall time of the commit.
const (
	// PhaseRetry is one lost race for the snapshot id: the time from the
	// start of the lost attempt to the start of the next one (its reads and
	// PUTs, the failed create-if-absent, and the backoff wait unless the
	// attempt built on the Committer's cached snapshot, which is redone at
	// once), or to when the commit gave up.
	PhaseRetry Phase = iota + 1
	// PhaseManifests spans the PUTs of the manifest files of the published
	// attempt: the delta manifests, the manifests merged into the base list
	// and the index manifest.
	PhaseManifests
	// PhaseManifestLists spans the PUTs of the delta manifest list and the
	// base manifest list of the published attempt.
	PhaseManifestLists
	// PhaseOffsets is the PUT of the offsets file of the real-time progress
	// (package progress), for the attempts that write one.
	PhaseOffsets
	// PhaseSnapshot is the create-if-absent of snapshot/snapshot-<id> that
	// published the snapshot (with the read that confirmed it, when the
	// answer to the create was lost).
	PhaseSnapshot
)

// String returns the phase's name: "retry", "manifests", "manifest-lists",
// "offsets", "snapshot".
func (p Phase) String() string {
	switch p {
	case PhaseRetry:
		return "retry"
	case PhaseManifests:
		return "manifests"
	case PhaseManifestLists:
		return "manifest-lists"
	case PhaseOffsets:
		return "offsets"
	case PhaseSnapshot:
		return "snapshot"
	}
	return fmt.Sprintf("Phase(%d)", uint8(p))
}

// WithTrace makes the Committer call trace with the wall-clock time of each
// phase of every snapshot it publishes and of every lost race (see Phase
// for what each measures and how they overlap). trace is called in the
// goroutine that called the commit method, before that method returns, in
// the order the Phase constants list; a failed commit reports only its
// lost races. It must not call the Committer. Without WithTrace nothing is
// timed.
func WithTrace(trace func(Phase, time.Duration)) Option {
	return func(c *Committer) { c.trace = trace }
}

// span is a wall-clock interval; the zero span is empty.
type span struct {
	start, end time.Time
}

// add widens s to cover [start, end].
func (s *span) add(start, end time.Time) {
	if s.start.IsZero() || start.Before(s.start) {
		s.start = start
	}
	if end.After(s.end) {
		s.end = end
	}
}

// since is the part of s at or after t.
func (s span) since(t time.Time) time.Duration {
	if s.start.IsZero() || !s.end.After(t) {
		return 0
	}
	return s.end.Sub(later(s.start, t))
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// putSpans records, for a traced Committer, the span of the manifest PUTs
// and that of the manifest-list PUTs of one putAll. A nil *putSpans records
// nothing.
type putSpans struct {
	now       func() time.Time
	mu        sync.Mutex
	manifests span
	lists     span
}

// newPutSpans returns a recorder when the Committer is traced, else nil.
func (c *Committer) newPutSpans() *putSpans {
	if !c.timed() {
		return nil
	}
	return &putSpans{now: c.now}
}

func (p *putSpans) clock() time.Time {
	if p == nil {
		return time.Time{}
	}
	return p.now()
}

// note records the PUT of f from start to now.
func (p *putSpans) note(f *pendingFile, start time.Time) {
	if p == nil {
		return
	}
	end := p.now()
	p.mu.Lock()
	if f.list {
		p.lists.add(start, end)
	} else {
		p.manifests.add(start, end)
	}
	p.mu.Unlock()
}

// spans returns what p recorded (empty spans for nil).
func (p *putSpans) spans() (manifests, lists span) {
	if p == nil {
		return span{}, span{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.manifests, p.lists
}

// attemptTrace gathers the timings of one attempt of a traced Committer.
type attemptTrace struct {
	start time.Time // when the attempt began
	puts  []*putSpans
	offs  span // the offsets file's PUT
	snap  time.Duration
}

// report records the phases of a published attempt (phase).
func (c *Committer) report(ctx context.Context, t *attemptTrace) {
	var manifests, lists span
	for _, p := range t.puts {
		m, l := p.spans()
		if !m.start.IsZero() {
			manifests.add(m.start, m.end)
		}
		if !l.start.IsZero() {
			lists.add(l.start, l.end)
		}
	}
	c.phase(ctx, PhaseManifests, manifests.since(t.start))
	c.phase(ctx, PhaseManifestLists, lists.since(t.start))
	if !t.offs.start.IsZero() {
		c.phase(ctx, PhaseOffsets, t.offs.since(t.start))
	}
	c.phase(ctx, PhaseSnapshot, t.snap)
}
