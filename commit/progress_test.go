package commit_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/testenv"
	"github.com/paimon-go/paimon/types"
)

// realtime returns opts plus realtime.enabled=true.
func realtime(opts map[string]string) map[string]string {
	out := map[string]string{"realtime.enabled": "true"}
	maps.Copy(out, opts)
	return out
}

// rtSchema is kvSchema with real-time progress enabled; rtPartSchema is
// partSchema (partitioned by v) with it.
var (
	rtSchema     = catalog.Schema{Fields: kvSchema.Fields, Options: realtime(nil)}
	rtPartSchema = catalog.Schema{Fields: kvSchema.Fields, PartitionKeys: []string{"v"}, Options: realtime(nil)}
)

func pbOf(bucket int32, kv ...string) progress.PartitionBucket {
	p := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		p[kv[i]] = kv[i+1]
	}
	return progress.PartitionBucket{Partition: p, Bucket: bucket}
}

func adv(pb progress.PartitionBucket, begin, end int64) progress.Advance {
	return progress.Advance{PartitionBucket: pb, Range: progress.Range{Begin: begin, End: end}}
}

func advs(a ...progress.Advance) []progress.Advance { return a }

// ends renders the progress of snapshot id (0: the latest) as
// "pb=end,..." in partition-bucket order.
func ends(t *testing.T, tbl *catalog.Table, id int64) string {
	t.Helper()
	o, err := progress.ReadCommitted(context.Background(), tbl.FileIO, "", id)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, e := range o.Entries() {
		parts = append(parts, fmt.Sprintf("%s=%d", e.PartitionBucket, e.End))
	}
	return strings.Join(parts, ",")
}

