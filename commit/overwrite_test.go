package commit_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
)

// partSchema is kvSchema partitioned by v.
var partSchema = catalog.Schema{Fields: kvSchema.Fields, PartitionKeys: []string{"v"}}

// seed commits rows 1,2 into partition a, 3 into b and 4 into c, as
// snapshot 1, through c.
func seed(t *testing.T, tbl *catalog.Table, c *commit.Committer) {
	t.Helper()
	msgs := slices.Concat(prepare(t, tbl, "u", []int64{1, 2}, "a"), prepare(t, tbl, "u", []int64{3}, "b"),
		prepare(t, tbl, "u", []int64{4}, "c"))
	if id, err := c.Commit(context.Background(), 1, msgs); err != nil || id != 1 {
		t.Fatalf("seed Commit = %d, %v", id, err)
	}
}

func lastSnapshot(t *testing.T, tbl *catalog.Table) *snapshot.Snapshot {
	t.Helper()
	all := snapshots(t, tbl.FileIO)
	return all[len(all)-1]
}

// checkNoOrphans fails when manifest/ holds a file no snapshot references.
func checkNoOrphans(t *testing.T, tbl *catalog.Table) {
	t.Helper()
	if got, want := manifestFiles(t, tbl.FileIO), referencedManifests(t, tbl.FileIO); !slices.Equal(got, want) {
		t.Errorf("unreferenced manifest files: %v", difference(got, want))
	}
}

func TestOverwritePartition(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", partSchema)
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	seed(t, tbl, c)
	id, err := c.Overwrite(ctx, 2, commit.PartitionSpec{"v": "a"}, prepare(t, tbl, "u", []int64{10, 11, 12}, "a"))
	if err != nil || id != 2 {
		t.Fatalf("Overwrite = %d, %v; want 2", id, err)
	}
	s := lastSnapshot(t, tbl)
	if s.CommitKind != snapshot.KindOverwrite || s.DeltaRecordCount != 1 || s.TotalRecordCount != 5 || s.CommitIdentifier != 2 {
		t.Errorf("overwrite snapshot kind %s delta %d total %d identifier %d; want OVERWRITE 1 5 2",
			s.CommitKind, s.DeltaRecordCount, s.TotalRecordCount, s.CommitIdentifier)
	}
	want := []string{"10|a", "11|a", "12|a", "3|b", "4|c"}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	// The delta holds one DELETE (the seed's file of a) and one ADD.
	entries := deltaEntries(t, tbl, s)
	if len(entries) != 2 || entries[0].Kind != manifest.Delete || entries[0].File.RowCount != 2 ||
		entries[1].Kind != manifest.Add || entries[1].File.RowCount != 3 {
		t.Errorf("delta entries %v", kinds(entries))
	}
	// Idempotent like Commit.
	if id, err := c.Overwrite(ctx, 2, commit.PartitionSpec{"v": "a"}, prepare(t, tbl, "u", []int64{99}, "a")); err != nil || id != 2 {
		t.Errorf("repeated Overwrite = %d, %v; want 2 (no-op)", id, err)
	}
	checkNoOrphans(t, tbl)
}

func deltaEntries(t *testing.T, tbl *catalog.Table, s *snapshot.Snapshot) []manifest.Entry {
	t.Helper()
	ctx := context.Background()
	metas, err := manifest.ReadManifestList(ctx, tbl.FileIO, s.DeltaManifestList)
	if err != nil {
		t.Fatal(err)
	}
	var out []manifest.Entry
	for _, m := range metas {
		es, err := manifest.ReadManifest(ctx, tbl.FileIO, m.FileName)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, es...)
	}
	return out
}

func kinds(es []manifest.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Kind.String()+":"+e.File.FileName)
	}
	return out
}

func TestOverwriteWholeTable(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", partSchema)
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	seed(t, tbl, c)
	msgs := slices.Concat(prepare(t, tbl, "u", []int64{20}, "a"), prepare(t, tbl, "u", []int64{21}, "d"))
	if id, err := c.Overwrite(ctx, commit.BatchIdentifier, nil, msgs); err != nil || id != 2 {
		t.Fatalf("Overwrite = %d, %v", id, err)
	}
	if got, want := tabletest.ReadRows(t, tbl.FileIO.URL()), []string{"20|a", "21|d"}; !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	if s := lastSnapshot(t, tbl); s.DeltaRecordCount != -2 || s.TotalRecordCount != 2 {
		t.Errorf("delta %d total %d; want -2 2", s.DeltaRecordCount, s.TotalRecordCount)
	}
	checkNoOrphans(t, tbl)
}

