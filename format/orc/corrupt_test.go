package orc

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/paimon-go/paimon/format"
)

// --- a minimal writer of uncompressed ORC files for hand-made cases ---

type pb []byte

func (b pb) uint(num protowire.Number, v uint64) pb {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func (b pb) bytes(num protowire.Number, v []byte) pb {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func (b pb) packed(num protowire.Number, vs ...uint64) pb {
	var p []byte
	for _, v := range vs {
		p = protowire.AppendVarint(p, v)
	}
	return b.bytes(num, p)
}

// typeMsg is a Footer Type message.
func typeMsg(kind uint64, subtypes []uint64, names ...string) []byte {
	b := pb(nil).uint(1, kind)
	if len(subtypes) > 0 {
		b = b.packed(2, subtypes...)
	}
	for _, n := range names {
		b = b.bytes(3, []byte(n))
	}
	return b
}

type testStream struct {
	kind, column uint64
	data         []byte
}

type testStripe struct {
	rows      uint64
	streams   []testStream
	encodings []uint64 // ColumnEncoding.Kind per column
	timezone  string
}

// buildORC assembles an uncompressed ORC file; extraFooter is appended to
// the footer message.
func buildORC(types [][]byte, stripes []testStripe, extraFooter []byte) []byte {
	file := []byte("ORC")
	var footer pb
	var rows uint64
	for _, s := range stripes {
		offset := uint64(len(file))
		var sf pb
		var dataLen uint64
		for _, st := range s.streams {
			file = append(file, st.data...)
			dataLen += uint64(len(st.data))
			sf = sf.bytes(1, pb(nil).uint(1, st.kind).uint(2, st.column).uint(3, uint64(len(st.data))))
		}
		for _, e := range s.encodings {
			sf = sf.bytes(2, pb(nil).uint(1, e))
		}
		if s.timezone != "" {
			sf = sf.bytes(3, []byte(s.timezone))
		}
		file = append(file, sf...)
		info := pb(nil).uint(1, offset).uint(2, 0).uint(3, dataLen).uint(4, uint64(len(sf))).uint(5, s.rows)
		footer = footer.bytes(3, info)
		rows += s.rows
	}
	footer = pb(nil).uint(1, 3).uint(2, uint64(len(file))).append(footer)
	for _, t := range types {
		footer = footer.bytes(4, t)
	}
	footer = footer.uint(6, rows).append(extraFooter)
	ps := pb(nil).uint(1, uint64(len(footer))).uint(2, compressionNone).packed(4, 0, 12).uint(5, 0).bytes(8000, []byte("ORC"))
	file = append(file, footer...)
	file = append(file, ps...)
	return append(file, byte(len(ps)))
}

func (b pb) append(more []byte) pb { return append(b, more...) }

// rle1 encodes values as integer RLE v1 literals (signed: zigzag).
func rle1(signed bool, vs ...int64) []byte {
	b := []byte{byte(256 - len(vs))}
	for _, v := range vs {
		u := uint64(v)
		if signed {
			u = protowire.EncodeZigZag(v)
		}
		b = protowire.AppendVarint(b, u)
	}
	return b
}

// timestampFile has one column ts of kind (timestamp or timestamp with
// local time zone) and one row per stripe, DIRECT (RLE v1) encoded.
func timestampFile(kind uint64, stripes ...struct {
	tz            string
	secs, encNano int64
}) []byte {
	var ss []testStripe
	for _, s := range stripes {
		ss = append(ss, testStripe{rows: 1, timezone: s.tz, encodings: []uint64{encodingDirect, encodingDirect},
			streams: []testStream{
				{streamData, 1, rle1(true, s.secs)},
				{streamSecondary, 1, rle1(false, s.encNano)},
			}})
	}
	return buildORC([][]byte{typeMsg(kindStruct, []uint64{1}, "ts"), typeMsg(kind, nil)}, ss, nil)
}

func readAll(data []byte) ([]map[string]any, error) {
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	recs, err := f.Read(context.Background(), ReadOptions{})
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			m := map[string]any{}
			for c, col := range r.Columns() {
				m[r.ColumnName(c)] = cell(col, i)
			}
			out = append(out, m)
		}
		r.Release()
	}
	return out, nil
}