func getSnapshot(t *testing.T, tbl *catalog.Table, id int64) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshot.NewManager(tbl.FileIO).Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// offsetsFiles lists metadata/.
func offsetsFiles(t *testing.T, fio *fileio.FileIO) []string {
	t.Helper()
	files, err := fio.List(context.Background(), "metadata")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

// checkOffsetsFiles fails unless metadata/ holds exactly the offsets files
// that snapshots reference.
func checkOffsetsFiles(t *testing.T, tbl *catalog.Table) {
	t.Helper()
	ref := map[string]bool{}
	for _, s := range snapshots(t, tbl.FileIO) {
		if p, ok := s.Properties[progress.Property]; ok {
			rel, err := progress.Path(tbl.FileIO, p)
			if err != nil {
				t.Fatal(err)
			}
			ref[rel] = true
		}
	}
	want := slices.Sorted(maps.Keys(ref))
	if got := offsetsFiles(t, tbl.FileIO); !slices.Equal(got, want) {
		t.Errorf("metadata/ holds %v, snapshots reference %v", got, want)
	}
}

var offsetsPath = regexp.MustCompile(`/metadata/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.offsets$`)

func TestCommitWithProgressRequiresRealtime(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", kvSchema)
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	_, err := c.CommitWithProgress(ctx, 1, prepare(t, tbl, "u", []int64{1}, "a"), advs(adv(pbOf(0), 0, 1)), nil)
	if !errors.Is(err, commit.ErrRealtimeDisabled) || !strings.Contains(err.Error(), "realtime.enabled=true") {
		t.Errorf("CommitWithProgress without realtime.enabled: %v", err)
	}
	if n := len(snapshots(t, tbl.FileIO)); n != 0 {
		t.Errorf("%d snapshots", n)
	}
}

// TestProgressForwardCopy: the snapshot of CommitWithProgress names a new
// offsets file; a plain append and a compaction share it (scenarios 7 and
// 9); a message with files and compaction changes gives an APPEND snapshot
// with a new file and a COMPACT one sharing it.
func TestProgressForwardCopy(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", pkSchema(realtime(map[string]string{"bucket": "1"})))
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u",
		commit.WithProperties(map[string]string{"custom": "x", progress.Property: "ignored"}))
	p0 := pbOf(0)
	first := prepare(t, tbl, "u", []int64{1, 2, 3}, "a")
	if id, err := c.CommitWithProgress(ctx, 1, first, advs(adv(p0, 0, 3)), nil); err != nil || id != 1 {
		t.Fatalf("CommitWithProgress = %d, %v; want 1", id, err)
	}
	s1 := getSnapshot(t, tbl, 1)
	prop := s1.Properties[progress.Property]
	root := strings.TrimPrefix(tbl.FileIO.URL(), "file://")
	if s1.CommitKind != snapshot.KindAppend || s1.Properties["custom"] != "x" || len(s1.Properties) != 2 ||
		!strings.HasPrefix(prop, root+"/metadata/") || !offsetsPath.MatchString(prop) {
		t.Fatalf("snapshot 1: kind %s properties %v (table at %s)", s1.CommitKind, s1.Properties, root)
	}
	rel, _ := progress.Path(tbl.FileIO, prop)
	data, err := tbl.FileIO.ReadFile(ctx, rel)
	const want = "{\n    \"version\": 1,\n    \"offsets\": [\n        {\n            \"partition\": {},\n" +
		"            \"bucket\": 0,\n            \"offset\": 3\n        }\n    ]\n}"
	if err != nil || string(data) != want {
		t.Errorf("offsets file %s = %q, %v; want %q", rel, data, err, want)
	}

	second := prepare(t, tbl, "u", []int64{4}, "b")
	if id, err := c.Commit(ctx, 2, second); err != nil || id != 2 {
		t.Fatalf("Commit = %d, %v", id, err)
	}
	if id, err := c.Commit(ctx, 3, upgradeFirst(first, 5)); err != nil || id != 3 {
		t.Fatalf("compaction Commit = %d, %v", id, err)
	}
	for id, kind := range map[int64]snapshot.CommitKind{2: snapshot.KindAppend, 3: snapshot.KindCompact} {
		s := getSnapshot(t, tbl, id)
		if s.CommitKind != kind || s.Properties[progress.Property] != prop || s.Properties["custom"] != "x" {
			t.Errorf("snapshot %d: kind %s properties %v; want %s sharing %s", id, s.CommitKind, s.Properties, kind, prop)
		}
	}

	// New files and the compaction of the second commit's file together.
	both := prepare(t, tbl, "u", []int64{5, 6}, "c")
	both[0].Compact = upgradeFirst(second, 5)[0].Compact
	// Like Commit it returns the last snapshot it created: the COMPACT
	// snapshot, which carries the progress over.
	if id, err := c.CommitWithProgress(ctx, 4, both, advs(adv(p0, 3, 5)), nil); err != nil || id != 5 {
		t.Fatalf("CommitWithProgress with compaction = %d, %v; want 5 (the COMPACT snapshot)", id, err)
	}
	s4, s5 := getSnapshot(t, tbl, 4), getSnapshot(t, tbl, 5)
	prop4 := s4.Properties[progress.Property]
	if s4.CommitKind != snapshot.KindAppend || prop4 == prop || !offsetsPath.MatchString(prop4) ||
		s5.CommitKind != snapshot.KindCompact || s5.Properties[progress.Property] != prop4 {
		t.Errorf("snapshot 4 %s %v, snapshot 5 %s %v", s4.CommitKind, s4.Properties, s5.CommitKind, s5.Properties)
	}
	for id, want := range map[int64]string{1: "{}/bucket-0=3", 3: "{}/bucket-0=3", 4: "{}/bucket-0=5", 0: "{}/bucket-0=5"} {
		if got := ends(t, tbl, id); got != want {
			t.Errorf("progress of snapshot %d = %s, want %s", id, got, want)
		}
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); strings.Join(got, ",") != "1|a,2|a,3|a,4|b,5|c,6|c" {
		t.Errorf("rows %v", got)
	}
	checkOffsetsFiles(t, tbl)
	checkNoOrphans(t, tbl)
}

