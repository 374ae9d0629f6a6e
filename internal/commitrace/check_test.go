package commitrace_test

import (
	"testing"

	"github.com/paimon-go/paimon/internal/commitrace"
)

// TestLinearizable: the history checker accepts histories of an append-only
// snapshot log and rejects the ones no order of the calls explains.
func TestLinearizable(t *testing.T) {
	ok := func(proc, seq int, call, ret, id int64) commitrace.Record {
		return commitrace.Record{Proc: proc, Seq: seq, Invoke: call, Return: ret, ID: id}
	}
	failed := func(proc, seq int, call, ret int64, definite bool) commitrace.Record {
		return commitrace.Record{Proc: proc, Seq: seq, Invoke: call, Return: ret, Err: "x", Definite: definite}
	}
	for _, c := range []struct {
		name string
		recs []commitrace.Record
		log  []string
		want bool
	}{
		{"sequential", []commitrace.Record{ok(0, 1, 1, 2, 1), ok(1, 1, 3, 4, 2)}, []string{"proc-0/1", "proc-1/1"}, true},
		{"concurrent, either order", []commitrace.Record{ok(0, 1, 1, 5, 2), ok(1, 1, 2, 4, 1)}, []string{"proc-1/1", "proc-0/1"}, true},
		// proc-0 got snapshot 2 and returned before proc-1, which got
		// snapshot 1, was invoked: no order explains it.
		{"real-time order broken", []commitrace.Record{ok(0, 1, 1, 2, 2), ok(1, 1, 3, 4, 1)}, []string{"proc-1/1", "proc-0/1"}, false},
		{"id skipped", []commitrace.Record{ok(0, 1, 1, 2, 2)}, []string{"proc-0/1"}, false},
		{"id twice", []commitrace.Record{ok(0, 1, 1, 3, 1), ok(1, 1, 1, 3, 1)}, []string{"proc-0/1"}, false},
		{"acknowledged but not in the log", []commitrace.Record{ok(0, 1, 1, 2, 1)}, nil, false},
		{"log holds another commit", []commitrace.Record{ok(0, 1, 1, 2, 1)}, []string{"proc-1/1"}, false},
		{"unknown outcome that landed", []commitrace.Record{failed(0, 1, 1, 2, false), ok(1, 1, 3, 4, 2)}, []string{"proc-0/1", "proc-1/1"}, true},
		{"unknown outcome that did not land", []commitrace.Record{failed(0, 1, 1, 2, false), ok(1, 1, 3, 4, 1)}, []string{"proc-1/1"}, true},
		// An unknown outcome may land late (up to the end of the run).
		{"unknown outcome that landed later", []commitrace.Record{ok(1, 1, 3, 4, 1), failed(0, 1, 1, 2, false)}, []string{"proc-1/1", "proc-0/1"}, true},
		{"definite failure in the log", []commitrace.Record{failed(0, 1, 1, 2, true)}, []string{"proc-0/1"}, false},
		{"definite failure", []commitrace.Record{failed(0, 1, 1, 2, true), ok(1, 1, 3, 4, 1)}, []string{"proc-1/1"}, true},
	} {
		if got := commitrace.Linearizable(c.recs, c.log, 100, 0); got != c.want {
			t.Errorf("%s: linearizable = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSummarize: percentiles by nearest rank over the acknowledged calls,
// failed calls counted as gave up, lost races bucketed.
func TestSummarize(t *testing.T) {
	var recs []commitrace.Record
	for i := range 100 {
		recs = append(recs, commitrace.Record{Invoke: 0, Return: int64(i+1) * 1e6, Retries: i % 10})
	}
	recs = append(recs, commitrace.Record{Invoke: 0, Return: 1, Err: "gave up", Retries: 40})
	s := commitrace.Summarize(recs)
	if s.Commits != 101 || s.GaveUp != 1 || s.P50 != 50e6 || s.P90 != 90e6 || s.P99 != 99e6 || s.Max != 100e6 || s.MaxRetries != 40 {
		t.Errorf("stats %+v", s)
	}
	// Buckets 0, 1, 2, 3-4, 5-8, 9-16, 17-32, 33+.
	want := []int{10, 10, 10, 20, 40, 10, 0, 1}
	for i := range want {
		if s.Retries[i] != want[i] {
			t.Errorf("retries histogram %v, want %v", s.Retries, want)
			break
		}
	}
}
