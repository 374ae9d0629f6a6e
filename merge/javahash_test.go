package merge

import (
	"fmt"
	"math/big"
	"slices"
	"testing"
)

func intKey(v int32) hashKey { return hashKey{hash: v, key: fmt.Sprint(v)} }

func tableKeys(t *javaHashTable[int32]) []int32 { return t.values() }

// TestJavaHashTableOrder checks the emulated iteration order against
// java.util.HashMap<Integer, ?> (JDK 17) for the same operations; the
// wanted orders were printed by Java.
func TestJavaHashTableOrder(t *testing.T) {
	put := func(keys ...int32) []int32 {
		m := newJavaHashTable[int32]()
		for _, k := range keys {
			m.put(intKey(k), k)
		}
		return tableKeys(m)
	}
	cia := func(keys ...int32) []int32 {
		m := newJavaHashTable[int32]()
		for _, k := range keys {
			m.computeIfAbsent(intKey(k), func() int32 { return k })
		}
		return tableKeys(m)
	}
	cases := []struct {
		name      string
		got, want []int32
	}{
		// new HashSet: [40, 3, 17, 1, 33] iterates [17, 1, 33, 3, 40]
		{"buckets then insertion order", put(40, 3, 17, 1, 33), []int32{17, 1, 33, 3, 40}},
		// nine keys in bin 0 of a 16-bin table: treeifyBin resizes to 32
		{"long bin resizes", put(0, 16, 32, 48, 64, 80, 96, 112, 128, 1), []int32{0, 32, 64, 96, 128, 1, 16, 48, 80, 112}},
		// computeIfAbsent inserts at the head of the bin
		{"computeIfAbsent prepends", cia(1, 17, 33, 2), []int32{33, 17, 1, 2}},
		// computeIfAbsent resizes before inserting once the size passed 12
		{"computeIfAbsent resizes late", cia(1, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 3),
			[]int32{1, 3, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112}},
	}
	for _, c := range cases {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	// remove keeps the table's capacity and the others' order
	m := newJavaHashTable[int32]()
	for _, k := range []int32{1, 17, 2} {
		m.put(intKey(k), k)
	}
	m.remove(intKey(1))
	m.put(intKey(1), 1)
	if got := tableKeys(m); !slices.Equal(got, []int32{17, 1, 2}) {
		t.Errorf("remove and put again: got %v, want [17 1 2]", got)
	}
}

// TestJavaHashes checks the element hash codes against values Java prints:
// BinaryString.fromString(s).hashCode(), new BigDecimal(...).hashCode(),
// Long.hashCode, Arrays.hashCode(byte[]).
func TestJavaHashes(t *testing.T) {
	big1 := new(big.Int)
	big1.SetString("123456789012345678901234567890", 10)
	cases := []struct {
		name      string
		got, want int32
	}{
		{"murmur abc", murmurHashBytes([]byte("abc")), javaStringHashABC},
		{"murmur empty", murmurHashBytes(nil), javaStringHashEmpty},
		{"murmur 8 bytes", murmurHashBytes([]byte("abcdefgh")), javaStringHash8},
		{"long", javaLongHash(5000000000), 705032705},
		{"long negative", javaLongHash(-1), 0},
		{"bytes", javaBytesHash([]byte{1, 0xff}), 31*(31*1+1) - 1},
		{"decimal compact", javaBigDecimalHash(big.NewInt(123), 2), javaDecimalHash123s2},
		{"decimal negative", javaBigDecimalHash(big.NewInt(-5), 2), javaDecimalHashM5s2},
		{"decimal big", javaBigDecimalHash(big1, 3), javaDecimalHashBig},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, c.got, c.want)
		}
	}
}

// Hash codes printed by Java Paimon 1.4.2 (BinaryString.hashCode,
// Decimal.hashCode).
const (
	javaStringHashABC    = 1322437556
	javaStringHashEmpty  = 142593372
	javaStringHash8      = -804741815
	javaDecimalHash123s2 = 3815
	javaDecimalHashM5s2  = -153
	javaDecimalHashBig   = -748148566
)
