package deletionvector_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/deletionvector"
)

// Hand-derived vectors. Every expected byte string is written from the
// format (format doc 9.2, RoaringFormatSpec, Java RoaringArray.serialize and
// the runOptimize rules of Java's Array/Bitmap/RunContainer), not produced by
// this package. Portable roaring pieces: cookie 3a300000 (12346, no run
// containers) followed by the container count, or 3b30 + (count-1) as the
// high 16 bits (12347, with run containers) followed by the run flags; then
// per container key and cardinality-1 (uint16 LE); then container offsets
// (uint32 LE; omitted when there are run containers and fewer than 4
// containers); then the containers.

const (
	magic32 = "5e43f2d0"
	magic64 = "d1d33964"
)

func TestEncodeHandVectors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		bitmap64 bool
		del      []int64
		payload  string // magic + bitmap; size prefix and CRC are framed around it
		crc      string // when known from a Java-written file
	}{
		{"32 empty", false, nil, magic32 + "3a300000 00000000", ""},
		// fixture pk_09_parquet index-…-0: one deleted row at position 0
		{"32 {0}", false, []int64{0}, magic32 + "3a300000 01000000 0000 0000 10000000 0000", "e33060d3"},
		// upstream compatibility/dvindex-32, first vector
		{"32 {2,3}", false, []int64{2, 3}, magic32 + "3a300000 01000000 0000 0100 10000000 0200 0300", "c898f63d"},
		// 3 values in 1 run: array (6 bytes) is not larger than run (2+4) -> array
		{"32 {0,1,2} array", false, []int64{2, 0, 1}, magic32 + "3a300000 01000000 0000 0200 10000000 0000 0100 0200", ""},
		// 4 values in 1 run: array 8 > run 6 -> run container
		{"32 {0..3} run", false, []int64{0, 1, 2, 3}, magic32 + "3b300000 01 0000 0300 0100 0000 0300", ""},
		{"32 {0..9} run", false, []int64{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, magic32 + "3b300000 01 0000 0900 0100 0000 0900", ""},
		// two array containers: offsets 8+8+8 = 24 and 26
		{"32 two containers", false, []int64{0, 65536}, magic32 + "3a300000 02000000 0000 0000 0100 0000 18000000 1a000000 0000 0000", ""},
		// run container + 2 arrays: 3 containers with runs -> no offsets
		{"32 three containers with run", false, []int64{0, 1, 2, 3, 65536, 131072},
			magic32 + "3b300200 01 0000 0300 0100 0000 0200 0000 0100 0000 0300 0000 0000", ""},
		// 4 containers with runs -> offsets from 4 + 8*4 + 1 = 37
		{"32 four containers with run", false, []int64{0, 1, 2, 3, 65536, 131072, 196608},
			magic32 + "3b300300 01 0000 0300 0100 0000 0200 0000 0300 0000 25000000 2b000000 2d000000 2f000000 0100 0000 0300 0000 0000 0000", ""},
		// 4097 consecutive values: bitmap container, then one run -> run container
		{"32 {0..4096} run", false, seq(0, 4097), magic32 + "3b300000 01 0000 0010 0100 0000 0010", ""},
		{"32 largest position", false, []int64{math.MaxInt32}, magic32 + "3a300000 01000000 ff7f 0000 10000000 ffff", ""},
		{"64 empty", true, nil, magic64 + "0000000000000000", ""},
		// upstream compatibility/dvindex-64 (format doc 9.2 example), both vectors
		{"64 {2,3}", true, []int64{2, 3}, magic64 + "0100000000000000 00000000 3a300000 01000000 0000 0100 10000000 0200 0300", "7a813847"},
		{"64 {1}", true, []int64{1}, magic64 + "0100000000000000 00000000 3a300000 01000000 0000 0000 10000000 0100", "eebd85f4"},
		// key 0 has no positions but is still written as an empty bitmap
		{"64 gap", true, []int64{1<<32 | 5}, magic64 + "0200000000000000 00000000 3a300000 00000000 01000000 3a300000 01000000 0000 0000 10000000 0500", ""},
		// positions above 2^32 with a 16-bit high part: key 1, container key 2
		{"64 key 1 chunk 2", true, []int64{1<<32 | 2<<16 | 7}, magic64 + "0200000000000000 00000000 3a300000 00000000 01000000 3a300000 01000000 0200 0000 10000000 0700", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := frame(hx(t, tc.payload))
			if tc.crc != "" && !bytes.Equal(want[len(want)-4:], hx(t, tc.crc)) {
				t.Fatalf("test vector CRC %x, Java wrote %s", want[len(want)-4:], tc.crc)
			}
			dv := build(t, tc.bitmap64, tc.del...)
			got, err := deletionvector.Encode(dv)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("Encode:\n got %x\nwant %x", got, want)
			}
			back, err := deletionvector.DecodeBlob(want)
			if err != nil {
				t.Fatal(err)
			}
			sorted := slices.Clone(tc.del)
			slices.Sort(sorted)
			if p := positions(back); !slices.Equal(p, sorted) {
				t.Fatalf("decoded positions %v, want %v", p, sorted)
			}
			if back.Cardinality() != int64(len(tc.del)) || back.IsEmpty() != (len(tc.del) == 0) || back.Bitmap64() != tc.bitmap64 {
				t.Fatalf("decoded cardinality %d empty %v bitmap64 %v", back.Cardinality(), back.IsEmpty(), back.Bitmap64())
			}
			again, err := deletionvector.Encode(back)
			if err != nil || !bytes.Equal(again, want) {
				t.Fatalf("re-encode of decoded blob:\n got %x (%v)\nwant %x", again, err, want)
			}
		})
	}
}