// TestTimestampWriterTimeZone checks the rules of the Java ORC
// TimestampTreeWriter, computed by hand:
//
//   - stripe 1, writer zone America/New_York: wall clock 2020-07-01 12:00
//     (EDT, UTC-4) is the instant 1593619200; the writer stores it minus
//     2015-01-01 00:00 New York (EST) = 1420088400, i.e. 173530800. The
//     decoded wall clock must be 12:00 again (a decoder ignoring the zone's
//     DST rule would say 11:00).
//   - stripe 2, writer zone UTC: 1969-12-31 23:59:58.5 is -1500 ms; the
//     writer stores seconds truncated toward zero (-1) minus 1420070400
//     and nanos 5e8 as 5<<3|7; the reader subtracts one second for negative
//     seconds with a sub-millisecond part.
func TestTimestampWriterTimeZone(t *testing.T) {
	if _, err := time.LoadLocation("America/New_York"); err != nil {
		t.Skip("no zoneinfo:", err)
	}
	type ts = struct {
		tz            string
		secs, encNano int64
	}
	data := timestampFile(kindTimestamp, ts{"America/New_York", 173530800, 0}, ts{"UTC", -1 - 1420070400, 5<<3 | 7})
	got, err := readAll(data)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{time.Date(2020, 7, 1, 12, 0, 0, 0, time.UTC).UnixNano(), -1_500_000_000}
	if len(got) != 2 || got[0]["ts"] != want[0] || got[1]["ts"] != want[1] {
		t.Fatalf("got %v, want %v", got, want)
	}
	// timestamp with local time zone: always UTC seconds since 2015, the
	// stripe's writer zone is irrelevant
	data = timestampFile(kindTimestampInstant, ts{"America/New_York", 173530800, 0})
	if got, err = readAll(data); err != nil || got[0]["ts"] != (1420070400+173530800)*int64(time.Second) {
		t.Fatalf("instant: got %v, %v", got, err)
	}
	// an unknown writer zone
	data = timestampFile(kindTimestamp, ts{"Mars/Olympus_Mons", 0, 0})
	if _, err := readAll(data); !errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), "Mars/Olympus_Mons") {
		t.Fatalf("unknown zone: err = %v", err)
	}
	// a value out of the nanosecond range of Arrow: year 2500
	data = timestampFile(kindTimestampInstant, ts{"", time.Date(2500, 1, 1, 0, 0, 0, 0, time.UTC).Unix() - 1420070400, 0})
	if _, err := readAll(data); !errors.Is(err, format.ErrOutOfRange) {
		t.Fatalf("year 2500 as ns: err = %v", err)
	}
}

func TestHandBuiltFilesErrors(t *testing.T) {
	intCol := [][]byte{typeMsg(kindStruct, []uint64{1}, "x"), typeMsg(kindInt, nil)}
	oneRow := []testStripe{{rows: 1, encodings: []uint64{encodingDirect, encodingDirect},
		streams: []testStream{{streamData, 1, rle1(true, -5)}}}}
	if got, err := readAll(buildORC(intCol, oneRow, nil)); err != nil || len(got) != 1 || got[0]["x"] != int64(-5) {
		t.Fatalf("valid file: %v, %v", got, err)
	}
	cases := []struct {
		name  string
		data  []byte
		want  error
		about string
	}{
		{"union column", buildORC([][]byte{typeMsg(kindStruct, []uint64{1}, "u"), typeMsg(kindUnion, []uint64{2}), typeMsg(kindInt, nil)}, nil, nil),
			ErrUnsupportedFormat, "uniontype"},
		{"encryption", buildORC(intCol, oneRow, pb(nil).bytes(10, nil)), ErrUnsupportedFormat, "encryption"},
		{"subtypes not in pre-order", buildORC([][]byte{typeMsg(kindStruct, []uint64{2, 1}, "a", "b"), typeMsg(kindInt, nil), typeMsg(kindInt, nil)}, nil, nil),
			ErrCorrupt, "pre-order"},
		{"subtype cycle", buildORC([][]byte{typeMsg(kindStruct, []uint64{0}, "a")}, nil, nil), ErrCorrupt, "pre-order"},
		{"struct names", buildORC([][]byte{typeMsg(kindStruct, []uint64{1}), typeMsg(kindInt, nil)}, nil, nil), ErrCorrupt, "field names"},
		{"root not a struct", buildORC([][]byte{typeMsg(kindInt, nil)}, nil, nil), ErrUnsupportedFormat, "root type"},
		{"missing DATA", buildORC(intCol, []testStripe{{rows: 1, encodings: []uint64{encodingDirect, encodingDirect}}}, nil),
			ErrCorrupt, `column 1 ("x", int) DATA: integer RLE v1 stream exhausted`},
		{"unknown encoding", buildORC(intCol, []testStripe{{rows: 1, encodings: []uint64{encodingDirect, 9}}}, nil),
			ErrUnsupportedFormat, "column encoding 9"},
		{"dictionary int", buildORC(intCol, []testStripe{{rows: 1, encodings: []uint64{encodingDirect, encodingDictionaryV2}}}, nil),
			ErrUnsupportedFormat, "dictionary encoding"},
		{"no column encodings", buildORC(intCol, []testStripe{{rows: 1}}, nil), ErrCorrupt, "no column encoding"},
		{"rows implausible", buildORC(intCol, []testStripe{{rows: 1 << 40, encodings: []uint64{encodingDirect, encodingDirect},
			streams: []testStream{{streamData, 1, rle1(true, 1)}}}}, nil), ErrCorrupt, "implausible"},
		{"list length implausible", buildORC([][]byte{typeMsg(kindStruct, []uint64{1}, "l"), typeMsg(kindList, []uint64{2}), typeMsg(kindInt, nil)},
			[]testStripe{{rows: 1, encodings: []uint64{encodingDirect, encodingDirect, encodingDirect},
				streams: []testStream{{streamLength, 1, rle1(false, 1<<50)}}}}, nil), ErrCorrupt, "element count"},
		{"dictionary index", buildORC([][]byte{typeMsg(kindStruct, []uint64{1}, "s"), typeMsg(kindString, nil)},
			[]testStripe{{rows: 1, encodings: []uint64{encodingDirect, encodingDictionary},
				streams: []testStream{{streamData, 1, rle1(false, 3)}}}}, nil), ErrCorrupt, "dictionary index 3"},
	}
	for _, c := range cases {
		_, err := readAll(c.data)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.about) {
			t.Errorf("%s: err = %v, want %v mentioning %q", c.name, err, c.want, c.about)
		}
	}
}

