package parquet

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

const tablesDir = "../../testdata/paimon-tables"

// osFile adapts an *os.File to format.File.
type osFile struct {
	*os.File
	size int64
}

func (f osFile) Size() int64 { return f.size }

func openFile(t testing.TB, path string) osFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return osFile{f, st.Size()}
}

// bytesFile is an in-memory format.File.
type bytesFile []byte

func (b bytesFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (b bytesFile) Size() int64 { return int64(len(b)) }

// tableSchema parses the fields of testdata/paimon-tables/<table>/schema/schema-<id>.
func tableSchema(t testing.TB, table string, id int) []types.DataField {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(tablesDir, table, "schema", "schema-"+strconv.Itoa(id)))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Fields []json.RawMessage `json:"fields"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	out := make([]types.DataField, len(doc.Fields))
	for i, f := range doc.Fields {
		if out[i], err = types.ParseFieldJSON(f); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// readAll reads every batch of r and returns the rows rendered with render,
// plus the batches' first-row positions.
func readAll(t testing.TB, r format.Reader) (rows []string, firsts []int64) {
	t.Helper()
	ctx := context.Background()
	for {
		b, err := r.Next(ctx)
		if err == io.EOF {
			return rows, firsts
		}
		if err != nil {
			t.Fatal(err)
		}
		firsts = append(firsts, b.FirstRow)
		for i := 0; i < int(b.Record.NumRows()); i++ {
			cells := make([]string, b.Record.NumCols())
			for c, col := range b.Record.Columns() {
				cells[c] = render(col, i)
			}
			rows = append(rows, strings.Join(cells, " | "))
		}
		b.Record.Release()
	}
}

func readFile(t testing.TB, path string, want []types.DataField, opts format.ReadOptions) ([]string, *arrow.Schema) {
	t.Helper()
	r, err := NewReader(context.Background(), openFile(t, path), filepath.Base(path), want, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rows, _ := readAll(t, r)
	return rows, r.Schema()
}

// render prints one cell: null, numbers in Go's shortest form, strings and
// binaries as text, decimals with their scale, dates as days, times as ms,
// timestamps as UTC wall time with the digits of their unit, lists [a, b],
// maps {k: v}, structs (a, b).
func render(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	switch a := a.(type) {
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Int8:
		return strconv.Itoa(int(a.Value(i)))
	case *array.Int16:
		return strconv.Itoa(int(a.Value(i)))
	case *array.Int32:
		return strconv.Itoa(int(a.Value(i)))
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Float32:
		return strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 32)
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return string(a.Value(i))
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		return decimalString(a.Value(i), int(dt.Scale))
	case *array.Date32:
		return strconv.Itoa(int(a.Value(i)))
	case *array.Time32:
		return strconv.Itoa(int(a.Value(i)))
	case *array.Timestamp:
		dt := a.DataType().(*arrow.TimestampType)
		v := int64(a.Value(i))
		var tm time.Time
		layout := "2006-01-02 15:04:05"
		switch dt.Unit {
		case arrow.Millisecond:
			tm, layout = time.UnixMilli(v), layout+".000"
		case arrow.Microsecond:
			tm, layout = time.UnixMicro(v), layout+".000000"
		case arrow.Nanosecond:
			tm, layout = time.Unix(0, v), layout+".000000000"
		}
		return tm.UTC().Format(layout)
	case *array.Map:
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		parts := make([]string, 0, end-start)
		for j := start; j < end; j++ {
			parts = append(parts, render(keys, int(j))+": "+render(items, int(j)))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *array.List:
		start, end := a.ValueOffsets(i)
		parts := make([]string, 0, end-start)
		for j := start; j < end; j++ {
			parts = append(parts, render(a.ListValues(), int(j)))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *array.Struct:
		parts := make([]string, a.NumField())
		for f := range parts {
			parts[f] = render(a.Field(f), i)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return "?" + a.DataType().String()
}

func decimalString(v decimal128.Num, scale int) string {
	u := v.BigInt()
	neg := u.Sign() < 0
	s := new(big.Int).Abs(u).String()
	if scale > 0 {
		for len(s) <= scale {
			s = "0" + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func sorted(rows []string) []string {
	out := append([]string(nil), rows...)
	sort.Strings(out)
	return out
}

func equalRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot:\n  %s\nwant:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// parquetFiles lists the *.parquet files under a fixture table.
func parquetFiles(t testing.TB, table string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(tablesDir, table), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}
