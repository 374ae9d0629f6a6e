//go:build interop

package interop

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// TestCrossPartitionResolved: two of our writers (separate Writes and
// commit users, key indexes bootstrapped from the same snapshot) put the
// same new keys into different regions of a cross-partition upsert table
// (partial-update, first-row); the second commit is resolved (the first
// committed region wins: partial-update moves the second writer's rows
// there, first-row drops them). Our reader returns exactly the expected
// rows, and Java and pypaimon read the same (first-row after a full
// compaction: Java's batch read of first-row skips level 0).
func TestCrossPartitionResolved(t *testing.T) {
	ctx := context.Background()
	java := javaPeer()
	if java.missing != "" {
		t.Skip(java.missing)
	}
	for _, c := range []struct {
		engine string
		fields []types.DataField
		rows1  [][]any
		rows2  [][]any
		want   [][]any
	}{{
		engine: "partial-update",
		fields: []types.DataField{field("id", notNull(types.Int())), field("region", types.String()), field("a", types.String()), field("b", types.String())},
		rows1:  [][]any{{int32(1), "eu", "a1", "b1"}, {int32(2), "eu", "a2", nil}},
		rows2:  [][]any{{int32(1), "us", "x1", nil}, {int32(2), "ap", nil, "y2"}, {int32(3), "us", "z3", "z3"}},
		want:   [][]any{{int32(1), "eu", "x1", "b1"}, {int32(2), "eu", "a2", "y2"}, {int32(3), "us", "z3", "z3"}},
	}, {
		engine: "first-row",
		fields: []types.DataField{field("id", notNull(types.Int())), field("region", types.String()), field("v", types.String())},
		rows1:  [][]any{{int32(1), "eu", "a"}, {int32(2), "eu", "b"}},
		rows2:  [][]any{{int32(1), "us", "x"}, {int32(2), "ap", "y"}, {int32(3), "us", "z"}},
		want:   [][]any{{int32(1), "eu", "a"}, {int32(2), "eu", "b"}, {int32(3), "us", "z"}},
	}} {
		t.Run(c.engine, func(t *testing.T) {
			wh := workDir(t, "xpart-resolved-"+c.engine)
			cat, err := catalog.Open(ctx, "file://"+wh)
			if err != nil {
				t.Fatal(err)
			}
			defer cat.Close()
			if err := cat.CreateDatabase(ctx, "interop", true); err != nil {
				t.Fatal(err)
			}
			id := catalog.NewIdentifier("interop", "xpart_resolved")
			if err := cat.CreateTable(ctx, id, catalog.Schema{Fields: c.fields, PartitionKeys: []string{"region"}, PrimaryKeys: []string{"id"},
				Options: map[string]string{"bucket": "-1", "merge-engine": c.engine}}, false); err != nil {
				t.Fatal(err)
			}
			tbl, err := cat.GetTable(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(wh, filepath.FromSlash(catalog.TablePath(id)))
			sc := types.SchemaToArrow(tbl.Schema.Fields)
			type wc struct {
				w *writer.Write
				c *commit.Committer
			}
			var ws []wc
			for i, rows := range [][][]any{c.rows1, c.rows2} {
				user := []string{"go-1", "go-2"}[i]
				w, err := writer.New(tbl.FileIO, tbl.Schema, user)
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				cm, err := commit.New(tbl.FileIO, tbl.Schema, user)
				if err != nil {
					t.Fatal(err)
				}
				defer cm.Close()
				rec, err := tabletest.NewBatch(sc, rows...)
				if err != nil {
					t.Fatal(err)
				}
				err = w.Write(ctx, rec)
				rec.Release()
				if err != nil {
					t.Fatal(err)
				}
				ws = append(ws, wc{w, cm})
			}
			for i, x := range ws {
				msgs, err := x.w.PrepareCommit(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := x.c.Commit(ctx, 1, msgs); err != nil {
					t.Fatalf("commit of writer %d: %v", i+1, err)
				}
			}
			if c.engine == "first-row" {
				if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "interop-go-compact", compaction.Options{Full: true}); err != nil {
					t.Fatal(err)
				}
			}
			want, err := tabletest.FormatJSONL(tbl.Schema.Fields, c.want...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readGo(ctx, path, false)
			if err != nil {
				t.Fatal(err)
			}
			if d, err := diffRows(want, got); err != nil || d != "" {
				t.Fatalf("our reader: %v %s", err, d)
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
		})
	}
}
