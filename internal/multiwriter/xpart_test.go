package multiwriter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// xpartEnv set to "1" makes a worker write the cross-partition table of
// TestCrossPartitionWriters (xpartWork) instead of the shared-bucket one.
const xpartEnv = "MULTIWRITER_XPART"

// xpartParts is the number of partitions the keys move between.
const xpartParts = 3

var xpartFields = []types.DataField{
	{Name: "k", Type: types.Int().NotNull()}, {Name: "p", Type: types.Int()},
	{Name: "v", Type: types.String()}, {Name: "s", Type: types.BigInt()},
}

// xpartRowsOf returns the rows worker w writes in its commit with
// identifier id to a table of merge engine engine: k, p, v, s. The keys
// are rowsOf's, their partition changes with every commit; partial-update
// tables get a null s on odd identifiers. Other engines than deduplicate
// also get key xpartNewKey+id, which every worker writes as a new key
// into its own partition in its commit id, so that concurrent commits
// conflict on a new key in every round.
func xpartRowsOf(w int, id int64, engine string) [][]any {
	partial := engine == "partial-update"
	var out [][]any
	for _, r := range rowsOf(w, id, false) {
		k := r[0].(int32)
		var s any = int64(w)*1000 + id
		if partial && id%2 == 1 {
			s = nil
		}
		out = append(out, []any{k, int32((int64(w) + id + int64(k)) % xpartParts), fmt.Sprintf("w%d-%d-k%d", w, id, k), s})
	}
	if engine != "deduplicate" {
		k := xpartNewKey + int32(id)
		out = append(out, []any{k, int32(w % xpartParts), fmt.Sprintf("w%d-%d-k%d", w, id, k), int64(w)*1000 + id})
	}
	return out
}

// xpartNewKey is the first key of xpartRowsOf's new keys.
const xpartNewKey = 1000

// xpartWork is work for the cross-partition table: one long-lived writer
// and committer; a commit refused with commit.ErrKeyIndexStale (only when
// a snapshot after the writer's key index expired, which this test never
// does: conflicts with keys other workers placed meanwhile are resolved by
// the committer) is retried after Write.Restore, which bootstraps the
// index anew, with the same rows and identifier. Each ack counts the
// refusals.
func xpartWork(id, first, commits int, url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tbl, err := paimon.OpenTable(ctx, url)
	if err != nil {
		return err
	}
	defer tbl.Close()
	user := "w" + strconv.Itoa(id)
	w, err := tbl.NewWrite(user)
	if err != nil {
		return err
	}
	c, err := tbl.NewCommit(user)
	if err != nil {
		return err
	}
	engine, err := tbl.Schema().Options.MergeEngine()
	if err != nil {
		return err
	}
	sc := types.SchemaToArrow(tbl.Schema().Fields)
	out := json.NewEncoder(os.Stdout)
	for ident := int64(first); ident <= int64(commits); ident++ {
		a := ack{Worker: id, Identifier: ident, Compacted: true}
		for {
			rec, err := tabletest.NewBatch(sc, xpartRowsOf(id, ident, string(engine))...)
			if err != nil {
				return err
			}
			err = w.Write(ctx, rec)
			rec.Release()
			if err != nil {
				return fmt.Errorf("commit %d: %w", ident, err)
			}
			msgs, err := w.PrepareCommit(ctx)
			if err != nil {
				return fmt.Errorf("commit %d: %w", ident, err)
			}
			a.Snapshot, err = c.Commit(ctx, ident, msgs)
			if errors.Is(err, commit.ErrKeyIndexStale) && a.Refused < 100 {
				a.Refused++
				if err := w.Restore(ctx); err != nil {
					return err
				}
				continue
			}
			if errors.Is(err, commit.ErrCompactionNotCommitted) {
				a.Compacted, err = false, w.Restore(ctx)
			}
			if err != nil {
				return fmt.Errorf("commit %d: %w", ident, err)
			}
			break
		}
		if err := out.Encode(a); err != nil {
			return err
		}
	}
	return nil
}