func seq(from, n int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = from + int64(i)
	}
	return out
}

// TestEncodeBitmapContainers checks chunks with more than 4096 values: a
// BitmapContainer (1024 LE words) unless at most 2047 runs make the run
// encoding (2+4*runs bytes) smaller than 8192 bytes.
func TestEncodeBitmapContainers(t *testing.T) {
	// even positions 0..8192: 4097 values, 4097 runs -> bitmap
	var even []int64
	for p := int64(0); p <= 8192; p += 2 {
		even = append(even, p)
	}
	words := bytes.Repeat(hx(t, "5555555555555555"), 128) // bits 0,2,...,8190
	words = append(words, hx(t, "0100000000000000")...)   // bit 8192
	words = append(words, make([]byte, 8192-len(words))...)
	want := frame(append(hx(t, magic32+"3a300000 01000000 0000 0010 10000000"), words...))
	got, err := deletionvector.Encode(build(t, false, even...))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("even positions: got %d bytes %x... (%v), want %d bytes", len(got), got[:min(40, len(got))], err, len(want))
	}

	// runs: 2046 runs of 2 values at 0,3,6,... plus one of 5 -> 4097 values, 2047 runs
	// (run encoding 8190 bytes < 8192 -> run); one more split -> 2048 runs -> bitmap.
	type run struct{ start, n int }
	mk := func(runs []run) (del []int64, runPayload []byte) {
		runPayload = binary.LittleEndian.AppendUint16(nil, uint16(len(runs)))
		for _, r := range runs {
			for i := range r.n {
				del = append(del, int64(r.start+i))
			}
			runPayload = binary.LittleEndian.AppendUint16(runPayload, uint16(r.start))
			runPayload = binary.LittleEndian.AppendUint16(runPayload, uint16(r.n-1))
		}
		return del, runPayload
	}
	var runs2047 []run
	for i := range 2046 {
		runs2047 = append(runs2047, run{3 * i, 2})
	}
	runs2047 = append(runs2047, run{3 * 2046, 5})
	del, payload := mk(runs2047)
	if len(del) != 4097 {
		t.Fatalf("test setup: %d values", len(del))
	}
	want = frame(append(hx(t, magic32+"3b300000 01 0000 0010"), payload...))
	got, err = deletionvector.Encode(build(t, false, del...))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("2047 runs: got %d bytes (%v), want %d bytes (run container)", len(got), err, len(want))
	}

	var runs2048 []run
	for i := range 2047 {
		runs2048 = append(runs2048, run{3 * i, 2})
	}
	runs2048 = append(runs2048, run{3 * 2047, 3})
	del, _ = mk(runs2048)
	if len(del) != 4097 {
		t.Fatalf("test setup: %d values", len(del))
	}
	got, err = deletionvector.Encode(build(t, false, del...))
	if err != nil {
		t.Fatal(err)
	}
	// 4 size + 4 magic + 16 header + 8192 bitmap + 4 crc
	if len(got) != 8220 || !bytes.Equal(got[8:24], hx(t, "3a300000 01000000 0000 0010 10000000")) {
		t.Fatalf("2048 runs: got %d bytes, header %x; want a bitmap container", len(got), got[8:24])
	}
}

