//go:build libchoice

// This file holds the measurement behind docs/decisions.md ("Parquet
// library"): arrow-go's pqarrow against parquet-go, both producing and
// consuming arrow.Record, on the flights-3m data set. It is behind the
// "libchoice" build tag so that ordinary test runs neither compile nor run it:
//
//	go test -tags libchoice -run '^$' -bench LibChoice -benchtime 3x ./format/parquet/
package parquet

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pgo "github.com/parquet-go/parquet-go"
	pgozstd "github.com/parquet-go/parquet-go/compress/zstd"
)

const libChoiceBatch = 4096

// libChoiceFlights opens flights-3m or skips the benchmark.
func libChoiceFlights(b *testing.B) (*os.File, int64) {
	b.Helper()
	path := flightsPath()
	if path == "" {
		b.Skip("flights-3m.parquet not found in testdata/flights or ../shared/data; see docs/decisions.md")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	return f, st.Size()
}

func pqarrowRead(b *testing.B, f *os.File, size int64, cols []int) int64 {
	rdr, err := file.NewParquetReader(io.NewSectionReader(f, 0, size))
	if err != nil {
		b.Fatal(err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: libChoiceBatch}, memory.DefaultAllocator)
	if err != nil {
		b.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), cols, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer rr.Release()
	var rows int64
	for rr.Next() {
		rows += rr.RecordBatch().NumRows()
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		b.Fatal(err)
	}
	return rows
}

// pgoReadArrow reads the wanted flat columns of every row group page by page
// and builds Arrow arrays (int64/timestamp and string columns only, which is
// all flights has), then slices each row group into batches.
func pgoReadArrow(b *testing.B, f *os.File, size int64, cols []int) int64 {
	pf, err := pgo.OpenFile(f, size, pgo.SkipBloomFilters(true), pgo.SkipPageIndex(true))
	if err != nil {
		b.Fatal(err)
	}
	mem := memory.DefaultAllocator
	var rows int64
	for _, rg := range pf.RowGroups() {
		chunks := rg.ColumnChunks()
		arrs := make([]arrow.Array, len(cols))
		fields := make([]arrow.Field, len(cols))
		for i, c := range cols {
			leaf := pf.Schema().Fields()[c]
			isString := leaf.Type().Kind() == pgo.ByteArray
			var bld array.Builder
			if isString {
				bld = array.NewStringBuilder(mem)
				fields[i] = arrow.Field{Name: leaf.Name(), Type: arrow.BinaryTypes.String, Nullable: true}
			} else {
				bld = array.NewInt64Builder(mem)
				fields[i] = arrow.Field{Name: leaf.Name(), Type: arrow.PrimitiveTypes.Int64, Nullable: true}
			}
			bld.Reserve(int(rg.NumRows()))
			pages := chunks[c].Pages()
			for {
				p, err := pages.ReadPage()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				appendPage(bld, p, isString)
				pgo.Release(p)
			}
			pages.Close()
			arrs[i] = bld.NewArray()
			bld.Release()
		}
		rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, rg.NumRows())
		for off := int64(0); off < rec.NumRows(); off += libChoiceBatch {
			end := min(off+libChoiceBatch, rec.NumRows())
			s := rec.NewSlice(off, end)
			rows += s.NumRows()
			s.Release()
		}
		rec.Release()
		for _, a := range arrs {
			a.Release()
		}
	}
	return rows
}

func appendPage(bld array.Builder, p pgo.Page, isString bool) {
	def := p.DefinitionLevels()
	vals := p.Data()
	var idxs []int32
	src := vals
	if d := p.Dictionary(); d != nil {
		idxs = vals.Int32()
		src = d.Page().Data()
	}
	n := int(p.NumValues())
	k := 0
	next := func() int {
		j := k
		k++
		if idxs != nil {
			return int(idxs[j])
		}
		return j
	}
	if isString {
		sb := bld.(*array.StringBuilder)
		data, off := src.ByteArray()
		for r := 0; r < n; r++ {
			if def != nil && def[r] == 0 {
				sb.AppendNull()
				continue
			}
			j := next()
			sb.BinaryBuilder.Append(data[off[j]:off[j+1]])
		}
		return
	}
	ib := bld.(*array.Int64Builder)
	ints := src.Int64()
	for r := 0; r < n; r++ {
		if def != nil && def[r] == 0 {
			ib.AppendNull()
			continue
		}
		ib.Append(ints[next()])
	}
}