// TestProgressRetry is scenario 5: a recommit of covered progress returns
// the latest snapshot, also after a further commit and from a new
// Committer of the same user; rows are not duplicated.
func TestProgressRetry(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", rtSchema)
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	p0 := pbOf(0)
	if id, err := c.CommitWithProgress(ctx, 1, prepare(t, tbl, "u", []int64{0, 1, 2}, "a"), advs(adv(p0, 0, 3)), nil); err != nil || id != 1 {
		t.Fatalf("first = %d, %v", id, err)
	}
	if id, err := c.CommitWithProgress(ctx, 1, prepare(t, tbl, "u", []int64{0, 1, 2}, "a"), advs(adv(p0, 0, 3)), nil); err != nil || id != 1 {
		t.Errorf("retry = %d, %v; want 1", id, err)
	}
	if id, err := c.CommitWithProgress(ctx, 2, prepare(t, tbl, "u", []int64{3, 4}, "a"), advs(adv(p0, 3, 5)), nil); err != nil || id != 2 {
		t.Fatalf("second = %d, %v", id, err)
	}
	if id, err := c.CommitWithProgress(ctx, 1, prepare(t, tbl, "u", []int64{0, 1, 2}, "a"), advs(adv(p0, 0, 3)), nil); err != nil || id != 2 {
		t.Errorf("retry of the first after the second = %d, %v; want 2 (the latest)", id, err)
	}
	// Another user's snapshot after ours: a restarted Committer's retry
	// returns it.
	other, _ := commit.New(tbl.FileIO, tbl.Schema, "other")
	if id, err := other.Commit(ctx, 1, prepare(t, tbl, "other", []int64{9}, "o")); err != nil || id != 3 {
		t.Fatalf("other = %d, %v", id, err)
	}
	c2, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	if id, err := c2.CommitWithProgress(ctx, 2, prepare(t, tbl, "u", []int64{3, 4}, "a"), advs(adv(p0, 3, 5)), nil); err != nil || id != 3 {
		t.Errorf("retry by a new Committer = %d, %v; want 3", id, err)
	}
	if n := len(snapshots(t, tbl.FileIO)); n != 3 {
		t.Errorf("%d snapshots, want 3", n)
	}
	if got := ends(t, tbl, 0); got != "{}/bucket-0=5" {
		t.Errorf("progress %s", got)
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); strings.Join(got, ",") != "0|a,1|a,2|a,3|a,4|a,9|o" {
		t.Errorf("rows %v", got)
	}
	checkOffsetsFiles(t, tbl)
	checkNoOrphans(t, tbl)
}