// TestEncodeFollowsJavaContainerHistory checks that the container kind
// depends on history as in Java: a RunContainer (from an earlier encoding or
// from decoding) stays a run while 2+4*runs <= 2+2*card, where a fresh
// ArrayContainer only becomes a run if 2*card > 2+4*runs.
func TestEncodeFollowsJavaContainerHistory(t *testing.T) {
	// {0..3,10,20}: 6 values, 3 runs: run size 14 = array size as run
	// container (2+2*6), > array payload 12.
	runBytes := frame(hx(t, magic32+"3b300000 01 0000 0500 0300 0000 0300 0a00 0000 1400 0000"))
	arrayBytes := frame(hx(t, magic32+"3a300000 01000000 0000 0500 10000000 0000 0100 0200 0300 0a00 1400"))

	fresh, err := deletionvector.Encode(build(t, false, 0, 1, 2, 3, 10, 20))
	if err != nil || !bytes.Equal(fresh, arrayBytes) {
		t.Fatalf("fresh vector:\n got %x (%v)\nwant %x", fresh, err, arrayBytes)
	}

	dv := build(t, false, 0, 1, 2, 3)
	if _, err := deletionvector.Encode(dv); err != nil { // {0..3} becomes a RunContainer
		t.Fatal(err)
	}
	for _, p := range []int64{10, 20} {
		if err := dv.Delete(p); err != nil {
			t.Fatal(err)
		}
	}
	got, err := deletionvector.Encode(dv)
	if err != nil || !bytes.Equal(got, runBytes) {
		t.Fatalf("after encode + deletes:\n got %x (%v)\nwant %x", got, err, runBytes)
	}

	// Same through decoding: the decoded run container stays a run.
	dec, err := deletionvector.DecodeBlob(frame(hx(t, magic32+"3b300000 01 0000 0300 0100 0000 0300")))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int64{20, 10} {
		if err := dec.Delete(p); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := deletionvector.Encode(dec); err != nil || !bytes.Equal(got, runBytes) {
		t.Fatalf("after decode + deletes:\n got %x (%v)\nwant %x", got, err, runBytes)
	}

	// One more run (7 values, 4 runs): 2+16 > 2+14 -> the run becomes an array.
	if err := dec.Delete(30); err != nil {
		t.Fatal(err)
	}
	want := frame(hx(t, magic32+"3a300000 01000000 0000 0600 10000000 0000 0100 0200 0300 0a00 1400 1e00"))
	if got, err := deletionvector.Encode(dec); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("run to array:\n got %x (%v)\nwant %x", got, err, want)
	}
}

