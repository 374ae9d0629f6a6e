package compaction_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/reader"
)

// TestFailedBucketReported: when one bucket of a parallel compaction meets
// a corrupt file, the error names that bucket and the corruption, not the
// cancellations of the buckets it stopped; nothing is committed and no
// output file is left behind.
func TestFailedBucketReported(t *testing.T) {
	ctx := context.Background()
	tbl := newPKTable(t, map[string]string{"bucket": "4"})
	commitRows(t, tbl, nil, baseRows(400)...)
	commitRows(t, tbl, nil, baseRows(400)...)
	plan, err := reader.NewScan(tbl.FileIO, reader.WithAllLevels()).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	root := strings.TrimPrefix(tbl.FileIO.URL(), "file://")
	var victim, bucket string
	for _, sp := range plan.Splits {
		if sp.Bucket == 2 {
			bucket, victim = sp.BucketPath, filepath.Join(root, sp.BucketPath, sp.Files[0].FileName)
		}
	}
	if victim == "" {
		t.Fatalf("no file in bucket 2: %+v", plan.Splits)
	}
	data, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(victim, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	before := latest(t, tbl).ID
	files := func() int {
		n := 0
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
				n++
			}
			return nil
		})
		return n
	}
	nFiles := files()
	_, err = compaction.Compact(ctx, tbl.FileIO, tbl.Schema, user, compaction.Options{Full: true, Parallelism: 2})
	if err == nil {
		t.Fatal("compaction of a truncated file succeeded")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "compaction: bucket "+bucket+": ") || strings.Contains(msg, "context canceled") ||
		strings.Count(msg, "compaction:") != 1 || strings.Contains(msg, "\n") {
		t.Errorf("error %q: want one line naming %s and the corrupt file, without the cancelled buckets", msg, bucket)
	}
	if !strings.Contains(msg, filepath.Base(victim)) {
		t.Errorf("error %q does not name the file %s", msg, filepath.Base(victim))
	}
	if id := latest(t, tbl).ID; id != before {
		t.Errorf("latest snapshot %d after the failed compaction, want %d", id, before)
	}
	if n := files(); n != nFiles {
		t.Errorf("%d data files after the failed compaction, want %d (outputs discarded)", n, nFiles)
	}
}