// TestProgressRejected: covered ranges from another commit user or
// identifier (scenario 6), an identifier committed without the ranges,
// partly covered ranges and ranges that do not continue the committed
// progress fail without writing anything.
func TestProgressRejected(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", rtSchema)
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	p0, p1 := pbOf(0), pbOf(1)
	if _, err := c.CommitWithProgress(ctx, 1, prepare(t, tbl, "u", []int64{0, 1, 2}, "a"), advs(adv(p0, 0, 3)), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CommitWithProgress(ctx, 2, prepare(t, tbl, "u", []int64{3, 4}, "a"), advs(adv(p0, 3, 5), adv(p1, 0, 2)), nil); err != nil {
		t.Fatal(err)
	}
	other, _ := commit.New(tbl.FileIO, tbl.Schema, "other")
	for _, tc := range []struct {
		name       string
		c          *commit.Committer
		identifier int64
		adv        []progress.Advance
		err        error
		msg        string
	}{
		{"another user", other, 1, advs(adv(p0, 0, 3)), commit.ErrForeignProgress, "another commit user or identifier"},
		{"another identifier", c, 3, advs(adv(p0, 0, 3), adv(p1, 0, 2)), commit.ErrForeignProgress, "another commit user or identifier"},
		{"identifier without the ranges", c, 2, advs(adv(p0, 5, 6)), commit.ErrForeignProgress, "identifier 2 of commit user u was committed without these ranges"},
		{"straddling retry", c, 2, advs(adv(p0, 4, 6)), commit.ErrPartialRetry, "partially committed"},
		{"mixed retry", c, 2, advs(adv(p0, 3, 5), adv(p1, 2, 3)), commit.ErrPartialRetry, "partially committed"},
		{"straddling", other, 7, advs(adv(p0, 4, 6)), commit.ErrPartialRetry, "some ranges are covered by the progress of snapshot 2, others not"},
		{"mixed", other, 7, advs(adv(p0, 0, 3), adv(pbOf(2), 0, 1)), commit.ErrPartialRetry, "others not"},
		{"gap", c, 3, advs(adv(p0, 6, 8)), progress.ErrNotContiguous, "{}/bucket-0: range [6,8) does not begin at the committed end (expected 5, got 6)"},
		{"gap between ranges", c, 3, advs(adv(p0, 7, 8), adv(p0, 5, 6)), progress.ErrNotContiguous, "expected 6, got 7"},
		{"new bucket not at 0", c, 3, advs(adv(pbOf(3), 2, 4)), progress.ErrNotContiguous, "expected 0, got 2"},
		{"negative bucket", c, 3, advs(adv(pbOf(-1), 0, 1)), progress.ErrInvalidRange, "bucket -1 is invalid"},
		{"empty range", c, 3, advs(adv(p0, 5, 5)), progress.ErrInvalidRange, "is empty"},
	} {
		_, err := tc.c.CommitWithProgress(ctx, tc.identifier, prepare(t, tbl, "u", []int64{100}, "x"), tc.adv, nil)
		if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v; want %v with %q", tc.name, err, tc.err, tc.msg)
		}
	}
	if n := len(snapshots(t, tbl.FileIO)); n != 2 {
		t.Errorf("%d snapshots, want 2", n)
	}
	if got := ends(t, tbl, 0); got != "{}/bucket-0=5,{}/bucket-1=2" {
		t.Errorf("progress %s", got)
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); strings.Join(got, ",") != "0|a,1|a,2|a,3|a,4|a" {
		t.Errorf("rows %v", got)
	}
	checkOffsetsFiles(t, tbl)
	checkNoOrphans(t, tbl)
}

// TestProgressOnly: ranges without files create a snapshot carrying the
// progress even though empty commits are ignored; no ranges and no files
// create nothing, as Commit; ranges given in reverse order (scenario 4).
func TestProgressOnly(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", rtSchema)
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	if id, err := c.CommitWithProgress(ctx, 1, nil, nil, nil); err != nil || id != 0 {
		t.Errorf("nothing = %d, %v; want 0", id, err)
	}
	if id, err := c.CommitWithProgress(ctx, 2, nil, advs(adv(pbOf(0), 3, 5), adv(pbOf(0), 0, 3)), nil); err != nil || id != 1 {
		t.Fatalf("progress only = %d, %v; want 1", id, err)
	}
	s := getSnapshot(t, tbl, 1)
	if s.CommitKind != snapshot.KindAppend || s.DeltaRecordCount != 0 || s.TotalRecordCount != 0 || s.CommitIdentifier != 2 {
		t.Errorf("snapshot %s delta %d total %d identifier %d", s.CommitKind, s.DeltaRecordCount, s.TotalRecordCount, s.CommitIdentifier)
	}
	if got := ends(t, tbl, 1); got != "{}/bucket-0=5" {
		t.Errorf("progress %s", got)
	}
	if entries := deltaEntries(t, tbl, s); len(entries) != 0 {
		t.Errorf("delta entries %v", kinds(entries))
	}
	checkOffsetsFiles(t, tbl)
}