func TestUnsupportedLZO(t *testing.T) {
	data, err := os.ReadFile("testdata/types_none.orc")
	if err != nil {
		t.Fatal(err)
	}
	psLen := int(data[len(data)-1])
	ps := data[len(data)-1-psLen : len(data)-1]
	// PostScript field 2 (compression) is the varint after tag 0x10
	i := bytes.Index(ps, []byte{0x10, compressionNone})
	if i < 0 {
		t.Fatalf("no compression field in postscript % x", ps)
	}
	ps[i+1] = compressionLZO
	if _, err := Open(bytes.NewReader(data), int64(len(data))); !errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), "LZO") {
		t.Fatalf("err = %v, want ErrUnsupportedFormat for LZO", err)
	}
}

// exercise opens data and reads every row of every column, returning the
// first error. It is the body of FuzzOpen.
func exercise(data []byte) error {
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return err
	}
	if f.NumRows() > 200_000 {
		return nil
	}
	for rec, err := range f.Records(context.Background(), nil, 1000) {
		if err != nil {
			return err
		}
		rec.Release()
	}
	return nil
}

func sentinel(err error) bool {
	return errors.Is(err, ErrCorrupt) || errors.Is(err, ErrUnsupportedFormat) ||
		errors.Is(err, format.ErrSchemaMismatch) || errors.Is(err, format.ErrOutOfRange)
}

// smallFixtures returns the ORC files of the fixture tables up to 3 KB.
func smallFixtures(t testing.TB) []string {
	var out []string
	err := filepath.WalkDir(tablesDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if info, err := d.Info(); err == nil && info.Size() <= 3500 && isORC(t, p) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestTruncatedFiles(t *testing.T) {
	paths := []string{
		tablesDir + "/append_09_orc/manifest/manifest-3a44a0da-1008-463c-914e-28d271375e24-0",
		tablesDir + "/append_09_orc/f1=10/bucket-1/data-b9e7c41f-66e8-4dad-b25a-e6e1963becc4-0.orc",
		tablesDir + "/pk_table_scan_and_read_dv_orc/manifest/index-manifest-06caeebd-72bd-4490-90cf-8073e46be369-0",
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for n := range len(data) {
			if err := exercise(data[:n]); err == nil || !sentinel(err) {
				t.Fatalf("%s truncated to %d bytes: err = %v, want ErrCorrupt or ErrUnsupportedFormat", p, n, err)
			}
		}
	}
}

// TestFlippedBytes inverts every byte of small fixture files in turn: the
// decoder may return wrong values or an error, but errors must wrap a
// format sentinel and nothing may panic.
func TestFlippedBytes(t *testing.T) {
	for _, p := range smallFixtures(t)[:6] {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i := range data {
			mut := bytes.Clone(data)
			mut[i] ^= 0xff
			if err := exercise(mut); err != nil && !sentinel(err) {
				t.Fatalf("%s byte %d flipped: err = %v", p, i, err)
			}
		}
	}
}

func FuzzOpen(f *testing.F) {
	for _, p := range smallFixtures(f) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, name := range []string{"types_zstd.orc", "types_zlib_v11.orc"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add(timestampFile(kindTimestamp, struct {
		tz            string
		secs, encNano int64
	}{"UTC", 12345, 5<<3 | 2}))
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := exercise(data); err != nil && !sentinel(err) {
			t.Fatalf("error wraps no sentinel: %v", err)
		}
	})
}
