// Package rbm reads, unions and writes roaring bitmaps byte for byte as
// RoaringBitmap-Java 1.2.1 does, for Paimon's rbm32 and rbm64 aggregate
// functions (FieldRoaringBitmap32Agg, FieldRoaringBitmap64Agg), which store
// them in VARBINARY columns:
//
//   - Union64: Roaring64Bitmap's serialization (an adaptive radix tree over
//     the high 48 bits, then the 16-bit containers in their slots). The
//     format is not canonical: the tree's Node48 slots and the container
//     slots record insertion history, and containers keep the type the
//     union gave them. Union64 therefore replays Java's Roaring64Bitmap.or
//     step by step (ART inserts, container slot allocation, container union
//     types) and runOptimize.
//   - Union32: RoaringBitmap's portable serialization (rbm32.go). The bytes
//     depend on each container's type, which Java's RoaringBitmap.or and
//     runOptimize choose; Union32 replays those choices with the same
//     containers.
//
// # Errors
//
// Bytes that are no such serialization (truncated, unknown tags, counts
// that do not fit, tree pointers to missing containers) give ErrCorrupt.
package rbm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// ErrCorrupt marks bytes that are no RoaringBitmap or Roaring64Bitmap
// serialization.
var ErrCorrupt = errors.New("rbm: corrupt roaring bitmap serialization")

// Union returns the serialization of the union of two serialized bitmaps,
// byte for byte as Java's RoaringBitmap64 writes it after
// deserialize(acc).or(deserialize(in)) and runOptimize.
func Union64(acc, in []byte) ([]byte, error) {
	a, err := decode(acc)
	if err != nil {
		return nil, err
	}
	b, err := decode(in)
	if err != nil {
		return nil, err
	}
	if err := a.or(b); err != nil {
		return nil, err
	}
	a.runOptimize()
	return a.encode(), nil
}

// Values returns the values of a serialized bitmap in the tree's order
// (ascending for a well-formed bitmap). For tests and tools.
func Values(data []byte) ([]uint64, error) {
	m, err := decode(data)
	if err != nil {
		return nil, err
	}
	var out []uint64
	err = m.walk(m.root, func(l *node) error {
		c, err := m.container(l.containerIdx)
		if err != nil {
			return err
		}
		high := uint64(0)
		for _, k := range l.leafKey {
			high = high<<8 | uint64(k)
		}
		s := c.set()
		for w, word := range s {
			for word != 0 {
				t := bits.TrailingZeros64(word)
				out = append(out, high<<16|uint64(w*64+t))
				word &= word - 1
			}
		}
		return nil
	})
	return out, err
}

// Node types, Java's NodeType ordinals.
const (
	node4 = iota
	node16
	node48
	node256
	leafNode
)

const keyLen = 6 // LeafNode.LEAF_NODE_KEY_LENGTH_IN_BYTES

// node is one ART node (Java Node4, Node16, Node48, Node256, LeafNode),
// holding its fields in Java's representation so that it serializes the same.
type node struct {
	typ      uint8
	count    int
	prefix   []byte
	key4     uint32     // Node4.key
	first    uint64     // Node16.firstV
	second   uint64     // Node16.secondV
	index    [32]uint64 // Node48.childIndex
	mask     [4]uint64  // Node256.bitmapMask
	children []*node

	leafKey      [keyLen]byte
	containerIdx int64
}

func newInner(typ uint8, prefix []byte) *node {
	n := &node{typ: typ, prefix: append([]byte(nil), prefix...)}
	switch typ {
	case node4:
		n.children = make([]*node, 4)
	case node16:
		n.children = make([]*node, 16)
	case node48:
		n.children = make([]*node, 48)
		for i := range n.index {
			n.index[i] = ^uint64(0)
		}
	case node256:
		n.children = make([]*node, 256)
	}
	return n
}

func newLeaf(key []byte, idx int64) *node {
	n := &node{typ: leafNode, containerIdx: idx}
	copy(n.leafKey[:], key)
	return n
}

func node48Slot(n *node, k byte) int {
	return int(byte(n.index[k>>3] >> ((7 - uint(k&7)) << 3)))
}

func setNode48Slot(n *node, k byte, v byte) {
	shift := (7 - uint(k&7)) << 3
	n.index[k>>3] = n.index[k>>3]&^(0xFF<<shift) | uint64(v)<<shift
}

