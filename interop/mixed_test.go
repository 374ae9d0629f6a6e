//go:build interop

package interop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/types"
)

// mixFields is the schema of the mixed-history tables: a partitioned
// primary-key table whose row kinds travel in the "_rk" column (table option
// rowkind.field), the one way all three writers accept deletes.
func mixFields() []types.DataField {
	return []types.DataField{
		field("region", types.String()), field("id", types.Int()), field("name", types.String()),
		field("amount", types.DecimalOf(12, 3)), field("ts", types.TimestampOf(6)), field("_rk", types.String()),
	}
}

// mixStep returns the rows of step k of a mixed history: new keys, updates
// (one key twice) and a delete of keys the previous step inserted, in both
// partitions.
func mixStep(k int, writer string) [][]any {
	r := func(kind, region string, id int, name string) []any {
		return []any{region, int32(id), name,
			dec(fmt.Sprintf("%d.%03d", id, k), 12, 3),
			ts(fmt.Sprintf("2024-06-%02dT10:00:00.%06d", k+1, id)), kind}
	}
	var rows [][]any
	for _, region := range []string{"eu", "us"} {
		for i := 1; i <= 4; i++ {
			id := 10*k + i
			rows = append(rows, r("+I", region, id, fmt.Sprintf("%s-%d-by-%s", region, id, writer)))
		}
		if k > 0 {
			prev := 10 * (k - 1)
			rows = append(rows,
				r("-U", region, prev+1, "before"),
				r("+U", region, prev+1, fmt.Sprintf("upd1-by-%s", writer)),
				r("+U", region, prev+2, "upd2-first"),
				r("+U", region, prev+2, fmt.Sprintf("upd2-by-%s", writer)),
				r("-D", region, prev+3, "gone"))
		}
	}
	return rows
}

// mixModel applies rows (with "_rk" at index 5) with deduplicate semantics.
type mixModel struct {
	state map[string][]any
	order []string
}

func (m *mixModel) apply(rows [][]any) {
	if m.state == nil {
		m.state = map[string][]any{}
	}
	for _, r := range rows {
		key := fmt.Sprintf("%v|%v", r[0], r[1])
		if _, ok := m.state[key]; !ok {
			m.order = append(m.order, key)
		}
		if kind := r[5].(string); kind == "-D" || kind == "-U" {
			m.state[key] = nil
		} else {
			m.state[key] = r
		}
	}
}

func (m *mixModel) rows() [][]any {
	var out [][]any
	for _, k := range m.order {
		if r := m.state[k]; r != nil {
			out = append(out, r)
		}
	}
	return out
}

// mixedHistory builds tables whose snapshots come from different writers in
// turn (our writer+commit, Java Paimon, pypaimon), so that each commits on
// top of files and manifests the others wrote. After every step our reader
// must return the model's rows; at the end every reader must.
func mixedHistory(ctx context.Context, t *testing.T, m *matrix, peers []peer) {
	byName := map[string]peer{}
	for _, p := range peers {
		byName[p.name] = p
	}
	histories := [][]string{
		{"go", "java", "pypaimon", "go"},
		{"java", "go", "pypaimon", "java", "go+manifests"},
	}
	wh := workDir(t, "mixed")
	for _, steps := range histories {
		name := "mix_" + strings.Join(steps, "_")
		label := strings.Join(steps, ",")
		t.Run(name, func(t *testing.T) {
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
				Options: map[string]string{"bucket": "2", "rowkind.field": "_rk"},
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
			for k, w := range steps {
				rows := mixStep(k, w)
				if err := mixCommit(ctx, tbl, byName, w, path, k, rows); err != nil {
					m.add(label, "*", name, "NOT-RUN", fmt.Sprintf("step %d (%s) failed", k+1, w))
					t.Fatalf("step %d by %s: %v", k+1, w, err)
				}
				model.apply(rows)
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
					m.add(label, "go", name, "FAIL", fmt.Sprintf("after step %d", k+1))
					t.Fatalf("after step %d by %s, our reader: %v %s", k+1, w, err, d)
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
		})
	}
}

// mixCommit makes one commit of rows by writer w ("go", "go+manifests": a
// commit by us then an on-demand manifest compaction, or a peer name).
func mixCommit(ctx context.Context, tbl *catalog.Table, peers map[string]peer, w, path string, k int, rows [][]any) error {
	if w == "go" || w == "go+manifests" {
		var in []goRow
		for _, r := range rows {
			in = append(in, goRow{values: r})
		}
		if err := commitRows(ctx, tbl, "interop-go-mixed", int64(k+1), in, false); err != nil || w == "go" {
			return err
		}
		// Then an on-demand manifest compaction of the manifests every
		// writer wrote before.
		c, err := commit.New(tbl.FileIO, tbl.Schema, "interop-go-mixed-manifests")
		if err != nil {
			return err
		}
		defer c.Close()
		if sid, err := c.CompactManifests(ctx); err != nil || sid == 0 {
			return fmt.Errorf("manifest compaction: snapshot %d, %w", sid, err)
		}
		return nil
	}
	p, ok := peers[w]
	if !ok {
		return fmt.Errorf("no peer %q", w)
	}
	data, err := tabletest.FormatJSONL(tbl.Schema.Fields, rows...)
	if err != nil {
		return err
	}
	// Beside the warehouse's databases, where no catalog looks.
	dir := filepath.Join(filepath.Dir(filepath.Dir(path)), "steps")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f := filepath.Join(dir, fmt.Sprintf("%s-step%d.jsonl", filepath.Base(path), k+1))
	if err := os.WriteFile(f, data, 0o644); err != nil {
		return err
	}
	_, err = p.run(ctx, "apply", path, f)
	return err
}
