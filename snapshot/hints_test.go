package snapshot_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/snapshot"
)

// hintTable returns a memory table with snapshots ids (committed through
// Manager.Commit, which writes LATEST) and its Manager.
func hintTable(t *testing.T, name string, ids ...int64) (*fileio.FileIO, *snapshot.Manager) {
	t.Helper()
	ctx := context.Background()
	fio, err := fileio.Open(ctx, "mem:///"+name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fio.Close() })
	m := snapshot.NewManager(fio)
	for _, id := range ids {
		s := &snapshot.Snapshot{Version: snapshot.CurrentVersion, ID: id, CommitUser: "u", CommitIdentifier: id,
			CommitKind: snapshot.KindAppend, BaseManifestList: "b", DeltaManifestList: "d"}
		if err := m.Commit(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	return fio, m
}

func writeHint(t *testing.T, fio *fileio.FileIO, name, v string) {
	t.Helper()
	if err := fio.WriteFile(context.Background(), "snapshot/"+name, []byte(v)); err != nil {
		t.Fatal(err)
	}
}

// TestLatestIDHintNamesMissingSnapshot: LatestID returned the id of a LATEST
// hint whose snapshot does not exist (Latest then failed with ErrNotFound,
// for every reader). It must resolve to the latest existing snapshot.
func TestLatestIDHintNamesMissingSnapshot(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		hint string
		drop int64 // a snapshot file to delete, 0 for none
		want int64
	}{
		{name: "true", hint: "3", want: 3},
		{name: "lagging", hint: "2", want: 3},
		{name: "above", hint: "7", want: 3},
		{name: "deleted", hint: "3", drop: 3, want: 2},
		{name: "max", hint: "9223372036854775807", want: 3},
		{name: "garbage", hint: "x", want: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fio, m := hintTable(t, "latest-"+tc.name, 1, 2, 3)
			if tc.drop > 0 {
				if err := fio.Delete(ctx, m.Path(tc.drop)); err != nil {
					t.Fatal(err)
				}
			}
			writeHint(t, fio, snapshot.HintLatest, tc.hint)
			if id, err := m.LatestID(ctx); err != nil || id != tc.want {
				t.Fatalf("LatestID = %d, %v; want %d", id, err, tc.want)
			}
			if s, err := m.Latest(ctx); err != nil || s.ID != tc.want {
				t.Fatalf("Latest = %v, %v; want snapshot %d", s, err, tc.want)
			}
		})
	}
	t.Run("empty", func(t *testing.T) {
		fio, m := hintTable(t, "latest-empty")
		writeHint(t, fio, snapshot.HintLatest, "4")
		if _, err := m.LatestID(ctx); !errors.Is(err, snapshot.ErrNotFound) {
			t.Fatalf("LatestID: %v, want ErrNotFound", err)
		}
	})
}

// TestEarliestHintNamesMissingSnapshot: EarliestID and Earliest ignore an
// EARLIEST hint naming a missing snapshot (as Java's findEarliest does), and
// ConfirmEarliestHint tells such a lie from a hint that names an existing
// snapshot or moved meanwhile.
func TestEarliestHintNamesMissingSnapshot(t *testing.T) {
	ctx := context.Background()
	fio, m := hintTable(t, "earliest", 2, 3, 4)
	writeHint(t, fio, snapshot.HintEarliest, "7")
	if id, err := m.EarliestID(ctx); err != nil || id != 2 {
		t.Fatalf("EarliestID = %d, %v; want 2", id, err)
	}
	if s, err := m.Earliest(ctx); err != nil || s.ID != 2 {
		t.Fatalf("Earliest = %v, %v; want snapshot 2", s, err)
	}
	if id, ok, err := m.ConfirmEarliestHint(ctx, 7); err != nil || ok || id != 0 {
		t.Fatalf("ConfirmEarliestHint(7) = %d, %v, %v; want a lie", id, ok, err)
	}
	writeHint(t, fio, snapshot.HintEarliest, "3")
	if id, ok, err := m.ConfirmEarliestHint(ctx, 3); err != nil || !ok || id != 3 {
		t.Fatalf("ConfirmEarliestHint(3) = %d, %v, %v; want 3, true", id, ok, err)
	}
	// A value read before another expiration raised the hint (to 3) and
	// deleted snapshot 1: the hint moved, it does not lie.
	if id, ok, err := m.ConfirmEarliestHint(ctx, 1); err != nil || !ok || id != 3 {
		t.Fatalf("ConfirmEarliestHint(1) = %d, %v, %v; want 3, true", id, ok, err)
	}
}

func TestNextID(t *testing.T) {
	if id, err := snapshot.NextID(41); err != nil || id != 42 {
		t.Fatalf("NextID(41) = %d, %v", id, err)
	}
	for _, id := range []int64{math.MaxInt64, -1} {
		if got, err := snapshot.NextID(id); !errors.Is(err, snapshot.ErrIDOverflow) || got != 0 {
			t.Fatalf("NextID(%d) = %d, %v; want ErrIDOverflow", id, got, err)
		}
	}
}

// TestGetRefusesSnapshotOfAnotherID: a snapshot file copied to another id's
// name was served as that snapshot (readers saw snapshot 1's files as
// snapshot 3's). Get refuses it with ErrCorrupt naming the file and both ids.
func TestGetRefusesSnapshotOfAnotherID(t *testing.T) {
	ctx := context.Background()
	fio, err := fileio.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	m := snapshot.NewManager(fio)
	data, err := (&snapshot.Snapshot{Version: 3, ID: 1, CommitUser: "u", CommitKind: "APPEND"}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{m.Path(1), m.Path(3)} {
		if err := fio.WriteFile(ctx, p, data); err != nil {
			t.Fatal(err)
		}
	}
	if s, err := m.Get(ctx, 1); err != nil || s.ID != 1 {
		t.Fatalf("Get(1): %v, %v", s, err)
	}
	_, err = m.Get(ctx, 3)
	if !errors.Is(err, snapshot.ErrCorrupt) || !strings.Contains(err.Error(), "snapshot/snapshot-3") || !strings.Contains(err.Error(), "holds snapshot 1") {
		t.Fatalf("Get(3): %v, want ErrCorrupt naming snapshot/snapshot-3 and id 1", err)
	}
}

// TestIDsIgnoreNonCanonicalNames: a stray snapshot/snapshot-007 was listed
// as snapshot 7 (twice, next to snapshot-7), so expiration counted it and
// deleted one snapshot too many. Only names Path gives are snapshot files.
func TestIDsIgnoreNonCanonicalNames(t *testing.T) {
	ctx := context.Background()
	fio, m := hintTable(t, "canonical", 1, 2, 7)
	for _, name := range []string{"snapshot-007", "snapshot-+3", "snapshot-00"} {
		if err := fio.WriteFile(ctx, "snapshot/"+name, []byte("{}")); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := m.IDs(ctx)
	if err != nil || !slices.Equal(ids, []int64{1, 2, 7}) {
		t.Fatalf("IDs = %v, %v; want [1 2 7]", ids, err)
	}
}