// keyAt returns the key byte of position pos of a Node4 or Node16.
func (n *node) keyAt(pos int) byte {
	if n.typ == node4 {
		return byte(n.key4 >> ((3 - uint(pos)) << 3))
	}
	if pos < 8 {
		return byte(n.first >> ((7 - uint(pos)) << 3))
	}
	return byte(n.second >> ((15 - uint(pos)) << 3))
}

// childPos is Node.getChildPos: the position of key byte k, or -1.
func (n *node) childPos(k byte) int {
	switch n.typ {
	case node4, node16:
		for i := 0; i < n.count; i++ {
			if n.keyAt(i) == k {
				return i
			}
		}
	case node48:
		if node48Slot(n, k) != 0xFF {
			return int(k)
		}
	case node256:
		if n.children[k] != nil {
			return int(k)
		}
	}
	return -1
}

func (n *node) child(pos int) *node {
	if n.typ == node48 {
		return n.children[node48Slot(n, byte(pos))]
	}
	return n.children[pos]
}

func (n *node) replace(pos int, c *node) {
	if n.typ == node48 {
		n.children[node48Slot(n, byte(pos))] = c
		return
	}
	n.children[pos] = c
}

// positions returns the child positions in Java's getNextLargerPos order.
func (n *node) positions() []int {
	var out []int
	switch n.typ {
	case node4, node16:
		for i := 0; i < n.count; i++ {
			out = append(out, i)
		}
	case node48:
		for k := 0; k < 256; k++ {
			if node48Slot(n, byte(k)) != 0xFF {
				out = append(out, k)
			}
		}
	case node256:
		for k := 0; k < 256; k++ {
			if n.mask[k>>6]&(1<<(uint(k)&63)) != 0 {
				out = append(out, k)
			}
		}
	}
	return out
}

// sortSmall is Node.sortSmallByteArray: an insertion sort of key[left..right]
// (unsigned) carrying children along.
func sortSmall(key []byte, children []*node, left, right int) {
	for i := left; i < right; i++ {
		ai, child := key[i+1], children[i+1]
		j := i
		for ai < key[j] {
			key[j+1], children[j+1] = key[j], children[j]
			if j == left {
				j--
				break
			}
			j--
		}
		key[j+1], children[j+1] = ai, child
	}
}

// insertChild is Node.insertLeaf: add child under key byte k, growing the
// node as Java does; it returns the node that replaces n.
func insertChild(n *node, child *node, k byte) *node {
	switch n.typ {
	case node4:
		if n.count < 4 {
			shift := (3 - uint(n.count)) << 3
			n.key4 = n.key4&^(0xFF<<shift) | uint32(k)<<shift
			n.children[n.count] = child
			n.count++
			var b [4]byte
			binary.BigEndian.PutUint32(b[:], n.key4)
			sortSmall(b[:], n.children, 0, n.count-1)
			n.key4 = binary.BigEndian.Uint32(b[:])
			return n
		}
		g := newInner(node16, n.prefix)
		g.count = 4
		g.first = uint64(n.key4) << 32
		copy(g.children, n.children[:4])
		return insertChild(g, child, k)
	case node16:
		if n.count < 16 {
			var b [16]byte
			binary.BigEndian.PutUint64(b[:8], n.first)
			binary.BigEndian.PutUint64(b[8:], n.second)
			b[n.count] = k
			n.children[n.count] = child
			sortSmall(b[:], n.children, 0, n.count)
			n.count++
			n.first = binary.BigEndian.Uint64(b[:8])
			if n.count > 8 {
				n.second = binary.BigEndian.Uint64(b[8:])
			}
			return n
		}
		g := newInner(node48, n.prefix)
		for i := 0; i < n.count; i++ {
			setNode48Slot(g, n.keyAt(i), byte(i))
			g.children[i] = n.children[i]
		}
		g.count = n.count
		return insertChild(g, child, k)
	case node48:
		if n.count < 48 {
			pos := n.count
			if n.children[pos] != nil {
				pos = 0
				for n.children[pos] != nil {
					pos++
				}
			}
			n.children[pos] = child
			setNode48Slot(n, k, byte(pos))
			n.count++
			return n
		}
		g := newInner(node256, n.prefix)
		for _, p := range n.positions() {
			g.children[p] = n.child(p)
			g.mask[p>>6] |= 1 << (uint(p) & 63)
		}
		g.count = n.count
		return insertChild(g, child, k)
	default: // node256
		n.children[k] = child
		n.mask[k>>6] |= 1 << (uint(k) & 63)
		n.count++
		return n
	}
}