// TestProgressWatermark: the snapshot watermark is max(base, given).
func TestProgressWatermark(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", rtSchema)
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	p0 := pbOf(0)
	wm := func(v int64) *int64 { return &v }
	for i, w := range []struct {
		given *int64
		want  int64
	}{{wm(100), 100}, {wm(50), 100}, {nil, 100}, {wm(200), 200}} {
		id, err := c.CommitWithProgress(ctx, int64(i+1), nil, advs(adv(p0, int64(i), int64(i+1))), w.given)
		if err != nil || id != int64(i+1) {
			t.Fatalf("commit %d = %d, %v", i+1, id, err)
		}
		if s := getSnapshot(t, tbl, id); s.Watermark == nil || *s.Watermark != w.want {
			t.Errorf("snapshot %d watermark %v, want %d", id, s.Watermark, w.want)
		}
	}
}

// TestProgressRequests: a Committer that commits progress in a loop reads
// nothing: it knows the progress of the snapshot it published last, and
// writes one offsets file more than Commit (see TestCommitRequests).
func TestProgressRequests(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", rtSchema)
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	for i := int64(1); i <= 3; i++ {
		msgs := prepare(t, tbl, "u", []int64{i}, "a")
		before := tbl.FileIO.Stats()
		if _, err := c.CommitWithProgress(ctx, i, msgs, advs(adv(pbOf(0), i-1, i)), nil); err != nil {
			t.Fatal(err)
		}
		got := tbl.FileIO.Stats().Since(before)
		if i == 1 {
			continue
		}
		// One GET checks that the cached base snapshot is still there (a
		// rollback frees its id); after the create one GET of the
		// EARLIEST hint and one HEAD of the base (no snapshot in a gap an
		// expiration left).
		if want := (fileio.Stats{Get: 2, Put: 6, Head: 2}); got != want {
			t.Errorf("commit %d made requests %+v, want %+v", i, got, want)
		}
	}
}

// TestProgressReset: truncate and full-table overwrites reset the progress
// (scenario 35); the next ranges start at 0.
func TestProgressReset(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", rtSchema)
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	p0 := pbOf(0)
	commitRange := func(identifier, begin, end int64) {
		t.Helper()
		if _, err := c.CommitWithProgress(ctx, identifier, nil, advs(adv(p0, begin, end)), nil); err != nil {
			t.Fatal(err)
		}
	}
	commitRange(1, 0, 3)
	// Truncate and DropPartitions commit with the batch identifier, which
	// would mark every identifier of their commit user as committed.
	admin, _ := commit.New(tbl.FileIO, tbl.Schema, "admin")
	id, err := admin.Truncate(ctx)
	if err != nil || id != 2 {
		t.Fatalf("Truncate = %d, %v", id, err)
	}
	if s := getSnapshot(t, tbl, 2); s.CommitKind != snapshot.KindOverwrite || s.Properties != nil {
		t.Errorf("truncate snapshot %s properties %v; want OVERWRITE without any", s.CommitKind, s.Properties)
	}
	if end, err := progress.ReadOffset(ctx, tbl.FileIO, "", 0, p0); err != nil || end != -1 {
		t.Errorf("offset after truncate = %d, %v; want -1", end, err)
	}
	if _, err := c.CommitWithProgress(ctx, 3, nil, advs(adv(p0, 3, 4)), nil); !errors.Is(err, progress.ErrNotContiguous) {
		t.Errorf("continuing after truncate: %v, want ErrNotContiguous", err)
	}
	commitRange(3, 0, 2)
	if id, err := c.Overwrite(ctx, 4, nil, prepare(t, tbl, "u", []int64{7}, "z")); err != nil || id != 4 {
		t.Fatalf("Overwrite = %d, %v", id, err)
	}
	if s := getSnapshot(t, tbl, 4); s.Properties != nil {
		t.Errorf("overwrite snapshot properties %v", s.Properties)
	}
	commitRange(5, 0, 1)
	if id, err := c.OverwriteDynamic(ctx, 6, prepare(t, tbl, "u", []int64{8}, "z")); err != nil || id != 6 {
		t.Fatalf("OverwriteDynamic = %d, %v", id, err)
	}
	if s := getSnapshot(t, tbl, 6); s.Properties != nil {
		t.Errorf("dynamic overwrite snapshot of an unpartitioned table: properties %v", s.Properties)
	}
	// The offsets files of the reset progress are still referenced by the
	// older snapshots.
	checkOffsetsFiles(t, tbl)
	if got := len(offsetsFiles(t, tbl.FileIO)); got != 3 {
		t.Errorf("%d offsets files, want 3", got)
	}
}