func TestOverwriteDynamic(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", partSchema)
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	if dyn, err := c.DynamicPartitionOverwrite(); err != nil || !dyn {
		t.Errorf("DynamicPartitionOverwrite = %v, %v; want Java's default true", dyn, err)
	}
	seed(t, tbl, c)
	msgs := slices.Concat(prepare(t, tbl, "u", []int64{30}, "b"), prepare(t, tbl, "u", []int64{31}, "d"))
	if id, err := c.OverwriteDynamic(ctx, 2, msgs); err != nil || id != 2 {
		t.Fatalf("OverwriteDynamic = %d, %v", id, err)
	}
	if got, want := tabletest.ReadRows(t, tbl.FileIO.URL()), []string{"1|a", "2|a", "30|b", "31|d", "4|c"}; !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	// Nothing to write: no snapshot, as in Java's dynamic mode.
	if id, err := c.OverwriteDynamic(ctx, 3, nil); err != nil || id != 0 {
		t.Errorf("empty OverwriteDynamic = %d, %v; want 0", id, err)
	}
	if n := len(snapshots(t, tbl.FileIO)); n != 2 {
		t.Errorf("%d snapshots, want 2", n)
	}
	checkNoOrphans(t, tbl)
}

func TestDropPartitionsAndTruncate(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", partSchema)
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	seed(t, tbl, c)
	if id, err := c.DropPartitions(ctx, []commit.PartitionSpec{{"v": "a"}, {"v": "c"}}); err != nil || id != 2 {
		t.Fatalf("DropPartitions = %d, %v", id, err)
	}
	s := lastSnapshot(t, tbl)
	if s.CommitKind != snapshot.KindOverwrite || s.DeltaRecordCount != -3 || s.TotalRecordCount != 1 || s.CommitIdentifier != commit.BatchIdentifier {
		t.Errorf("drop snapshot %s delta %d total %d id %d", s.CommitKind, s.DeltaRecordCount, s.TotalRecordCount, s.CommitIdentifier)
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); strings.Join(got, ",") != "3|b" {
		t.Errorf("rows after drop %v", got)
	}
	// Dropping a partition that has no files still creates a snapshot.
	if id, err := c.DropPartitions(ctx, []commit.PartitionSpec{{"v": "zz"}}); err != nil || id != 3 {
		t.Errorf("drop of a missing partition = %d, %v; want 3", id, err)
	}
	if _, err := c.DropPartitions(ctx, []commit.PartitionSpec{{}}); !errors.Is(err, commit.ErrInvalidArgument) {
		t.Errorf("drop with an empty spec = %v, want ErrInvalidArgument", err)
	}
	if id, err := c.Truncate(ctx); err != nil || id != 4 {
		t.Fatalf("Truncate = %d, %v", id, err)
	}
	if s := lastSnapshot(t, tbl); s.TotalRecordCount != 0 || s.DeltaRecordCount != -1 || s.CommitKind != snapshot.KindOverwrite {
		t.Errorf("truncate snapshot total %d delta %d", s.TotalRecordCount, s.DeltaRecordCount)
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); len(got) != 0 {
		t.Errorf("rows after truncate %v", got)
	}
	checkNoOrphans(t, tbl)
}

