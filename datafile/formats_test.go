package datafile_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/internal/ocf"
	"github.com/paimon-go/paimon/types"
)

// TestFormatPerLevel: a primary-key table with file.format=parquet,
// file.format.per.level=0:avro and file.compression.per.level=0:snappy
// writes level-0 files as snappy Avro (.avro) and level-5 files as Parquet;
// both read back, by their extension, exactly; key stats and value stats
// of the Avro file are those of its rows.
func TestFormatPerLevel(t *testing.T) {
	ctx := context.Background()
	fio := memIO(t)
	ts := newSchema(t, true, map[string]string{"file.format": "parquet", "file.format.per.level": "0:avro",
		"file.compression.per.level": "0:snappy"})
	for _, c := range []struct {
		level int
		ext   string
	}{{0, ".avro"}, {5, ".parquet"}} {
		l, err := datafile.NewLayout(ts, datafile.Config{Level: c.level})
		if err != nil {
			t.Fatal(err)
		}
		w := datafile.NewRollingWriter(fio, "bucket-0", l, datafile.NewNamer("u"+c.ext[1:]), 0)
		m := writeOne(t, w, kvBatch(t, l, []any{int32(1), int64(7), int8(0), "a"}, []any{int32(4), int64(8), int8(3), nil}))
		if !strings.HasSuffix(m.FileName, c.ext) || m.RowCount != 2 || m.MinSequenceNumber != 7 || m.MaxSequenceNumber != 8 ||
			*m.DeleteRowCount != 1 || !slices.Equal(m.MinKey, intKey(1)) || !slices.Equal(m.MaxKey, intKey(4)) {
			t.Fatalf("level %d: meta %+v", c.level, m)
		}
		if got := decodeStats(t, m.ValueStats.MinValues); got[0] != int32(1) || got[1] != "a" {
			t.Fatalf("level %d: value min %v", c.level, got)
		}
		if got := decodeStats(t, m.ValueStats.MaxValues); got[0] != int32(4) || got[1] != "a" {
			t.Fatalf("level %d: value max %v", c.level, got)
		}
		p := "bucket-0/" + m.FileName
		f, err := fio.Open(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if c.ext == ".avro" {
			hdr, err := ocf.OpenAt(f, f.Size(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if hdr.Codec != ocf.CodecSnappy {
				t.Fatalf("codec %s", hdr.Codec)
			}
		}
		ff, err := datafile.FormatOf(p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ff.NewReader(ctx, f, p, l.Fields(), format.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := r.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rec := b.Record
		k, seq, kind, v := rec.Column(0).(*array.Int32), rec.Column(1).(*array.Int64), rec.Column(2).(*array.Int8), rec.Column(4).(*array.String)
		if rec.NumRows() != 2 || k.Value(0) != 1 || k.Value(1) != 4 || seq.Value(0) != 7 || seq.Value(1) != 8 ||
			kind.Value(1) != 3 || v.Value(0) != "a" || v.IsValid(1) {
			t.Fatalf("level %d: rows %v", c.level, rec)
		}
		rec.Release()
		if _, err := r.Next(ctx); !errors.Is(err, io.EOF) {
			t.Fatalf("level %d: %v", c.level, err)
		}
		r.Close()
		f.Close()
	}
	if _, err := datafile.FormatOf("bucket-0/data-1.csv"); !errors.Is(err, format.ErrUnsupportedFormat) || !strings.Contains(err.Error(), "bucket-0/data-1.csv") {
		t.Fatalf("csv: %v", err)
	}
}

// TestAppendAvro: an append table with file.format=avro writes .avro files.
func TestAppendAvro(t *testing.T) {
	ts := newSchema(t, false, map[string]string{"file.format": "AVRO"})
	l, err := datafile.NewLayout(ts, datafile.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !datafile.Writes("avro") || !datafile.Writes("parquet") {
		t.Fatal("Writes")
	}
	w := datafile.NewRollingWriter(memIO(t), "bucket-0", l, datafile.NewNamer("u"), 0)
	b := array.NewRecordBuilder(memory.DefaultAllocator, types.SchemaToArrow(l.Fields()))
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{5, 6, 7}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"x", "y", "z"}, nil)
	m := writeOne(t, w, b.NewRecordBatch())
	if !strings.HasSuffix(m.FileName, "u-0.avro") || m.RowCount != 3 || m.MinSequenceNumber != 0 || m.MaxSequenceNumber != 2 {
		t.Fatalf("meta %+v", m)
	}
	if lo, hi := decodeStats(t, m.ValueStats.MinValues), decodeStats(t, m.ValueStats.MaxValues); lo[0] != int32(5) || lo[1] != "x" || hi[0] != int32(7) || hi[1] != "z" {
		t.Fatalf("stats %v %v", lo, hi)
	}
}
