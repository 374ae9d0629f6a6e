package tabletest

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/rowfmt"
	"github.com/paimon-go/paimon/types"
)

// Cat reads the table whose root is at url (anything paimon.OpenTable
// accepts, a plain local path included; not mem://, which is private to one
// FileIO) through paimon.OpenTable and a scan with opts, and returns its rows
// as `paimon cat --format jsonl` prints them: rowfmt JSONL of the plan's
// fields, one line per row, in read order.
func Cat(ctx context.Context, url string, opts ...reader.Option) ([]byte, error) {
	tbl, err := paimon.OpenTable(ctx, url)
	if err != nil {
		return nil, err
	}
	defer tbl.Close()
	plan, err := tbl.NewScan(opts...).Plan(ctx)
	if err != nil {
		return nil, fmt.Errorf("tabletest: plan %s: %w", url, err)
	}
	var buf bytes.Buffer
	w, err := rowfmt.NewWriter(&buf, rowfmt.JSONL, &rowfmt.Options{Fields: plan.Fields})
	if err != nil {
		return nil, err
	}
	for rec, err := range plan.Records(ctx) {
		if err != nil {
			return nil, fmt.Errorf("tabletest: read %s: %w", url, err)
		}
		werr := w.Write(rec)
		rec.Release()
		if werr != nil {
			return nil, werr
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ReadJSONL is Cat that stops the test on an error and returns the lines
// sorted (nil for an empty table), to compare with slices.Equal against
// hand-written JSONL or JSONL of the expected rows.
func ReadJSONL(t testing.TB, url string, opts ...reader.Option) []string {
	t.Helper()
	data, err := Cat(context.Background(), url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return sortedLines(data)
}

// ReadRows reads the table at url like Cat and returns each row as its
// columns' Arrow ValueStr joined by "|" ("1|a", "(null)|x"), sorted: a
// compact form for tables of plain columns. The test stops on an error.
func ReadRows(t testing.TB, url string, opts ...reader.Option) []string {
	t.Helper()
	ctx := context.Background()
	tbl, err := paimon.OpenTable(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	plan, err := tbl.NewScan(opts...).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rec, err := range plan.Records(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		for i := range int(rec.NumRows()) {
			var sb strings.Builder
			for c := range int(rec.NumCols()) {
				if c > 0 {
					sb.WriteByte('|')
				}
				sb.WriteString(rec.Column(c).ValueStr(i))
			}
			out = append(out, sb.String())
		}
		rec.Release()
	}
	slices.Sort(out)
	return out
}

// FormatJSONL returns rows of Go values (one per field; see NewBatch) as
// rowfmt JSONL of fields, one line per row in order: what Cat returns for a
// table holding exactly those rows. Errors wrap ErrValue or come from
// rowfmt.
func FormatJSONL(fields []types.DataField, rows ...[]any) ([]byte, error) {
	rec, err := NewBatch(types.SchemaToArrow(fields), rows...)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	var buf bytes.Buffer
	w, err := rowfmt.NewWriter(&buf, rowfmt.JSONL, &rowfmt.Options{Fields: fields})
	if err != nil {
		return nil, err
	}
	if err := w.Write(rec); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// JSONL is FormatJSONL that stops the test on an error and returns the lines
// sorted (nil for no rows): the expectation ReadJSONL is compared with.
func JSONL(t testing.TB, fields []types.DataField, rows ...[]any) []string {
	t.Helper()
	data, err := FormatJSONL(fields, rows...)
	if err != nil {
		t.Fatal(err)
	}
	return sortedLines(data)
}

// sortedLines splits JSONL output into its lines, sorted; nil when empty.
func sortedLines(data []byte) []string {
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	slices.Sort(lines)
	return lines
}
