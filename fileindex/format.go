// Package fileindex reads and writes Paimon file indexes: the per-data-file
// index blob that Java Paimon embeds in DataFileMeta._EMBEDDED_FILE_INDEX or
// writes beside the data file as "<data-file-name>.index" (listed in
// _EXTRA_FILES). It mirrors org.apache.paimon.fileindex.FileIndexFormat
// (layout) and fileindex/bloomfilter/BloomFilterFileIndex (the bloom-filter
// index type). Other index types (bitmap, bsi, range-bitmap, ...) are parsed
// as opaque bodies and never used to skip a file.
package fileindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"
)

// Magic is the first 8 bytes (big-endian int64) of every file index, as
// Java's FileIndexFormat.MAGIC.
const Magic int64 = 1493475289347502

// Version1 is the only format version Java 1.4 writes and reads.
const Version1 = 1

// emptyIndex is the offset Java writes for an index type whose body is null
// (FileIndexFormat.EMPTY_INDEX_FLAG): the column holds no values at all.
const emptyIndex = -1

// TypeBloomFilter is the index type name of BloomFilterFileIndex
// (BloomFilterFileIndexFactory.BLOOM_FILTER).
const TypeBloomFilter = "bloom-filter"

// ErrMalformed reports file index bytes that do not follow FileIndexFormat
// (bad magic, unknown version, truncated head or a body outside the bytes).
var ErrMalformed = errors.New("fileindex: malformed file index")

// Body is one (column, index type) entry of a file index.
type Body struct {
	Column string
	Type   string
	// Empty is true when Java recorded the entry with EMPTY_INDEX_FLAG
	// (no non-null value was written); Bytes is nil then.
	Empty bool
	Bytes []byte
}

// Index is a parsed file index: its bodies in file order.
type Index struct {
	Bodies []Body
}

// Find returns the body of column and index type, or false.
func (x *Index) Find(column, typ string) (Body, bool) {
	if x == nil {
		return Body{}, false
	}
	for _, b := range x.Bodies {
		if b.Column == column && b.Type == typ {
			return b, true
		}
	}
	return Body{}, false
}

// Parse decodes file index bytes (embedded bytes or a whole .index file).
// Errors wrap ErrMalformed; callers add the data file's name.
// Layout (all big-endian, strings in Java's modified UTF-8 with a 2-byte
// length, as DataOutputStream.writeUTF): magic int64, version int32,
// head length int32 (bytes from the file start to the first body),
// column count int32, then per column: name, index count int32, per index:
// type name, offset int32 (absolute, or -1 for empty), length int32; then a
// redundant int32 (0), then the bodies.
func Parse(b []byte) (*Index, error) {
	if len(b) < 16 {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the 16-byte preamble", ErrMalformed, len(b))
	}
	if m := int64(binary.BigEndian.Uint64(b)); m != Magic {
		return nil, fmt.Errorf("%w: magic %d, want %d", ErrMalformed, m, Magic)
	}
	if v := int32(binary.BigEndian.Uint32(b[8:])); v != Version1 {
		return nil, fmt.Errorf("%w: version %d, only %d is supported", ErrMalformed, v, Version1)
	}
	headLen := int(int32(binary.BigEndian.Uint32(b[12:])))
	if headLen < 16 || headLen > len(b) {
		return nil, fmt.Errorf("%w: head length %d outside 16..%d", ErrMalformed, headLen, len(b))
	}
	r := &cursor{b: b[:headLen], p: 16}
	cols := r.int32()
	x := &Index{}
	for i := int32(0); i < cols && r.err == nil; i++ {
		col := r.utf()
		n := r.int32()
		for j := int32(0); j < n && r.err == nil; j++ {
			typ := r.utf()
			off, ln := r.int32(), r.int32()
			if r.err != nil {
				break
			}
			if off == emptyIndex {
				x.Bodies = append(x.Bodies, Body{Column: col, Type: typ, Empty: true})
				continue
			}
			if off < int32(headLen) || ln < 0 || int64(off)+int64(ln) > int64(len(b)) {
				return nil, fmt.Errorf("%w: body %s/%s at [%d,+%d) outside [%d,%d)", ErrMalformed, col, typ, off, ln, headLen, len(b))
			}
			x.Bodies = append(x.Bodies, Body{Column: col, Type: typ, Bytes: b[off : off+ln]})
		}
		if cols < 0 || n < 0 {
			r.fail("negative count")
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	return x, nil
}

// Encode writes bodies in the given order as Java's FileIndexFormat.Writer
// does: a body with Empty set is recorded with offset -1 and length 0.
func Encode(bodies []Body) []byte {
	type col struct {
		name  string
		items []Body
	}
	var cols []*col
	byName := map[string]*col{}
	for _, b := range bodies {
		c := byName[b.Column]
		if c == nil {
			c = &col{name: b.Column}
			byName[b.Column] = c
			cols = append(cols, c)
		}
		c.items = append(c.items, b)
	}
	headLen := 8 + 4 + 4 + 4 + 4
	for _, c := range cols {
		headLen += 4 + 2 + modUTF8Len(c.name)
		for _, it := range c.items {
			headLen += 8 + 2 + modUTF8Len(it.Type)
		}
	}
	out := make([]byte, 0, headLen+256)
	out = binary.BigEndian.AppendUint64(out, uint64(Magic))
	out = binary.BigEndian.AppendUint32(out, Version1)
	out = binary.BigEndian.AppendUint32(out, uint32(headLen))
	out = binary.BigEndian.AppendUint32(out, uint32(len(cols)))
	off := headLen
	for _, c := range cols {
		out = appendUTF(out, c.name)
		out = binary.BigEndian.AppendUint32(out, uint32(len(c.items)))
		for _, it := range c.items {
			out = appendUTF(out, it.Type)
			if it.Empty {
				out = binary.BigEndian.AppendUint32(out, uint32(0xffffffff))
				out = binary.BigEndian.AppendUint32(out, 0)
				continue
			}
			out = binary.BigEndian.AppendUint32(out, uint32(off))
			out = binary.BigEndian.AppendUint32(out, uint32(len(it.Bytes)))
			off += len(it.Bytes)
		}
	}
	out = binary.BigEndian.AppendUint32(out, 0) // redundant length
	for _, c := range cols {
		for _, it := range c.items {
			if !it.Empty {
				out = append(out, it.Bytes...)
			}
		}
	}
	return out
}

type cursor struct {
	b   []byte
	p   int
	err error
}

func (c *cursor) fail(what string) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: head %s at byte %d", ErrMalformed, what, c.p)
	}
}

