package parquet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// rleSizeOf runs rleSizer over a sequence of indices.
func rleSizeOf(ids []int, width int) int64 {
	var s rleSizer
	for i, v := range ids {
		s.add(i > 0 && v == ids[i-1])
	}
	s.finish()
	return s.size(width)
}

// TestRLESizer checks the sizes of parquet-mr's
// RunLengthBitPackingHybridEncoder, computed by hand from its algorithm:
// a bit-packed run is a 1-byte header plus width bytes per group of 8
// values (the last group padded), at most 63 groups per run; 8 or more
// equal values become an RLE run of varint(count<<1) plus ceil(width/8)
// bytes.
func TestRLESizer(t *testing.T) {
	seq := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	rep := func(v, n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	cases := []struct {
		name  string
		ids   []int
		width int
		want  int64
	}{
		{"empty", nil, 1, 0},
		{"one value", []int{0}, 0, 1},           // header, one padded group of width 0
		{"3 distinct", seq(3), 2, 1 + 2},        // one group
		{"8 distinct", seq(8), 3, 1 + 3},        // one full group
		{"9 distinct", seq(9), 4, 1 + 2*4},      // two groups, one run
		{"504 distinct", seq(504), 9, 1 + 63*9}, // 63 groups: one run
		{"505 distinct", seq(505), 9, 2 + 64*9}, // a 64th group opens a second run
		// Equal values: the first 7 are buffered; from the 8th on they
		// only count as repeats, and the run ends as one RLE run of all
		// of them (the buffered ones thrown away): varint(n<<1) + value.
		{"8 equal", rep(0, 8), 1, 1 + 1},
		{"9 equal", rep(0, 9), 1, 1 + 1},
		{"72 equal", rep(7, 72), 8, 2 + 1}, // varint(144) takes 2 bytes
		// 1, then 7 zeros fill a group (written, repeats reset); 13 more
		// zeros count as repeats and end as an RLE run at finish.
		{"group then run", append([]int{1}, rep(0, 20)...), 1, (1 + 1) + (1 + 1)},
		// 16 equal values: an RLE run written when 1 arrives; 1, 2 are
		// buffered and padded into one group of a new bit-packed run.
		{"run then distinct", append(rep(5, 16), 1, 2), 3, (1 + 1) + (1 + 3)},
	}
	for _, c := range cases {
		if got := rleSizeOf(c.ids, c.width); got != c.want {
			t.Errorf("%s: size %d, want %d", c.name, got, c.want)
		}
	}
}

// TestDictCostKeep: parquet-mr keeps the dictionary when dictionary bytes
// plus 1 (bit width) plus the encoded indices are below the raw bytes, and
// never when the dictionary exceeds the page size limit. Numbers by hand.
func TestDictCostKeep(t *testing.T) {
	// 1000 distinct BIGINTs: raw 8000, dictionary 8000 -> never smaller.
	var distinct dictCost
	for i := range 1000 {
		distinct.raw += 8
		distinct.dict += 8
		distinct.rle.add(false)
		_ = i
	}
	distinct.distinct = 1000
	distinct.rle.finish()
	if distinct.keep(1 << 20) {
		t.Error("distinct BIGINTs keep their dictionary")
	}
	// 1000 BIGINTs of 4 values cycling: raw 8000, dictionary 32, indices
	// width 2: 125 groups in two runs (63 + 62): 2 + 250 = 252, + 1.
	var few dictCost
	for i := range 1000 {
		few.raw += 8
		few.rle.add(i > 0 && i%4 == (i-1)%4)
	}
	few.dict, few.distinct = 32, 4
	few.rle.finish()
	if got := 1 + few.rle.size(2); got != 253 {
		t.Errorf("encoded size %d, want 253", got)
	}
	if !few.keep(1 << 20) {
		t.Error("4 distinct values drop their dictionary")
	}
	if few.keep(31) {
		t.Error("a dictionary above the page size limit is kept")
	}
}

// TestDictionaryDecisionMatchesJava: for every Parquet file Java Paimon
// wrote in testdata (parquet-mr 1.13/1.15, default writer version), the
// first-page decision made from the file's own values predicts exactly
// which top-level primitive columns of its first row group have a
// dictionary page.
func TestDictionaryDecisionMatchesJava(t *testing.T) {
	var files []string
	err := filepath.Walk(tablesDir, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".parquet") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	checked, withDict, skipped := 0, 0, 0
	for _, p := range files {
		pf, err := file.OpenParquetFile(p, false)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		md := pf.MetaData()
		if !strings.HasPrefix(md.GetCreatedBy(), "parquet-mr") || md.NumRowGroups() == 0 {
			pf.Close()
			continue
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		cols := make([]int, md.Schema.NumColumns())
		for i := range cols {
			cols[i] = i
		}
		tbl, err := fr.ReadRowGroups(context.Background(), cols, []int{0})
		if err != nil {
			// pqarrow rejects the negative INT96 nanos-of-day Java writes
			// for instants before 1970 (see int96.go).
			if !strings.Contains(err.Error(), "INT96") {
				t.Fatalf("%s: %v", p, err)
			}
			skipped++
			pf.Close()
			continue
		}
		var head []arrow.RecordBatch
		tr := array.NewTableReader(tbl, 1<<30)
		for tr.Next() {
			rec := tr.RecordBatch()
			rec.Retain()
			head = append(head, rec)
		}
		tr.Release()
		sc := tbl.Schema()
		leaves := make([]int, sc.NumFields())
		for i, f := range sc.Fields() {
			leaves[i] = leafCount(f.Type)
		}
		got := decideDictionary(md.Schema, sc, leaves, head, func(string) bool { return true }, 1<<20, false)
		rg := md.RowGroup(0)
		for c := range md.Schema.NumColumns() {
			path := md.Schema.Column(c).Path()
			keep, decided := got[path]
			if !decided {
				continue
			}
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			if cc.HasDictionaryPage() {
				withDict++
			}
			if keep != cc.HasDictionaryPage() {
				t.Errorf("%s column %s: decided dictionary %v, Java wrote %v", p, path, keep, cc.HasDictionaryPage())
			}
		}
		for _, r := range head {
			r.Release()
		}
		tbl.Release()
		pf.Close()
	}
	// The fixtures' totals (67 parquet-mr files): both outcomes occur.
	if checked != 481 || withDict != 140 || skipped != 3 {
		t.Errorf("checked %d columns, %d with a dictionary, %d files skipped; want 481, 140, 3", checked, withDict, skipped)
	}
}

// TestWriterDictionaryFirstPage: the Writer writes a column of distinct
// BIGINTs PLAIN (no dictionary page) and columns of few values with a
// dictionary, as parquet-mr does, whatever the file's length, codec and
// dictionary options (a per-column option only enables the dictionary; the
// first-page decision still drops it, as in Java). Every row reads back.
func TestWriterDictionaryFirstPage(t *testing.T) {
	fields := []types.DataField{
		{ID: 0, Name: "seq", Type: types.BigInt().NotNull()},
		{ID: 1, Name: "kind", Type: types.TinyInt().NotNull()},
		{ID: 2, Name: "s", Type: types.VarCharOf(100)},
	}
	for _, tc := range []struct {
		name string
		opts map[string]string
		rows int
		want map[string]bool // column -> has dictionary page
	}{
		{"default", nil, 30000, map[string]bool{"seq": false, "kind": true, "s": true}},
		{"short file", nil, 100, map[string]bool{"seq": false, "kind": true, "s": true}},
		{"dictionary off", map[string]string{OptionEnableDictionary: "false"}, 100, map[string]bool{"seq": false, "kind": false, "s": false}},
		{"column off", map[string]string{OptionEnableDictionary + "#kind": "false"}, 100, map[string]bool{"seq": false, "kind": false, "s": true}},
		{"column on", map[string]string{OptionEnableDictionary: "false", OptionEnableDictionary + "#s": "true"}, 100, map[string]bool{"seq": false, "kind": false, "s": true}},
		{"uncompressed", map[string]string{OptionFileCompression: "none"}, 100, map[string]bool{"seq": false, "kind": true, "s": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWriter(context.Background(), &buf, "t.parquet", fields, format.WriteOptions{Options: tc.opts})
			if err != nil {
				t.Fatal(err)
			}
			sc := types.SchemaToArrow(fields)
			const batch = 4096
			for off := 0; off < tc.rows; off += batch {
				n := min(batch, tc.rows-off)
				b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
				for i := range n {
					b.Field(0).(*array.Int64Builder).Append(int64(off + i))
					b.Field(1).(*array.Int8Builder).Append(int8((off + i) % 2))
					b.Field(2).(*array.StringBuilder).Append([]string{"ORD", "SFO", "JFK"}[(off+i)%3])
				}
				rec := b.NewRecordBatch()
				b.Release()
				if err := w.Write(context.Background(), rec); err != nil {
					t.Fatal(err)
				}
				rec.Release()
			}
			res, err := w.Close(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if res.RowCount != int64(tc.rows) {
				t.Fatalf("rows %d", res.RowCount)
			}
			pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			defer pf.Close()
			md := pf.MetaData()
			for c := range md.Schema.NumColumns() {
				name := md.Schema.Column(c).Name()
				cc, err := md.RowGroup(0).ColumnChunk(c)
				if err != nil {
					t.Fatal(err)
				}
				if cc.HasDictionaryPage() != tc.want[name] {
					t.Errorf("column %s: dictionary page %v, want %v", name, cc.HasDictionaryPage(), tc.want[name])
				}
			}
			r, err := NewReader(context.Background(), bytesFile(buf.Bytes()), "t.parquet", fields, format.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			rows, _ := readAll(t, r)
			if len(rows) != tc.rows {
				t.Fatalf("read %d rows, want %d", len(rows), tc.rows)
			}
			for _, i := range []int{0, 1, 2, tc.rows - 1} {
				want := fmt.Sprintf("%d | %d | %s", i, i%2, []string{"ORD", "SFO", "JFK"}[i%3])
				if rows[i] != want {
					t.Errorf("row %d = %q, want %q", i, rows[i], want)
				}
			}
		})
	}
}

// TestDistinctSet: the set counts distinct values exactly, also across
// resets (stale slots of the previous column do not count) and with keys
// that share home slots.
func TestDistinctSet(t *testing.T) {
	s := newDistinctSet(1000)
	s.reset()
	news := 0
	for i := range 1000 {
		if s.addU64(uint64(i % 37)) {
			news++
		}
	}
	if news != 37 || s.count != 37 {
		t.Errorf("first column: %d new, count %d, want 37", news, s.count)
	}
	s.reset()
	for i := range 1000 {
		// multiples of 2^shift land on few home slots
		s.addU64(uint64(i%500) << 40)
	}
	if s.count != 500 {
		t.Errorf("second column: count %d, want 500", s.count)
	}
	s.reset()
	words := []string{"ORD", "SFO", "", "JFK", "ORD", "", "sfo"}
	for range 3 {
		for _, w := range words {
			s.addStr(w)
		}
	}
	if s.count != 5 {
		t.Errorf("strings: count %d, want 5", s.count)
	}
}

// TestEstimateBound: MaxEstimatedSize never falls below EstimatedSize, and
// while only the bound is asked for, no probe encodes anything and the
// first rows stay held back.
func TestEstimateBound(t *testing.T) {
	fields := []types.DataField{
		{ID: 0, Name: "id", Type: types.BigInt().NotNull()},
		{ID: 1, Name: "s", Type: types.String()},
	}
	sc := types.SchemaToArrow(fields)
	w, err := NewWriter(context.Background(), io.Discard, "t.parquet", fields, format.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	batch := func(off int) arrow.RecordBatch {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		defer b.Release()
		for i := range 1000 {
			b.Field(0).(*array.Int64Builder).Append(int64(off + i))
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("value %d", (off+i)%7))
		}
		return b.NewRecordBatch()
	}
	for i := range 5 {
		rec := batch(i * 1000)
		if err := w.Write(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		w.MaxEstimatedSize()
	}
	if w.ratio != 0 || w.fw != nil || w.headRows != 5000 {
		t.Fatalf("after bounds only: ratio %v, started %v, %d rows held", w.ratio, w.fw != nil, w.headRows)
	}
	for i := 5; i < 40; i++ {
		rec := batch(i * 1000)
		if err := w.Write(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if bound, est := w.MaxEstimatedSize(), w.EstimatedSize(); bound < est {
			t.Fatalf("after %d rows: bound %d below estimate %d", (i+1)*1000, bound, est)
		}
	}
	if w.ratio == 0 || w.fw == nil {
		t.Fatalf("estimates did not probe (ratio %v) or start the file", w.ratio)
	}
	res, err := w.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.RowCount != 40000 {
		t.Fatalf("rows %d", res.RowCount)
	}
}

// TestColumnDictionaryOption: a per-column dictionary option that is not a
// boolean is refused, naming the key.
func TestColumnDictionaryOption(t *testing.T) {
	fields := []types.DataField{{ID: 0, Name: "id", Type: types.BigInt()}}
	_, err := NewWriter(context.Background(), io.Discard, "t.parquet", fields,
		format.WriteOptions{Options: map[string]string{OptionEnableDictionary + "#id": "maybe"}})
	if !errors.Is(err, format.ErrUnsupportedFormat) || !strings.Contains(err.Error(), "parquet.enable.dictionary#id") {
		t.Fatalf("err = %v", err)
	}
}