func BenchmarkLibChoiceReadAll(b *testing.B) {
	f, size := libChoiceFlights(b)
	all := []int{0, 1, 2, 3, 4}
	b.Run("pqarrow", func(b *testing.B) {
		for b.Loop() {
			if n := pqarrowRead(b, f, size, all); n != 3_000_000 {
				b.Fatalf("rows %d", n)
			}
		}
		b.ReportMetric(3e6*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("parquet-go", func(b *testing.B) {
		for b.Loop() {
			if n := pgoReadArrow(b, f, size, all); n != 3_000_000 {
				b.Fatalf("rows %d", n)
			}
		}
		b.ReportMetric(3e6*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

func BenchmarkLibChoiceReadProjection(b *testing.B) {
	f, size := libChoiceFlights(b)
	proj := []int{1, 3} // delay, origin
	b.Run("pqarrow", func(b *testing.B) {
		for b.Loop() {
			if n := pqarrowRead(b, f, size, proj); n != 3_000_000 {
				b.Fatalf("rows %d", n)
			}
		}
		b.ReportMetric(3e6*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("parquet-go", func(b *testing.B) {
		for b.Loop() {
			if n := pgoReadArrow(b, f, size, proj); n != 3_000_000 {
				b.Fatalf("rows %d", n)
			}
		}
		b.ReportMetric(3e6*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

// libChoiceRecords loads flights into 4096-row records whose fields carry
// PARQUET:field_id metadata, as the table writer will hand them over.
func libChoiceRecords(b *testing.B, f *os.File, size int64) []arrow.RecordBatch {
	rdr, err := file.NewParquetReader(io.NewSectionReader(f, 0, size))
	if err != nil {
		b.Fatal(err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: libChoiceBatch}, memory.DefaultAllocator)
	if err != nil {
		b.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer rr.Release()
	var fields []arrow.Field
	for i, fl := range rr.Schema().Fields() {
		fl.Metadata = arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{strconv.Itoa(i)})
		fields = append(fields, fl)
	}
	sc := arrow.NewSchema(fields, nil)
	var recs []arrow.RecordBatch
	for rr.Next() {
		r := rr.RecordBatch()
		recs = append(recs, array.NewRecordBatch(sc, r.Columns(), r.NumRows()))
	}
	return recs
}

func BenchmarkLibChoiceWrite(b *testing.B) {
	f, size := libChoiceFlights(b)
	recs := libChoiceRecords(b, f, size)
	sc := recs[0].Schema()
	var out bytes.Buffer
	for _, dict := range []bool{true, false} {
		b.Run("pqarrow/dict="+strconv.FormatBool(dict), func(b *testing.B) {
			for b.Loop() {
				out.Reset()
				props := parquet.NewWriterProperties(
					parquet.WithCompression(compress.Codecs.Zstd),
					parquet.WithCompressionLevel(1),
					parquet.WithDictionaryDefault(dict),
					parquet.WithStats(true),
					parquet.WithMaxRowGroupLength(1<<20),
				)
				w, err := pqarrow.NewFileWriter(sc, &out, props, pqarrow.NewArrowWriterProperties())
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range recs {
					if err := w.WriteBuffered(r); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(3e6*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(out.Len()), "bytes")
		})
		b.Run("parquet-go/dict="+strconv.FormatBool(dict), func(b *testing.B) {
			enc := func(n pgo.Node) pgo.Node {
				if dict {
					return pgo.Encoded(n, &pgo.RLEDictionary)
				}
				return n
			}
			group := pgo.Group{}
			for i, fl := range sc.Fields() {
				var n pgo.Node
				switch fl.Type.ID() {
				case arrow.STRING:
					n = pgo.String()
				case arrow.TIMESTAMP:
					n = pgo.Timestamp(pgo.Microsecond)
				default:
					n = pgo.Int(64)
				}
				group[fl.Name] = pgo.FieldID(enc(pgo.Optional(n)), i)
			}
			// parquet-go orders group fields by name; map arrow columns to leaves.
			schema := pgo.NewSchema("paimon_schema", group)
			order := make([]int, len(sc.Fields()))
			for leaf, fld := range schema.Fields() {
				order[leaf] = sc.FieldIndices(fld.Name())[0]
			}
			for b.Loop() {
				out.Reset()
				w := pgo.NewWriter(&out, schema, pgo.Compression(&pgozstd.Codec{Level: pgozstd.SpeedFastest}),
					pgo.MaxRowsPerRowGroup(1<<20), pgo.PageBufferSize(1<<20))
				var vals []pgo.Value
				var written int64
				for _, r := range recs {
					for leaf, c := range order {
						vals = vals[:0]
						col := r.Column(c)
						for i := 0; i < col.Len(); i++ {
							if col.IsNull(i) {
								vals = append(vals, pgo.NullValue().Level(0, 0, leaf))
								continue
							}
							var v pgo.Value
							switch a := col.(type) {
							case *array.String:
								v = pgo.ByteArrayValue([]byte(a.Value(i)))
							case *array.Int64:
								v = pgo.Int64Value(a.Value(i))
							case *array.Timestamp:
								v = pgo.Int64Value(int64(a.Value(i)))
							}
							vals = append(vals, v.Level(0, 1, leaf))
						}
						if _, err := w.ColumnWriters()[leaf].WriteRowValues(vals); err != nil {
							b.Fatal(err)
						}
					}
					written += r.NumRows()
					if written >= 1<<20 {
						if err := w.Flush(); err != nil {
							b.Fatal(err)
						}
						written = 0
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(3e6*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(out.Len()), "bytes")
		})
	}
}