func TestOverwriteBadInput(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", partSchema)
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	seed(t, tbl, c)
	before := manifestFiles(t, tbl.FileIO)
	cases := map[string]func() error{
		"file outside the spec": func() error {
			_, err := c.Overwrite(ctx, 2, commit.PartitionSpec{"v": "a"}, prepare(t, tbl, "u", []int64{5}, "b"))
			return err
		},
		"unknown key": func() error {
			_, err := c.Overwrite(ctx, 2, commit.PartitionSpec{"k": int64(1)}, nil)
			return err
		},
		"wrong Go type": func() error {
			_, err := c.DropPartitions(ctx, []commit.PartitionSpec{{"v": 7}})
			return err
		},
	}
	for name, f := range cases {
		if err := f(); !errors.Is(err, commit.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
	if n := len(snapshots(t, tbl.FileIO)); n != 1 {
		t.Errorf("%d snapshots after rejected overwrites, want 1", n)
	}
	if after := manifestFiles(t, tbl.FileIO); !slices.Equal(before, after) {
		t.Errorf("rejected overwrites left files: %v", difference(after, before))
	}
}

func TestParsePartitionSpec(t *testing.T) {
	tbl := tabletest.NewTable(t, "", partSchema)
	spec, err := commit.ParsePartitionSpec(tbl.Schema, map[string]string{"v": "__DEFAULT_PARTITION__"})
	if err != nil || len(spec) != 1 || spec["v"] != nil {
		t.Errorf("default partition = %v, %v; want v: nil", spec, err)
	}
	spec, err = commit.ParsePartitionSpec(tbl.Schema, map[string]string{"v": "x y"})
	if err != nil || spec["v"] != "x y" {
		t.Errorf("string partition = %v, %v", spec, err)
	}
	if _, err := commit.ParsePartitionSpec(tbl.Schema, map[string]string{"k": "1"}); !errors.Is(err, commit.ErrInvalidArgument) {
		t.Errorf("non-partition key: %v, want ErrInvalidArgument", err)
	}
}

// TestOverwriteAfterConcurrentAppend: an overwrite whose first attempt
// builds on a snapshot that another committer's append has since
// superseded loses the race, recomputes its DELETE entries from the new
// latest snapshot and so also replaces the appended file: the history reads
// append then overwrite, and the append is neither kept inside the
// overwritten partition nor lost from the others.
func TestOverwriteAfterConcurrentAppend(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", partSchema)
	o, _ := commit.New(tbl.FileIO, tbl.Schema, "o")
	seed(t, tbl, o) // o's cached base is snapshot 1
	x, _ := commit.New(tbl.FileIO, tbl.Schema, "x")
	appended := slices.Concat(prepare(t, tbl, "x", []int64{40}, "a"), prepare(t, tbl, "x", []int64{41}, "b"))
	if id, err := x.Commit(ctx, 1, appended); err != nil || id != 2 {
		t.Fatalf("append = %d, %v", id, err)
	}
	if id, err := o.Overwrite(ctx, 2, commit.PartitionSpec{"v": "a"}, prepare(t, tbl, "o", []int64{50}, "a")); err != nil || id != 3 {
		t.Fatalf("Overwrite = %d, %v; want 3", id, err)
	}
	if got, want := tabletest.ReadRows(t, tbl.FileIO.URL()), []string{"3|b", "41|b", "4|c", "50|a"}; !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	s := lastSnapshot(t, tbl)
	if s.DeltaRecordCount != -2 || s.TotalRecordCount != 4 {
		t.Errorf("delta %d total %d; want -2 4", s.DeltaRecordCount, s.TotalRecordCount)
	}
	if got := kinds(deltaEntries(t, tbl, s)); len(got) != 3 || !strings.HasPrefix(got[0], "DELETE") || !strings.HasPrefix(got[1], "DELETE") || !strings.HasPrefix(got[2], "ADD") {
		t.Errorf("delta entries %v; want two DELETEs (seed's and x's file of a) and one ADD", got)
	}
	checkNoOrphans(t, tbl)
}

// TestOverwriteUpgrade: the non-overlapping level-0 files of a primary-key
// overwrite land on the highest level (num-levels - 1 = 5 by default) unless
// overwrite-upgrade = false.
func TestOverwriteUpgrade(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		upgrade string
		level   int32
	}{{"true", 5}, {"false", 0}} {
		tbl := tabletest.NewTable(t, "", pkSchema(map[string]string{"bucket": "1", "overwrite-upgrade": tc.upgrade}))
		c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
		if _, err := c.Commit(ctx, 1, prepare(t, tbl, "u", []int64{1, 2}, "a")); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Overwrite(ctx, 2, nil, prepare(t, tbl, "u", []int64{2, 3}, "b")); err != nil {
			t.Fatal(err)
		}
		es := deltaEntries(t, tbl, lastSnapshot(t, tbl))
		if len(es) != 2 || es[0].Kind != manifest.Delete || es[0].File.Level != 0 || es[1].Kind != manifest.Add || es[1].File.Level != tc.level {
			t.Errorf("overwrite-upgrade=%s: delta %v levels %d, %d; want DELETE level 0, ADD level %d",
				tc.upgrade, kinds(es), es[0].File.Level, es[len(es)-1].File.Level, tc.level)
		}
		if got := tabletest.ReadRows(t, tbl.FileIO.URL()); strings.Join(got, ",") != "2|b,3|b" {
			t.Errorf("overwrite-upgrade=%s: rows %v", tc.upgrade, got)
		}
	}
}

// TestForceCreateSnapshot: commit.force-create-snapshot = true makes an empty
// commit create an (APPEND) snapshot, as snapshot.ignore-empty-commit = false
// does.
func TestForceCreateSnapshot(t *testing.T) {
	ctx := context.Background()
	for _, opt := range []map[string]string{{"commit.force-create-snapshot": "true"}, {"snapshot.ignore-empty-commit": "false"}} {
		s := kvSchema
		s.Options = opt
		tbl := tabletest.NewTable(t, "", s)
		c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
		if err != nil {
			t.Fatal(err)
		}
		if id, err := c.Commit(ctx, 1, nil); err != nil || id != 1 {
			t.Errorf("%v: empty Commit = %d, %v; want 1", opt, id, err)
		}
		if s := lastSnapshot(t, tbl); s.CommitKind != snapshot.KindAppend || s.TotalRecordCount != 0 {
			t.Errorf("%v: snapshot %s total %d", opt, s.CommitKind, s.TotalRecordCount)
		}
	}
}

// TestCompactionAfterOverwriteConflicts: a compaction prepared before an
// overwrite of its partition deletes a file the overwrite already deleted;
// it fails with ErrConflict (Java "File deletion conflicts detected") and
// publishes nothing, and the overwrite's rows stand.
func TestCompactionAfterOverwriteConflicts(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", pkSchema(map[string]string{"bucket": "1"}))
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	msgs := prepare(t, tbl, "u", []int64{1, 2}, "a")
	if _, err := c.Commit(ctx, 1, msgs); err != nil {
		t.Fatal(err)
	}
	compact := upgradeFirst(msgs, 3)
	o, _ := commit.New(tbl.FileIO, tbl.Schema, "o")
	if id, err := o.Overwrite(ctx, 1, nil, prepare(t, tbl, "o", []int64{7}, "b")); err != nil || id != 2 {
		t.Fatalf("Overwrite = %d, %v", id, err)
	}
	checkConflict(t, tbl, "compaction after the overwrite", func() error {
		_, err := c.Commit(ctx, 2, compact)
		return err
	}, "7|b")
}
