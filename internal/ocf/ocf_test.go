package ocf

import (
	"bytes"
	"errors"
	"io"
	"math"
	"testing"

	hocf "github.com/hamba/avro/v2/ocf"
)

func TestVarints(t *testing.T) {
	for _, v := range []int64{0, -1, 1, 63, -64, 64, 1 << 40, math.MaxInt64, math.MinInt64} {
		var e Encoder
		e.Long(v)
		d := NewDecoder(e.Buf)
		if got := d.Long(); got != v || d.Err() != nil || d.Remaining() != 0 {
			t.Errorf("long %d: got %d, %v, %d left", v, got, d.Err(), d.Remaining())
		}
	}
	// Zig-zag: 0 -> 00, -1 -> 01, 1 -> 02, -64 -> 7f, 64 -> 80 01.
	for v, want := range map[int64][]byte{0: {0}, -1: {1}, 1: {2}, -64: {0x7f}, 64: {0x80, 1}} {
		var e Encoder
		e.Long(v)
		if !bytes.Equal(e.Buf, want) {
			t.Errorf("encode %d = %x, want %x", v, e.Buf, want)
		}
	}
	for _, v := range []int32{0, math.MaxInt32, math.MinInt32} {
		var e Encoder
		e.Int(v)
		d := NewDecoder(e.Buf)
		if got := d.Int(); got != v || d.Err() != nil {
			t.Errorf("int %d: %d %v", v, got, d.Err())
		}
	}
	bad := [][]byte{
		{},     // truncated
		{0x80}, // truncated continuation
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, // overflows 64 bits
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
	}
	for _, b := range bad {
		d := NewDecoder(b)
		d.Long()
		if !errors.Is(d.Err(), ErrCorrupt) {
			t.Errorf("long %x: %v", b, d.Err())
		}
	}
	d := NewDecoder([]byte{0xff, 0xff, 0xff, 0xff, 0x10}) // 2^32+... does not fit an int
	d.Int()
	if !errors.Is(d.Err(), ErrCorrupt) {
		t.Errorf("int overflow: %v", d.Err())
	}
	d = NewDecoder([]byte{0x08, 'a'}) // length 4, one byte left
	if d.Bytes() != nil || !errors.Is(d.Err(), ErrCorrupt) {
		t.Errorf("short bytes: %v", d.Err())
	}
	d = NewDecoder([]byte{0x03}) // negative length
	if s := d.String(); s != "" || !errors.Is(d.Err(), ErrCorrupt) {
		t.Errorf("negative length: %v", d.Err())
	}
	d = NewDecoder([]byte{0x00})
	if b := d.Bytes(); b == nil || len(b) != 0 {
		t.Errorf("empty bytes must be non-nil: %v", b)
	}
	d = NewDecoder([]byte{0x7e, 1}) // array block of 63 items in 1 byte
	if n := d.BlockCount(1); n != 0 || !errors.Is(d.Err(), ErrCorrupt) {
		t.Errorf("oversized block count: %d %v", n, d.Err())
	}
}

