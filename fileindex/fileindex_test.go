package fileindex

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"testing"
)

// testdata/java_bloom.index was written by Java Paimon 1.4 (testdata/Gen.java.txt,
// run against the interop peer's classpath): bloom filters of items=100,
// fpp=0.01 over BIGINT i*7 and STRING "k<i>" for i in [0,150), and a null
// body for column "e". Java's reader kept 1035 of the 20000 absent BIGINT
// probes i*7+1 and 1142 of the 20000 absent STRING probes "x<i>".
func javaIndex(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/java_bloom.index")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseJava(t *testing.T) {
	x, err := Parse(javaIndex(t))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range x.Bodies {
		got = append(got, fmt.Sprintf("%s/%s/%v/%d", b.Column, b.Type, b.Empty, len(b.Bytes)))
	}
	want := "[id/bloom-filter/false/124 name/bloom-filter/false/124 e/bloom-filter/true/0]"
	if fmt.Sprint(got) != want {
		t.Fatalf("bodies %v, want %s", got, want)
	}
	id, _ := x.Find("id", TypeBloomFilter)
	name, _ := x.Find("name", TypeBloomFilter)
	fi, err := DecodeBloom(id.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := DecodeBloom(name.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 150; i++ {
		if !fi.MightContainHash(HashLong(i * 7)) {
			t.Fatalf("present BIGINT %d rejected", i*7)
		}
		if !fs.MightContainHash(HashBytes([]byte(fmt.Sprintf("k%d", i)))) {
			t.Fatalf("present STRING k%d rejected", i)
		}
	}
	keptI, keptS := 0, 0
	for i := int64(0); i < 20000; i++ {
		if fi.MightContainHash(HashLong(i*7 + 1)) {
			keptI++
		}
		if fs.MightContainHash(HashBytes([]byte(fmt.Sprintf("x%d", i)))) {
			keptS++
		}
	}
	if keptI != 1035 || keptS != 1142 {
		t.Fatalf("absent probes kept: BIGINT %d STRING %d, Java kept 1035 and 1142", keptI, keptS)
	}
}

// Our writer produces Java's bytes exactly for the same input.
func TestEncodeMatchesJava(t *testing.T) {
	fi, fs := NewBloom(100, 0.01), NewBloom(100, 0.01)
	for i := int64(0); i < 150; i++ {
		fi.AddHash(HashLong(i * 7))
		fs.AddHash(HashBytes([]byte(fmt.Sprintf("k%d", i))))
	}
	if fi.HashFunctions() != 7 {
		t.Fatalf("k = %d, want 7", fi.HashFunctions())
	}
	got := Encode([]Body{
		{Column: "id", Type: TypeBloomFilter, Bytes: fi.Bytes()},
		{Column: "name", Type: TypeBloomFilter, Bytes: fs.Bytes()},
		{Column: "e", Type: TypeBloomFilter, Empty: true},
	})
	if want := javaIndex(t); !bytes.Equal(got, want) {
		t.Fatalf("encoded %d bytes differ from Java's %d bytes", len(got), len(want))
	}
}

func TestUnknownTypeAndUnicodeNames(t *testing.T) {
	b := Encode([]Body{
		{Column: "prix€\x00", Type: "bitmap", Bytes: []byte{1, 2, 3}},
		{Column: "prix€\x00", Type: TypeBloomFilter, Bytes: NewBloom(10, 0.1).Bytes()},
	})
	x, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Bodies) != 2 || x.Bodies[0].Type != "bitmap" || !bytes.Equal(x.Bodies[0].Bytes, []byte{1, 2, 3}) {
		t.Fatalf("bodies %+v", x.Bodies)
	}
	if _, ok := x.Find("prix€\x00", TypeBloomFilter); !ok {
		t.Fatal("bloom-filter body not found")
	}
}

func TestDamaged(t *testing.T) {
	good := javaIndex(t)
	bad := func(name string, b []byte) {
		t.Helper()
		if _, err := Parse(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err %v, want ErrMalformed", name, err)
		}
	}
	bad("empty", nil)
	m := bytes.Clone(good)
	m[0] ^= 1
	bad("magic", m)
	v := bytes.Clone(good)
	v[11] = 2
	bad("version", v)
	// Every truncation inside the head or the bodies is an error, never a panic.
	for n := 0; n < len(good); n++ {
		if _, err := Parse(good[:n]); !errors.Is(err, ErrMalformed) {
			t.Fatalf("truncated to %d bytes: err %v", n, err)
		}
	}
	// Flipping any byte never panics.
	for i := range good {
		c := bytes.Clone(good)
		c[i] ^= 0xff
		if x, err := Parse(c); err == nil {
			for _, b := range x.Bodies {
				if !b.Empty {
					_, _ = DecodeBloom(b.Bytes)
				}
			}
		}
	}
	for _, b := range [][]byte{nil, {0, 0, 0, 1}, {0, 0, 0, 0, 1}, {0x80, 0, 0, 0, 1}} {
		if _, err := DecodeBloom(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("DecodeBloom(%v): err %v", b, err)
		}
	}
}
