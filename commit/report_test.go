package commit_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/metrics"
)

// TestCommitReport: WithReporter hands one CommitReport per call, with the
// snapshots published, the attempts and lost races, the phases, the files
// of the messages and the requests (the same as fileio.Stats counts).
func TestCommitReport(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", kvSchema)
	var rec metrics.Recorder
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u", commit.WithReporter(&rec))
	if err != nil {
		t.Fatal(err)
	}
	other, _ := commit.New(tbl.FileIO, tbl.Schema, "other")
	one := func(what string) *metrics.CommitReport {
		t.Helper()
		rs := rec.Reports()
		if len(rs) != 1 {
			t.Fatalf("%s: %d reports, want 1", what, len(rs))
		}
		r, ok := rs[0].(*metrics.CommitReport)
		if !ok {
			t.Fatalf("%s: report %T", what, rs[0])
		}
		return r
	}
	check := func(what string, r *metrics.CommitReport, msgs []commit.Message, snaps []int64, attempts, lost int, phases []string, req fileio.Stats) {
		t.Helper()
		var files, rows, bytes int64
		for _, m := range msgs {
			for _, f := range m.Data.NewFiles {
				files, rows, bytes = files+1, rows+f.RowCount, bytes+f.FileSize
			}
		}
		var got []string
		for p := range r.Phases {
			got = append(got, p)
		}
		slices.Sort(got)
		slices.Sort(phases)
		if r.Table != tbl.FileIO.URL() || r.CommitUser != "u" || !slices.Equal(r.Snapshots, snaps) ||
			r.Attempts != attempts || r.LostRaces != lost || !slices.Equal(got, phases) ||
			int64(r.AddedFiles) != files || r.AddedRecords != rows || r.AddedBytes != bytes || r.DeletedFiles != 0 ||
			r.Requests != (metrics.Requests{Get: req.Get, Put: req.Put, List: req.List, Delete: req.Delete, Head: req.Head}) ||
			r.Err != nil || r.Duration <= 0 {
			t.Errorf("%s: report %+v\nwant snapshots %v, %d attempts, %d lost, phases %v, %d files, %d rows, %d bytes, requests %+v",
				what, r, snaps, attempts, lost, phases, files, rows, bytes, req)
		}
	}

	msgs := prepare(t, tbl, "u", []int64{1, 2}, "a")
	before := tbl.FileIO.Stats()
	if id, err := c.Commit(ctx, 1, msgs); err != nil || id != 1 {
		t.Fatalf("commit 1: %d, %v", id, err)
	}
	r := one("commit 1")
	check("commit 1", r, msgs, []int64{1}, 1, 0, []string{"manifests", "manifest-lists", "snapshot"}, tbl.FileIO.Stats().Since(before))
	if r.AddedFiles != 1 || r.AddedRecords != 2 || r.Identifier != 1 {
		t.Errorf("commit 1: %d files, %d rows, identifier %d; want 1, 2, 1", r.AddedFiles, r.AddedRecords, r.Identifier)
	}

	// A lost race: another committer takes snapshot 2.
	if _, err := other.Commit(ctx, 1, prepare(t, tbl, "other", []int64{3}, "b")); err != nil {
		t.Fatal(err)
	}
	msgs = prepare(t, tbl, "u", []int64{4}, "c")
	before = tbl.FileIO.Stats()
	if id, err := c.Commit(ctx, 2, msgs); err != nil || id != 3 {
		t.Fatalf("commit 2: %d, %v", id, err)
	}
	check("commit after a lost race", one("commit 2"), msgs, []int64{3}, 2, 1,
		[]string{"retry", "manifests", "manifest-lists", "snapshot"}, tbl.FileIO.Stats().Since(before))

	// An identifier already committed publishes nothing.
	before = tbl.FileIO.Stats()
	if id, err := c.Commit(ctx, 2, msgs); err != nil || id != 3 {
		t.Fatalf("repeated commit: %d, %v", id, err)
	}
	check("repeated identifier", one("repeat"), msgs, nil, 0, 0, nil, tbl.FileIO.Stats().Since(before))

	// Truncate reports its snapshot; a failed call its error.
	if id, err := c.Truncate(ctx); err != nil || id != 4 {
		t.Fatalf("truncate: %d, %v", id, err)
	}
	if r := one("truncate"); !slices.Equal(r.Snapshots, []int64{4}) || r.Attempts != 1 || r.Identifier != commit.BatchIdentifier {
		t.Errorf("truncate report %+v", r)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Commit(cctx, 9, prepare(t, tbl, "u", []int64{5}, "d")); err == nil {
		t.Fatal("commit with a canceled context succeeded")
	}
	if r := one("canceled"); !errors.Is(r.Err, context.Canceled) || len(r.Snapshots) != 0 {
		t.Errorf("canceled commit report: snapshots %v, error %v", r.Snapshots, r.Err)
	}
}