// bitmap is a Roaring64Bitmap: the tree (Java Art) and the containers
// (Java Containers) with their slot bookkeeping.
type bitmap struct {
	root    *node
	keySize int64

	arrays      [][]*container
	size        int64
	firstLevel  int32
	secondLevel int32
}

func (m *bitmap) container(idx int64) (*container, error) {
	f, s := int(idx>>32), int(int32(idx))
	if f < 0 || f >= len(m.arrays) || s < 0 || s >= len(m.arrays[f]) || m.arrays[f][s] == nil {
		return nil, fmt.Errorf("%w: tree points to container %d, which does not exist", ErrCorrupt, idx)
	}
	return m.arrays[f][s], nil
}

// addContainer is Containers.addContainer.
func (m *bitmap) addContainer(c *container) int64 {
	if m.firstLevel == -1 {
		m.arrays = append(m.arrays, make([]*container, 1))
		m.firstLevel++
		m.secondLevel = 0
	} else {
		m.secondLevel++
	}
	arr := m.arrays[m.firstLevel]
	if need := int(m.secondLevel) + 1; need > len(arr) {
		n := len(arr) + len(arr)>>1
		if n < need {
			n = need
		}
		grown := make([]*container, n)
		copy(grown, arr)
		m.arrays[m.firstLevel] = grown
	}
	m.arrays[m.firstLevel][m.secondLevel] = c
	m.size++
	return int64(m.firstLevel)<<32 | int64(uint32(m.secondLevel))
}

// find is Art.findByKey.
func (m *bitmap) find(key []byte) *node {
	n, depth := m.root, 0
	for n != nil {
		if n.typ == leafNode {
			for i := depth; i < keyLen; i++ {
				if n.leafKey[i] != key[i] {
					return nil
				}
			}
			return n
		}
		if len(n.prefix) > 0 {
			for i, p := range n.prefix {
				if key[depth+i] != p {
					return nil
				}
			}
			depth += len(n.prefix)
		}
		pos := n.childPos(key[depth])
		if pos < 0 {
			return nil
		}
		n = n.child(pos)
		depth++
	}
	return nil
}

// insert is Art.insert.
func (m *bitmap) insert(key []byte, idx int64) error {
	root, err := insertAt(m.root, key, 0, idx)
	if err != nil {
		return err
	}
	m.root = root
	m.keySize++
	return nil
}

func insertAt(n *node, key []byte, depth int, idx int64) (*node, error) {
	if n == nil {
		return newLeaf(key, idx), nil
	}
	if n.typ == leafNode {
		common := 0
		for depth+common < keyLen && n.leafKey[depth+common] == key[depth+common] {
			common++
		}
		if depth+common >= keyLen {
			return nil, fmt.Errorf("%w: key inserted twice", ErrCorrupt)
		}
		n.prefix = nil
		g := newInner(node4, key[depth:depth+common])
		g = insertChild(g, n, n.leafKey[depth+common])
		g = insertChild(g, newLeaf(key, idx), key[depth+common])
		return g, nil
	}
	if len(n.prefix) > 0 {
		mis := 0
		for mis < len(n.prefix) && depth+mis < keyLen && n.prefix[mis] == key[depth+mis] {
			mis++
		}
		if mis != len(n.prefix) {
			if depth+mis >= keyLen {
				return nil, fmt.Errorf("%w: node prefix runs past the key", ErrCorrupt)
			}
			g := newInner(node4, n.prefix[:mis])
			g = insertChild(g, n, n.prefix[mis])
			n.prefix = append([]byte(nil), n.prefix[mis+1:]...)
			g = insertChild(g, newLeaf(key, idx), key[depth+mis])
			return g, nil
		}
		depth += len(n.prefix)
	}
	if depth >= keyLen {
		return nil, fmt.Errorf("%w: inner node below the key length", ErrCorrupt)
	}
	if pos := n.childPos(key[depth]); pos >= 0 {
		c := n.child(pos)
		fresh, err := insertAt(c, key, depth+1, idx)
		if err != nil {
			return nil, err
		}
		if fresh != c {
			n.replace(pos, fresh)
		}
		return n, nil
	}
	return insertChild(n, newLeaf(key, idx), key[depth]), nil
}

