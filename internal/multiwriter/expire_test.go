package multiwriter_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/tabletest"
)

// uniqueEnv set to "1" makes a worker write uniqueRowsOf instead of rowsOf.
const uniqueEnv = "MULTIWRITER_UNIQUE"

// uniqueRowsOf are the rows of commit id of worker w when every commit
// writes rows of its own: k = w·10000 + id·10 + m, v names the commit.
func uniqueRowsOf(w int, id int64) [][]any {
	var out [][]any
	for m := range 3 {
		v := fmt.Sprintf("w%d-%d", w, id)
		out = append(out, []any{int32(int64(w)*10000 + id*10 + int64(m)), v, v, int64(w)*1000 + id})
	}
	return out
}

// rowLine is a row of uniqueRowsOf as tabletest.ReadRows prints it.
func rowLine(r []any) string {
	return fmt.Sprintf("%d|%s|%s|%d", r[0], r[1], r[2], r[3])
}

// TestWritersWithExpiration: worker processes commit into one append table
// while every commit expires snapshots down to snapshot.num-retained.max =
// 2 (each worker's committer runs the expiration, as a Table's does), from
// an empty table on. Every acknowledged commit's rows must be read exactly
// once: no commit may land in a gap an expiration left (a first commit into
// the empty table did, silently) or fail because the snapshot it built on
// was expired while it read it. "kill": every worker is killed with SIGKILL
// once and restarted after its last acknowledged commit; the commit it was
// making may then be published twice, but only when its first snapshot was
// expired before the restart could find it (Java's filterCommitted has the
// same limit: idempotency reaches back to the earliest snapshot), so a
// second copy is allowed for those commits only. Local disk and MinIO;
// 4 processes × 15 commits (-multiwriter.long: × 60).
func TestWritersWithExpiration(t *testing.T) {
	procs, commits := 4, 15
	if *long {
		commits = 60
	}
	for _, st := range stores {
		for _, kill := range []bool{false, true} {
			name := st.name + "/plain"
			if kill {
				name = st.name + "/kill"
			}
			t.Run(name, func(t *testing.T) {
				t.Setenv(uniqueEnv, "1")
				tbl := tabletest.NewTable(t, st.url(t), catalog.Schema{Fields: fields, Options: map[string]string{
					"snapshot.num-retained.min": "1", "snapshot.num-retained.max": "2",
				}})
				url := tbl.FileIO.URL()
				stopPlanner := startPlanner(t, url, kill)
				acks, kills := runWorkers(t, url, procs, commits, false, kill)
				plans := stopPlanner()
				if len(acks) != procs*commits {
					t.Fatalf("%d commits acknowledged, want %d", len(acks), procs*commits)
				}
				count := map[string]int{}
				for _, r := range tabletest.ReadRows(t, url) {
					count[r]++
				}
				// The commit a killed worker was making when it was killed:
				// the first identifier of a restarted run (acks are in order
				// per worker, so a repeated start shows as the identifier
				// after the last ack before the kill; any commit may be it).
				dup := 0
				for w := range procs {
					for id := int64(1); id <= int64(commits); id++ {
						for _, r := range uniqueRowsOf(w, id) {
							line := rowLine(r)
							n := count[line]
							delete(count, line)
							switch {
							case n == 1:
							case n == 2 && kill:
								dup++
							default:
								var snap int64
								for _, a := range acks {
									if a.Worker == w && a.Identifier == id {
										snap = a.Snapshot
									}
								}
								t.Fatalf("row %s of worker %d commit %d (acknowledged as snapshot %d) read %d times", line, w, id, snap, n)
							}
						}
					}
				}
				if len(count) != 0 {
					t.Fatalf("rows no commit wrote: %v", slices.Sorted(maps.Keys(count)))
				}
				if dup > 3*kills {
					t.Fatalf("%d rows twice, more than the %d commits in flight at the %d kills", dup, kills, kills)
				}
				t.Logf("%d processes × %d commits (%d killed), expiring down to 2 snapshots: %d rows each read once, %d rows of commits in flight at a kill read twice",
					procs, commits, kills, procs*commits*3-dup, dup/3)
				// The planner process beside them: every plan of the latest
				// snapshot succeeded (one whose snapshot was expired while it
				// was planned plans the new latest); a read may meet a data
				// file an expiration deleted after the plan, typed; every
				// read saw whole commits, never fewer rows than an older one.
				t.Logf("planner: %d plans, %d read (%d snapshots), largest read %d rows, %d reads met an expired snapshot",
					plans.Plans, plans.Reads, plans.Snapshots, plans.MaxRows, plans.ReadsExpired)
				if len(plans.PlanErrors)+len(plans.ReadErrors)+len(plans.Bad) > 0 || plans.Snapshots == 0 {
					t.Fatalf("planner: plan errors %q, read errors %q, bad reads %q, %d snapshots read", plans.PlanErrors, plans.ReadErrors, plans.Bad, plans.Snapshots)
				}
			})
		}
	}
}
