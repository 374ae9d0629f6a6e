package paimon_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/commit"
)

// TestCommitOffersManifests: a table's committers offer the manifest files
// they write to the table's Cache (commit.WithManifestCache), so planning
// the snapshots they published reads none of them from the store: the
// plan decodes as many manifest files as without the offers (the same
// misses and the same splits), and reads exactly that many fewer files.
func TestCommitOffersManifests(t *testing.T) {
	ctx := context.Background()
	type outcome struct {
		gets, misses int64
		files        int
	}
	run := func(offer bool) outcome {
		table := lookupTable(t, nil)
		for i := range int32(3) {
			commitWith(t, table, []int32{3 * i, 3*i + 1, 3*i + 2}, offer)
		}
		mc := table.Cache().Manifests()
		st0, ms0 := table.FileIO().Stats(), mc.Stats()
		p, err := table.NewScan().Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		files := 0
		for _, sp := range p.Splits {
			files += len(sp.Files)
		}
		return outcome{gets: table.FileIO().Stats().Since(st0).Get, misses: mc.Stats().Misses - ms0.Misses, files: files}
	}
	without, with := run(false), run(true)
	if without.files != 6 || with.files != 6 {
		t.Fatalf("planned %d and %d files, want 6 each (each commit's keys fall in both buckets)", without.files, with.files)
	}
	if without.misses == 0 || with.misses != without.misses {
		t.Fatalf("manifest files decoded: %d with offers, %d without; want the same, > 0", with.misses, without.misses)
	}
	if without.gets-with.gets != without.misses {
		t.Fatalf("GETs: %d with offers, %d without; want %d fewer with them", with.gets, without.gets, without.misses)
	}
}

// commitWith writes keys k with n = k into bucket-2 table and commits them
// with a committer of the table's, without its manifest offers unless offer.
func commitWith(t *testing.T, table *paimon.Table, ks []int32, offer bool) {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int32}, {Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil))
	defer b.Release()
	for _, k := range ks {
		b.Field(0).(*array.Int32Builder).Append(k)
		b.Field(1).(*array.Int64Builder).Append(int64(k))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var opts []commit.Option
	if !offer {
		opts = append(opts, commit.WithManifestCache(nil))
	}
	writeCommit(t, table, rec, opts...)
}
