//go:build interop

package interop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/types"
)

// cell is one result of the matrix: writer → reader on one table.
type cell struct {
	writer, reader, table, status, detail string
}

// matrix collects the cells of one TestMatrix run for the closing summary.
type matrix struct{ cells []cell }

func (m *matrix) add(writer, reader, table, status, detail string) {
	m.cells = append(m.cells, cell{writer, reader, table, status, detail})
}

func (m *matrix) summary() string {
	var sb strings.Builder
	counts := map[string]int{}
	sb.WriteString("interop matrix (writer -> reader / table: status)\n")
	for _, c := range m.cells {
		counts[c.status]++
		fmt.Fprintf(&sb, "  %-8s -> %-8s %-24s %s", c.writer, c.reader, c.table, c.status)
		if c.detail != "" {
			fmt.Fprintf(&sb, "  (%s)", c.detail)
		}
		sb.WriteString("\n")
	}
	fmt.Fprintf(&sb, "cells: %d PASS, %d FAIL, %d NOT-RUN, %d KNOWN", counts["PASS"], counts["FAIL"], counts["NOT-RUN"], counts["KNOWN"])
	return sb.String()
}

// TestMatrix runs every interop cell:
//
//   - pypaimon and Java Paimon write their table sets; our reader must return
//     exactly the rows each writer says the table holds (computed by the
//     writer from what it wrote, not read back);
//   - our writer and commit write a table set; our reader, pypaimon and Java
//     Paimon must each return exactly the rows we wrote (after merging);
//   - mixed histories: our writer, Java and pypaimon commit in turn to one
//     primary-key table, each on top of the others' snapshots.
//
// A cell whose writer or reader cannot run fails; nothing is skipped. The
// summary of all cells is logged at the end.
func TestMatrix(t *testing.T) {
	ctx := context.Background()
	m := &matrix{}
	t.Cleanup(func() { t.Log("\n" + m.summary()) })

	peers := []peer{pythonPeer(), javaPeer()}
	for _, p := range peers {
		t.Run(p.name+"_writes", func(t *testing.T) { peerWrites(ctx, t, m, p) })
	}
	t.Run("go_writes", func(t *testing.T) { goWrites(ctx, t, m, peers) })
	t.Run("mixed", func(t *testing.T) { mixedHistory(ctx, t, m, peers) })
	t.Run("mixed_dynamic_bucket", func(t *testing.T) { mixedDynamicBucket(ctx, t, m, peers) })
}

// peerWrites runs a peer's writer and reads each of its tables with our reader.
func peerWrites(ctx context.Context, t *testing.T, m *matrix, p peer) {
	out := workDir(t, p.name)
	start := time.Now()
	if _, err := p.run(ctx, "write", out); err != nil {
		m.add(p.name, "go", "*", "NOT-RUN", "writer failed")
		t.Fatalf("writer failed, no table of %s was read: %v", p.name, err)
	}
	l, err := readListing(out)
	if err != nil {
		m.add(p.name, "go", "*", "NOT-RUN", "no table listing")
		t.Fatal(err)
	}
	t.Logf("%s wrote %d tables in %v", l.Writer, len(l.Tables), time.Since(start).Round(time.Millisecond))
	for _, tb := range l.Tables {
		ok := t.Run(tb.Name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(out, tb.Expected))
			if err != nil {
				t.Fatal(err)
			}
			if tb.Note != "" {
				t.Logf("note: %s", tb.Note)
			}
			path := filepath.Join(out, tb.Path)
			got, err := readGo(ctx, path, tb.AllLevels)
			if err != nil {
				t.Fatalf("our reader: %v", err)
			}
			compare(t, want, got)
			if tb.AllLevels {
				def, err := readGo(ctx, path, false)
				if err != nil {
					t.Fatalf("our reader, default scan: %v", err)
				}
				rows, err := canonicalRows(def)
				if err != nil {
					t.Fatal(err)
				}
				if len(rows) != tb.DefaultRows {
					t.Fatalf("default scan read %d rows, the peer says Java reads %d", len(rows), tb.DefaultRows)
				}
			}
		})
		detail := ""
		if tb.AllLevels {
			detail = "read with all levels: " + tb.Note
		}
		m.add(p.name, "go", tb.Name, status(ok), detail)
	}
}

