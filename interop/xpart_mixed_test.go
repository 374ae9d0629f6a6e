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
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/types"
)

// xpartMixStep is the rows of data step k by writer w of
// TestMixedCrossPartition: id, region, v, with every id of the step in
// another region than in the previous step.
func xpartMixStep(k int, w string) [][]any {
	regions := []string{"eu", "us", "ap"}
	var out [][]any
	for id := 2 * k; id < 2*k+6; id++ {
		out = append(out, []any{int32(id), regions[(id+k)%len(regions)], fmt.Sprintf("%s-%d-%d", w, k, id)})
	}
	return out
}

// TestMixedCrossPartition: Java and our writer take turns on one
// cross-partition upsert table (primary key id, partition region not in
// it, bucket = -1, two keys per bucket), each step moving keys the other
// writer placed to other regions, with a full compaction by each in
// between. Java's writes route keys as Flink's GlobalIndexAssigner does
// (the peer's apply verb, ScenariosXPart.Assigner); ours bootstrap their
// key index from the table each step. After every step our reader returns
// exactly the model (every id once, in its last region, with its last
// value); at the end Java and pypaimon read the same rows.
func TestMixedCrossPartition(t *testing.T) {
	ctx := context.Background()
	java := javaPeer()
	if java.missing != "" {
		t.Skip(java.missing)
	}
	peers := map[string]peer{"java": java}
	steps := []string{"java", "go", "java", "java-compact", "go", "go-compact", "java", "go"}
	wh := workDir(t, "mixed-xpart")
	cat, err := catalog.Open(ctx, "file://"+wh)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if err := cat.CreateDatabase(ctx, "interop", true); err != nil {
		t.Fatal(err)
	}
	id := catalog.NewIdentifier("interop", "mix_cross_partition")
	fields := []types.DataField{field("id", notNull(types.Int())), field("region", types.String()), field("v", types.String())}
	if err := cat.CreateTable(ctx, id, catalog.Schema{Fields: fields, PartitionKeys: []string{"region"}, PrimaryKeys: []string{"id"},
		Options: map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "2"}}, false); err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.GetTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(wh, filepath.FromSlash(catalog.TablePath(id)))
	model := map[int32][]any{}
	rows := func() [][]any {
		var out [][]any
		for _, k := range slices.Sorted(func(yield func(int32) bool) {
			for k := range model {
				if !yield(k) {
					return
				}
			}
		}) {
			out = append(out, model[k])
		}
		return out
	}
	k := 0
	for i, w := range steps {
		var err error
		switch w {
		case "java-compact":
			_, err = java.run(ctx, "compact", path)
		case "go-compact":
			_, err = compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "interop-go-compact", compaction.Options{Full: true})
		default:
			step := xpartMixStep(k, w)
			err = mixCommit(ctx, tbl, peers, w, path, k, step)
			for _, r := range step {
				model[r[0].(int32)] = r
			}
			k++
		}
		if err != nil {
			t.Fatalf("step %d by %s: %v", i+1, w, err)
		}
		want, err := tabletest.FormatJSONL(tbl.Schema.Fields, rows()...)
		if err != nil {
			t.Fatal(err)
		}
		got, err := readGo(ctx, path, false)
		if err != nil {
			t.Fatalf("after step %d by %s, our reader: %v", i+1, w, err)
		}
		if d, err := diffRows(want, got); err != nil || d != "" {
			t.Fatalf("after step %d (%s), our reader: %v %s", i+1, strings.Join(steps[:i+1], ","), err, d)
		}
	}
	want, err := tabletest.FormatJSONL(tbl.Schema.Fields, rows()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []peer{java, pythonPeer()} {
		t.Run(p.name, func(t *testing.T) {
			got, err := p.run(ctx, "read", path)
			if err != nil {
				t.Fatal(err)
			}
			compare(t, want, got)
		})
	}
}
