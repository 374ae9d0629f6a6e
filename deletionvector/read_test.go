package deletionvector_test

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/deletionvector"
)

func TestReadOneRanges(t *testing.T) {
	ctx := context.Background()
	// file: version, 32-bit {0} at 1 (length 22), 64-bit {1} at 31 (length 42)
	small := hx(t, "01 | 00000016 "+magic32+" 3a300000 01000000 0000 0000 10000000 0000 e33060d3"+
		" | 00000022 "+magic64+" 0100000000000000 00000000 3a300000 01000000 0000 0000 10000000 0100 eebd85f4")
	// a 64-bit vector whose key 30000 forces 30000 empty bitmaps: a blob over 256 KiB,
	// followed by the 32-bit {0} blob
	big := build(t, true, 30000<<32|9)
	f, err := deletionvector.WriteSingleFile([]deletionvector.Entry{
		{DataFileName: "big", DV: big},
		{DataFileName: "small", DV: build(t, false, 0)},
	})
	if err != nil {
		t.Fatal(err)
	}
	bigLen := int32(4 + 4 + 8 + 30001*4 + 30000*8 + 18 + 4) // size, magic, count, keys, empty bitmaps, {9}, crc
	if !reflect.DeepEqual(f.Ranges, []deletionvector.Range{{"big", 1, bigLen, 1}, {"small", 1 + bigLen, 22, 1}}) {
		t.Fatalf("ranges %+v", f.Ranges)
	}
	fs := &memFS{files: map[string][]byte{"index/small": small, "index/big": f.Data}}

	for _, tc := range []struct {
		file           string
		offset, length int32
		want           []int64
		reads          [][2]int64
	}{
		{"small", 1, 22, []int64{0}, [][2]int64{{0, 31}}},
		{"small", 31, 42, []int64{1}, [][2]int64{{0, 81}}},
		{"big", 1, bigLen, []int64{30000<<32 | 9}, [][2]int64{{0, 1}, {1, int64(bigLen) + 8}}},
		{"big", 1 + bigLen, 22, []int64{0}, [][2]int64{{0, 1}, {1 + int64(bigLen), 30}}},
	} {
		fs.rangeReads = nil
		dv, err := deletionvector.ReadOne(ctx, fs, tc.file, tc.offset, tc.length)
		if err != nil {
			t.Fatalf("%s@%d: %v", tc.file, tc.offset, err)
		}
		if got := positions(dv); !slices.Equal(got, tc.want) {
			t.Fatalf("%s@%d: positions %v, want %v", tc.file, tc.offset, got, tc.want)
		}
		if !reflect.DeepEqual(fs.rangeReads, tc.reads) || fs.wholeReads != 0 {
			t.Fatalf("%s@%d: range reads %v (whole-file reads %d), want %v", tc.file, tc.offset, fs.rangeReads, fs.wholeReads, tc.reads)
		}
	}

	all, err := deletionvector.ReadAll(ctx, fs, "big", f.Ranges)
	if err != nil || len(all) != 2 || !slices.Equal(positions(all["big"]), []int64{30000<<32 | 9}) || !slices.Equal(positions(all["small"]), []int64{0}) {
		t.Fatalf("ReadAll: %v %v", all, err)
	}
	if fs.wholeReads != 1 {
		t.Fatalf("ReadAll made %d whole-file reads", fs.wholeReads)
	}

	if _, err := deletionvector.ReadOne(ctx, fs, "missing", 1, 22); !errors.Is(err, errNotExist) || !strings.Contains(err.Error(), "index/missing") {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := deletionvector.ReadAll(ctx, fs, "missing", nil); !errors.Is(err, errNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

// fixCRC recomputes the CRC of a blob after its payload was edited.
func fixCRC(blob []byte) []byte {
	n := len(blob)
	binary.BigEndian.PutUint32(blob[n-4:], crc32.ChecksumIEEE(blob[4:n-4]))
	return blob
}

// setSize rewrites the size prefix to match the blob's length.
func setSize(blob []byte) []byte {
	binary.BigEndian.PutUint32(blob, uint32(len(blob)-8))
	return blob
}

func TestCorruptBlobs(t *testing.T) {
	valid := func() []byte {
		return hx(t, "00000018 "+magic32+" 3a300000 01000000 0000 0100 10000000 0200 0300 c898f63d")
	}
	valid64 := func() []byte {
		return hx(t, "00000024 "+magic64+" 0100000000000000 00000000 3a300000 01000000 0000 0100 10000000 0200 0300 7a813847")
	}
	// payload edit: replace the payload (magic + bitmap) and reframe.
	reframe := func(payload string) []byte { return frame(hx(t, payload)) }
	for _, tc := range []struct {
		name string
		blob []byte
		msg  string
	}{
		{"empty", nil, "shorter than"},
		{"short", valid()[:11], "shorter than"},
		{"truncated", valid()[:len(valid())-1], "size prefix 24"},
		{"extra byte", append(valid(), 0), "size prefix 24"},
		{"size too small", func() []byte { b := valid(); b[3] = 3; return b }(), "size prefix 3"},
		{"negative size", func() []byte { b := valid(); b[0] = 0x80; return b }(), "size prefix -"},
		{"crc", func() []byte { b := valid(); b[len(b)-1] ^= 1; return b }(), "checksum"},
		{"bit flip", func() []byte { b := valid(); b[20] ^= 1; return b }(), "checksum"},
		{"magic", reframe("5e43f2d1 3a300000 00000000"), "magic number"},
		{"cookie", reframe(magic32 + "3c300000 00000000"), "cookie"},
		{"too many containers", reframe(magic32 + "3a300000 01000100"), "65537 containers"},
		{"header truncated", reframe(magic32 + "3a300000 02000000 0000 0000"), "header"},
		{"offsets truncated", reframe(magic32 + "3a300000 01000000 0000 0000 100000"), "offsets"},
		{"wrong offset", reframe(magic32 + "3a300000 01000000 0000 0000 11000000 0000"), "offset 17"},
		{"keys not ascending", reframe(magic32 + "3a300000 02000000 0100 0000 0000 0000 18000000 1a000000 0000 0000"), "keys not ascending"},
		{"duplicate key", reframe(magic32 + "3a300000 02000000 0000 0000 0000 0000 18000000 1a000000 0000 0100"), "keys not ascending"},
		{"array truncated", reframe(magic32 + "3a300000 01000000 0000 0100 10000000 0200"), "truncated array"},
		{"array unsorted", reframe(magic32 + "3a300000 01000000 0000 0100 10000000 0300 0200"), "not ascending"},
		{"array duplicate", reframe(magic32 + "3a300000 01000000 0000 0100 10000000 0200 0200"), "not ascending"},
		{"trailing", reframe(magic32 + "3a300000 01000000 0000 0000 10000000 0000 00"), "1 bytes after the bitmap"},
		{"run card mismatch", reframe(magic32 + "3b300000 01 0000 0400 0100 0000 0300"), "runs hold 4 values, header says 5"},
		{"run overlap", reframe(magic32 + "3b300000 01 0000 0500 0200 0000 0300 0200 0000"), "run 1 starts at 2"},
		{"run past 65535", reframe(magic32 + "3b300000 01 0000 0100 0100 ffff 0100"), "past 65535"},
		{"run truncated", reframe(magic32 + "3b300000 01 0000 0300 0200 0000 0300"), "truncated in 2 runs"},
		{"run flags truncated", reframe(magic32 + "3b300000"), "run-container flags"},
		{"bitmap popcount", reframe(magic32 + "3a300000 01000000 0000 0010 10000000" + strings.Repeat("00", 8192)), "bitmap holds 0 values"},
		{"bitmap truncated", reframe(magic32 + "3a300000 01000000 0000 0010 10000000 ffff"), "truncated bitmap"},
		{"64 count huge", reframe(magic64 + "ffffffffffffff7f"), "count"},
		{"64 count negative", reframe(magic64 + "ffffffffffffffff"), "count"},
		{"64 count beyond data", reframe(magic64 + "ffffff7f00000000 00000000 3a300000 00000000"), "truncated at bitmap 1"},
		{"64 count truncated", reframe(magic64 + "01000000"), "truncated in its count"},
		{"64 key negative", reframe(magic64 + "0100000000000000 ffffffff 3a300000 00000000"), "key -1 out of range"},
		{"64 key too large", reframe(magic64 + "0100000000000000 ffffff7f 3a300000 00000000"), "out of range"},
		{"64 keys not ascending", reframe(magic64 + "0200000000000000 01000000 3a300000 00000000 01000000 3a300000 00000000"), "keys not ascending"},
		{"64 trailing", func() []byte {
			b := valid64()
			b = append(b[:len(b)-4], 0, 0, 0, 0, 0)
			return fixCRC(setSize(b))
		}(), "1 bytes after the 64-bit bitmap"},
		{"32 position above MaxInt32", reframe(magic32 + "3a300000 01000000 0080 0000 10000000 0000"), "position 2147483648 out of range"},
		{"64 position above MaxPosition64", reframe(magic64 + "0100000000000000 feffff7f 3a300000 01000000 0080 0000 10000000 0100"), "position 9223372030412324865 out of range"},
		{"64 bad inner bitmap", reframe(magic64 + "0100000000000000 00000000 3a300000 01000000 0000 0100 10000000 0300 0200"), "key 0: roaring container 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dv, err := deletionvector.DecodeBlob(tc.blob)
			if !errors.Is(err, deletionvector.ErrCorrupt) || dv != nil {
				t.Fatalf("DecodeBlob = %v, %v; want ErrCorrupt", dv, err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %q does not mention %q", err, tc.msg)
			}
		})
	}
	// The largest positions decode (a sparse 64-bit layout: only the last key).
	if dv, err := deletionvector.DecodeBlob(reframe(magic32 + "3a300000 01000000 ff7f 0000 10000000 ffff")); err != nil || !slices.Equal(positions(dv), []int64{math.MaxInt32}) {
		t.Fatalf("MaxPosition32: %v %v", positions(dv), err)
	}
	if dv, err := deletionvector.DecodeBlob(reframe(magic64 + "0100000000000000 feffff7f 3a300000 01000000 0080 0000 10000000 0000")); err != nil ||
		!slices.Equal(positions(dv), []int64{deletionvector.MaxPosition64}) || !dv.IsDeleted(deletionvector.MaxPosition64) {
		t.Fatalf("MaxPosition64: %v %v", positions(dv), err)
	}
	// The unedited vectors decode.
	for _, b := range [][]byte{valid(), valid64()} {
		if dv, err := deletionvector.DecodeBlob(b); err != nil || !slices.Equal(positions(dv), []int64{2, 3}) {
			t.Fatalf("valid blob: %v %v", dv, err)
		}
	}
}

func TestCorruptFiles(t *testing.T) {
	ctx := context.Background()
	blob32 := "00000016 " + magic32 + " 3a300000 01000000 0000 0000 10000000 0000 e33060d3"
	blob64 := "00000022 " + magic64 + " 0100000000000000 00000000 3a300000 01000000 0000 0000 10000000 0100 eebd85f4"
	for _, tc := range []struct {
		name           string
		file           string
		offset, length int32
		card           int64
		msg            string
	}{
		{"version 2", "02" + blob32, 1, 22, -1, "version byte 2"},
		{"version 0", "00" + blob32, 1, 22, -1, "version byte 0"},
		{"empty file", "", 1, 22, -1, "no version byte"},
		{"32 length mismatch", "01" + blob32, 1, 30, -1, "size prefix 22, manifest length 30"},
		{"64 length given as size", "01" + blob64, 1, 34, -1, "size prefix 34, manifest length 34 (64-bit"},
		{"offset past end", "01" + blob32, 40, 22, -1, "past the end"},
		{"offset inside blob", "01" + blob32, 5, 22, -1, "magic number"},
		{"offset zero", "01" + blob32, 0, 22, -1, "invalid range"},
		{"negative length", "01" + blob32, 1, -22, -1, "invalid range"},
		{"truncated file", "01" + blob32[:len(blob32)-2], 1, 22, -1, "runs past the end"},
		{"cardinality", "01" + blob32, 1, 22, 2, "1 deleted rows, manifest says 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := hx(t, tc.file)
			fs := &memFS{files: map[string][]byte{"index/index-x-0": data}}
			r := []deletionvector.Range{{DataFileName: "data-0.parquet", Offset: tc.offset, Length: tc.length, Cardinality: tc.card}}
			_, errAll := deletionvector.ReadAll(ctx, fs, "index-x-0", r)
			errs := []error{errAll}
			if tc.card < 0 { // ReadOne has no cardinality to check
				_, errOne := deletionvector.ReadOne(ctx, fs, "index-x-0", tc.offset, tc.length)
				errs = append(errs, errOne)
			}
			for _, err := range errs {
				if !errors.Is(err, deletionvector.ErrCorrupt) {
					t.Fatalf("got %v, want ErrCorrupt", err)
				}
				if !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), "index/index-x-0") {
					t.Fatalf("error %q does not name the file or mention %q", err, tc.msg)
				}
				if strings.Contains(tc.msg, "version") || tc.name == "empty file" {
					continue
				}
				if want := "at offset " + strconv.Itoa(int(tc.offset)); !strings.Contains(err.Error(), want) {
					t.Fatalf("error %q does not name the offset", err)
				}
			}
		})
	}
}
