package schema

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/types"
)

func openFixture(t *testing.T, table string) *fileio.FileIO {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join(fixtures, table))
	if err != nil {
		t.Fatal(err)
	}
	fio, err := fileio.Open(context.Background(), "file://"+abs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fio.Close() })
	return fio
}

func TestManagerFixtureWithBranch(t *testing.T) {
	ctx := context.Background()
	m := NewManager(openFixture(t, "append_table_with_rt_branch_parquet"), "")
	ids, err := m.List(ctx)
	if err != nil || !slices.Equal(ids, []int64{0, 1}) {
		t.Fatalf("List = %v %v", ids, err)
	}
	latest, err := m.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if latest.ID != 1 || latest.Options.ScanFallbackBranch() != "rt" || len(latest.PrimaryKeys) != 0 {
		t.Errorf("main latest = id %d %v", latest.ID, latest.Options)
	}

	b := m.Branch("rt")
	if b.Root() != "branch/branch-rt" || b.Path(1) != "branch/branch-rt/schema/schema-1" {
		t.Errorf("branch paths %q %q", b.Root(), b.Path(1))
	}
	bl, err := b.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if bl.ID != 1 || !slices.Equal(bl.PrimaryKeys, []string{"dt", "name"}) || bl.TimeMillis != 1755857118622 {
		t.Errorf("branch latest = %d %v %d", bl.ID, bl.PrimaryKeys, bl.TimeMillis)
	}
	all, err := b.All(ctx)
	if err != nil || len(all) != 2 || all[0].ID != 0 {
		t.Fatalf("branch All = %v %v", all, err)
	}
	if m.Branch("main").Root() != "" || m.Branch("").Root() != "" {
		t.Error("main branch root")
	}
	if _, err := m.Get(ctx, 7); !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, fileio.ErrNotExist) {
		t.Errorf("Get(7) = %v", err)
	}
}

func TestManagerCommit(t *testing.T) {
	ctx := context.Background()
	fio, err := fileio.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	m := NewManager(fio, "wh/db.db/t")
	if _, err := m.Latest(ctx); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Latest on empty = %v", err)
	}
	s0, err := New([]types.DataField{{Name: "a", Type: types.Int()}}, false, nil, nil, map[string]string{"bucket": "-1"}, "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Commit(ctx, s0); err != nil {
		t.Fatal(err)
	}
	if err := m.Commit(ctx, s0); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second commit of schema 0 = %v", err)
	}
	s1 := *s0
	s1.ID = 1
	s1.Fields = append(slices.Clone(s0.Fields), types.Field(1, "b", types.String()))
	s1.HighestFieldID = 1
	if err := m.Commit(ctx, &s1); err != nil {
		t.Fatal(err)
	}
	// a stray temp file is ignored by List
	if err := fio.WriteFile(ctx, "wh/db.db/t/schema/.schema-2.abc.tmp", []byte("x")); err != nil {
		t.Fatal(err)
	}
	ids, err := m.List(ctx)
	if err != nil || !slices.Equal(ids, []int64{0, 1}) {
		t.Fatalf("List = %v %v", ids, err)
	}
	got, err := m.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != 1 || len(got.Fields) != 2 || got.Fields[1].Name != "b" || got.TimeMillis != 1000 {
		t.Errorf("Latest = %+v", got)
	}
	raw, err := fio.ReadFile(ctx, "wh/db.db/t/schema/schema-0")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := s0.Encode()
	if string(raw) != string(want) {
		t.Errorf("file content = %s", raw)
	}
	// invalid schemas are not written
	bad := *s0
	bad.ID = 2
	bad.PrimaryKeys = []string{"nope"}
	if err := m.Commit(ctx, &bad); !errors.Is(err, ErrInvalidSchema) {
		t.Errorf("Commit(bad) = %v", err)
	}
	// a file whose content has another id is corrupt
	if err := fio.WriteFile(ctx, "wh/db.db/t/schema/schema-5", raw); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Get(ctx, 5); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Get(5) = %v", err)
	}
}