func TestParseSchema(t *testing.T) {
	s, err := ParseSchema([]byte(`{"type":"record","name":"r","namespace":"a.b","fields":[
		{"name":"x","type":["null",{"type":"record","name":"inner","fields":[{"name":"y","type":"int"}]}]},
		{"name":"z","type":"inner"},
		{"name":"w","type":"a.b.inner"},
		{"name":"self","type":["null","r"]},
		{"name":"m","type":{"type":"map","values":{"type":"array","items":"long"}}},
		{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}},
		{"name":"f","type":{"type":"fixed","name":"F","size":16}},
		{"name":"t","type":{"type":"long","logicalType":"timestamp-millis"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Type != Record || s.Name != "a.b.r" || len(s.Fields) != 8 {
		t.Fatalf("%+v", s)
	}
	inner := s.Fields[0].Type.Branches[1]
	if inner.Name != "a.b.inner" || s.Fields[1].Type != inner || s.Fields[2].Type != inner {
		t.Error("named reference not resolved to the same node")
	}
	if s.Fields[3].Type.Branches[1] != s {
		t.Error("recursive reference not resolved")
	}
	if m := s.Fields[4].Type; m.Type != Map || m.Values.Type != Array || m.Values.Items.Type != Long {
		t.Errorf("map %+v", m)
	}
	if e := s.Fields[5].Type; e.Type != Enum || e.Size != 3 {
		t.Errorf("enum %+v", e)
	}
	if f := s.Fields[6].Type; f.Type != Fixed || f.Size != 16 {
		t.Errorf("fixed %+v", f)
	}
	if ts := s.Fields[7].Type; ts.Type != Long || ts.Logical != "timestamp-millis" {
		t.Errorf("logical %+v", ts)
	}
	for _, bad := range []string{
		``, `nope`, `"unknown"`, `[]`, `[["int"]]`, `{"type":"record","fields":[]}`,
		`{"type":"record","name":"r"}`, `{"type":"record","name":"r","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]}`,
		`{"type":"fixed","name":"f","size":-1}`, `{"type":"enum","name":"e","symbols":[]}`, `{"type":"array"}`,
		`[{"type":"record","name":"r","fields":[]},{"type":"record","name":"r","fields":[]}]`,
	} {
		if _, err := ParseSchema([]byte(bad)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestContainerCodecs writes containers with every codec and reads them back both with this
// package and with hamba/avro's OCF reader.
func TestContainerCodecs(t *testing.T) {
	schema := []byte(`{"type":"record","name":"r","fields":[{"name":"a","type":"long"},{"name":"s","type":"string"}]}`)
	for _, codec := range []string{CodecNull, CodecDeflate, CodecSnappy, CodecZstandard} {
		w, err := NewWriter(schema, codec, -1)
		if err != nil {
			t.Fatal(err)
		}
		const n = 20000 // several 64 000-byte blocks
		for i := int64(0); i < n; i++ {
			w.Block.Long(i)
			w.Block.String("value-value-value")
			if err := w.EndRecord(); err != nil {
				t.Fatal(err)
			}
		}
		data, err := w.Finish()
		if err != nil {
			t.Fatal(err)
		}
		f, err := Open(data)
		if err != nil {
			t.Fatal(err)
		}
		if f.Codec != codec || !bytes.Equal(f.Schema, schema) {
			t.Errorf("%s: header %q %s", codec, f.Codec, f.Schema)
		}
		if total, err := f.RecordCount(); total != n || err != nil {
			t.Errorf("%s: record count %d %v", codec, total, err)
		}
		var got int64
		blocks := 0
		for {
			count, block, err := f.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", codec, err)
			}
			blocks++
			d := NewDecoder(block)
			for i := int64(0); i < count; i++ {
				if v := d.Long(); v != got {
					t.Fatalf("%s: record %d has %d", codec, got, v)
				}
				d.SkipBytes()
				got++
			}
		}
		f.Close()
		if got != n || blocks < 4 {
			t.Errorf("%s: %d records in %d blocks", codec, got, blocks)
		}
		hd, err := hocf.NewDecoder(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: hamba: %v", codec, err)
		}
		var m map[string]any
		cnt := 0
		for hd.HasNext() {
			if err := hd.Decode(&m); err != nil {
				t.Fatal(err)
			}
			if m["a"] != int64(cnt) || m["s"] != "value-value-value" {
				t.Fatalf("%s: hamba record %v", codec, m)
			}
			cnt++
		}
		if cnt != n || hd.Error() != nil {
			t.Errorf("%s: hamba read %d records, %v", codec, cnt, hd.Error())
		}

		// A damaged sync marker or block is reported, never a panic.
		bad := bytes.Clone(data)
		bad[len(bad)-1] ^= 1
		f, _ = Open(bad)
		var lastErr error
		for {
			_, _, err := f.Next()
			if err != nil {
				lastErr = err
				break
			}
		}
		if !errors.Is(lastErr, ErrCorrupt) {
			t.Errorf("%s: damaged sync: %v", codec, lastErr)
		}
	}
	if _, err := NewWriter(schema, "bzip2", -1); !errors.Is(err, ErrUnsupportedCodec) {
		t.Errorf("bzip2 writer: %v", err)
	}
	w, _ := NewWriter(schema, CodecNull, -1)
	data, _ := w.Finish()
	data = bytes.Replace(data, []byte("null"), []byte("xz\x00\x00"), 1)
	if _, err := Open(data); err == nil {
		t.Error("xz container accepted")
	}
}

// TestBytesCopies checks that Bytes values are copies that stay apart:
// small ones share a chunk, yet writing or appending to one never changes
// another or the block, and an empty value among them is non-nil.
func TestBytesCopies(t *testing.T) {
	var e Encoder
	want := [][]byte{[]byte("ab"), {}, []byte("cde"), bytes.Repeat([]byte{7}, slabValue), bytes.Repeat([]byte{9}, slabValue+1), []byte("f")}
	for _, b := range want {
		e.Bytes(b)
	}
	block := bytes.Clone(e.Buf)
	d := NewDecoder(e.Buf)
	var got [][]byte
	for range want {
		got = append(got, d.Bytes())
	}
	if d.Err() != nil || d.Remaining() != 0 {
		t.Fatalf("decode: %v, %d left", d.Err(), d.Remaining())
	}
	for i := range got {
		if got[i] == nil || !bytes.Equal(got[i], want[i]) || cap(got[i]) != len(want[i]) {
			t.Fatalf("value %d = %q (cap %d), want %q (cap %d)", i, got[i], cap(got[i]), want[i], len(want[i]))
		}
	}
	got[0][0] = 'x'
	_ = append(got[2], 'y', 'y', 'y')
	if !bytes.Equal(got[2], []byte("cde")) || !bytes.Equal(got[5], []byte("f")) || !bytes.Equal(e.Buf, block) {
		t.Fatalf("values or block changed: %q %q", got[2], got[5])
	}
}
