//go:build interop

package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/rowfmt"
	"github.com/paimon-go/paimon/serve"
	"github.com/paimon-go/paimon/types"
)

// flightPython runs interop/python/flight_client.py (pyarrow.flight +
// pypaimon) and returns its output lines.
func flightPython(t *testing.T, args ...string) []string {
	t.Helper()
	py := os.Getenv(envPython)
	if py == "" {
		t.Skip(envPython + " is not set (run scripts/interop.sh)")
	}
	dir, _ := filepath.Abs("python")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, py, append([]string{filepath.Join(dir, "flight_client.py")}, args...)...)
	c.Dir = dir
	c.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("flight_client.py %v: %v\n%s", args[:1], err, stderr.String())
	}
	var lines []string
	for l := range strings.Lines(string(out)) {
		lines = append(lines, strings.TrimRight(l, "\n"))
	}
	return lines
}

// goJSONL renders batches as sorted JSON Lines of paimon cat.
func goJSONL(t *testing.T, ts []types.DataField, recs []arrow.RecordBatch) []string {
	t.Helper()
	var buf bytes.Buffer
	w, err := rowfmt.NewWriter(&buf, rowfmt.JSONL, &rowfmt.Options{Fields: ts})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		r.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var out []string
	for l := range strings.Lines(buf.String()) {
		out = append(out, strings.TrimRight(l, "\n"))
	}
	slices.Sort(out)
	return out
}

// TestServePython: a Python process reads a served table as PIP-46 says an
// external engine would: the committed snapshot with pypaimon, the
// real-time portion over Arrow Flight (pyarrow.flight), merged in Python;
// its rows equal the server's own union read, for an append table and a
// primary-key table with updates and deletes on both sides of the
// boundary. Python's lookups over Flight equal Go's, and rows Python puts
// over Flight are read back by Go and by pypaimon once committed.
func TestServePython(t *testing.T) {
	ctx := context.Background()
	for _, pk := range []bool{false, true} {
		name := "append"
		if pk {
			name = "primary-key"
		}
		t.Run(name, func(t *testing.T) {
			wh := t.TempDir()
			cat, err := catalog.Open(ctx, wh)
			if err != nil {
				t.Fatal(err)
			}
			defer cat.Close()
			if err := cat.CreateDatabase(ctx, "db", false); err != nil {
				t.Fatal(err)
			}
			k := types.Int()
			k.Nullable = false
			s := catalog.Schema{
				Fields:  []types.DataField{types.Field(0, "k", k), types.Field(1, "n", types.BigInt()), types.Field(2, "s", types.String())},
				Options: map[string]string{"bucket": "2", "realtime.enabled": "true", "realtime.provider": "flight"},
			}
			if pk {
				s.PrimaryKeys = []string{"k"}
			} else {
				s.Options["bucket-key"] = "k"
			}
			if err := cat.CreateTable(ctx, catalog.NewIdentifier("db", "t"), s, false); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(wh, "db.db", "t")
			tb, err := paimon.OpenTable(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer tb.Close()
			const token = "py-token"
			srv, err := serve.New(tb, serve.Config{Token: token, CommitInterval: -1})
			if err != nil {
				t.Fatal(err)
			}
			if err := srv.Start("127.0.0.1:0"); err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := srv.Shutdown(ctx); err != nil {
					t.Error(err)
				}
			}()
			c, err := serve.Dial(srv.Location(), token)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()

			put := func(ks []int32, ns []int64, ss []string, kinds []string) {
				t.Helper()
				fields := []arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32}, {Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
					{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}
				if kinds != nil {
					fields = append(fields, arrow.Field{Name: "_ROW_KIND", Type: arrow.BinaryTypes.String})
				}
				b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
				defer b.Release()
				b.Field(0).(*array.Int32Builder).AppendValues(ks, nil)
				b.Field(1).(*array.Int64Builder).AppendValues(ns, nil)
				b.Field(2).(*array.StringBuilder).AppendValues(ss, nil)
				if kinds != nil {
					b.Field(3).(*array.StringBuilder).AppendValues(kinds, nil)
				}
				rec := b.NewRecordBatch()
				defer rec.Release()
				if _, err := c.Put(ctx, rec); err != nil {
					t.Fatal(err)
				}
			}
			var upd []string
			if pk {
				upd = []string{"+U", "-D", "+I", "+U"}
			}
			compare := func(stage string) {
				t.Helper()
				var recs []arrow.RecordBatch
				for r, err := range c.Read(ctx, serve.Ticket{}) {
					if err != nil {
						t.Fatal(err)
					}
					recs = append(recs, r)
				}
				want := goJSONL(t, tb.Schema().Fields, recs)
				got := flightPython(t, "union", path, srv.Location(), token)
				if len(got) == 0 {
					t.Fatalf("%s: python printed nothing", stage)
				}
				if !slices.Equal(got[1:], want) {
					t.Errorf("%s: python union (%s)\n%s\nserver union\n%s", stage, got[0], strings.Join(got[1:], "\n"), strings.Join(want, "\n"))
				}
			}
			// Only memory, then committed + memory, with updates and
			// deletes of committed keys in memory.
			put([]int32{1, 2, 3, 4}, []int64{10, 20, 30, 40}, []string{"a", "b", "c", "d"}, nil)
			compare("memory only")
			if _, err := c.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			put([]int32{1, 3, 5, 2}, []int64{11, 30, 50, 21}, []string{"A", "c", "e", "B"}, upd)
			compare("committed + memory")
			if _, err := c.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			put([]int32{2, 6}, []int64{22, 60}, []string{"BB", "f"}, nil)
			compare("two commits + memory")

			// Python puts rows over Flight.
			rows, _ := json.Marshal([]map[string]any{{"k": 7, "n": 70, "s": "g"}, {"k": 8, "n": nil, "s": "h"}})
			if got := flightPython(t, "put", path, srv.Location(), token, string(rows)); !slices.Equal(got, []string{"2"}) {
				t.Errorf("python put acknowledged %v, want [2]", got)
			}
			compare("after python put")
			if !pk {
				return
			}
			keys, _ := json.Marshal([]map[string]any{{"k": 1}, {"k": 3}, {"k": 8}, {"k": 99}})
			got := flightPython(t, "lookup", path, srv.Location(), token, string(keys))
			want := []string{`{"k":1,"n":11,"s":"A"}`, `{"k":8,"n":null,"s":"h"}`}
			if !slices.Equal(got, want) {
				t.Errorf("python lookup %v, want %v", got, want)
			}
			// Committed, pypaimon reads Python's rows too.
			if _, err := c.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if got := flightPython(t, "union", path, srv.Location(), token); !slices.Contains(got, `{"k":7,"n":70,"s":"g"}`) {
				t.Errorf("after commit, python union lacks k=7: %v", got)
			}
		})
	}
}