// walk visits the leaves in Java's iteration order (KeyIterator).
func (m *bitmap) walk(n *node, f func(*node) error) error {
	if n == nil {
		return nil
	}
	if n.typ == leafNode {
		return f(n)
	}
	for _, p := range n.positions() {
		if err := m.walk(n.child(p), f); err != nil {
			return err
		}
	}
	return nil
}

// or is Roaring64Bitmap.or(x): x's keys in order; a key m lacks gets a
// copy of x's container in a new slot, a key both hold gets the union in
// m's slot.
func (m *bitmap) or(x *bitmap) error {
	return x.walk(x.root, func(l *node) error {
		c2, err := x.container(l.containerIdx)
		if err != nil {
			return err
		}
		if own := m.find(l.leafKey[:]); own != nil {
			c1, err := m.container(own.containerIdx)
			if err != nil {
				return err
			}
			f, s := int(own.containerIdx>>32), int(int32(own.containerIdx))
			m.arrays[f][s] = ior(c1, c2)
			return nil
		}
		return m.insert(l.leafKey[:], m.addContainer(c2.clone()))
	})
}

// runOptimize is Roaring64Bitmap.runOptimize: array and bitmap containers
// become run containers where that is smaller; run containers stay.
func (m *bitmap) runOptimize() {
	for _, arr := range m.arrays {
		for i, c := range arr {
			if c != nil {
				arr[i] = c.runOptimize()
			}
		}
	}
}

// Serialization tags (HighLowContainer, Containers).
const (
	emptyTag    = 0
	notEmptyTag = 1
	nullMark    = 0
	notNullMark = 1
	notTrimmed  = 0xFE // NOT_TRIMMED_MARK, (byte) -2
)

func (m *bitmap) encode() []byte {
	if m.root == nil {
		return []byte{emptyTag}
	}
	out := []byte{notEmptyTag}
	out = binary.LittleEndian.AppendUint64(out, uint64(m.keySize))
	out = encodeNode(out, m.root)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(m.arrays)))
	for _, arr := range m.arrays {
		out = append(out, notTrimmed)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(arr)))
		for _, c := range arr {
			if c == nil {
				out = append(out, nullMark)
				continue
			}
			out = append(out, notNullMark)
			out = c.encode(out)
		}
	}
	out = binary.LittleEndian.AppendUint64(out, uint64(m.size))
	out = binary.LittleEndian.AppendUint32(out, uint32(m.firstLevel))
	out = binary.LittleEndian.AppendUint32(out, uint32(m.secondLevel))
	return out
}

func encodeNode(out []byte, n *node) []byte {
	out = append(out, n.typ)
	out = binary.LittleEndian.AppendUint16(out, uint16(n.count))
	out = append(out, byte(len(n.prefix)))
	out = append(out, n.prefix...)
	switch n.typ {
	case leafNode:
		out = append(out, n.leafKey[:]...)
		return binary.LittleEndian.AppendUint64(out, uint64(n.containerIdx))
	case node4:
		out = binary.LittleEndian.AppendUint32(out, n.key4)
	case node16:
		out = binary.LittleEndian.AppendUint64(out, n.first)
		out = binary.LittleEndian.AppendUint64(out, n.second)
	case node48:
		for _, v := range n.index {
			out = binary.LittleEndian.AppendUint64(out, v)
		}
	case node256:
		for _, v := range n.mask {
			out = binary.LittleEndian.AppendUint64(out, v)
		}
	}
	for _, p := range n.positions() {
		out = encodeNode(out, n.child(p))
	}
	return out
}

// reader reads little-endian values with bounds checks.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || len(r.b)-r.off < n {
		r.err = fmt.Errorf("%w: truncated at byte %d of %d", ErrCorrupt, r.off, len(r.b))
		return false
	}
	return true
}

