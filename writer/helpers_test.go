package writer_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// newTable creates db.t in a fresh warehouse at whURL (a temp dir when "")
// and returns the table.
func newTable(t testing.TB, whURL string, s catalog.Schema) *catalog.Table {
	t.Helper()
	ctx := context.Background()
	if whURL == "" {
		whURL = "file://" + t.TempDir()
	}
	c, err := catalog.Open(ctx, whURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.CreateDatabase(ctx, "db", true); err != nil {
		t.Fatal(err)
	}
	id := catalog.NewIdentifier("db", "t")
	if err := c.CreateTable(ctx, id, s, false); err != nil {
		t.Fatal(err)
	}
	tbl, err := c.GetTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// rec builds a record batch of the table's Arrow schema (plus extra
// columns) from rows of Go values: int32, int64, float64, string, nil, ...
func rec(t *testing.T, fields []arrow.Field, rows ...[]any) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for _, r := range rows {
		for i, v := range r {
			fb := b.Field(i)
			if v == nil {
				fb.AppendNull()
				continue
			}
			switch x := fb.(type) {
			case *array.Int8Builder:
				x.Append(v.(int8))
			case *array.Int32Builder:
				x.Append(v.(int32))
			case *array.Int64Builder:
				x.Append(v.(int64))
			case *array.Float64Builder:
				x.Append(v.(float64))
			case *array.StringBuilder:
				x.Append(v.(string))
			default:
				t.Fatalf("unsupported builder %T", fb)
			}
		}
	}
	return b.NewRecordBatch()
}

func arrowFields(ts *schema.TableSchema, extra ...arrow.Field) []arrow.Field {
	return append(types.SchemaToArrow(ts.Fields).Fields(), extra...)
}

// writeCommit writes the batches with a new Write and commits them.
func writeCommit(t *testing.T, tbl *catalog.Table, user string, identifier int64, recs ...arrow.RecordBatch) int64 {
	t.Helper()
	ctx := context.Background()
	w, err := writer.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, r := range recs {
		if err := w.Write(ctx, r); err != nil {
			t.Fatal(err)
		}
		r.Release()
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := commit.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Commit(ctx, identifier, msgs)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// readRows reads the table through the real reader (tabletest.ReadRows):
// rows as "v1|v2|..." strings, sorted.
func readRows(t *testing.T, url string, opts ...reader.Option) []string {
	t.Helper()
	return tabletest.ReadRows(t, url, opts...)
}

func sorted(s ...string) []string {
	slices.Sort(s)
	return s
}

// deltaEntries returns the entries of a snapshot's delta manifest list.
func deltaEntries(t *testing.T, fio *fileio.FileIO, id int64) (*snapshot.Snapshot, []manifest.Entry) {
	t.Helper()
	ctx := context.Background()
	s, err := snapshot.NewManager(fio).Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	metas, err := manifest.ReadManifestList(ctx, fio, s.DeltaManifestList)
	if err != nil {
		t.Fatal(err)
	}
	var out []manifest.Entry
	for _, m := range metas {
		es, err := manifest.ReadManifest(ctx, fio, m.FileName)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, es...)
	}
	slices.SortFunc(out, func(a, b manifest.Entry) int {
		if c := strings.Compare(string(a.Partition), string(b.Partition)); c != 0 {
			return c
		}
		if a.Bucket != b.Bucket {
			return int(a.Bucket - b.Bucket)
		}
		return int(a.File.MinSequenceNumber - b.File.MinSequenceNumber)
	})
	return s, out
}

func equalRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	if len(got)+len(want) <= 20 {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
		return
	}
	// Large results: report the rows that differ (both sorted).
	var extra, missing []string
	i, j := 0, 0
	for i < len(got) || j < len(want) {
		switch {
		case j >= len(want) || (i < len(got) && got[i] < want[j]):
			extra = append(extra, got[i])
			i++
		case i >= len(got) || want[j] < got[i]:
			missing = append(missing, want[j])
			j++
		default:
			i, j = i+1, j+1
		}
	}
	t.Errorf("%s: %d rows, want %d\nunexpected %.300q\nmissing %.300q", what, len(got), len(want), extra, missing)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return v
}
