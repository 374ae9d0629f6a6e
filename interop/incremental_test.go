//go:build interop

package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/rowfmt"
	"github.com/paimon-go/paimon/stream"
	"github.com/paimon-go/paimon/types"
)

// TestJavaIncremental: Java (interop/java IncrementalCases) writes
// primary-key tables with changelog-producer none, input, lookup and
// full-compaction, a deletion-vector table and an append table (APPEND,
// COMPACT and, for the producers, changelog snapshots), and reads each with
// incremental-between ranges (start before the first snapshot, the whole
// history, one snapshot, start == end) in every scan mode through
// table.copy(options): plainly and through AuditLogTable. Our
// WithIncrementalBetween read (with WithRowKind for the audit_log read) must
// give the same rows, or fail where Java fails (a diff from snapshot 0).
// Rows are compared as multisets: Java's order within a split follows its
// split generator.
func TestJavaIncremental(t *testing.T) {
	ctx := context.Background()
	out := workDir(t, "java-incremental")
	if _, err := javaPeer().run(ctx, "incremental", out); err != nil {
		t.Fatalf("java incremental: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(out, "incremental.json"))
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Tables []struct {
			Name  string `json:"name"`
			Path  string `json:"path"`
			Cases []struct {
				Between string `json:"between"`
				Mode    string `json:"mode"`
				Name    string `json:"name"`
			} `json:"cases"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("incremental.json: %v", err)
	}
	if len(l.Tables) != 11 {
		t.Fatalf("java wrote %d tables, want 11", len(l.Tables))
	}
	for _, tbl := range l.Tables {
		t.Run(tbl.Name, func(t *testing.T) {
			path := filepath.Join(out, filepath.FromSlash(tbl.Path))
			exp := filepath.Join(out, "expected", tbl.Name)
			// Our follower from snapshot 1 delivers what Java's
			// incremental read of the whole history gives: the changelog
			// of a producer table, the APPEND deltas otherwise.
			mode := map[string]string{"incr_input": "changelog", "incr_lookup": "changelog", "incr_full": "changelog",
				"incr_none": "delta", "incr_append": "delta"}[tbl.Name]
			if mode != "" && len(tbl.Cases) > 0 {
				t.Run("follower", func(t *testing.T) {
					whole := strings.Replace(tbl.Cases[0].Between, ",", "-", 1) // 0,latest
					want, err := os.ReadFile(filepath.Join(exp, whole+"_"+mode+".audit.jsonl"))
					if err != nil {
						t.Fatal(err)
					}
					got := followAll(ctx, t, path)
					if err := compareJSONL(want, got); err != nil {
						t.Errorf("our follower from snapshot 1 vs Java's incremental %s read: %v", whole, err)
					}
				})
			}
			for _, c := range tbl.Cases {
				from, to, _ := strings.Cut(c.Between, ",")
				opts := []reader.Option{reader.WithIncrementalBetween(from, to), reader.WithIncrementalMode(reader.IncrementalMode(c.Mode))}
				t.Run(c.Name, func(t *testing.T) {
					checkScenarioRead(ctx, t, path, filepath.Join(exp, c.Name), opts...)
				})
				t.Run(c.Name+".audit", func(t *testing.T) {
					checkScenarioRead(ctx, t, path, filepath.Join(exp, c.Name+".audit"), append(opts, reader.WithRowKind())...)
				})
			}
		})
	}
}

// TestGoChangelogReadByJava: we write the input of IncrementalCases (three
// commits with updates and deletes, a full compaction, a commit) into
// primary-key tables with changelog-producer input and lookup; Java reads ours with the same incremental-between ranges
// in every mode, plainly and through AuditLogTable, and every read must
// equal Java's read of the table Java wrote from the same input (or fail
// where that one fails): Java sees in our changelog, per snapshot range,
// exactly the changes its own writer produces.
func TestGoChangelogReadByJava(t *testing.T) {
	ctx := context.Background()
	out := workDir(t, "go-changelog-java")
	if _, err := javaPeer().run(ctx, "incremental", out); err != nil {
		t.Fatalf("java incremental: %v", err)
	}
	whURL := filepath.Join(out, "go-warehouse")
	cat, err := catalog.Open(ctx, whURL)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if err := cat.CreateDatabase(ctx, "interop", true); err != nil {
		t.Fatal(err)
	}
	kv := func(k byte, key int32, v string) goRow { return withKind(k, key, v) }
	commits := [][]goRow{
		{kv(row.RowKindInsert, 1, "a"), kv(row.RowKindInsert, 2, "b")},
		{kv(row.RowKindUpdateAfter, 2, "B"), kv(row.RowKindDelete, 1, "a"), kv(row.RowKindInsert, 3, "c")},
		{kv(row.RowKindInsert, 4, "d"), kv(row.RowKindUpdateAfter, 3, "C")},
		nil, // a full compaction
		{kv(row.RowKindDelete, 4, "d"), kv(row.RowKindInsert, 5, "e")},
	}
	// pypaimon 2.1 refuses remove-record-on-delete (NotImplementedError);
	// its cell checks the refusal.
	const pyRefusal = "does not yet implement"
	for _, tc := range []struct {
		java     string
		opts     map[string]string
		pyRefuse string // pypaimon's read fails with this text
	}{
		{"incr_input", map[string]string{"changelog-producer": "input"}, ""},
		{"incr_lookup", map[string]string{"changelog-producer": "lookup"}, ""},
		{"incr_lookup_pu", map[string]string{"changelog-producer": "lookup", "merge-engine": "partial-update",
			"partial-update.remove-record-on-delete": "true"}, pyRefusal},
		{"incr_lookup_agg", map[string]string{"changelog-producer": "lookup", "merge-engine": "aggregation",
			"fields.v.aggregate-function": "listagg", "aggregation.remove-record-on-delete": "true"}, pyRefusal},
		{"incr_lookup_first", map[string]string{"changelog-producer": "lookup", "merge-engine": "first-row", "ignore-delete": "true"}, ""},
		{"incr_dv_lookup", map[string]string{"deletion-vectors.enabled": "true", "changelog-producer": "lookup"}, ""},
		{"incr_dv_lookup_agg", map[string]string{"deletion-vectors.enabled": "true", "changelog-producer": "lookup", "merge-engine": "aggregation",
			"fields.v.aggregate-function": "listagg", "aggregation.remove-record-on-delete": "true"}, pyRefusal},
		// No full-compaction table: our writer fully compacts every
		// full-compaction.delta-commits commits as Flink's sink does
		// (GlobalFullCompactionSinkWrite), Java's core batch API only when
		// asked, so the snapshots differ (8 of ours here) and so do the
		// ranges; flink/streaming/go_fullcompact_stream (TestEngines)
		// compares that producer with Flink.
	} {
		t.Run(tc.java, func(t *testing.T) {
			opts := map[string]string{"bucket": "1"}
			maps.Copy(opts, tc.opts)
			id := catalog.NewIdentifier("interop", "go_"+tc.java)
			if err := cat.CreateTable(ctx, id, catalog.Schema{Fields: []types.DataField{field("k", types.Int().NotNull()), field("v", types.String())},
				PrimaryKeys: []string{"k"}, Options: opts}, false); err != nil {
				t.Fatal(err)
			}
			tbl, err := cat.GetTable(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			for i, rows := range commits {
				if rows == nil {
					if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "go-compact", compaction.Options{Full: true}); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := commitRows(ctx, tbl, "go-incr", int64(i+1), rows, true); err != nil {
					t.Fatal(err)
				}
			}
			got := filepath.Join(out, "go-read", tc.java)
			cases := javaIncrementalRead(ctx, t, strings.TrimPrefix(tbl.FileIO.URL(), "file://"), got)
			t.Run("pypaimon", func(t *testing.T) {
				if tc.pyRefuse == "" {
					pypaimonIncremental(ctx, t, tbl.FileIO.URL())
					return
				}
				_, err := pythonPeer().run(ctx, "read", strings.TrimPrefix(tbl.FileIO.URL(), "file://"), `{"incremental-between-timestamp": "0,9223372036854775807"}`)
				if err == nil || !strings.Contains(err.Error(), tc.pyRefuse) {
					t.Fatalf("pypaimon read: %v, want its refusal %q", err, tc.pyRefuse)
				}
			})
			want := filepath.Join(out, "expected", tc.java)
			for _, c := range cases {
				for _, name := range []string{c.Name, c.Name + ".audit"} {
					t.Run(name, func(t *testing.T) {
						_, jerr := os.Stat(filepath.Join(want, name+".error"))
						_, gerr := os.Stat(filepath.Join(got, name+".error"))
						if (jerr == nil) != (gerr == nil) {
							t.Fatalf("Java's read of its table failed: %v; of ours: %v", jerr == nil, gerr == nil)
						}
						if jerr == nil {
							return
						}
						w, err := os.ReadFile(filepath.Join(want, name+".jsonl"))
						if err != nil {
							t.Fatal(err)
						}
						if err := compareFile(w, filepath.Join(got, name+".jsonl")); err != nil {
							t.Errorf("Java's read of our table vs of its own: %v", err)
						}
					})
				}
			}
		})
	}
}

// pypaimonIncremental: pypaimon's incremental-between-timestamp read of the
// table at url (the changelog of a changelog-producer table, pypaimon
// 2.1's only incremental option) over the whole history and over each
// snapshot whose commit time is above the one before equals ours.
func pypaimonIncremental(ctx context.Context, t *testing.T, url string) {
	tbl, err := paimon.OpenTable(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	ids, err := tbl.Snapshots().IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var times []int64
	for _, id := range ids {
		s, err := tbl.Snapshots().Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, s.TimeMillis)
	}
	ranges := [][2]int64{{times[0] - 1, times[len(times)-1]}}
	for i := 1; i < len(times); i++ {
		if times[i] > times[i-1] {
			ranges = append(ranges, [2]int64{times[i-1], times[i]})
		}
	}
	path := strings.TrimPrefix(url, "file://")
	for _, r := range ranges {
		between := fmt.Sprintf("%d,%d", r[0], r[1])
		want, err := tabletest.Cat(ctx, url, reader.WithIncrementalBetweenTimestamp(r[0], r[1]))
		if err != nil {
			t.Fatalf("our read of %s: %v", between, err)
		}
		if r == ranges[0] && len(want) == 0 {
			t.Fatalf("our read of the whole history %s is empty", between)
		}
		got, err := pythonPeer().run(ctx, "read", path, `{"incremental-between-timestamp": "`+between+`"}`)
		if err != nil {
			t.Fatal(err)
		}
		if err := compareJSONL(want, got); err != nil {
			t.Errorf("incremental-between-timestamp %s: pypaimon vs ours: %v", between, err)
		}
	}
	t.Logf("%d ranges of %d snapshots equal", len(ranges), len(ids))
}

// followAll follows the table at path from snapshot 1 with a stream.Follower
// until it has delivered the latest snapshot's changes (or, when the last
// snapshots carry none, until 5 s pass without one) and returns the rows as
// JSON Lines with the rowkind column first.
func followAll(ctx context.Context, t *testing.T, path string) []byte {
	tbl, err := paimon.OpenTable(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	latest, err := tbl.Snapshots().LatestID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	fields := append([]types.DataField{{Name: "rowkind", Type: types.String()}}, tbl.Schema().Fields...)
	w, err := rowfmt.NewWriter(&buf, rowfmt.JSONL, &rowfmt.Options{Fields: fields})
	if err != nil {
		t.Fatal(err)
	}
	src := &stream.ReaderSource{FIO: tbl.FileIO(), Table: tbl.Schema()}
	f := stream.New(tbl.FileIO(), tbl.Schema(), src, stream.Options{Mode: stream.ModeFromSnapshot, SnapshotID: 1, Interval: 10 * time.Millisecond})
	for {
		nctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		s, err := f.Next(nctx)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range s.Batches {
			if err := w.Write(b); err != nil {
				t.Fatal(err)
			}
		}
		s.Release()
		if s.Next > latest {
			break
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestMixedIncremental: a primary-key table with changelog-producer input
// (and one with lookup) written alternately by us and by Java (our commits
// with updates and a delete, Java's upserts through the apply command, our
// full compaction); Java's incremental-between reads of the mixed history
// (5 ranges x 4 modes, plain and audit_log) must equal ours.
func TestMixedIncremental(t *testing.T) {
	ctx := context.Background()
	out := workDir(t, "mixed-incremental")
	cat, err := catalog.Open(ctx, filepath.Join(out, "warehouse"))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if err := cat.CreateDatabase(ctx, "interop", true); err != nil {
		t.Fatal(err)
	}
	fields := []types.DataField{field("k", types.Int().NotNull()), field("v", types.String())}
	kv := func(k byte, key int32, v string) goRow { return withKind(k, key, v) }
	for _, producer := range []string{"input", "lookup"} {
		t.Run(producer, func(t *testing.T) {
			id := catalog.NewIdentifier("interop", "mixed_"+producer)
			if err := cat.CreateTable(ctx, id, catalog.Schema{Fields: fields, PrimaryKeys: []string{"k"},
				Options: map[string]string{"bucket": "1", "changelog-producer": producer}}, false); err != nil {
				t.Fatal(err)
			}
			tbl, err := cat.GetTable(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			path := strings.TrimPrefix(tbl.FileIO.URL(), "file://")
			java := func(step int, rows ...[]any) {
				data, err := tabletest.FormatJSONL(fields, rows...)
				if err != nil {
					t.Fatal(err)
				}
				f := filepath.Join(out, fmt.Sprintf("%s-step%d.jsonl", producer, step))
				if err := os.WriteFile(f, data, 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := javaPeer().run(ctx, "apply", path, f); err != nil {
					t.Fatal(err)
				}
			}
			gocommit := func(ident int64, rows ...goRow) {
				if err := commitRows(ctx, tbl, "go-mixed", ident, rows, true); err != nil {
					t.Fatal(err)
				}
			}
			gocommit(1, kv(row.RowKindInsert, 1, "a"), kv(row.RowKindInsert, 2, "b"))
			java(2, []any{int32(2), "B"}, []any{int32(3), "c"})
			gocommit(2, kv(row.RowKindDelete, 1, "a"), kv(row.RowKindInsert, 4, "d"))
			java(4, []any{int32(4), "D"}, []any{int32(5), "e"})
			if _, err := compaction.Compact(ctx, tbl.FileIO, tbl.Schema, "go-compact", compaction.Options{Full: true}); err != nil {
				t.Fatal(err)
			}
			gocommit(3, kv(row.RowKindUpdateAfter, 5, "E"), kv(row.RowKindInsert, 6, "f"))
			exp := filepath.Join(out, "java-read", producer)
			cases := javaIncrementalRead(ctx, t, path, exp)
			for _, c := range cases {
				from, to, _ := strings.Cut(c.Between, ",")
				opts := []reader.Option{reader.WithIncrementalBetween(from, to), reader.WithIncrementalMode(reader.IncrementalMode(c.Mode))}
				t.Run(c.Name, func(t *testing.T) {
					checkScenarioRead(ctx, t, path, filepath.Join(exp, c.Name), opts...)
				})
				t.Run(c.Name+".audit", func(t *testing.T) {
					checkScenarioRead(ctx, t, path, filepath.Join(exp, c.Name+".audit"), append(opts, reader.WithRowKind())...)
				})
			}
		})
	}
}

// incrementalCase is one read of IncrementalCases.readCases: a range, a
// scan mode and the base name of its files.
type incrementalCase struct {
	Between string `json:"between"`
	Mode    string `json:"mode"`
	Name    string `json:"name"`
}

// javaIncrementalRead has Java read the table at path with the 20
// incremental cases (incremental-read command) into dir and returns them.
func javaIncrementalRead(ctx context.Context, t *testing.T, path, dir string) []incrementalCase {
	t.Helper()
	if _, err := javaPeer().run(ctx, "incremental-read", path, dir); err != nil {
		t.Fatalf("java incremental-read: %v", err)
	}
	var cases []incrementalCase
	b, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err == nil {
		err = json.Unmarshal(b, &cases)
	}
	if err != nil || len(cases) != 20 {
		t.Fatalf("cases.json: %d cases, %v", len(cases), err)
	}
	return cases
}