func TestPositions(t *testing.T) {
	dv32 := deletionvector.New(false)
	for _, p := range []int64{-1, math.MaxInt32 + 1, math.MinInt64} {
		if err := dv32.Delete(p); !errors.Is(err, deletionvector.ErrPosition) {
			t.Errorf("32-bit Delete(%d) = %v, want ErrPosition", p, err)
		}
		if dv32.IsDeleted(p) {
			t.Errorf("32-bit IsDeleted(%d) = true", p)
		}
	}
	dv64 := deletionvector.New(true)
	for _, p := range []int64{-1, deletionvector.MaxPosition64 + 1, math.MaxInt64} {
		if err := dv64.Delete(p); !errors.Is(err, deletionvector.ErrPosition) {
			t.Errorf("64-bit Delete(%d) = %v, want ErrPosition", p, err)
		}
	}
	if deletionvector.MaxPosition64 != 0x7ffffffe_80000000 {
		t.Fatalf("MaxPosition64 = %#x", deletionvector.MaxPosition64)
	}
	for _, p := range []int64{0, math.MaxInt32, math.MaxInt32 + 1, 1 << 32, 5<<32 | 7, deletionvector.MaxPosition64} {
		if err := dv64.Delete(p); err != nil {
			t.Fatalf("64-bit Delete(%d): %v", p, err)
		}
	}
	if err := dv64.Delete(5<<32 | 7); err != nil { // again: no change
		t.Fatal(err)
	}
	want := []int64{0, math.MaxInt32, math.MaxInt32 + 1, 1 << 32, 5<<32 | 7, deletionvector.MaxPosition64}
	if got := positions(dv64); !reflect.DeepEqual(got, want) || dv64.Cardinality() != 6 {
		t.Fatalf("64-bit positions %v (cardinality %d), want %v", got, dv64.Cardinality(), want)
	}
	for _, p := range []int64{1, 5 << 32, 5<<32 | 6, 4<<32 | 7} {
		if dv64.IsDeleted(p) {
			t.Errorf("64-bit IsDeleted(%d) = true", p)
		}
	}
	// Its encoding would need 2^31-1 bitmaps: more than 2 GiB, as in Java.
	if _, err := deletionvector.Encode(dv64); !errors.Is(err, deletionvector.ErrInvalid) {
		t.Fatalf("Encode of a vector with key 2^31-2 = %v, want ErrInvalid", err)
	}

	var zero deletionvector.DeletionVector // zero value: empty 32-bit vector
	if zero.Bitmap64() || !zero.IsEmpty() || zero.IsDeleted(0) {
		t.Fatal("zero value is not an empty 32-bit vector")
	}
	var nilDV *deletionvector.DeletionVector
	if nilDV.IsDeleted(0) || nilDV.Cardinality() != 0 || !nilDV.IsEmpty() || positions(nilDV) != nil {
		t.Fatal("nil vector is not empty")
	}
	if _, err := deletionvector.Encode(nil); !errors.Is(err, deletionvector.ErrInvalid) {
		t.Fatalf("Encode(nil) = %v", err)
	}
}

