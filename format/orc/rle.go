package orc

// Decoders for the ORC v1 lightweight encodings (spec section "Run Length
// Encoding"): base-128 varints, byte RLE, boolean RLE, integer RLE v1 and
// integer RLE v2. Every decoder works on one fully decompressed stream and
// bounds-checks every byte it reads; running out of bytes is ErrCorrupt.

// byteRLE decodes byte run-length encoding: a control byte 0..127 starts a
// run of control+3 copies of the next byte, a control byte 128..255 starts
// 256-control literal bytes.
type byteRLE struct {
	buf    []byte
	pos    int
	what   string
	left   int    // values left in the current run or literal group
	repeat bool   // current group is a run
	value  byte   // run value
	lit    []byte // remaining literals
}

func (d *byteRLE) header() error {
	if d.pos >= len(d.buf) {
		return corruptf("%s: byte RLE stream exhausted", d.what)
	}
	c := d.buf[d.pos]
	d.pos++
	if c < 0x80 {
		if d.pos >= len(d.buf) {
			return corruptf("%s: byte RLE run truncated", d.what)
		}
		d.repeat, d.left, d.value = true, int(c)+3, d.buf[d.pos]
		d.pos++
		return nil
	}
	n := 256 - int(c)
	if n > len(d.buf)-d.pos {
		return corruptf("%s: byte RLE literals truncated", d.what)
	}
	d.repeat, d.left, d.lit = false, n, d.buf[d.pos:d.pos+n]
	d.pos += n
	return nil
}

// next fills dst with the next len(dst) bytes.
func (d *byteRLE) next(dst []byte) error {
	for i := 0; i < len(dst); {
		if d.left == 0 {
			if err := d.header(); err != nil {
				return err
			}
		}
		n := min(d.left, len(dst)-i)
		if d.repeat {
			for j := range n {
				dst[i+j] = d.value
			}
		} else {
			copy(dst[i:i+n], d.lit[:n])
			d.lit = d.lit[n:]
		}
		d.left -= n
		i += n
	}
	return nil
}

func (d *byteRLE) nextByte() (byte, error) {
	if d.left == 0 {
		if err := d.header(); err != nil {
			return 0, err
		}
	}
	d.left--
	if d.repeat {
		return d.value, nil
	}
	b := d.lit[0]
	d.lit = d.lit[1:]
	return b, nil
}

// boolRLE decodes boolean RLE: bits packed most significant first into
// bytes, which are byte-RLE encoded.
type boolRLE struct {
	bytes byteRLE
	cur   byte
	bits  int // unread bits of cur
}

func newBoolRLE(buf []byte, what string) *boolRLE {
	return &boolRLE{bytes: byteRLE{buf: buf, what: what}}
}

func (d *boolRLE) next(dst []bool) error {
	for i := range dst {
		if d.bits == 0 {
			b, err := d.bytes.nextByte()
			if err != nil {
				return err
			}
			d.cur, d.bits = b, 8
		}
		dst[i] = d.cur&0x80 != 0
		d.cur <<= 1
		d.bits--
	}
	return nil
}

// readUvarint reads a base-128 varint of at most 64 bits from buf at *pos.
func readUvarint(buf []byte, pos *int, what string) (uint64, error) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if *pos >= len(buf) {
			return 0, corruptf("%s: varint truncated", what)
		}
		if shift >= 64 {
			return 0, corruptf("%s: varint longer than 64 bits", what)
		}
		b := buf[*pos]
		*pos++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, nil
		}
	}
}

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// intDecoder is an integer RLE (v1 or v2) decoder.
type intDecoder interface {
	// next fills dst with the next len(dst) values.
	next(dst []int64) error
}

// newIntDecoder returns the RLE v1 decoder for DIRECT/DICTIONARY encodings
// and the RLE v2 decoder for the *_V2 encodings.
func newIntDecoder(buf []byte, signed, v2 bool, what string) intDecoder {
	if v2 {
		return &intRLEv2{buf: buf, signed: signed, what: what}
	}
	return &intRLEv1{buf: buf, signed: signed, what: what}
}

// intRLEv1 decodes integer RLE version 1: control 0..127 is a run of
// control+3 values with a signed byte delta and a varint base; control
// 128..255 is 256-control varint literals.
type intRLEv1 struct {
	buf    []byte
	pos    int
	signed bool
	what   string
	left   int
	repeat bool
	value  int64
	delta  int64
}

func (d *intRLEv1) varint() (int64, error) {
	u, err := readUvarint(d.buf, &d.pos, d.what)
	if err != nil {
		return 0, err
	}
	if d.signed {
		return unzigzag(u), nil
	}
	return int64(u), nil
}