// TestProgressPartitions: dropping or overwriting partitions removes only
// their entries (scenarios 37-39, paimon-cpp BuildRemovesOnlyOverwrittenPartitions).
func TestProgressPartitions(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", rtPartSchema)
	c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
	admin, _ := commit.New(tbl.FileIO, tbl.Schema, "admin")
	a0, a1, b0, cc0 := pbOf(0, "v", "a"), pbOf(1, "v", "a"), pbOf(0, "v", "b"), pbOf(0, "v", "c")
	msgs := slices.Concat(prepare(t, tbl, "u", []int64{1}, "a"), prepare(t, tbl, "u", []int64{2}, "b"), prepare(t, tbl, "u", []int64{3}, "c"))
	if _, err := c.CommitWithProgress(ctx, 1, msgs, advs(adv(a0, 0, 3), adv(a1, 0, 4), adv(b0, 0, 5), adv(cc0, 0, 6)), nil); err != nil {
		t.Fatal(err)
	}
	// Dropping a partition without progress shares the file.
	if id, err := admin.DropPartitions(ctx, []commit.PartitionSpec{{"v": "zz"}}); err != nil || id != 2 {
		t.Fatalf("DropPartitions(zz) = %d, %v", id, err)
	}
	if p1, p2 := getSnapshot(t, tbl, 1).Properties, getSnapshot(t, tbl, 2).Properties; !maps.Equal(p1, p2) {
		t.Errorf("drop of zz: properties %v, want %v", p2, p1)
	}
	if id, err := admin.DropPartitions(ctx, []commit.PartitionSpec{{"v": "a"}}); err != nil || id != 3 {
		t.Fatalf("DropPartitions(a) = %d, %v", id, err)
	}
	if got, want := ends(t, tbl, 3), "{v=b}/bucket-0=5,{v=c}/bucket-0=6"; got != want {
		t.Errorf("after dropping a: %s, want %s", got, want)
	}
	// A dropped partition restarts at 0.
	if _, err := c.CommitWithProgress(ctx, 4, nil, advs(adv(a0, 0, 2)), nil); err != nil {
		t.Fatal(err)
	}
	if id, err := c.Overwrite(ctx, 5, commit.PartitionSpec{"v": "b"}, prepare(t, tbl, "u", []int64{20}, "b")); err != nil || id != 5 {
		t.Fatalf("Overwrite(b) = %d, %v", id, err)
	}
	if got, want := ends(t, tbl, 5), "{v=a}/bucket-0=2,{v=c}/bucket-0=6"; got != want {
		t.Errorf("after overwriting b: %s, want %s", got, want)
	}
	if id, err := c.OverwriteDynamic(ctx, 6, prepare(t, tbl, "u", []int64{30}, "c")); err != nil || id != 6 {
		t.Fatalf("OverwriteDynamic(c) = %d, %v", id, err)
	}
	if got, want := ends(t, tbl, 6), "{v=a}/bucket-0=2"; got != want {
		t.Errorf("after overwriting c: %s, want %s", got, want)
	}
	if id, err := admin.DropPartitions(ctx, []commit.PartitionSpec{{"v": "a"}, {"v": "b"}}); err != nil || id != 7 {
		t.Fatalf("DropPartitions(a, b) = %d, %v", id, err)
	}
	if s := getSnapshot(t, tbl, 7); s.Properties != nil {
		t.Errorf("no progress left: properties %v", s.Properties)
	}
	if got := tabletest.ReadRows(t, tbl.FileIO.URL()); strings.Join(got, ",") != "30|c" {
		t.Errorf("rows %v", got)
	}
	checkOffsetsFiles(t, tbl)
}

