package reader_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// Planning at scale (issue 16, goal 5): a primary-key table of
// scalePartitions partitions × scaleBuckets buckets holding scaleFiles data
// files, committed through the real committer in scaleCommits commits, so
// that its manifests and manifest lists are the ones our committer writes.
// The data files do not exist: planning reads metadata only.
//
//	go test -run '^$' -bench PlanScale -benchtime 5x ./reader
const (
	scalePartitions = 1000
	scaleBuckets    = 4
	scaleCommits    = 10
	// scaleFilesPerPartition is the files one commit adds to each partition,
	// spread round robin over the buckets.
	scaleFilesPerPartition = 10
	scaleFiles             = scalePartitions * scaleCommits * scaleFilesPerPartition // 100,000
	scaleSplits            = scalePartitions * scaleBuckets
	// scaleRowsPerFile is the row count of every fabricated data file.
	scaleRowsPerFile = 100
)

// scaleSchema is the planning-at-scale table: partitioned by dt, keyed by
// (dt, k), scaleBuckets fixed buckets, default manifest options.
var scaleSchema = catalog.Schema{
	Fields: []types.DataField{
		{Name: "dt", Type: types.String().NotNull()},
		{Name: "k", Type: types.BigInt().NotNull()},
		{Name: "v", Type: types.String()},
	},
	PartitionKeys: []string{"dt"},
	PrimaryKeys:   []string{"dt", "k"},
	Options:       map[string]string{"bucket": fmt.Sprint(scaleBuckets)},
}

// scaleTable is a built planning-at-scale table.
type scaleTable struct {
	tbl   *catalog.Table
	url   string
	proto manifest.DataFileMeta // a writer-made file whose shape fabricated files copy
	next  int                   // commits made so far (identifier and file-name counter)
}

// buildScaleTable creates the table in b.TempDir() and commits scaleCommits
// commits of scalePartitions × scaleFilesPerPartition fabricated files each.
func buildScaleTable(b *testing.B) *scaleTable {
	b.Helper()
	ctx := context.Background()
	tbl := tabletest.NewTable(b, "", scaleSchema)
	st := &scaleTable{tbl: tbl, url: tbl.FileIO.URL()}
	rec := tabletest.Batch(b, types.SchemaToArrow(tbl.Schema.Fields), []any{"proto", int64(0), "v"})
	msgs := tabletest.Prepare(b, tbl, "scale-proto", rec)
	rec.Release()
	if len(msgs) != 1 || len(msgs[0].Data.NewFiles) != 1 {
		b.Fatalf("prototype write made %d messages, want 1 with 1 file", len(msgs))
	}
	st.proto = msgs[0].Data.NewFiles[0]
	c, err := commit.New(tbl.FileIO, tbl.Schema, "scale")
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for range scaleCommits {
		if _, err := c.Commit(ctx, int64(st.next+1), st.messages(b, scalePartitions, scaleFilesPerPartition)); err != nil {
			b.Fatal(err)
		}
		st.next++
	}
	return st
}

// messages returns the messages of commit st.next: files files in each of
// the first parts partitions, round robin over the buckets. Sequence
// numbers rise with the commit, so no commit reorders an earlier one's
// files (the committer would resequence them otherwise).
func (st *scaleTable) messages(b *testing.B, parts, files int) []commit.Message {
	b.Helper()
	n := st.next
	keyFields := []types.DataField{{Name: "_KEY_k", Type: types.BigInt().NotNull()}}
	keyTypes := row.FieldTypes(keyFields)
	partTypes := []types.DataType{types.String().NotNull()}
	var out []commit.Message
	for p := range parts {
		dt := fmt.Sprintf("2026-%04d", p)
		pr, err := row.Encode(partTypes, []any{dt})
		if err != nil {
			b.Fatal(err)
		}
		part := row.Serialize(pr)
		byBucket := make([]commit.Message, scaleBuckets)
		for i := range files {
			lo := int64(n*files+i) * scaleRowsPerFile
			hi := lo + scaleRowsPerFile - 1
			f := st.proto
			f.FileName = fmt.Sprintf("data-scale-%d-%d-%d.parquet", n, p, i)
			f.RowCount, f.FileSize = scaleRowsPerFile, 4096
			f.MinSequenceNumber, f.MaxSequenceNumber = lo, hi
			minKey, err := row.Encode(keyTypes, []any{lo})
			if err != nil {
				b.Fatal(err)
			}
			maxKey, err := row.Encode(keyTypes, []any{hi})
			if err != nil {
				b.Fatal(err)
			}
			f.MinKey, f.MaxKey = row.Serialize(minKey), row.Serialize(maxKey)
			ks, err := row.EncodeStats(keyFields, []row.ColStats{{Min: lo, Max: hi, NullCount: 0}}, false)
			if err != nil {
				b.Fatal(err)
			}
			vs, err := row.EncodeStats(st.tbl.Schema.Fields, []row.ColStats{
				{Min: dt, Max: dt, NullCount: 0}, {Min: lo, Max: hi, NullCount: 0}, {Min: "a", Max: "z", NullCount: 0},
			}, true)
			if err != nil {
				b.Fatal(err)
			}
			f.KeyStats = manifest.SimpleStats{MinValues: row.Serialize(ks.Min), MaxValues: row.Serialize(ks.Max), NullCounts: ks.NullCounts}
			f.ValueStats = manifest.SimpleStats{MinValues: row.Serialize(vs.Min), MaxValues: row.Serialize(vs.Max), NullCounts: vs.NullCounts}
			f.ValueStatsCols = vs.Cols
			m := &byBucket[i%scaleBuckets]
			m.Data.NewFiles = append(m.Data.NewFiles, f)
		}
		for bk := range byBucket {
			if m := byBucket[bk]; len(m.Data.NewFiles) > 0 {
				m.Partition, m.Bucket, m.TotalBuckets = part, int32(bk), scaleBuckets
				out = append(out, m)
			}
		}
	}
	return out
}