func (d *intRLEv1) next(dst []int64) error {
	for i := range dst {
		if d.left == 0 {
			if d.pos >= len(d.buf) {
				return corruptf("%s: integer RLE v1 stream exhausted", d.what)
			}
			c := d.buf[d.pos]
			d.pos++
			if c < 0x80 {
				if d.pos >= len(d.buf) {
					return corruptf("%s: integer RLE v1 run truncated", d.what)
				}
				d.repeat, d.left, d.delta = true, int(c)+3, int64(int8(d.buf[d.pos]))
				d.pos++
				v, err := d.varint()
				if err != nil {
					return err
				}
				d.value = v
			} else {
				d.repeat, d.left = false, 256-int(c)
			}
		}
		if d.repeat {
			dst[i] = d.value
			d.value += d.delta
		} else {
			v, err := d.varint()
			if err != nil {
				return err
			}
			dst[i] = v
		}
		d.left--
	}
	return nil
}

// intRLEv2 decodes integer RLE version 2 (SHORT_REPEAT, DIRECT,
// PATCHED_BASE, DELTA). Each run of at most 512 values is decoded into vals.
type intRLEv2 struct {
	buf    []byte
	pos    int
	signed bool
	what   string
	vals   []int64
	idx    int
	u      []uint64 // scratch for bit-unpacked values
	patch  []uint64 // scratch for patch entries
}

func (d *intRLEv2) next(dst []int64) error {
	for i := 0; i < len(dst); {
		if d.idx == len(d.vals) {
			if err := d.run(); err != nil {
				return err
			}
		}
		n := copy(dst[i:], d.vals[d.idx:])
		d.idx += n
		i += n
	}
	return nil
}

// width5 decodes the 5-bit width code of DIRECT, PATCHED_BASE and patch
// widths (spec table "5 bit width encoding").
func width5(code byte) int {
	switch {
	case code <= 23:
		return int(code) + 1
	case code == 24:
		return 26
	case code == 25:
		return 28
	case code == 26:
		return 30
	case code == 27:
		return 32
	case code == 28:
		return 40
	case code == 29:
		return 48
	case code == 30:
		return 56
	}
	return 64
}

// closestFixedBits rounds a bit width up to one the bit packer supports
// (1..24, 26, 28, 30, 32, 40, 48, 56, 64), as patch entries are packed.
func closestFixedBits(n int) int {
	switch {
	case n <= 0:
		return 1
	case n <= 24:
		return n
	case n <= 26:
		return 26
	case n <= 28:
		return 28
	case n <= 30:
		return 30
	case n <= 32:
		return 32
	case n <= 40:
		return 40
	case n <= 48:
		return 48
	case n <= 56:
		return 56
	}
	return 64
}

func (d *intRLEv2) byte1() (byte, error) {
	if d.pos >= len(d.buf) {
		return 0, corruptf("%s: integer RLE v2 header truncated", d.what)
	}
	b := d.buf[d.pos]
	d.pos++
	return b, nil
}

// unpack reads len(dst) big-endian bit-packed values of w bits (w <= 64),
// padded to a whole byte at the end.
func (d *intRLEv2) unpack(dst []uint64, w int) error {
	if w == 0 {
		clear(dst)
		return nil
	}
	nbytes := (w*len(dst) + 7) / 8
	if nbytes > len(d.buf)-d.pos {
		return corruptf("%s: integer RLE v2 bit-packed values truncated", d.what)
	}
	b := d.buf[d.pos : d.pos+nbytes]
	d.pos += nbytes
	bit := 0
	for i := range dst {
		var v uint64
		need := w
		for need > 0 {
			off := bit & 7
			avail := 8 - off
			take := min(avail, need)
			x := uint64(b[bit>>3]>>(avail-take)) & (1<<take - 1)
			v = v<<take | x
			need -= take
			bit += take
		}
		dst[i] = v
	}
	return nil
}

func (d *intRLEv2) scratch(n int) []uint64 {
	if cap(d.u) < n {
		d.u = make([]uint64, 512)
	}
	return d.u[:n]
}

func (d *intRLEv2) out(n int) []int64 {
	if cap(d.vals) < 512 {
		d.vals = make([]int64, 512)
	}
	d.vals = d.vals[:n]
	d.idx = 0
	return d.vals
}

func (d *intRLEv2) run() error {
	h, err := d.byte1()
	if err != nil {
		return err
	}
	switch h >> 6 {
	case 0:
		return d.shortRepeat(h)
	case 1:
		return d.direct(h)
	case 2:
		return d.patchedBase(h)
	}
	return d.delta(h)
}

func (d *intRLEv2) shortRepeat(h byte) error {
	w := int(h>>3&7) + 1
	n := int(h&7) + 3
	if w > len(d.buf)-d.pos {
		return corruptf("%s: integer RLE v2 short repeat truncated", d.what)
	}
	var u uint64
	for _, b := range d.buf[d.pos : d.pos+w] {
		u = u<<8 | uint64(b)
	}
	d.pos += w
	v := int64(u)
	if d.signed {
		v = unzigzag(u)
	}
	out := d.out(n)
	for i := range out {
		out[i] = v
	}
	return nil
}

