package deletionvector

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// Constants of the RoaringBitmap portable format
// (https://github.com/RoaringBitmap/RoaringFormatSpec, Java
// org.roaringbitmap.RoaringArray and the container classes).
const (
	cookieNoRun       = 12346 // SERIAL_COOKIE_NO_RUNCONTAINER
	cookieRun         = 12347 // SERIAL_COOKIE
	noOffsetThreshold = 4     // NO_OFFSET_THRESHOLD
	maxArrayCard      = 4096  // ArrayContainer.DEFAULT_MAX_SIZE
	bitmapBytes       = 8192  // BitmapContainer serialized size
	maxContainers     = 1 << 16
)

// kind is the Java container class holding one 16-bit chunk.
type kind uint8

const (
	kindArray  kind = iota // org.roaringbitmap.ArrayContainer
	kindBitmap             // org.roaringbitmap.BitmapContainer
	kindRun                // org.roaringbitmap.RunContainer
)

// bitmap32 mirrors one Java org.roaringbitmap.RoaringBitmap: the set of
// 32-bit values, plus which chunks Java currently holds as RunContainers.
// Whether a non-run chunk is an ArrayContainer or a BitmapContainer follows
// from its cardinality (at most 4096: array), because deletion vectors only
// ever add values; the run state has to be remembered, since Java keeps a
// deserialized or run-optimized RunContainer as one while values are added.
//
// The zero value is an empty bitmap.
type bitmap32 struct {
	bm   *roaring.Bitmap // nil when nothing was ever added
	runs []uint16        // sorted high-16 keys of Java RunContainers
}

func (b *bitmap32) contains(x uint32) bool { return b.bm != nil && b.bm.Contains(x) }

func (b *bitmap32) add(x uint32) {
	if b.bm == nil {
		b.bm = roaring.New()
	}
	b.bm.Add(x)
}

// maximum returns the largest value, or false when the bitmap is empty.
func (b *bitmap32) maximum() (uint32, bool) {
	if b.bm == nil || b.bm.IsEmpty() {
		return 0, false
	}
	return b.bm.Maximum(), true
}

func (b *bitmap32) cardinality() uint64 {
	if b.bm == nil {
		return 0
	}
	return b.bm.GetCardinality()
}

// parsePortable validates the RoaringBitmap portable serialization at the
// start of data and loads it. It returns the number of bytes it occupies.
// Everything is checked before roaring's own deserializer sees the bytes:
// cookie and container count, strictly ascending keys, container offsets
// (when present) equal to where the containers really start, sorted array
// values, bitmap popcounts and run bounds matching the header cardinality,
// and that every container lies within data. Errors describe the problem;
// callers wrap them with ErrCorrupt.
func parsePortable(data []byte) (bitmap32, int, error) {
	r := byteReader{b: data}
	cookie, ok := r.u32()
	if !ok {
		return bitmap32{}, 0, fmt.Errorf("roaring bitmap truncated in its cookie")
	}
	var (
		size      int
		runBitmap []byte
	)
	switch {
	case cookie&0xFFFF == cookieRun:
		size = int(cookie>>16) + 1
		if runBitmap, ok = r.next((size + 7) / 8); !ok {
			return bitmap32{}, 0, fmt.Errorf("roaring bitmap truncated in its run-container flags")
		}
	case cookie == cookieNoRun:
		n, ok := r.u32()
		if !ok {
			return bitmap32{}, 0, fmt.Errorf("roaring bitmap truncated in its container count")
		}
		if n > maxContainers {
			return bitmap32{}, 0, fmt.Errorf("roaring bitmap with %d containers (at most %d)", n, maxContainers)
		}
		size = int(n)
	default:
		return bitmap32{}, 0, fmt.Errorf("roaring bitmap cookie %#x is neither %d nor %d", cookie, cookieNoRun, cookieRun)
	}
	header, ok := r.next(4 * size)
	if !ok {
		return bitmap32{}, 0, fmt.Errorf("roaring bitmap truncated in its header of %d containers", size)
	}
	var offsets []byte
	if runBitmap == nil || size >= noOffsetThreshold {
		if offsets, ok = r.next(4 * size); !ok {
			return bitmap32{}, 0, fmt.Errorf("roaring bitmap truncated in its container offsets")
		}
	}
	var runs []uint16
	prevKey := -1
	for i := range size {
		key := binary.LittleEndian.Uint16(header[4*i:])
		card := int(binary.LittleEndian.Uint16(header[4*i+2:])) + 1
		if int(key) <= prevKey {
			return bitmap32{}, 0, fmt.Errorf("roaring container keys not ascending (%d after %d)", key, prevKey)
		}
		prevKey = int(key)
		if offsets != nil {
			if off := binary.LittleEndian.Uint32(offsets[4*i:]); int64(off) != int64(r.pos) {
				return bitmap32{}, 0, fmt.Errorf("roaring container %d offset %d, container starts at %d", i, off, r.pos)
			}
		}
		isRun := runBitmap != nil && runBitmap[i/8]&(1<<(i%8)) != 0
		var err error
		switch {
		case isRun:
			err = checkRuns(&r, card)
			runs = append(runs, key)
		case card > maxArrayCard:
			err = checkBitmap(&r, card)
		default:
			err = checkArray(&r, card)
		}
		if err != nil {
			return bitmap32{}, 0, fmt.Errorf("roaring container %d (key %d): %w", i, key, err)
		}
	}
	n := r.pos
	if size == 0 {
		return bitmap32{}, n, nil
	}
	bm := roaring.New()
	if _, err := bm.ReadFrom(bytes.NewReader(data[:n])); err != nil {
		return bitmap32{}, 0, fmt.Errorf("roaring: %v", err)
	}
	return bitmap32{bm: bm, runs: runs}, n, nil
}

