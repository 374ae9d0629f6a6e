package merge

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// The aggregate functions collect (distinct), merge_map,
// merge_map_with_keytime, nested_update and nested_partial_update build
// their results through java.util.HashSet / HashMap, so the order of the
// elements Java writes is the iteration order of a hash table. This file
// reproduces that order: Java's hashCode of each element (Integer, Long,
// BinaryString, Decimal, Timestamp, BinaryRow, ...) and HashMap's bucket
// layout (capacity 16 doubling at load factor 0.75 and on long bins,
// bucket = (h ^ h>>>16) & (capacity-1), node order within a bucket). Bins
// Java turns into red-black trees (more than 8 keys in one bucket of a table
// of at least 64 buckets) are iterated in insertion order here; Java's order
// there depends on the tree's shape.

// hashKey is one key of an emulated Java hash table: Java's hashCode and a
// canonical form that is equal exactly when Java's equals is true.
type hashKey struct {
	hash int32
	key  string
}

// javaHashTable is java.util.HashMap created with the default constructor,
// reduced to what decides its iteration order: the table of bins (capacity
// 16 at the first insertion, doubled when the size exceeds 3/4 of it, and
// when a bin reaches 8 nodes while the table is smaller than 64), each bin
// a list of nodes. put appends to its bin, computeIfAbsent prepends, as
// HashMap.putVal and HashMap.computeIfAbsent do. V is the mapped value.
type javaHashTable[V any] struct {
	index map[string]*hashEntry[V]
	bins  [][]*hashEntry[V]
	size  int
}

type hashEntry[V any] struct {
	k hashKey
	v V
}

func newJavaHashTable[V any]() *javaHashTable[V] {
	return &javaHashTable[V]{index: map[string]*hashEntry[V]{}}
}

// resize is HashMap.resize: the first table has 16 bins, later ones twice
// as many; each bin splits into the same and the upper bin in order.
func (t *javaHashTable[V]) resize() {
	n := 16
	if len(t.bins) > 0 {
		n = 2 * len(t.bins)
	}
	bins := make([][]*hashEntry[V], n)
	for _, bin := range t.bins {
		for _, e := range bin {
			b := bucketOf(e.k.hash, n)
			bins[b] = append(bins[b], e)
		}
	}
	t.bins = bins
}

// treeifyBin is HashMap.treeifyBin for tables below 64 bins (a resize).
// Larger tables turn the bin into a red-black tree, whose iteration order
// this type does not reproduce.
func (t *javaHashTable[V]) treeifyBin() {
	if len(t.bins) < 64 {
		t.resize()
	}
}

func (t *javaHashTable[V]) threshold() int { return len(t.bins) / 4 * 3 }

// get returns the value mapped to k.
func (t *javaHashTable[V]) get(k hashKey) (V, bool) {
	if e, ok := t.index[k.key]; ok {
		return e.v, true
	}
	var zero V
	return zero, false
}

// put maps k to v; an existing key keeps its place (HashMap.put).
func (t *javaHashTable[V]) put(k hashKey, v V) {
	if e, ok := t.index[k.key]; ok {
		e.v = v
		return
	}
	if len(t.bins) == 0 {
		t.resize()
	}
	e := &hashEntry[V]{k: k, v: v}
	t.index[k.key] = e
	b := bucketOf(k.hash, len(t.bins))
	n := len(t.bins[b])
	t.bins[b] = append(t.bins[b], e)
	if n >= 8 {
		t.treeifyBin()
	}
	t.size++
	if t.size > t.threshold() {
		t.resize()
	}
}

// computeIfAbsent returns the value of k, mapping it to mk() first when
// absent (HashMap.computeIfAbsent: resize before, insert at the bin's head).
func (t *javaHashTable[V]) computeIfAbsent(k hashKey, mk func() V) V {
	if t.size > t.threshold() || len(t.bins) == 0 {
		t.resize()
	}
	if e, ok := t.index[k.key]; ok {
		return e.v
	}
	e := &hashEntry[V]{k: k, v: mk()}
	t.index[k.key] = e
	b := bucketOf(k.hash, len(t.bins))
	n := len(t.bins[b])
	t.bins[b] = append([]*hashEntry[V]{e}, t.bins[b]...)
	if n >= 7 {
		t.treeifyBin()
	}
	t.size++
	return e.v
}

// remove deletes k (HashMap.remove); the table never shrinks.
func (t *javaHashTable[V]) remove(k hashKey) {
	e, ok := t.index[k.key]
	if !ok {
		return
	}
	delete(t.index, k.key)
	b := bucketOf(k.hash, len(t.bins))
	for i, x := range t.bins[b] {
		if x == e {
			t.bins[b] = append(t.bins[b][:i:i], t.bins[b][i+1:]...)
			break
		}
	}
	t.size--
}

// values returns the mapped values in Java's iteration order.
func (t *javaHashTable[V]) values() []V {
	out := make([]V, 0, t.size)
	for _, bin := range t.bins {
		for _, e := range bin {
			out = append(out, e.v)
		}
	}
	return out
}

// bucketOf is HashMap.hash followed by the index mask.
func bucketOf(h int32, capacity int) int {
	u := uint32(h)
	return int((u ^ u>>16) & uint32(capacity-1))
}

// javaLongHash is Long.hashCode.
func javaLongHash(v int64) int32 { return int32(v ^ int64(uint64(v)>>32)) }

// javaBytesHash is Arrays.hashCode(byte[]).
func javaBytesHash(b []byte) int32 {
	h := int32(1)
	for _, x := range b {
		h = 31*h + int32(int8(x))
	}
	return h
}