// goWrites writes goTables with our writer and commit, then has our reader and
// every peer read each table.
func goWrites(ctx context.Context, t *testing.T, m *matrix, peers []peer) {
	wh := workDir(t, "go")
	readers := append([]string{"go"}, func() []string {
		var n []string
		for _, p := range peers {
			n = append(n, p.name)
		}
		return n
	}()...)
	for _, g := range goTables() {
		t.Run(g.name, func(t *testing.T) {
			rel, err := g.write(ctx, "file://"+wh)
			if err != nil {
				for _, r := range readers {
					m.add("go", r, g.name, "NOT-RUN", "our writer failed")
				}
				t.Fatalf("our writer/commit failed, no reader ran: %v", err)
			}
			path := filepath.Join(wh, filepath.FromSlash(rel))
			want, err := g.expectedJSONL(tableFields(t, ctx, path))
			if err != nil {
				t.Fatal(err)
			}
			ok := t.Run("go", func(t *testing.T) {
				got, err := readGo(ctx, path, false)
				if err != nil {
					t.Fatalf("our reader: %v", err)
				}
				compare(t, want, got)
			})
			m.add("go", "go", g.name, status(ok), "")
			for _, p := range peers {
				why, deviates := g.peerDeviates[p.name]
				refusal, refuses := g.peerRefuses[p.name]
				limit, limited := g.peerKnown[p.name]
				differs := false
				ok := t.Run(p.name, func(t *testing.T) {
					got, err := p.run(ctx, "read", path)
					if refuses {
						if err == nil || !strings.Contains(err.Error(), refusal) {
							t.Fatalf("want the peer to refuse the table with %q, got %v", refusal, err)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					want := want
					if deviates {
						// The peer's collections hold the right elements in
						// another order: compare them unordered.
						if want, err = unorderedArrays(want); err != nil {
							t.Fatal(err)
						}
						if got, err = unorderedArrays(got); err != nil {
							t.Fatal(err)
						}
					}
					if limited {
						if d, err := diffRows(want, got); err == nil && d != "" {
							differs = true
							t.Logf("known limitation of %s (%s):\n%s", p.name, limit, d)
							return
						}
					}
					compare(t, want, got)
				})
				detail, st := "", status(ok)
				if p.missing != "" {
					detail = p.missing
				} else if deviates {
					detail = "collection order not compared: " + why
				} else if refuses {
					detail = "refuses as expected: " + refusal
				}
				if ok && differs {
					st, detail = "KNOWN", limit
				}
				m.add("go", p.name, g.name, st, detail)
			}
		})
	}
}

// tableFields returns the columns of the table's latest schema (with the field
// ids and types our catalog assigned).
func tableFields(t *testing.T, ctx context.Context, path string) []types.DataField {
	t.Helper()
	tbl, err := paimon.OpenTable(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	return tbl.Schema().Fields
}

// workDir returns a fresh directory for one writer's tables: a test temporary
// directory, or PAIMON_INTEROP_KEEP/<name> when that variable names a
// directory, so that the tables can be inspected after the run.
func workDir(t *testing.T, name string) string {
	keep := os.Getenv(envKeep)
	if keep == "" {
		return t.TempDir()
	}
	dir := filepath.Join(keep, name)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("tables kept in %s", dir)
	return dir
}

func compare(t *testing.T, want, got []byte) {
	t.Helper()
	d, err := diffRows(want, got)
	if err != nil {
		t.Fatal(err)
	}
	if d != "" {
		t.Fatal(d)
	}
}

func status(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}