// checkRuns validates a run container: a uint16 run count, then runs of
// (start, length-1), sorted, not overlapping, within 0..65535, summing to
// card values.
func checkRuns(r *byteReader, card int) error {
	nr, ok := r.u16()
	if !ok {
		return fmt.Errorf("truncated run count")
	}
	data, ok := r.next(4 * int(nr))
	if !ok {
		return fmt.Errorf("truncated in %d runs", nr)
	}
	sum, prevEnd := 0, -1
	for j := range int(nr) {
		start := int(binary.LittleEndian.Uint16(data[4*j:]))
		length := int(binary.LittleEndian.Uint16(data[4*j+2:])) + 1
		if start <= prevEnd {
			return fmt.Errorf("run %d starts at %d, not after %d", j, start, prevEnd)
		}
		end := start + length - 1
		if end > 0xFFFF {
			return fmt.Errorf("run %d ends at %d, past 65535", j, end)
		}
		sum += length
		prevEnd = end
	}
	if sum != card {
		return fmt.Errorf("runs hold %d values, header says %d", sum, card)
	}
	return nil
}

// checkBitmap validates a bitmap container: 1024 LE words with card bits set.
func checkBitmap(r *byteReader, card int) error {
	data, ok := r.next(bitmapBytes)
	if !ok {
		return fmt.Errorf("truncated bitmap container")
	}
	pop := 0
	for j := 0; j < bitmapBytes; j += 8 {
		pop += bits.OnesCount64(binary.LittleEndian.Uint64(data[j:]))
	}
	if pop != card {
		return fmt.Errorf("bitmap holds %d values, header says %d", pop, card)
	}
	return nil
}

// checkArray validates an array container: card strictly ascending uint16s.
func checkArray(r *byteReader, card int) error {
	data, ok := r.next(2 * card)
	if !ok {
		return fmt.Errorf("truncated array container of %d values", card)
	}
	prev := -1
	for j := range card {
		v := int(binary.LittleEndian.Uint16(data[2*j:]))
		if v <= prev {
			return fmt.Errorf("array values not ascending (%d after %d)", v, prev)
		}
		prev = v
	}
	return nil
}

// container is one chunk while encoding.
type container struct {
	key   uint16
	kind  kind
	card  int
	size  int // payload bytes
	start int // payload position in the payload buffer
}

// headerSize returns the size of the portable serialization's header (cookie,
// run flags, keys and cardinalities, offsets) for the given containers, i.e.
// the offset of the first container (Java RoaringArray.serialize startOffset).
func headerSize(cs []container) int {
	n := len(cs)
	if !hasRun(cs) {
		return 8 + 8*n
	}
	h := 4 + (n+7)/8 + 4*n
	if n >= noOffsetThreshold {
		h += 4 * n
	}
	return h
}

func hasRun(cs []container) bool {
	for _, c := range cs {
		if c.kind == kindRun {
			return true
		}
	}
	return false
}