func (c *cursor) int32() int32 {
	if c.err != nil || c.p+4 > len(c.b) {
		c.fail("truncated")
		return 0
	}
	v := int32(binary.BigEndian.Uint32(c.b[c.p:]))
	c.p += 4
	return v
}

func (c *cursor) utf() string {
	if c.err != nil || c.p+2 > len(c.b) {
		c.fail("truncated")
		return ""
	}
	n := int(binary.BigEndian.Uint16(c.b[c.p:]))
	c.p += 2
	if c.p+n > len(c.b) {
		c.fail("truncated string")
		return ""
	}
	s, ok := decodeModUTF8(c.b[c.p : c.p+n])
	if !ok {
		c.fail("bad modified UTF-8")
	}
	c.p += n
	return s
}

// Java's modified UTF-8 (DataOutput.writeUTF): UTF-16 units, NUL as two bytes.
func modUTF8Len(s string) int {
	n := 0
	for _, u := range utf16.Encode([]rune(s)) {
		switch {
		case u != 0 && u < 0x80:
			n++
		case u < 0x800:
			n += 2
		default:
			n += 3
		}
	}
	return n
}

func appendUTF(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(modUTF8Len(s)))
	for _, u := range utf16.Encode([]rune(s)) {
		switch {
		case u != 0 && u < 0x80:
			b = append(b, byte(u))
		case u < 0x800:
			b = append(b, byte(0xc0|u>>6), byte(0x80|u&0x3f))
		default:
			b = append(b, byte(0xe0|u>>12), byte(0x80|(u>>6)&0x3f), byte(0x80|u&0x3f))
		}
	}
	return b
}

func decodeModUTF8(b []byte) (string, bool) {
	var us []uint16
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c < 0x80:
			us = append(us, uint16(c))
			i++
		case c&0xe0 == 0xc0 && i+1 < len(b):
			us = append(us, uint16(c&0x1f)<<6|uint16(b[i+1]&0x3f))
			i += 2
		case c&0xf0 == 0xe0 && i+2 < len(b):
			us = append(us, uint16(c&0x0f)<<12|uint16(b[i+1]&0x3f)<<6|uint16(b[i+2]&0x3f))
			i += 3
		default:
			return "", false
		}
	}
	return string(utf16.Decode(us)), true
}