// length9 reads the 9-bit length (stored minus one) split over the header
// byte's lowest bit and the next byte.
func (d *intRLEv2) length9(h byte) (int, error) {
	b, err := d.byte1()
	if err != nil {
		return 0, err
	}
	return (int(h&1)<<8 | int(b)) + 1, nil
}

func (d *intRLEv2) direct(h byte) error {
	w := width5(h >> 1 & 0x1f)
	n, err := d.length9(h)
	if err != nil {
		return err
	}
	u := d.scratch(n)
	if err := d.unpack(u, w); err != nil {
		return err
	}
	out := d.out(n)
	for i, x := range u {
		if d.signed {
			out[i] = unzigzag(x)
		} else {
			out[i] = int64(x)
		}
	}
	return nil
}

func (d *intRLEv2) patchedBase(h byte) error {
	w := width5(h >> 1 & 0x1f)
	n, err := d.length9(h)
	if err != nil {
		return err
	}
	b2, err := d.byte1()
	if err != nil {
		return err
	}
	b3, err := d.byte1()
	if err != nil {
		return err
	}
	bw := int(b2>>5) + 1    // base width in bytes
	pw := width5(b2 & 0x1f) // patch width in bits
	pgw := int(b3>>5) + 1   // patch gap width in bits
	pll := int(b3 & 0x1f)   // patch list length
	if pw+pgw > 64 {
		return corruptf("%s: integer RLE v2 patch width %d + gap width %d exceeds 64", d.what, pw, pgw)
	}
	if bw > len(d.buf)-d.pos {
		return corruptf("%s: integer RLE v2 patched base value truncated", d.what)
	}
	var ub uint64
	for _, b := range d.buf[d.pos : d.pos+bw] {
		ub = ub<<8 | uint64(b)
	}
	d.pos += bw
	sign := uint64(1) << (bw*8 - 1)
	base := int64(ub)
	if ub&sign != 0 {
		base = -int64(ub &^ sign)
	}
	u := d.scratch(n)
	if err := d.unpack(u, w); err != nil {
		return err
	}
	if cap(d.patch) < pll {
		d.patch = make([]uint64, 32)
	}
	patches := d.patch[:pll]
	if err := d.unpack(patches, closestFixedBits(pw+pgw)); err != nil {
		return err
	}
	patchMask := uint64(1)<<pw - 1
	if pw == 64 {
		patchMask = ^uint64(0)
	}
	// Each patch entry is (gap << pw | patch). A gap of 255 with patch 0
	// only advances the position; the real patch follows.
	pi := 0
	nextPatch := func(from int) (int, uint64, error) {
		at := from
		for {
			if pi >= len(patches) {
				return 0, 0, corruptf("%s: integer RLE v2 patch list exhausted", d.what)
			}
			gap := int(patches[pi] >> pw)
			p := patches[pi] & patchMask
			if gap == 255 && p == 0 {
				at += 255
				pi++
				continue
			}
			return at + gap, p, nil
		}
	}
	at, patch := -1, uint64(0)
	if pll > 0 {
		if at, patch, err = nextPatch(0); err != nil {
			return err
		}
	}
	out := d.out(n)
	for i, x := range u {
		if i == at {
			x |= patch << w
			pi++
			if pi < len(patches) {
				if at, patch, err = nextPatch(i); err != nil {
					return err
				}
			} else {
				at = -1
			}
		}
		out[i] = base + int64(x)
	}
	return nil
}

func (d *intRLEv2) delta(h byte) error {
	w := 0
	if code := h >> 1 & 0x1f; code != 0 {
		w = width5(code)
	}
	n, err := d.length9(h)
	if err != nil {
		return err
	}
	ubase, err := readUvarint(d.buf, &d.pos, d.what)
	if err != nil {
		return err
	}
	base := int64(ubase)
	if d.signed {
		base = unzigzag(ubase)
	}
	udelta, err := readUvarint(d.buf, &d.pos, d.what)
	if err != nil {
		return err
	}
	deltaBase := unzigzag(udelta)
	out := d.out(n)
	out[0] = base
	if w == 0 {
		for i := 1; i < n; i++ {
			out[i] = out[i-1] + deltaBase
		}
		return nil
	}
	if n < 2 {
		return corruptf("%s: integer RLE v2 delta run of length 1 with bit width %d", d.what, w)
	}
	out[1] = base + deltaBase
	u := d.scratch(n - 2)
	if err := d.unpack(u, w); err != nil {
		return err
	}
	for i, x := range u {
		if deltaBase < 0 {
			out[i+2] = out[i+1] - int64(x)
		} else {
			out[i+2] = out[i+1] + int64(x)
		}
	}
	return nil
}