// commitSmall commits files new files into partition 0 (outside the timed
// part of a benchmark).
func (st *scaleTable) commitSmall(b *testing.B, files int) {
	b.Helper()
	c, err := commit.New(st.tbl.FileIO, st.tbl.Schema, "scale")
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Commit(context.Background(), int64(st.next+1), st.messages(b, 1, files)); err != nil {
		b.Fatal(err)
	}
	st.next++
}

// planScaleCheck plans tbl's latest snapshot and fails unless it has
// exactly wantFiles files in wantSplits splits.
func planScaleCheck(b *testing.B, tbl *paimon.Table, wantFiles, wantSplits int) {
	b.Helper()
	plan, err := tbl.NewScan().Plan(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	files := 0
	for _, sp := range plan.Splits {
		files += len(sp.Files)
	}
	if files != wantFiles || len(plan.Splits) != wantSplits {
		b.Fatalf("planned %d files in %d splits, want %d in %d", files, len(plan.Splits), wantFiles, wantSplits)
	}
}

// BenchmarkPlanScale plans the latest snapshot of a table of 100,000 data
// files in 1,000 partitions (4,000 partition-buckets) on local disk:
//
//   - cold: a table opened per plan (an empty reader.Cache: every manifest
//     list and manifest read and decoded);
//   - warm: one open table planned again (its Cache holds the live files of
//     the snapshot);
//   - warm-after-commit: one open table, a commit of 10 new files (outside
//     the clock) before each plan, which the Cache plans from the kept live
//     files and the new snapshot's delta manifest list.
//
// Every plan must return exactly the table's files and splits.
func BenchmarkPlanScale(b *testing.B) {
	st := buildScaleTable(b)
	ctx := context.Background()
	open := func(b *testing.B) *paimon.Table {
		tbl, err := paimon.OpenTable(ctx, st.url)
		if err != nil {
			b.Fatal(err)
		}
		return tbl
	}
	b.Run("cold", func(b *testing.B) {
		want := scaleFiles + (st.next-scaleCommits)*scaleFilesPerPartition
		for b.Loop() {
			tbl := open(b)
			planScaleCheck(b, tbl, want, scaleSplits)
			tbl.Close()
		}
	})
	b.Run("warm", func(b *testing.B) {
		want := scaleFiles + (st.next-scaleCommits)*scaleFilesPerPartition
		tbl := open(b)
		defer tbl.Close()
		planScaleCheck(b, tbl, want, scaleSplits)
		for b.Loop() {
			planScaleCheck(b, tbl, want, scaleSplits)
		}
	})
	b.Run("warm-after-commit", func(b *testing.B) {
		tbl := open(b)
		defer tbl.Close()
		planScaleCheck(b, tbl, scaleFiles+(st.next-scaleCommits)*scaleFilesPerPartition, scaleSplits)
		for b.Loop() {
			b.StopTimer()
			st.commitSmall(b, scaleFilesPerPartition)
			want := scaleFiles + (st.next-scaleCommits)*scaleFilesPerPartition
			b.StartTimer()
			planScaleCheck(b, tbl, want, scaleSplits)
		}
	})
}
