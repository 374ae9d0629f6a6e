package commit_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/tabletest"
)

// phaseLog records what WithTrace reports.
type phaseLog struct {
	phases []commit.Phase
	times  []time.Duration
}

func (l *phaseLog) trace(p commit.Phase, d time.Duration) {
	l.phases = append(l.phases, p)
	l.times = append(l.times, d)
}

// take returns the phases reported since the last take, as their names,
// and their durations by phase (summed per phase).
func (l *phaseLog) take() (string, map[commit.Phase]time.Duration) {
	names := make([]string, len(l.phases))
	by := map[commit.Phase]time.Duration{}
	for i, p := range l.phases {
		names[i] = p.String()
		by[p] += l.times[i]
	}
	l.phases, l.times = nil, nil
	return strings.Join(names, ","), by
}

// checkWithin fails unless the lost races, the longest of the overlapping
// write spans and the snapshot's create fit in the commit's wall time.
func checkWithin(t *testing.T, what string, by map[commit.Phase]time.Duration, wall time.Duration) {
	t.Helper()
	writes := max(by[commit.PhaseManifests], by[commit.PhaseManifestLists], by[commit.PhaseOffsets])
	if sum := by[commit.PhaseRetry] + writes + by[commit.PhaseSnapshot]; sum > wall {
		t.Errorf("%s: retries %v + writes %v + snapshot %v = %v exceed the commit's wall time %v",
			what, by[commit.PhaseRetry], writes, by[commit.PhaseSnapshot], sum, wall)
	}
	for p, d := range by {
		if d < 0 || d > wall {
			t.Errorf("%s: %s took %v, outside [0, %v]", what, p, d, wall)
		}
	}
}

// TestTrace: WithTrace reports, per published snapshot, the manifest PUTs,
// the manifest-list PUTs, the offsets file (real-time commits only) and the
// snapshot's create-if-absent, in that order, within the commit's wall
// time; a lost race is reported as a retry, and the delta manifests the
// lost attempt wrote (reused by the next one) count 0 in the published
// attempt.
func TestTrace(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", kvSchema)
	var log phaseLog
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u", commit.WithTrace(log.trace))
	if err != nil {
		t.Fatal(err)
	}
	other, _ := commit.New(tbl.FileIO, tbl.Schema, "other")

	// A commit that writes one manifest and both lists.
	msgs := prepare(t, tbl, "u", []int64{1}, "a")
	t0 := time.Now()
	if id, err := c.Commit(ctx, 1, msgs); err != nil || id != 1 {
		t.Fatalf("commit 1: %d, %v", id, err)
	}
	wall := time.Since(t0)
	names, by := log.take()
	if names != "manifests,manifest-lists,snapshot" {
		t.Fatalf("commit 1 reported %s, want manifests,manifest-lists,snapshot", names)
	}
	for _, p := range []commit.Phase{commit.PhaseManifests, commit.PhaseManifestLists, commit.PhaseSnapshot} {
		if by[p] <= 0 {
			t.Errorf("commit 1: %s took %v, want > 0 (it wrote a file)", p, by[p])
		}
	}
	checkWithin(t, "commit 1", by, wall)

	// Another committer takes snapshot 2: c's first attempt, built on its
	// cached snapshot 1, loses the race and is redone on snapshot 2.
	if id, err := other.Commit(ctx, 1, prepare(t, tbl, "other", []int64{2}, "b")); err != nil || id != 2 {
		t.Fatalf("other: %d, %v", id, err)
	}
	msgs = prepare(t, tbl, "u", []int64{3}, "c")
	t0 = time.Now()
	if id, err := c.Commit(ctx, 2, msgs); err != nil || id != 3 {
		t.Fatalf("commit 2: %d, %v; want snapshot 3", id, err)
	}
	wall = time.Since(t0)
	names, by = log.take()
	if names != "retry,manifests,manifest-lists,snapshot" {
		t.Fatalf("commit after a lost race reported %s, want retry,manifests,manifest-lists,snapshot", names)
	}
	if by[commit.PhaseRetry] <= 0 {
		t.Errorf("lost race took %v, want > 0", by[commit.PhaseRetry])
	}
	// Three manifests stay below manifest.merge-min-count: the published
	// attempt writes no manifest (the delta is the lost attempt's), only
	// its base list.
	if by[commit.PhaseManifests] != 0 {
		t.Errorf("published attempt after a lost race: manifests %v, want 0 (delta reused)", by[commit.PhaseManifests])
	}
	if by[commit.PhaseManifestLists] <= 0 || by[commit.PhaseSnapshot] <= 0 {
		t.Errorf("published attempt after a lost race: lists %v, snapshot %v, want > 0", by[commit.PhaseManifestLists], by[commit.PhaseSnapshot])
	}
	checkWithin(t, "commit after a lost race", by, wall)

	// An empty commit publishes nothing and reports nothing.
	if id, err := c.Commit(ctx, 3, nil); err != nil || id != 0 {
		t.Fatalf("empty commit: %d, %v", id, err)
	}
	if names, _ := log.take(); names != "" {
		t.Errorf("empty commit reported %s", names)
	}
}

// TestTraceOffsets: a commit with real-time progress also reports the PUT
// of its offsets file, between the manifest lists and the snapshot.
func TestTraceOffsets(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", rtSchema)
	var log phaseLog
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u", commit.WithTrace(log.trace))
	if err != nil {
		t.Fatal(err)
	}
	msgs := prepare(t, tbl, "u", []int64{1}, "a")
	t0 := time.Now()
	if id, err := c.CommitWithProgress(ctx, 1, msgs, advs(adv(pbOf(0), 0, 1)), nil); err != nil || id != 1 {
		t.Fatalf("commit: %d, %v", id, err)
	}
	wall := time.Since(t0)
	names, by := log.take()
	if names != "manifests,manifest-lists,offsets,snapshot" {
		t.Fatalf("reported %s, want manifests,manifest-lists,offsets,snapshot", names)
	}
	if by[commit.PhaseOffsets] <= 0 {
		t.Errorf("offsets took %v, want > 0", by[commit.PhaseOffsets])
	}
	checkWithin(t, "real-time commit", by, wall)
}

// TestPhaseString pins the phase names rtbench and logs print.
func TestPhaseString(t *testing.T) {
	var got []string
	for p := commit.PhaseRetry; p <= commit.PhaseSnapshot+1; p++ {
		got = append(got, p.String())
	}
	want := []string{"retry", "manifests", "manifest-lists", "offsets", "snapshot", fmt.Sprintf("Phase(%d)", commit.PhaseSnapshot+1)}
	if !slices.Equal(got, want) {
		t.Errorf("phase names %v, want %v", got, want)
	}
}