// appendPortable appends the bitmap as Java's RoaringBitmap32.serialize
// writes it: runOptimize (RoaringBitmap.runOptimize: each container becomes
// the kind its class's runOptimize picks), then RoaringArray.serialize. Like
// Java, it leaves the bitmap in its run-optimized state: b.runs afterwards
// names the chunks that are RunContainers now, which decides how later
// additions and encodings behave.
func (b *bitmap32) appendPortable(dst []byte) []byte {
	var (
		cs      []container
		payload []byte
		vals    = make([]uint16, 0, 64)
		curKey  = -1
		newRuns []uint16
	)
	flush := func() {
		if curKey < 0 {
			return
		}
		key := uint16(curKey)
		card := len(vals)
		nruns := 1
		for i := 1; i < card; i++ {
			if vals[i] != vals[i-1]+1 {
				nruns++
			}
		}
		_, wasRun := slices.BinarySearch(b.runs, key)
		k := optimizedKind(wasRun, card, nruns)
		c := container{key: key, kind: k, card: card, start: len(payload)}
		switch k {
		case kindRun:
			payload = binary.LittleEndian.AppendUint16(payload, uint16(nruns))
			for i := 0; i < card; {
				j := i
				for j+1 < card && vals[j+1] == vals[j]+1 {
					j++
				}
				payload = binary.LittleEndian.AppendUint16(payload, vals[i])
				payload = binary.LittleEndian.AppendUint16(payload, uint16(j-i))
				i = j + 1
			}
			newRuns = append(newRuns, key)
		case kindBitmap:
			var words [bitmapBytes / 8]uint64
			for _, v := range vals {
				words[v>>6] |= 1 << (v & 63)
			}
			for _, w := range words {
				payload = binary.LittleEndian.AppendUint64(payload, w)
			}
		default:
			for _, v := range vals {
				payload = binary.LittleEndian.AppendUint16(payload, v)
			}
		}
		c.size = len(payload) - c.start
		cs = append(cs, c)
		vals = vals[:0]
	}
	if b.bm != nil {
		it := b.bm.ManyIterator()
		buf := make([]uint32, 1024)
		for {
			n := it.NextMany(buf)
			if n == 0 {
				break
			}
			for _, v := range buf[:n] {
				if int(v>>16) != curKey {
					flush()
					curKey = int(v >> 16)
				}
				vals = append(vals, uint16(v))
			}
		}
		flush()
	}
	b.runs = newRuns

	n := len(cs)
	run := hasRun(cs)
	if run {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(cookieRun)|uint32(n-1)<<16)
		flags := make([]byte, (n+7)/8)
		for i, c := range cs {
			if c.kind == kindRun {
				flags[i/8] |= 1 << (i % 8)
			}
		}
		dst = append(dst, flags...)
	} else {
		dst = binary.LittleEndian.AppendUint32(dst, cookieNoRun)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	}
	for _, c := range cs {
		dst = binary.LittleEndian.AppendUint16(dst, c.key)
		dst = binary.LittleEndian.AppendUint16(dst, uint16(c.card-1))
	}
	if !run || n >= noOffsetThreshold {
		off := headerSize(cs)
		for _, c := range cs {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(off))
			off += c.size
		}
	}
	return append(dst, payload...)
}

// optimizedKind returns the container kind Java's runOptimize leaves for a
// chunk with card values in nruns runs that was a RunContainer before
// (wasRun) or else an ArrayContainer (card <= 4096) or BitmapContainer:
//
//   - ArrayContainer.runOptimize: run if 2*card > 2+4*nruns;
//   - BitmapContainer.runOptimize: run if 8192 > 2+4*nruns;
//   - RunContainer.toEfficientContainer: stays run if
//     2+4*nruns <= min(8192, 2+2*card), else array (card <= 4096) or bitmap.
func optimizedKind(wasRun bool, card, nruns int) kind {
	runSize := 2 + 4*nruns
	switch {
	case wasRun:
		if runSize <= min(bitmapBytes, 2+2*card) {
			return kindRun
		}
	case card <= maxArrayCard:
		if 2*card > runSize {
			return kindRun
		}
		return kindArray
	default:
		if bitmapBytes > runSize {
			return kindRun
		}
		return kindBitmap
	}
	if card <= maxArrayCard {
		return kindArray
	}
	return kindBitmap
}

// byteReader reads little-endian values from b without ever reading past it.
type byteReader struct {
	b   []byte
	pos int
}

func (r *byteReader) next(n int) ([]byte, bool) {
	if n < 0 || n > len(r.b)-r.pos {
		return nil, false
	}
	p := r.b[r.pos : r.pos+n]
	r.pos += n
	return p, true
}

func (r *byteReader) u16() (uint16, bool) {
	p, ok := r.next(2)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint16(p), true
}

func (r *byteReader) u32() (uint32, bool) {
	p, ok := r.next(4)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint32(p), true
}

func (r *byteReader) u64() (uint64, bool) {
	p, ok := r.next(8)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint64(p), true
}
