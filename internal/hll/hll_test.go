package hll

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
)

// javaCase is one line of testdata/java-unions.txt.gz, written by Java
// Paimon 1.4.2 (interop/java HllCases): name, acc, input and
// FieldHllSketchAgg.agg(acc, input), hex.
type javaCase struct {
	name           string
	acc, in, union []byte
}

func loadCases(t testing.TB) []javaCase {
	t.Helper()
	path := "testdata/java-unions.txt.gz"
	if p := os.Getenv("HLL_CASES"); p != "" {
		path = p
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []javaCase
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		p := strings.Fields(sc.Text())
		if len(p) != 4 {
			t.Fatalf("bad line %q", sc.Text())
		}
		c := javaCase{name: p[0]}
		for i, dst := range []*[]byte{&c.acc, &c.in, &c.union} {
			if *dst, err = hex.DecodeString(p[i+1]); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUnionJava checks Union against Java's hll_sketch aggregate, byte for
// byte (HIP accumulator, kxq registers, curMin and flags included), for
// every pairing of empty, single-value, LIST, SET and HLL sketches (HLL_4
// with and without aux exceptions, HLL_6, HLL_8; compact and updatable;
// lgConfigK 4, 7, 8, 10, 12, 14 and, with HLL_CASES pointing at the full
// output, 18 and 21; a union's out-of-order result; a union gadget image
// whose kxq registers await a rebuild; LIST and SET gadgets promoted to HLL
// during the union) and for folds.
func TestUnionJava(t *testing.T) {
	cases := loadCases(t)
	if len(cases) < 500 {
		t.Fatalf("%d cases", len(cases))
	}
	bad := 0
	for _, c := range cases {
		got, err := Union(c.acc, c.in)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			bad++
		} else if !bytes.Equal(got, c.union) {
			t.Errorf("%s: differs from Java\n got %s\nwant %s", c.name, short(got), short(c.union))
			bad++
		}
		if bad > 10 {
			t.Fatal("too many failures")
		}
	}
}

func short(b []byte) string {
	h := hex.EncodeToString(b)
	if len(h) > 200 {
		return h[:200] + "..."
	}
	return h
}

// TestCorrupt checks that bytes Java rejects give ErrCorrupt naming the
// field, for both operands.
func TestCorrupt(t *testing.T) {
	cases := loadCases(t)
	var hll4, aux, set, list []byte
	for _, c := range cases {
		switch c.name {
		case "hll4+aux8":
			hll4, aux = c.acc, c.in
		case "set+set":
			set = c.acc
		case "list+list":
			list = c.acc
		}
	}
	if aux[36] == 0 || aux[7] != 2 {
		t.Fatalf("aux8 has no aux table: %x", aux[:40])
	}
	mut := func(b []byte, f func([]byte)) []byte {
		c := append([]byte(nil), b...)
		f(c)
		return c
	}
	bad := []struct {
		name string
		b    []byte
		msg  string
	}{
		{"empty", nil, "too short"},
		{"short", hll4[:7], "too short"},
		{"family", mut(hll4, func(b []byte) { b[2] = 3 }), "family 3"},
		{"server", mut(hll4, func(b []byte) { b[1] = 2 }), "serialization version 2"},
		{"preints", mut(hll4, func(b []byte) { b[0] = 3 }), "preamble ints"},
		{"mode3", mut(hll4, func(b []byte) { b[7] |= 3 }), "mode 3"},
		{"type3", mut(hll4, func(b []byte) { b[7] |= 12 }), "target HLL type 3"},
		{"lgK", mut(hll4, func(b []byte) { b[3] = 30 }), "lgConfigK 30"},
		{"registers truncated", hll4[:100], "too short for the HLL_4 registers"},
		{"aux truncated", aux[:len(aux)-2], "aux ints"},
		{"aux missing", mut(aux, func(b []byte) { b[36], b[37], b[38], b[39] = 0, 0, 0, 0 }), "no aux table"},
		{"list long", mut(list, func(b []byte) { b[6] = 9 }), "list of 9 coupons"},
		{"set truncated", set[:len(set)-1], "set of"},
	}
	for _, c := range bad {
		for _, acc := range []bool{true, false} {
			var err error
			if acc {
				_, err = Union(c.b, hll4)
			} else {
				_, err = Union(hll4, c.b)
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s (acc %v): %v, want ErrCorrupt with %q", c.name, acc, err, c.msg)
			}
		}
	}
}

func BenchmarkUnion(b *testing.B) {
	cases := loadCases(b)
	var hll4, hll8 javaCase
	for _, c := range cases {
		switch c.name {
		case "hll4+hll4upd":
			hll4 = c
		case "hll8+lg14":
			hll8 = c
		}
	}
	for _, c := range []javaCase{hll4, hll8} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Union(c.acc, c.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
