// Package ocf reads and writes Avro Object Container Files (Avro specification 1.11, "Object Container
// Files") and the Avro binary encoding of primitive values, for the manifest package and Avro data files (format/avro).
//
// It knows nothing about Paimon: it exposes the container header (writer schema JSON, codec), the
// decompressed data blocks, a bounds-checked [Decoder] over a block, and an appending [Encoder].
// Every decoding error is reported through return values or the Decoder's sticky error; nothing
// here panics on malformed input.
package ocf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrCorrupt reports malformed Avro data: a truncated value, an invalid varint, a length that
// exceeds the remaining input, a union index out of range, or a container that violates the
// specification.
var ErrCorrupt = errors.New("ocf: corrupt avro data")

// ErrTooLarge reports a file whose decompressed blocks or decoded values exceed the [Budget] the
// caller gave it. Errors wrapping it do not wrap [ErrCorrupt].
var ErrTooLarge = errors.New("ocf: file exceeds its decoding budget")

// Budget is the number of bytes the decoding of one file may still decompress and allocate.
// One Budget is shared by the [File] and the [Decoder]s of its blocks; a nil *Budget is
// unlimited. It is not safe for concurrent use.
type Budget struct {
	limit, used int64
}

// NewBudget returns a Budget of limit bytes.
func NewBudget(limit int64) *Budget { return &Budget{limit: limit} }

// Left returns the bytes not yet charged (math.MaxInt64 for a nil Budget).
func (b *Budget) Left() int64 {
	if b == nil {
		return math.MaxInt64
	}
	return b.limit - b.used
}

// Charge records n more bytes; it returns an error wrapping [ErrTooLarge] when the total
// exceeds the limit.
func (b *Budget) Charge(n int64) error {
	if b == nil {
		return nil
	}
	if n < 0 || n > b.limit-b.used {
		return fmt.Errorf("%w: %d bytes decoded or decompressed, limit %d", ErrTooLarge, b.used+max(n, 0), b.limit)
	}
	b.used += n
	return nil
}

// maxDepth bounds the nesting of records while decoding, so a recursive writer schema cannot
// exhaust the stack.
const maxDepth = 64

// Decoder reads Avro binary-encoded values from an in-memory buffer. It keeps the first error
// (always wrapping [ErrCorrupt]); after an error every read returns a zero value.
type Decoder struct {
	buf    []byte
	pos    int
	err    error
	depth  int
	budget *Budget
	slab   []byte // the unused rest of the chunk small Bytes values are carved from
}

// Small non-empty values of Bytes (up to slabValue bytes) are carved from chunks of
// slabChunk bytes, one allocation for many: manifest entries hold several
// short byte strings each (partition, keys, statistics).
const (
	slabValue = 256
	slabChunk = 8 << 10
)

// NewDecoder returns a Decoder over buf. buf is not copied; values returned by Bytes are copies.
func NewDecoder(buf []byte) *Decoder { return &Decoder{buf: buf} }

// SetBudget makes the Decoder charge b for the bytes Bytes and String copy and for what callers
// pass to Charge.
func (d *Decoder) SetBudget(b *Budget) { d.budget = b }

// Charge charges n bytes of decoded values to the Decoder's budget; it fails the Decoder (with
// an error wrapping [ErrTooLarge]) and returns false when the budget is exhausted.
func (d *Decoder) Charge(n int64) bool {
	if d.err != nil {
		return false
	}
	if err := d.budget.Charge(n); err != nil {
		d.Fail(fmt.Errorf("at offset %d: %w", d.pos, err))
		return false
	}
	return true
}

// Err returns the first error encountered, or nil.
func (d *Decoder) Err() error { return d.err }

// Remaining returns the number of unread bytes.
func (d *Decoder) Remaining() int { return len(d.buf) - d.pos }

// Offset returns the number of bytes consumed so far.
func (d *Decoder) Offset() int { return d.pos }

// Fail records err (wrapped in ErrCorrupt unless it already wraps ErrCorrupt or ErrTooLarge) if
// no error was recorded yet.
func (d *Decoder) Fail(err error) {
	if d.err != nil {
		return
	}
	if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooLarge) {
		err = fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	d.err = err
	d.pos = len(d.buf)
}

