package commitrace

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
)

// Report is the verdict of Check.
type Report struct {
	Procs, Commits int // processes, commit calls
	// Acked, Definite and Unknown count the calls that returned a snapshot
	// id, that failed without publishing, and that failed with an unknown
	// outcome; Landed counts the unknown ones whose snapshot is in the log.
	Acked, Definite, Unknown, Landed int
	Snapshots                        int  // snapshots in the final log
	Contiguous                       bool // snapshot ids are 1..Snapshots
	// Linearizable: the calls and a final read of the whole log form a
	// linearizable history of an append-only log (porcupine).
	Linearizable bool
	// RowsChecked are the rows of the final table; Lost counts rows of
	// acknowledged (or landed) commits that are missing, Duplicated rows
	// read more than once, Extra rows of commits that did not land.
	RowsChecked, Lost, Duplicated, Extra int
	Problems                             []string // the first few problems, for the error message
}

// OK reports whether the race went right: linearizable, contiguous, no row
// lost, duplicated or extra.
func (r Report) OK() bool {
	return r.Linearizable && r.Contiguous && r.Lost == 0 && r.Duplicated == 0 && r.Extra == 0
}

func (r Report) String() string {
	return fmt.Sprintf("processes %d, commits %d (acknowledged %d, failed %d, unknown %d of which landed %d), snapshots %d (contiguous %v), rows checked %d, lost %d, duplicated %d, extra %d, linearizable %v",
		r.Procs, r.Commits, r.Acked, r.Definite, r.Unknown, r.Landed, r.Snapshots, r.Contiguous, r.RowsChecked, r.Lost, r.Duplicated, r.Extra, r.Linearizable)
}

func (r *Report) problem(format string, args ...any) {
	if len(r.Problems) < 10 {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	}
}

// logState is the model's state: the length of the snapshot log and a hash
// of the commit keys in it, in order.
type logState struct {
	n int
	h uint64
}

func (s logState) append(key string) logState {
	f := fnv.New64a()
	var b [8]byte
	for i := range b {
		b[i] = byte(s.h >> (8 * i))
	}
	f.Write(b[:])
	f.Write([]byte(key))
	return logState{n: s.n + 1, h: f.Sum64()}
}

// op inputs and outputs of the model.
type (
	commitIn struct{ key string }
	readIn   struct{}
	// commitOut: id > 0 acknowledged; else definite (nothing published) or
	// unknown.
	commitOut struct {
		id       int64
		definite bool
	}
)

// logModel is an append-only log: a commit appends its key and returns the
// log's new length (its snapshot id); a commit that failed definitely
// changes nothing; one with an unknown outcome may or may not have appended;
// a read returns the whole log.
var logModel = porcupine.NondeterministicModel{
	Init: func() []any { return []any{logState{}} },
	Step: func(state, input, output any) []any {
		s := state.(logState)
		switch in := input.(type) {
		case readIn:
			if output.(logState) == s {
				return []any{s}
			}
			return nil
		case commitIn:
			out := output.(commitOut)
			switch {
			case out.id > 0:
				if out.id == int64(s.n+1) {
					return []any{s.append(in.key)}
				}
				return nil
			case out.definite:
				return []any{s}
			default:
				return []any{s, s.append(in.key)}
			}
		}
		return nil
	},
	Hash: func(state any) uint64 { s := state.(logState); return s.h ^ uint64(s.n) },
	DescribeOperation: func(input, output any) string {
		if _, ok := input.(readIn); ok {
			return fmt.Sprintf("read() -> %d snapshots", output.(logState).n)
		}
		return fmt.Sprintf("commit(%s) -> %+v", input.(commitIn).key, output)
	},
}

func key(user string, identifier int64) string { return fmt.Sprintf("%s/%d", user, identifier) }

// Linearizable reports whether recs, followed by a read at end (unix
// nanoseconds, after every call) that returned the snapshot log logKeys
// (commit user "/" identifier of snapshots 1, 2, …), form a linearizable
// history of an append-only log (porcupine; the model appends a commit's
// key and returns the log's new length, its snapshot id). Calls with an
// unknown outcome may have appended or not, at any time up to end; calls
// that failed definitely appended nothing. timeout bounds the search (0:
// one minute); a search that times out reports false.
func Linearizable(recs []Record, logKeys []string, end int64, timeout time.Duration) bool {
	ops := make([]porcupine.Operation, 0, len(recs)+1)
	procs := 0
	for _, r := range recs {
		procs = max(procs, r.Proc+1)
		o := porcupine.Operation{ClientId: r.Proc, Input: commitIn{key: key(User(r.Proc), int64(r.Seq))}, Call: r.Invoke, Return: r.Return}
		switch {
		case r.Err == "":
			o.Output = commitOut{id: r.ID}
		case r.Definite:
			o.Output = commitOut{definite: true}
		default:
			o.Output = commitOut{}
			o.Return = max(r.Return, end)
		}
		ops = append(ops, o)
	}
	final := logState{}
	for _, k := range logKeys {
		final = final.append(k)
	}
	ops = append(ops, porcupine.Operation{ClientId: procs, Input: readIn{}, Call: end, Output: final, Return: end})
	if timeout <= 0 {
		timeout = time.Minute
	}
	return porcupine.CheckOperationsTimeout(logModel.ToModel(), ops, timeout) == porcupine.Ok
}