// TestProgressDropDatePartition is scenario 40: the progress of a DATE
// partition is keyed by "19723" with partition.legacy-name = true and by
// "2024-01-01" with false; dropping the partition removes its entry only.
func TestProgressDropDatePartition(t *testing.T) {
	for _, legacy := range []bool{true, false} {
		t.Run(fmt.Sprint("legacy=", legacy), func(t *testing.T) {
			ctx := context.Background()
			fields := []types.DataField{{ID: 0, Name: "k", Type: types.BigInt()}, {ID: 1, Name: "dt", Type: types.Date()}}
			tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: fields, PartitionKeys: []string{"dt"},
				Options: realtime(map[string]string{"bucket": "1", "bucket-key": "k", "partition.legacy-name": fmt.Sprint(legacy)})})
			c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
			pc := row.PartitionComputer{Fields: tbl.Schema.PartitionFields(), Legacy: legacy}
			day1, err := progress.PartitionOf(pc, []any{int32(19723)}) // 2024-01-01
			if err != nil {
				t.Fatal(err)
			}
			day2, _ := progress.PartitionOf(pc, []any{int32(19724)})
			if want := map[bool]string{true: "19723", false: "2024-01-01"}[legacy]; day1["dt"] != want {
				t.Fatalf("partition string %q, want %q", day1["dt"], want)
			}
			rec := tabletest.Batch(t, types.SchemaToArrow(fields), []any{int64(1), int32(19723)}, []any{int64(2), int32(19723)},
				[]any{int64(3), int32(19723)}, []any{int64(4), int32(19724)})
			defer rec.Release()
			msgs := tabletest.Prepare(t, tbl, "u", rec)
			p1 := progress.PartitionBucket{Partition: day1, Bucket: 0}
			p2 := progress.PartitionBucket{Partition: day2, Bucket: 0}
			if _, err := c.CommitWithProgress(ctx, 1, msgs, advs(adv(p1, 0, 3), adv(p2, 0, 1)), nil); err != nil {
				t.Fatal(err)
			}
			if end, err := progress.ReadOffset(ctx, tbl.FileIO, "", 0, p1); err != nil || end != 3 {
				t.Errorf("offset of %s = %d, %v; want 3", p1, end, err)
			}
			if _, err := c.DropPartitions(ctx, []commit.PartitionSpec{{"dt": int32(19723)}}); err != nil {
				t.Fatal(err)
			}
			if got, want := ends(t, tbl, 0), fmt.Sprintf("%s=1", p2); got != want {
				t.Errorf("after the drop: %s, want %s", got, want)
			}
			if got := tabletest.ReadRows(t, tbl.FileIO.URL()); len(got) != 1 {
				t.Errorf("rows after the drop %v, want 1", got)
			}
			checkOffsetsFiles(t, tbl)
		})
	}
}

// TestProgressLostRace: a Committer's first attempt builds on the snapshot
// it published last; when another committer published since, that attempt
// loses, its offsets file is deleted, and the retry merges the ranges into
// the other committer's progress.
func TestProgressLostRace(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", rtSchema)
	a, _ := commit.New(tbl.FileIO, tbl.Schema, "a")
	b, _ := commit.New(tbl.FileIO, tbl.Schema, "b")
	pa, pb := pbOf(0), pbOf(1)
	if id, err := a.CommitWithProgress(ctx, 1, prepare(t, tbl, "a", []int64{1}, "a"), advs(adv(pa, 0, 1)), nil); err != nil || id != 1 {
		t.Fatalf("a = %d, %v", id, err)
	}
	if id, err := b.CommitWithProgress(ctx, 1, prepare(t, tbl, "b", []int64{2}, "b"), advs(adv(pb, 0, 2)), nil); err != nil || id != 2 {
		t.Fatalf("b = %d, %v", id, err)
	}
	if id, err := a.CommitWithProgress(ctx, 2, prepare(t, tbl, "a", []int64{3}, "a"), advs(adv(pa, 1, 2)), nil); err != nil || id != 3 {
		t.Fatalf("a again = %d, %v; want 3", id, err)
	}
	if got := ends(t, tbl, 3); got != "{}/bucket-0=2,{}/bucket-1=2" {
		t.Errorf("progress %s", got)
	}
	checkOffsetsFiles(t, tbl)
	checkNoOrphans(t, tbl)

	// b truncates; a's next attempt (on its stale snapshot 3) loses, and on
	// the truncated table its range no longer continues the progress.
	if _, err := b.Truncate(ctx); err != nil {
		t.Fatal(err)
	}
	before := offsetsFiles(t, tbl.FileIO)
	_, err := a.CommitWithProgress(ctx, 3, prepare(t, tbl, "a", []int64{4}, "a"), advs(adv(pa, 2, 3)), nil)
	if !errors.Is(err, progress.ErrNotContiguous) || !strings.Contains(err.Error(), "expected 0, got 2") {
		t.Errorf("a after the truncate: %v, want ErrNotContiguous", err)
	}
	if after := offsetsFiles(t, tbl.FileIO); !slices.Equal(before, after) {
		t.Errorf("offsets files %v, want %v", after, before)
	}
	if n := len(snapshots(t, tbl.FileIO)); n != 4 {
		t.Errorf("%d snapshots, want 4", n)
	}
	checkNoOrphans(t, tbl)
}

