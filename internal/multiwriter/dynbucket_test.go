package multiwriter_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/hashindex"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// TestDynamicBucketWriters: worker processes upsert overlapping keys of
// one dynamic-bucket table (bucket = -1, two keys per bucket), each with
// its own writer, assigner and committer, so that two of them regularly
// give one new key two buckets. The rows read equal a serial replay of the
// published commits, before and after a full compaction, and every key
// lives in exactly one bucket: its rows in the live files of that bucket
// only, its hash in that bucket's HASH index file only. Variants: "plain",
// and "kill", every worker killed with SIGKILL once at a random moment and
// restarted. Short form: 4 processes × 10 commits, deduplicate;
// -multiwriter.long: 4 × 50, also aggregation and partial-update.
func TestDynamicBucketWriters(t *testing.T) {
	procs, commits := 4, 10
	if *long {
		commits = 50
	}
	for _, st := range stores {
		for _, e := range procEngines {
			if e.name == "first-row" || e.name == "deletion-vectors" || (!*long && e.name != "deduplicate") {
				continue
			}
			for _, variant := range []string{"plain", "kill"} {
				t.Run(st.name+"/"+e.name+"/"+variant, func(t *testing.T) {
					opts := map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "2"}
					for k, v := range e.options {
						opts[k] = v
					}
					url := st.url(t)
					tblURL := shareBucket(t, url, e.name, opts, procs, commits, variant)
					checkOneBucketPerKey(t, tblURL)
				})
			}
		}
	}
}

// checkOneBucketPerKey checks that every key of the table at url has its
// rows in the live files of one bucket only, and its hash in that bucket's
// HASH index file only.
func checkOneBucketPerKey(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	tbl, err := paimon.OpenTable(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	plan, err := reader.NewScan(tbl.FileIO(), reader.WithAllLevels()).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dataBuckets := map[int32][]int32{}
	for _, sp := range plan.Splits {
		for rec, err := range plan.ReadSplit(ctx, sp) {
			if err != nil {
				t.Fatal(err)
			}
			ks := rec.Column(0).(*array.Int32)
			for i := range ks.Len() {
				if k := ks.Value(i); !slices.Contains(dataBuckets[k], sp.Bucket) {
					dataBuckets[k] = append(dataBuckets[k], sp.Bucket)
				}
			}
			rec.Release()
		}
	}
	es, err := manifest.ReadIndexManifest(ctx, tbl.FileIO(), *plan.Snapshot.IndexManifest)
	if err != nil {
		t.Fatal(err)
	}
	indexBuckets := map[int32][]int32{} // hash -> buckets
	for _, e := range hashindex.PartitionFiles(es, row.Serialize(row.EmptyRow())) {
		hs, err := hashindex.Read(ctx, tbl.FileIO(), e.IndexFile)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hs {
			indexBuckets[h] = append(indexBuckets[h], e.Bucket)
		}
	}
	for k := range int32(keys) {
		h := row.HashCode(must(row.Encode([]types.DataType{types.Int()}, []any{k})))
		db, ib := dataBuckets[k], indexBuckets[h]
		if len(db) != 1 || len(ib) != 1 || db[0] != ib[0] {
			t.Errorf("key %d: rows in buckets %v, hash in the index files of buckets %v; want one and the same", k, db, ib)
		}
	}
	if len(indexBuckets) != keys {
		t.Errorf("index holds %d hashes, want %d", len(indexBuckets), keys)
	}
	t.Logf("key -> bucket: %v", fmt.Sprint(dataBuckets))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