// murmurHashBytes is Paimon's MurmurHashUtils.hashBytes (seed 42, trailing
// bytes mixed one by one), the hashCode of BinaryString.
func murmurHashBytes(b []byte) int32 { return row.HashBytes(b) }

// javaBigDecimalHash is BigDecimal.hashCode of unscaled × 10^-scale.
func javaBigDecimalHash(unscaled *big.Int, scale int) int32 {
	if unscaled.IsInt64() && unscaled.Int64() != math.MinInt64 {
		v := unscaled.Int64()
		a := v
		if a < 0 {
			a = -a
		}
		temp := int32(int64(int32(uint64(a)>>32))*31 + (a & 0xffffffff))
		if v < 0 {
			temp = -temp
		}
		return 31*temp + int32(scale)
	}
	// BigInteger.hashCode: over the big-endian 32-bit words of the magnitude.
	mag := new(big.Int).Abs(unscaled).Bytes()
	if pad := len(mag) % 4; pad != 0 {
		mag = append(make([]byte, 4-pad), mag...)
	}
	var h int32
	for i := 0; i < len(mag); i += 4 {
		h = 31*h + int32(binary.BigEndian.Uint32(mag[i:]))
	}
	return 31*(h*int32(unscaled.Sign())) + int32(scale)
}

// atomicKey returns the Java hashCode and canonical equality form of the
// element at i of an atomic-typed array, as the boxed Java object of
// InternalArray.ElementGetter (Integer, Long, BinaryString, Decimal,
// Timestamp, ...) hashes and compares. Null hashes to 0. Binary values
// hash as BinaryMapKeys' ByteArrayKey (Arrays.hashCode).
func atomicKey(t types.DataType, arr arrow.Array, i int) (hashKey, error) {
	if arr.IsNull(i) {
		return hashKey{hash: 0, key: "\x00"}, nil
	}
	var buf [9]byte
	buf[0] = 1
	word := func(v uint64) string {
		binary.LittleEndian.PutUint64(buf[1:], v)
		return string(buf[:])
	}
	switch a := arr.(type) {
	case *array.Boolean:
		if a.Value(i) {
			return hashKey{1231, "\x01t"}, nil
		}
		return hashKey{1237, "\x01f"}, nil
	case *array.Int8:
		return hashKey{int32(a.Value(i)), word(uint64(a.Value(i)))}, nil
	case *array.Int16:
		return hashKey{int32(a.Value(i)), word(uint64(a.Value(i)))}, nil
	case *array.Int32:
		return hashKey{a.Value(i), word(uint64(a.Value(i)))}, nil
	case *array.Date32:
		return hashKey{int32(a.Value(i)), word(uint64(a.Value(i)))}, nil
	case *array.Time32:
		return hashKey{int32(a.Value(i)), word(uint64(a.Value(i)))}, nil
	case *array.Int64:
		return hashKey{javaLongHash(a.Value(i)), word(uint64(a.Value(i)))}, nil
	case *array.Float32:
		bits := math.Float32bits(a.Value(i))
		if a.Value(i) != a.Value(i) {
			bits = 0x7fc00000
		}
		return hashKey{int32(bits), word(uint64(bits))}, nil
	case *array.Float64:
		bits := javaDoubleBits(a.Value(i))
		return hashKey{javaLongHash(bits), word(uint64(bits))}, nil
	case *array.String:
		s := a.Value(i)
		return hashKey{murmurHashBytes([]byte(s)), "\x01" + s}, nil
	case *array.Binary:
		b := a.Value(i)
		return hashKey{javaBytesHash(b), "\x01" + string(b)}, nil
	case *array.Decimal128:
		u := a.Value(i).BigInt()
		return hashKey{javaBigDecimalHash(u, t.Scale), "\x01" + u.String()}, nil
	case *array.Timestamp:
		ts := types.TimestampFromArrow(int64(a.Value(i)), a.DataType().(*arrow.TimestampType).Unit)
		h := int32(ts.Millis) ^ int32(ts.Millis>>32)
		return hashKey{31*h + ts.NanoOfMilli, fmt.Sprintf("\x01%d.%d", ts.Millis, ts.NanoOfMilli)}, nil
	}
	return hashKey{}, fmt.Errorf("%w: no Java hash for element type %s", ErrUnsupported, t)
}

// rowKey returns the hashCode and bytes of the BinaryRow Java's
// Projection builds from fields idx of the struct element at i
// (FieldNestedUpdateAgg's nested key). It also reports whether any key
// field is null (BinaryRow.anyNull).
func rowKey(rt types.DataType, st *array.Struct, i int, idx []int) (hashKey, bool, error) {
	fts := make([]types.DataType, len(idx))
	vals := make([]any, len(idx))
	anyNull := false
	for k, f := range idx {
		fts[k] = rt.Fields[f].Type
		v, err := types.ArrowValue(rt.Fields[f].Type, st.Field(f), i)
		if err != nil {
			return hashKey{}, false, fmt.Errorf("%w: nested key field %q: %v", ErrUnsupported, rt.Fields[f].Name, err)
		}
		vals[k] = v
		anyNull = anyNull || v == nil
	}
	br, err := row.Encode(fts, vals)
	if err != nil {
		return hashKey{}, false, fmt.Errorf("%w: nested key: %v", ErrUnsupported, err)
	}
	return hashKey{hash: row.HashCode(br), key: string(br.Bytes())}, anyNull, nil
}