// TestProgressRacingCommitters: writers commit progress of their own
// partition-bucket concurrently; every lost attempt re-merges the ranges
// into the new latest progress, the progress of each partition-bucket only
// grows from snapshot to snapshot, and no offsets file is left
// unreferenced.
func TestProgressRacingCommitters(t *testing.T) {
	progressRace(t, "")
}

func TestProgressRacingCommittersMinIO(t *testing.T) {
	if testing.Short() {
		t.Skip("MinIO race skipped in -short mode")
	}
	progressRace(t, testenv.MinIO(t))
}

func progressRace(t *testing.T, url string) {
	const writers, commits = 4, 8
	ctx := context.Background()
	tbl := tabletest.NewTable(t, url, rtSchema)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := fmt.Sprintf("writer-%d", g)
			c, err := commit.New(tbl.FileIO, tbl.Schema, user)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for i := range commits {
				msgs := prepare(t, tbl, user, []int64{int64(g*1000 + i)}, user)
				r := advs(adv(pbOf(int32(g)), int64(2*i), int64(2*i+2)))
				if _, err := c.CommitWithProgress(ctx, int64(i+1), msgs, r, nil); err != nil {
					errs <- fmt.Errorf("%s commit %d: %w", user, i+1, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	all := snapshots(t, tbl.FileIO)
	if len(all) != writers*commits {
		t.Fatalf("%d snapshots, want %d", len(all), writers*commits)
	}
	prev := map[int32]int64{}
	for _, s := range all {
		o, _, err := progress.OfSnapshot(ctx, tbl.FileIO, "", s)
		if err != nil {
			t.Fatal(err)
		}
		for g := range int32(writers) {
			end, _ := o.End(pbOf(g))
			if end < prev[g] {
				t.Errorf("snapshot %d: bucket %d went back from %d to %d", s.ID, g, prev[g], end)
			}
			prev[g] = end
		}
		// Each snapshot advanced exactly its writer's bucket by 2.
		var user int32
		fmt.Sscanf(s.CommitUser, "writer-%d", &user)
		if end, _ := o.End(pbOf(user)); end != 2*s.CommitIdentifier {
			t.Errorf("snapshot %d of %s/%d: end %d, want %d", s.ID, s.CommitUser, s.CommitIdentifier, end, 2*s.CommitIdentifier)
		}
	}
	var want []string
	for g := range writers {
		want = append(want, fmt.Sprintf("{}/bucket-%d=%d", g, 2*commits))
	}
	if got := ends(t, tbl, 0); got != strings.Join(want, ",") {
		t.Errorf("final progress %s, want %s", got, strings.Join(want, ","))
	}
	checkOffsetsFiles(t, tbl)
	checkNoOrphans(t, tbl)
}