// Failf is Fail with a formatted message.
func (d *Decoder) Failf(format string, args ...any) {
	if d.err == nil {
		d.Fail(fmt.Errorf(format, args...))
	}
}

// Enter must be called when descending into a record; it fails the decoder when records nest
// deeper than a fixed limit. Every successful Enter must be paired with Leave.
func (d *Decoder) Enter() bool {
	if d.depth >= maxDepth {
		d.Failf("records nested deeper than %d levels", maxDepth)
		return false
	}
	d.depth++
	return true
}

// Leave ends a record started with Enter.
func (d *Decoder) Leave() { d.depth-- }

// Long reads a zig-zag varint encoded long (at most 10 bytes).
func (d *Decoder) Long() int64 {
	var u uint64
	var shift uint
	for i := 0; i < 10; i++ {
		if d.pos >= len(d.buf) {
			d.Failf("truncated long at offset %d", d.pos)
			return 0
		}
		b := d.buf[d.pos]
		d.pos++
		if i == 9 && b > 1 {
			d.Failf("long varint overflows 64 bits at offset %d", d.pos-1)
			return 0
		}
		u |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return int64(u>>1) ^ -int64(u&1)
		}
		shift += 7
	}
	d.Failf("long varint longer than 10 bytes at offset %d", d.pos)
	return 0
}

// Int reads a zig-zag varint encoded int (at most 5 bytes, value within int32 as Java requires).
func (d *Decoder) Int() int32 {
	var u uint32
	var shift uint
	for i := 0; i < 5; i++ {
		if d.pos >= len(d.buf) {
			d.Failf("truncated int at offset %d", d.pos)
			return 0
		}
		b := d.buf[d.pos]
		d.pos++
		if i == 4 && b > 0x0f {
			d.Failf("int varint overflows 32 bits at offset %d", d.pos-1)
			return 0
		}
		u |= uint32(b&0x7f) << shift
		if b < 0x80 {
			return int32(u>>1) ^ -int32(u&1)
		}
		shift += 7
	}
	d.Failf("int varint longer than 5 bytes at offset %d", d.pos)
	return 0
}

// Boolean reads one byte that must be 0 or 1.
func (d *Decoder) Boolean() bool {
	if d.pos >= len(d.buf) {
		d.Failf("truncated boolean at offset %d", d.pos)
		return false
	}
	b := d.buf[d.pos]
	d.pos++
	if b > 1 {
		d.Failf("invalid boolean byte %d at offset %d", b, d.pos-1)
		return false
	}
	return b == 1
}

// Float reads a 4-byte little-endian IEEE 754 float.
func (d *Decoder) Float() float32 {
	b := d.take(4)
	if b == nil {
		return 0
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b))
}

// Double reads an 8-byte little-endian IEEE 754 double.
func (d *Decoder) Double() float64 {
	b := d.take(8)
	if b == nil {
		return 0
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b))
}

// length reads a non-negative length prefix that fits in the remaining input.
func (d *Decoder) length() int {
	n := d.Long()
	if d.err != nil {
		return 0
	}
	if n < 0 || n > int64(len(d.buf)-d.pos) {
		d.Failf("length %d out of range (%d bytes remain) at offset %d", n, len(d.buf)-d.pos, d.pos)
		return 0
	}
	return int(n)
}

// take returns the next n bytes (aliasing the buffer) or nil after recording an error.
func (d *Decoder) take(n int) []byte {
	if n < 0 || n > len(d.buf)-d.pos {
		d.Failf("truncated: need %d bytes at offset %d, %d remain", n, d.pos, len(d.buf)-d.pos)
		return nil
	}
	b := d.buf[d.pos : d.pos+n : d.pos+n]
	d.pos += n
	return b
}

// Bytes reads a length-prefixed byte sequence and returns a copy. An empty value is a non-nil,
// zero-length slice, so callers can tell it from an Avro null.
func (d *Decoder) Bytes() []byte {
	n := d.length()
	if d.err != nil || !d.Charge(int64(n)) {
		return nil
	}
	var b []byte
	if n > 0 && n <= slabValue {
		if len(d.slab) < n {
			d.slab = make([]byte, slabChunk)
		}
		b, d.slab = d.slab[:n:n], d.slab[n:] // cap n: appending to b never reaches the next value
	} else {
		b = make([]byte, n)
	}
	copy(b, d.buf[d.pos:d.pos+n])
	d.pos += n
	return b
}

