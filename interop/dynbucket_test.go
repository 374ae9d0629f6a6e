//go:build interop

package interop

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/hashindex"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// sameAssignment checks that the latest snapshot's HASH index files of the
// mixed-history table (partition region, trimmed key id INT) are exactly
// what hashindex.Partition assigns to rows, in their order, from an empty
// table with target keys per bucket.
func sameAssignment(ctx context.Context, tbl *catalog.Table, rows [][]any, target int64) error {
	sn, err := snapshot.NewManager(tbl.FileIO).Latest(ctx)
	if err != nil {
		return err
	}
	es, err := manifest.ReadIndexManifest(ctx, tbl.FileIO, *sn.IndexManifest)
	if err != nil {
		return err
	}
	ours := map[string]*hashindex.Partition{}
	want := map[string]map[int32][]int32{}
	for _, r := range rows {
		region := r[0].(string)
		p := ours[region]
		if p == nil {
			p = hashindex.NewPartition(target, -1)
			ours[region], want[region] = p, map[int32][]int32{}
		}
		key, err := row.Encode([]types.DataType{types.Int()}, []any{r[1]})
		if err != nil {
			return err
		}
		h := row.HashCode(key)
		if _, known := p.Lookup(h); known {
			continue
		}
		b, err := p.Assign(h)
		if err != nil {
			return err
		}
		want[region][b] = append(want[region][b], h)
	}
	for region, buckets := range want {
		part, err := row.Encode([]types.DataType{types.String()}, []any{region})
		if err != nil {
			return err
		}
		got := map[int32][]int32{}
		for _, e := range hashindex.PartitionFiles(es, row.Serialize(part)) {
			hs, err := hashindex.Read(ctx, tbl.FileIO, e.IndexFile)
			if err != nil {
				return err
			}
			slices.Sort(hs)
			got[e.Bucket] = hs
		}
		for _, hs := range buckets {
			slices.Sort(hs)
		}
		if fmt.Sprint(got) != fmt.Sprint(buckets) {
			return fmt.Errorf("partition %s: Java's index %v, ours would be %v", region, got, buckets)
		}
	}
	return nil
}

// mixedDynamicBucket builds a dynamic-bucket table (bucket = -1, three keys
// per bucket) whose commits come from Java (its HashBucketAssigner, restored
// from the HASH index files we wrote) and from us (restored from Java's) in
// turn, compacted fully by each: a key either side assigned must stay in its
// bucket, so our reader returns the model's rows after every step, and every
// reader at the end.
func mixedDynamicBucket(ctx context.Context, t *testing.T, m *matrix, peers []peer) {
	byName := map[string]peer{}
	for _, p := range peers {
		byName[p.name] = p
	}
	steps := []string{"java", "go", "java-compact", "go", "java", "go-compact", "java", "go"}
	wh := workDir(t, "mixed-dynamic")
	name := "mix_dynamic_bucket"
	label := strings.Join(steps, ",")
	cat, err := catalog.Open(ctx, "file://"+wh)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if err := cat.CreateDatabase(ctx, "interop", true); err != nil {
		t.Fatal(err)
	}
	id := catalog.NewIdentifier("interop", name)
	err = cat.CreateTable(ctx, id, catalog.Schema{
		Fields: mixFields(), PartitionKeys: []string{"region"}, PrimaryKeys: []string{"region", "id"},
		Options: map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "3", "rowkind.field": "_rk"},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.GetTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(wh, filepath.FromSlash(catalog.TablePath(id)))
	var model mixModel
	k := 0 // data steps so far
	for i, w := range steps {
		var err error
		switch w {
		case "java-compact":
			_, err = byName["java"].run(ctx, "compact", path)
		case "go-compact":
			var sid int64
			sid, err = compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "interop-go-compact", compaction.Options{Full: true})
			if err == nil && sid == 0 {
				err = fmt.Errorf("full compaction made no snapshot")
			}
		default:
			rows := mixStep(k, w)
			err = mixCommit(ctx, tbl, byName, w, path, k, rows)
			model.apply(rows)
			k++
		}
		if err != nil {
			m.add(label, "*", name, "NOT-RUN", fmt.Sprintf("step %d (%s) failed", i+1, w))
			t.Fatalf("step %d by %s: %v", i+1, w, err)
		}
		if i == 0 {
			// Java assigned the first keys from an empty table: our
			// assigner, given the same keys in the same order, must agree.
			if err := sameAssignment(ctx, tbl, mixStep(0, w), 3); err != nil {
				m.add(label, "go", name, "FAIL", "assignment differs from Java's")
				t.Fatal(err)
			}
		}
		want, err := tabletest.FormatJSONL(tbl.Schema.Fields, model.rows()...)
		if err != nil {
			t.Fatal(err)
		}
		got, err := readGo(ctx, path, false)
		d := ""
		if err == nil {
			d, err = diffRows(want, got)
		}
		if err != nil || d != "" {
			m.add(label, "go", name, "FAIL", fmt.Sprintf("after step %d", i+1))
			t.Fatalf("after step %d by %s, our reader: %v %s", i+1, w, err, d)
		}
	}
	want, err := tabletest.FormatJSONL(tbl.Schema.Fields, model.rows()...)
	if err != nil {
		t.Fatal(err)
	}
	m.add(label, "go", name, "PASS", "checked after every step")
	for _, p := range peers {
		ok := t.Run(p.name, func(t *testing.T) {
			got, err := p.run(ctx, "read", path)
			if err != nil {
				t.Fatal(err)
			}
			compare(t, want, got)
		})
		m.add(label, p.name, name, status(ok), "")
	}
}
