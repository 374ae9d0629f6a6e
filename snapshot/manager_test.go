package snapshot

import (
	"context"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/fileio"
)

func TestListSkipsSnapshotsBelowEarliestHint(t *testing.T) {
	ctx := context.Background()
	fio, err := fileio.Open(ctx, "mem:///list-earliest")
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(fio)
	for id := int64(1); id <= 4; id++ {
		s := &Snapshot{Version: CurrentVersion, ID: id, CommitUser: "u", CommitIdentifier: id, CommitKind: KindAppend,
			BaseManifestList: "b", DeltaManifestList: "d"}
		if err := m.Commit(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.CommitEarliestHint(ctx, 3); err != nil {
		t.Fatal(err)
	}
	got, err := m.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, s := range got {
		ids = append(ids, s.ID)
	}
	if !slices.Equal(ids, []int64{3, 4}) {
		t.Fatalf("List ids = %v, want [3 4] (EARLIEST = 3)", ids)
	}
	all, err := m.IDs(ctx)
	if err != nil || !slices.Equal(all, []int64{1, 2, 3, 4}) {
		t.Fatalf("IDs = %v, %v; want [1 2 3 4]", all, err)
	}
}
