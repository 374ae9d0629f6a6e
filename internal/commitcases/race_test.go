package commitcases_test

import (
	"context"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/paimon-go/paimon/internal/commitrace"
	"github.com/paimon-go/paimon/testenv"
)

var raceLong = flag.Bool("race.long", false, "run the racing-process tests in their long form (8 processes x 100 commits)")

// TestRacingProcessesLocal races committers in separate OS processes (this
// test binary, re-executed as commitrace workers) on a local warehouse and
// checks the history: every call acknowledged, snapshot ids contiguous, the
// calls a linearizable history of the snapshot log (porcupine), every
// acknowledged commit's rows in the final table exactly once. The short form
// runs 4 processes x 15 commits; -race.long runs 8 x 100:
//
//	go test ./internal/commitcases/ -run RacingProcesses -race.long -v
func TestRacingProcessesLocal(t *testing.T) {
	raceProcesses(t, "file://"+t.TempDir())
}

// TestRacingProcessesMinIO is TestRacingProcessesLocal on MinIO.
func TestRacingProcessesMinIO(t *testing.T) {
	raceProcesses(t, testenv.MinIO(t))
}

func raceProcesses(t *testing.T, warehouse string) {
	procs, commits := 4, 15
	if *raceLong {
		procs, commits = 8, 100
	}
	cfg := commitrace.Config{Warehouse: warehouse, Procs: procs, Commits: commits, Rows: 2}
	ctx := context.Background()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	recs, err := commitrace.Run(ctx, cfg, bin, []string{"-test.run=^$"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	end := time.Now().UnixNano()
	rep, err := commitrace.Check(ctx, cfg, recs, end, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", rep)
	t.Logf("%s", commitrace.Summarize(recs))
	if err := rep.Error(); err != nil {
		t.Error(err)
	}
	n := procs * commits
	if rep.Commits != n || rep.Acked != n || rep.Snapshots != n || rep.RowsChecked != 2*n {
		t.Errorf("%d calls, %d acknowledged, %d snapshots, %d rows; want %d, %d, %d, %d",
			rep.Commits, rep.Acked, rep.Snapshots, rep.RowsChecked, n, n, n, 2*n)
	}
}