// TestCrossPartitionWriters: worker processes upsert overlapping keys of
// one cross-partition upsert table (primary key k, partition p not in it,
// bucket = -1, two keys per bucket), each moving its keys to another
// partition with every commit, each with its own writer, key index and
// committer. A commit that puts a key where another worker meanwhile put
// it elsewhere retracts the other placement (deduplicate), moves its rows
// of the key to the other placement (partial-update) or drops them
// (first-row); no commit is refused (commit.ErrKeyIndexStale). The rows
// read (all levels: first-row batch reads skip level 0) equal a serial
// replay of the published commits in snapshot order, before and after a
// full compaction: every key exactly once, in its last committed
// partition with its last committed values (deduplicate), in its first
// one with its values merged in commit order (partial-update), or its
// first committed row (first-row). Variants: "plain", and "kill" (every
// worker killed with SIGKILL once at a random moment and restarted), on
// local disk and MinIO. Short form: 4 processes × 10 commits, deduplicate
// in all four, partial-update and first-row local plain and MinIO kill;
// -multiwriter.long: 4 × 50, every combination.
func TestCrossPartitionWriters(t *testing.T) {
	procs, commits := 4, 10
	if *long {
		commits = 50
	}
	engines := []string{"deduplicate", "partial-update", "first-row"}
	t.Setenv(xpartEnv, "1")
	for _, st := range stores {
		for _, engine := range engines {
			for _, variant := range []string{"plain", "kill"} {
				if !*long && engine != "deduplicate" && (st.name == "local") != (variant == "plain") {
					continue
				}
				t.Run(st.name+"/"+engine+"/"+variant, func(t *testing.T) {
					opts := map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "2", "merge-engine": engine}
					tbl := tabletest.NewTable(t, st.url(t), catalog.Schema{Fields: xpartFields, PartitionKeys: []string{"p"}, PrimaryKeys: []string{"k"}, Options: opts})
					url := tbl.FileIO.URL()
					acks, kills := runWorkers(t, url, procs, commits, false, variant == "kill")
					if len(acks) != procs*commits {
						t.Fatalf("%d commits acknowledged, want %d", len(acks), procs*commits)
					}
					refused := 0
					for _, a := range acks {
						refused += a.Refused
					}
					want := xpartReplay(t, url, engine, acks)
					wantKeys := keys
					if engine != "deduplicate" {
						wantKeys += commits
					}
					if len(want) != wantKeys {
						t.Fatalf("replay gives %d rows, want %d", len(want), wantKeys)
					}
					if refused > 0 {
						t.Errorf("%d commit attempts refused with ErrKeyIndexStale, want 0 (conflicts are resolved)", refused)
					}
					if got := tabletest.ReadRows(t, url, reader.WithAllLevels()); !slices.Equal(got, want) {
						t.Fatalf("rows\n%q\nwant (serial replay)\n%q", got, want)
					}
					if _, err := compaction.Compact(context.Background(), tbl.FileIO, tbl.Schema, "compact", compaction.Options{Full: true}); err != nil {
						t.Fatal(err)
					}
					if got := tabletest.ReadRows(t, url, reader.WithAllLevels()); !slices.Equal(got, want) {
						t.Fatalf("rows after full compaction\n%q\nwant (serial replay)\n%q", got, want)
					}
					t.Logf("%d processes × %d commits (%s, %d killed): %d rows equal the serial replay (%s)",
						procs, commits, variant, kills, len(want), engine)
				})
			}
		}
	}
}

// xpartReplay applies the APPEND snapshots of the table at url in snapshot
// order to a model of the cross-partition table and returns its rows
// ("k|p|v|s"), checking that they are exactly the acknowledged commits,
// each once.
func xpartReplay(t *testing.T, url, engine string, acks []ack) []string {
	t.Helper()
	ctx := context.Background()
	tbl, err := paimon.OpenTable(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	snaps := tbl.Snapshots()
	latest, err := snaps.LatestID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	acked := map[[2]int64]bool{}
	empty := 0 // first-row: commits whose rows the writer all dropped publish nothing
	for _, a := range acks {
		if a.Snapshot == 0 && engine == "first-row" {
			empty++
			continue
		}
		acked[[2]int64{int64(a.Worker), a.Identifier}] = true
	}
	model := map[int32][]any{}
	seen := map[[2]int64]bool{}
	// first-row: a commit whose rows the writer all dropped may still
	// publish a COMPACT snapshot (its Write compacted a bucket).
	compacted := map[[2]int64]bool{}
	for id := int64(1); id <= latest; id++ {
		s, err := snaps.Get(ctx, id)
		if err != nil {
			t.Fatalf("snapshot %d of %d: %v", id, latest, err)
		}
		w, err := strconv.Atoi(strings.TrimPrefix(s.CommitUser, "w"))
		if s.CommitKind == snapshot.KindCompact {
			if err == nil && engine == "first-row" {
				compacted[[2]int64{int64(w), s.CommitIdentifier}] = true
			}
			continue
		}
		if err != nil {
			t.Fatalf("snapshot %d by %q", id, s.CommitUser)
		}
		key := [2]int64{int64(w), s.CommitIdentifier}
		if seen[key] || !acked[key] {
			t.Fatalf("snapshot %d: commit %d of worker %d published twice or never acknowledged", id, s.CommitIdentifier, w)
		}
		seen[key] = true
		for _, r := range xpartRowsOf(w, s.CommitIdentifier, engine) {
			k := r[0].(int32)
			old, ok := model[k]
			switch {
			case !ok || engine == "deduplicate":
				model[k] = r
			case engine == "first-row": // the first committed row stays
			default: // partial-update: the key stays in its first partition
				next := slices.Clone(old)
				for c := 2; c < len(r); c++ {
					if r[c] != nil {
						next[c] = r[c]
					}
				}
				model[k] = next
			}
		}
	}
	for k := range compacted {
		if acked[k] && !seen[k] {
			delete(acked, k)
			empty++
		}
	}
	if len(seen) != len(acked) {
		var missing []string
		for _, a := range acks {
			if k := [2]int64{int64(a.Worker), a.Identifier}; acked[k] && !seen[k] {
				missing = append(missing, fmt.Sprintf("%+v", a))
			}
		}
		t.Fatalf("%d commits published, %d acknowledged with a snapshot; not published: %v", len(seen), len(acked), missing)
	}
	if empty > 0 {
		t.Logf("%d commits published no data files (first-row: every row's key lived in another partition)", empty)
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(model)) {
		r := model[k]
		s := make([]string, len(r))
		for i, v := range r {
			if v == nil {
				s[i] = "(null)"
			} else {
				s[i] = fmt.Sprint(v)
			}
		}
		out = append(out, strings.Join(s, "|"))
	}
	slices.Sort(out)
	return out
}
