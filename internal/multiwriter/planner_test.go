package multiwriter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/reader"
)

// plannerEnv names a stop file: the test binary re-executed with it set (and
// workerEnv, urlEnv) is a planner process, a serving job beside the writers:
// it keeps one table open and plans the latest snapshot again and again,
// reading the rows of every 8th plan, until the stop file exists, then
// prints one JSON plannerReport.
const plannerEnv = "MULTIWRITER_PLANNER"

// plannerReport is what a planner process saw.
type plannerReport struct {
	Plans int `json:"plans"` // plans of the latest snapshot made
	Reads int `json:"reads"` // plans whose rows were read
	// PlanErrors are the plans that failed (the first few errors).
	PlanErrors []string `json:"plan_errors,omitempty"`
	// ReadsExpired counts reads of a plan's rows that failed with
	// reader.ErrSnapshotExpired (a data file of the planned snapshot was
	// deleted by an expiration after the plan); ReadErrors are other read
	// failures.
	ReadsExpired int      `json:"reads_expired"`
	ReadErrors   []string `json:"read_errors,omitempty"`
	// Bad lists reads whose rows were not whole commits of uniqueRowsOf
	// (3 rows each; 6 when dups allows a commit twice), or fewer than an
	// earlier read of an older snapshot.
	Bad       []string `json:"bad,omitempty"`
	MaxRows   int      `json:"max_rows"`  // rows of the largest read
	Snapshots int      `json:"snapshots"` // distinct snapshots read
}

// planner is the planner process (see plannerEnv); dups allows a commit's
// rows twice (a killed writer's commit may be published twice).
func planner(url, stop string, dups bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tbl, err := paimon.OpenTable(ctx, url)
	if err != nil {
		return err
	}
	defer tbl.Close()
	var rep plannerReport
	seen := map[int64]int{} // snapshot id -> rows read
	var lastID int64
	lastRows := 0
	note := func(list *[]string, s string) {
		if len(*list) < 5 {
			*list = append(*list, s)
		}
	}
	for {
		if _, err := os.Stat(stop); err == nil {
			break
		}
		rep.Plans++
		// Odd plans are cold (every manifest list and manifest of the
		// snapshot read, the longest window for an expiration), even ones
		// through the open table's cache (the manifests since its last
		// plan); every 8th plan's rows are read.
		scan := tbl.NewScan()
		if rep.Plans%2 == 1 {
			scan = reader.NewScan(tbl.FileIO())
		}
		plan, err := scan.Plan(ctx)
		if err != nil {
			note(&rep.PlanErrors, err.Error())
			continue
		}
		if plan.Snapshot == nil || rep.Plans%8 != 0 {
			continue
		}
		rep.Reads++
		groups := map[int32]int{}
		rows, failed := 0, false
		for rec, err := range plan.Records(ctx) {
			if err != nil {
				if errors.Is(err, reader.ErrSnapshotExpired) {
					rep.ReadsExpired++
				} else {
					note(&rep.ReadErrors, err.Error())
				}
				failed = true
				break
			}
			k := rec.Column(0).(*array.Int32)
			for i := range k.Len() {
				groups[k.Value(i)/10]++
			}
			rows += int(rec.NumRows())
			rec.Release()
		}
		if failed {
			continue
		}
		id := plan.Snapshot.ID
		for g, n := range groups {
			if n != 3 && !(dups && n == 6) {
				note(&rep.Bad, fmt.Sprintf("snapshot %d: commit %d of worker %d read %d rows", id, g%1000, g/1000, n))
			}
		}
		if id > lastID && rows < lastRows {
			note(&rep.Bad, fmt.Sprintf("snapshot %d read %d rows, fewer than snapshot %d's %d", id, rows, lastID, lastRows))
		}
		if id >= lastID {
			lastID, lastRows = id, rows
		}
		seen[id] = rows
		rep.MaxRows = max(rep.MaxRows, rows)
	}
	rep.Snapshots = len(seen)
	return json.NewEncoder(os.Stdout).Encode(rep)
}

// startPlanner starts a planner process on the table at url; stop ends it
// and returns its report.
func startPlanner(t *testing.T, url string, dups bool) (stop func() plannerReport) {
	t.Helper()
	stopFile := filepath.Join(t.TempDir(), "stop")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"=0", urlEnv+"="+url, plannerEnv+"="+stopFile)
	if dups {
		cmd.Env = append(cmd.Env, dupsEnv+"=1")
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return func() plannerReport {
		t.Helper()
		if err := os.WriteFile(stopFile, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("planner: %v\n%s", err, stderr.String())
		}
		var rep plannerReport
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatalf("planner printed %q: %v", stdout.String(), err)
		}
		return rep
	}
}

// dupsEnv set to "1" tells a planner that a commit's rows may be read twice.
const dupsEnv = "MULTIWRITER_DUPS"