func (r *reader) bytes(n int) []byte {
	if !r.need(n) {
		return nil
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b
}

func (r *reader) u8() byte {
	if b := r.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) u16() uint16 {
	if b := r.bytes(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if b := r.bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if b := r.bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
	}
}

func decode(data []byte) (*bitmap, error) {
	r := &reader{b: data}
	m := &bitmap{firstLevel: -1}
	tag := r.u8()
	if r.err != nil {
		return nil, r.err
	}
	if tag == emptyTag {
		return m, nil
	}
	if tag != notEmptyTag {
		return nil, fmt.Errorf("%w: bad empty tag %d", ErrCorrupt, tag)
	}
	m.keySize = int64(r.u64())
	m.root = decodeNode(r, 0)
	if r.err != nil {
		return nil, r.err
	}
	nArrays := int32(r.u32())
	if nArrays < 0 || int(nArrays) > len(data)-r.off {
		r.fail("%d container arrays", nArrays)
	}
	for i := 0; r.err == nil && i < int(nArrays); i++ {
		r.u8() // trimmed tag, ignored as Java does
		n := int32(r.u32())
		if r.err == nil && (n < 0 || int(n) > len(data)-r.off) {
			r.fail("container array of %d slots", n)
			break
		}
		arr := make([]*container, n)
		for j := range arr {
			switch r.u8() {
			case nullMark:
			case notNullMark:
				arr[j] = decodeContainer(r)
			default:
				r.fail("bad null tag")
			}
			if r.err != nil {
				break
			}
		}
		m.arrays = append(m.arrays, arr)
	}
	m.size = int64(r.u64())
	m.firstLevel = int32(r.u32())
	m.secondLevel = int32(r.u32())
	if r.err != nil {
		return nil, r.err
	}
	if m.firstLevel < -1 || int(m.firstLevel) >= len(m.arrays) ||
		(m.firstLevel >= 0 && (m.secondLevel < 0 || int(m.secondLevel) >= len(m.arrays[m.firstLevel]))) {
		return nil, fmt.Errorf("%w: container slot %d/%d outside the arrays", ErrCorrupt, m.firstLevel, m.secondLevel)
	}
	if err := m.walk(m.root, func(l *node) error { _, err := m.container(l.containerIdx); return err }); err != nil {
		return nil, err
	}
	return m, nil
}

func decodeNode(r *reader, depth int) *node {
	typ := r.u8()
	count := int(int16(r.u16()))
	plen := int(int8(r.u8()))
	if r.err != nil {
		return nil
	}
	if plen < 0 {
		r.fail("negative prefix length %d", plen)
		return nil
	}
	prefix := r.bytes(plen)
	if r.err != nil {
		return nil
	}
	if typ == leafNode {
		if depth > keyLen || plen != 0 {
			r.fail("leaf at depth %d with prefix %d", depth, plen)
			return nil
		}
		l := &node{typ: leafNode, count: count}
		copy(l.leafKey[:], r.bytes(keyLen))
		l.containerIdx = int64(r.u64())
		return l
	}
	if typ > node256 {
		r.fail("unknown node type %d", typ)
		return nil
	}
	if depth+plen >= keyLen {
		r.fail("inner node at depth %d with prefix %d", depth, plen)
		return nil
	}
	n := newInner(typ, prefix)
	n.count = count
	slots := 0
	switch typ {
	case node4:
		n.key4 = r.u32()
		slots = 4
	case node16:
		n.first, n.second = r.u64(), r.u64()
		slots = 16
	case node48:
		for i := range n.index {
			n.index[i] = r.u64()
		}
		slots = 48
	case node256:
		for i := range n.mask {
			n.mask[i] = r.u64()
		}
		slots = 256
	}
	if r.err != nil {
		return nil
	}
	if count < 1 || count > slots {
		r.fail("node of type %d with %d children", typ, count)
		return nil
	}
	pos := n.positions()
	switch typ {
	case node48:
		seen := make(map[int]bool, len(pos))
		for _, p := range pos {
			s := node48Slot(n, byte(p))
			if s >= 48 || seen[s] {
				r.fail("Node48 slot %d", s)
				return nil
			}
			seen[s] = true
		}
		fallthrough
	case node256:
		if len(pos) != count {
			r.fail("node of type %d with %d children and %d keys", typ, count, len(pos))
			return nil
		}
	}
	for _, p := range pos {
		c := decodeNode(r, depth+plen+1)
		if r.err != nil {
			return nil
		}
		n.replace(p, c)
	}
	return n
}