// String reads a length-prefixed UTF-8 string (not validated, as in Java's Utf8 handling).
func (d *Decoder) String() string {
	n := d.length()
	if d.err != nil || !d.Charge(int64(n)) {
		return ""
	}
	s := string(d.buf[d.pos : d.pos+n])
	d.pos += n
	return s
}

// View reads a length-prefixed bytes or string value and returns it without copying: the
// slice aliases the block and is valid only as long as the block is.
func (d *Decoder) View() []byte {
	n := d.length()
	if d.err != nil {
		return nil
	}
	return d.take(n)
}

// FixedView reads n raw bytes without copying (see View).
func (d *Decoder) FixedView(n int) []byte { return d.take(n) }

// Fixed reads n raw bytes (a copy).
func (d *Decoder) Fixed(n int) []byte {
	b := d.take(n)
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// SkipBytes skips a length-prefixed bytes or string value.
func (d *Decoder) SkipBytes() {
	n := d.length()
	d.pos += n
}

// Skip skips n raw bytes.
func (d *Decoder) Skip(n int) { d.take(n) }

// BlockCount reads the item count of the next array or map block. A negative count is followed
// by the block's byte size, which is read and discarded. minItemSize is the smallest number of
// bytes one item can occupy; when it is at least 1, counts larger than the remaining input are
// rejected so a corrupt count cannot cause a huge allocation or loop. It returns 0 at the end of
// the array/map or on error.
func (d *Decoder) BlockCount(minItemSize int) int {
	n := d.Long()
	if d.err != nil {
		return 0
	}
	if n < 0 {
		if n == math.MinInt64 {
			d.Failf("invalid block count at offset %d", d.pos)
			return 0
		}
		n = -n
		if size := d.Long(); size < 0 {
			d.Failf("negative block size %d at offset %d", size, d.pos)
			return 0
		}
	}
	if minItemSize > 0 && n > int64(len(d.buf)-d.pos)/int64(minItemSize) {
		d.Failf("block count %d exceeds remaining input at offset %d", n, d.pos)
		return 0
	}
	if n > math.MaxInt32 {
		d.Failf("block count %d too large at offset %d", n, d.pos)
		return 0
	}
	return int(n)
}

// Encoder appends Avro binary-encoded values to a byte slice.
type Encoder struct {
	Buf []byte
}

// Long appends a zig-zag varint long.
func (e *Encoder) Long(v int64) {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		e.Buf = append(e.Buf, byte(u)|0x80)
		u >>= 7
	}
	e.Buf = append(e.Buf, byte(u))
}

// Int appends a zig-zag varint int.
func (e *Encoder) Int(v int32) { e.Long(int64(v)) }

// Boolean appends 1 or 0.
func (e *Encoder) Boolean(v bool) {
	if v {
		e.Buf = append(e.Buf, 1)
	} else {
		e.Buf = append(e.Buf, 0)
	}
}

// Bytes appends a length-prefixed byte sequence.
func (e *Encoder) Bytes(b []byte) {
	e.Long(int64(len(b)))
	e.Buf = append(e.Buf, b...)
}

// String appends a length-prefixed string.
func (e *Encoder) String(s string) {
	e.Long(int64(len(s)))
	e.Buf = append(e.Buf, s...)
}

// Null appends the union branch index 0 (the "null" branch of a ["null", T] union).
func (e *Encoder) Null() { e.Buf = append(e.Buf, 0) }

// NonNull appends the union branch index 1 (the T branch of a ["null", T] union).
func (e *Encoder) NonNull() { e.Buf = append(e.Buf, 2) }

// Float appends a 4-byte little-endian IEEE 754 float.
func (e *Encoder) Float(v float32) {
	e.Buf = binary.LittleEndian.AppendUint32(e.Buf, math.Float32bits(v))
}

// Double appends an 8-byte little-endian IEEE 754 double.
func (e *Encoder) Double(v float64) {
	e.Buf = binary.LittleEndian.AppendUint64(e.Buf, math.Float64bits(v))
}