// Check reads the final snapshot log and rows of the race's table in
// cfg.Warehouse and judges recs (see Report). end is a time after every
// worker ended (unix nanoseconds); the final read is placed there, and calls
// with an unknown outcome are taken to have had their effect, if any, by
// then. timeout bounds the linearizability search (0: one minute).
func Check(ctx context.Context, cfg Config, recs []Record, end int64, timeout time.Duration) (Report, error) {
	rep := Report{Procs: cfg.Procs, Commits: len(recs)}
	cat, err := catalog.Open(ctx, cfg.Warehouse)
	if err != nil {
		return rep, err
	}
	defer cat.Close()
	tbl, err := cat.GetTable(ctx, Table)
	if err != nil {
		return rep, err
	}
	snaps, err := snapshot.NewManager(tbl.FileIO).List(ctx)
	if err != nil {
		return rep, err
	}
	rep.Snapshots = len(snaps)
	rep.Contiguous = true
	inLog := map[string]int64{}
	for i, s := range snaps {
		if s.ID != int64(i+1) {
			if rep.Contiguous {
				rep.problem("snapshot ids not contiguous: position %d holds %d", i+1, s.ID)
			}
			rep.Contiguous = false
		}
		k := key(s.CommitUser, s.CommitIdentifier)
		if _, dup := inLog[k]; dup {
			rep.problem("commit %s published twice", k)
		}
		inLog[k] = s.ID
	}

	// The history: every call, then one read of the whole log.
	landed := map[string]bool{}
	for _, r := range recs {
		k := key(User(r.Proc), int64(r.Seq))
		switch {
		case r.Err == "":
			rep.Acked++
			landed[k] = true
			if got, ok := inLog[k]; !ok || got != r.ID {
				rep.problem("commit %s acknowledged as snapshot %d, found at %d (0: absent)", k, r.ID, got)
			}
		case r.Definite:
			rep.Definite++
			if _, ok := inLog[k]; ok {
				rep.problem("commit %s failed (%s) but is in the log", k, r.Err)
			}
		default:
			rep.Unknown++
			if _, ok := inLog[k]; ok {
				rep.Landed++
				landed[k] = true
			}
		}
	}
	logKeys := make([]string, len(snaps))
	for i, s := range snaps {
		logKeys[i] = key(s.CommitUser, s.CommitIdentifier)
	}
	rep.Linearizable = Linearizable(recs, logKeys, end, timeout)
	if !rep.Linearizable {
		rep.problem("history of %d operations is not linearizable", len(recs)+1)
	}

	// Rows: every landed commit's rows exactly once, nothing else.
	count := map[int64]int{}
	plan, err := reader.NewScan(tbl.FileIO).Plan(ctx)
	if err != nil {
		return rep, err
	}
	for rec, err := range plan.Records(ctx) {
		if err != nil {
			return rep, err
		}
		ks := rec.Column(0).(*array.Int64)
		for i := range ks.Len() {
			count[ks.Value(i)]++
		}
		rep.RowsChecked += int(rec.NumRows())
		rec.Release()
	}
	rows := cfg.rows()
	expected := map[int64]bool{}
	for _, r := range recs {
		if !landed[key(User(r.Proc), int64(r.Seq))] {
			continue
		}
		for j := range rows {
			id := RowID(r.Proc, r.Seq, j, rows)
			expected[id] = true
			switch n := count[id]; {
			case n == 0:
				rep.Lost++
				rep.problem("row %d of commit %s/%d lost", id, User(r.Proc), r.Seq)
			case n > 1:
				rep.Duplicated++
				rep.problem("row %d of commit %s/%d read %d times", id, User(r.Proc), r.Seq, n)
			}
		}
	}
	for id, n := range count {
		if !expected[id] {
			rep.Extra += n
			rep.problem("row %d belongs to no landed commit", id)
		}
	}
	return rep, nil
}

// Error returns nil when the report is OK, else an error listing its
// problems.
func (r Report) Error() error {
	if r.OK() {
		return nil
	}
	return fmt.Errorf("commitrace: %s: %s", r, strings.Join(r.Problems, "; "))
}