// TestWriteCompatibilityFiles rebuilds the upstream compatibility files
// paimon-core/src/test/resources/compatibility/dvindex-32 and dvindex-64 (read
// by Java's DeletionVectorsIndexFileTest: two vectors, {2,3} and {1}, with
// manifest lengths 24/22 and 44/42), from their layout.
func TestWriteCompatibilityFiles(t *testing.T) {
	for _, tc := range []struct {
		name     string
		bitmap64 bool
		file     string
		ranges   []deletionvector.Range
	}{
		{"dvindex-32", false,
			"01 | 00000018 " + magic32 + " 3a300000 01000000 0000 0100 10000000 0200 0300 c898f63d" +
				" | 00000016 " + magic32 + " 3a300000 01000000 0000 0000 10000000 0100 fa2b5192",
			[]deletionvector.Range{{"dv1", 1, 24, 2}, {"dv2", 33, 22, 1}}},
		{"dvindex-64", true,
			"01 | 00000024 " + magic64 + " 0100000000000000 00000000 3a300000 01000000 0000 0100 10000000 0200 0300 7a813847" +
				" | 00000022 " + magic64 + " 0100000000000000 00000000 3a300000 01000000 0000 0000 10000000 0100 eebd85f4",
			[]deletionvector.Range{{"dv1", 1, 44, 2}, {"dv2", 45, 42, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := hx(t, tc.file)
			f, err := deletionvector.WriteSingleFile([]deletionvector.Entry{
				{DataFileName: "dv1", DV: build(t, tc.bitmap64, 3, 2)},
				{DataFileName: "dv2", DV: build(t, tc.bitmap64, 1)},
			})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(f.Data, want) {
				t.Fatalf("file:\n got %x\nwant %x", f.Data, want)
			}
			if !reflect.DeepEqual(f.Ranges, tc.ranges) {
				t.Fatalf("ranges %+v, want %+v", f.Ranges, tc.ranges)
			}
			dvs, err := deletionvector.DecodeFile(want, tc.name, tc.ranges)
			if err != nil {
				t.Fatal(err)
			}
			if p := positions(dvs["dv1"]); !slices.Equal(p, []int64{2, 3}) || dvs["dv1"].Bitmap64() != tc.bitmap64 {
				t.Fatalf("dv1 = %v", p)
			}
			if p := positions(dvs["dv2"]); !slices.Equal(p, []int64{1}) {
				t.Fatalf("dv2 = %v", p)
			}
		})
	}
}

func TestWriteWithRolling(t *testing.T) {
	// Each {0} blob is 30 bytes. Java closes a file once its size exceeds
	// the target, after the entry that crossed it.
	entries := func() []deletionvector.Entry {
		return []deletionvector.Entry{
			{DataFileName: "a", DV: build(t, false, 0)},
			{DataFileName: "b", DV: build(t, false, 0)},
			{DataFileName: "c", DV: build(t, false, 0)},
		}
	}
	blob := frame(hx(t, magic32+"3a300000 01000000 0000 0000 10000000 0000"))
	for _, tc := range []struct {
		target int64
		files  [][]string
	}{
		{math.MaxInt64, [][]string{{"a", "b", "c"}}},
		{61, [][]string{{"a", "b", "c"}}}, // 1+30+30 = 61 is not > 61
		{60, [][]string{{"a", "b"}, {"c"}}},
		{31, [][]string{{"a", "b"}, {"c"}}},
		{30, [][]string{{"a"}, {"b"}, {"c"}}},
		{0, [][]string{{"a"}, {"b"}, {"c"}}},
	} {
		files, err := deletionvector.WriteWithRolling(entries(), tc.target)
		if err != nil {
			t.Fatal(err)
		}
		var got [][]string
		for _, f := range files {
			var names []string
			want := []byte{1}
			for i, r := range f.Ranges {
				names = append(names, r.DataFileName)
				if r.Offset != int32(1+30*i) || r.Length != 22 || r.Cardinality != 1 {
					t.Fatalf("target %d: range %+v", tc.target, r)
				}
				want = append(want, blob...)
			}
			if !bytes.Equal(f.Data, want) {
				t.Fatalf("target %d: file %x", tc.target, f.Data)
			}
			got = append(got, names)
		}
		if !reflect.DeepEqual(got, tc.files) {
			t.Errorf("target %d: files %v, want %v", tc.target, got, tc.files)
		}
	}
	if files, err := deletionvector.WriteWithRolling(nil, 10); err != nil || files != nil {
		t.Fatalf("no entries: %v, %v", files, err)
	}
	// writeSingleFile of nothing: the version byte alone (fixture files of size 1).
	if f, err := deletionvector.WriteSingleFile(nil); err != nil || !bytes.Equal(f.Data, []byte{1}) || f.Ranges != nil {
		t.Fatalf("empty single file: %x %v %v", f.Data, f.Ranges, err)
	}
}

func TestFileWriterErrors(t *testing.T) {
	w := deletionvector.NewFileWriter()
	if _, err := w.Write("a", build(t, false, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write("a", build(t, false, 2)); !errors.Is(err, deletionvector.ErrInvalid) {
		t.Fatalf("duplicate: %v", err)
	}
	if _, err := w.Write("b", nil); !errors.Is(err, deletionvector.ErrInvalid) {
		t.Fatalf("nil vector: %v", err)
	}
	big := build(t, true, 0x7ffffffe<<32)
	if _, err := w.Write("c", big); !errors.Is(err, deletionvector.ErrInvalid) {
		t.Fatalf("huge vector: %v", err)
	}
	// Failed writes leave the file as it was.
	r, err := w.Write("d", build(t, false, 3))
	if err != nil || r != (deletionvector.Range{DataFileName: "d", Offset: 31, Length: 22, Cardinality: 1}) || w.Size() != 61 {
		t.Fatalf("write after errors: %+v %v size %d", r, err, w.Size())
	}
	if f := w.Result(); len(f.Ranges) != 2 || f.Ranges[0].DataFileName != "a" {
		t.Fatalf("ranges %+v", f.Ranges)
	}
}

// BenchmarkIsDeleted measures the per-row check of the read path: a
// 1M-row file with every 10th row deleted.
func BenchmarkIsDeleted(b *testing.B) {
	dv := deletionvector.New(false)
	for p := int64(0); p < 1_000_000; p += 10 {
		if err := dv.Delete(p); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	n := 0
	for i := range b.N {
		if dv.IsDeleted(int64(i % 1_000_000)) {
			n++
		}
	}
	_ = n
}

// BenchmarkEncode measures encoding a vector of 100k deleted rows spread
// over 1M rows.
func BenchmarkEncode(b *testing.B) {
	dv := deletionvector.New(false)
	for p := int64(0); p < 1_000_000; p += 10 {
		if err := dv.Delete(p); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := deletionvector.Encode(dv); err != nil {
			b.Fatal(err)
		}
	}
}
