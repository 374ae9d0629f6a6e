package avro

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/internal/ocf"
	"github.com/paimon-go/paimon/types"
)

// readErr opens and reads all of data, returning the first error.
func readErr(data []byte, want []types.DataField) error {
	ctx := context.Background()
	r, err := NewReader(ctx, bytesFile(data), "bucket-0/data-1.avro", want, format.ReadOptions{BatchSize: 7})
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		b, err := r.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		b.Record.Release()
	}
}

// TestTruncatedFile cuts a valid file (all types, two codecs) at every
// length: each prefix fails with ErrCorrupt naming the file, never panics.
func TestTruncatedFile(t *testing.T) {
	fields := allTypes()
	rec := recordFromJSON(t, fields, allTypesJSON)
	defer rec.Release()
	for _, codec := range []string{"zstd", "null"} {
		data, _ := writeFile(t, fields, map[string]string{OptionFileCompression: codec}, rec, rec)
		if err := readErr(data, fields); err != nil {
			t.Fatalf("%s: whole file: %v", codec, err)
		}
		// The header alone is a valid container without blocks (no rows).
		f, err := ocf.Open(data)
		if err != nil {
			t.Fatal(err)
		}
		header := f.HeaderSize()
		for n := 0; n < len(data); n++ {
			err := readErr(data[:n], fields)
			if n == header {
				if err != nil {
					t.Fatalf("%s: header only: %v", codec, err)
				}
				continue
			}
			if !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), "bucket-0/data-1.avro") {
				t.Fatalf("%s: cut at %d of %d: err %v, want ErrCorrupt naming the file", codec, n, len(data), err)
			}
		}
	}
}

// TestGarbage: bytes that are no Avro container, and a valid file with
// flipped bytes, give typed errors (or rows) and never panic.
func TestGarbage(t *testing.T) {
	fields := allTypes()
	for _, data := range [][]byte{[]byte("PAR1 not avro at all"), {'O', 'b', 'j', 1, 0xff, 0xff, 0xff}} {
		if err := readErr(data, fields); !errors.Is(err, format.ErrCorrupt) {
			t.Fatalf("%q: err %v, want ErrCorrupt", data, err)
		}
	}
	rec := recordFromJSON(t, fields, allTypesJSON)
	defer rec.Release()
	data, _ := writeFile(t, fields, map[string]string{OptionFileCompression: "null"}, rec)
	for i := range data {
		for _, x := range []byte{0xff, 0x80, 0x01} {
			bad := append([]byte(nil), data...)
			bad[i] ^= x
			err := readErr(bad, fields)
			if err != nil && !errors.Is(err, format.ErrCorrupt) && !errors.Is(err, format.ErrUnsupportedFormat) &&
				!errors.Is(err, format.ErrSchemaMismatch) && !errors.Is(err, format.ErrTooLarge) && !errors.Is(err, format.ErrOutOfRange) {
				t.Fatalf("byte %d ^ %#x: untyped error %v", i, x, err)
			}
		}
	}
}

// TestSchemaMismatch: a column read as a type its Avro type cannot become
// is ErrSchemaMismatch naming the file and the column.
func TestSchemaMismatch(t *testing.T) {
	f := types.Field
	fields := []types.DataField{f(0, "a", types.String())}
	rec := recordFromJSON(t, fields, `[{"a":"x"}]`)
	defer rec.Release()
	data, _ := writeFile(t, fields, nil, rec)
	err := readErr(data, []types.DataField{f(0, "a", types.Int())})
	if !errors.Is(err, format.ErrSchemaMismatch) || !strings.Contains(err.Error(), "bucket-0/data-1.avro") || !strings.Contains(err.Error(), "column a") {
		t.Fatalf("err %v", err)
	}
}

// TestEmptyRecordsBounded: a block claiming 2^40 records of a schema that
// takes no bytes is refused with ErrTooLarge (bounded time), not decoded
// forever.
func TestEmptyRecordsBounded(t *testing.T) {
	w, err := ocf.NewWriter([]byte(`{"type":"record","name":"r","fields":[]}`), ocf.CodecNull, -1)
	if err != nil {
		t.Fatal(err)
	}
	data := w.Take()
	sync := data[len(data)-16:]
	e := ocf.Encoder{Buf: data}
	e.Long(1 << 40)
	e.Long(0)
	e.Buf = append(e.Buf, sync...)
	err = readErr(e.Buf, []types.DataField{types.Field(0, "x", types.Int())})
	if !errors.Is(err, format.ErrTooLarge) || !strings.Contains(err.Error(), "bucket-0/data-1.avro") {
		t.Fatalf("err %v, want ErrTooLarge naming the file", err)
	}
}
