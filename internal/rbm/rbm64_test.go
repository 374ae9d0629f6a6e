package rbm

import (
	"bufio"
	"compress/gzip"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
)

// javaCase is one line of testdata/java-unions.txt.gz, written by Java Paimon
// 1.4.2: name, acc, input and FieldRoaringBitmap64Agg.agg(acc, input), hex.
type javaCase struct {
	name           string
	acc, in, union []byte
}

func loadCases(t *testing.T, path string) []javaCase {
	t.Helper()
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
	sc.Buffer(nil, 1<<24)
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

// TestUnionJava checks Union against the bytes Java's rbm64 aggregate wrote
// for the same inputs: every container pairing, container slots, node growth
// up to Node256, prefix splits, and folds of several inputs.
func TestUnionJava(t *testing.T) {
	for _, c := range loadCases(t, "testdata/java-unions.txt.gz") {
		got, err := Union64(c.acc, c.in)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if string(got) != string(c.union) {
			t.Errorf("%s: union differs from Java's:\n got %x\nwant %x", c.name, got, c.union)
		}
	}
}

// TestValues checks decoding against known content.
func TestValues(t *testing.T) {
	cases := loadCases(t, "testdata/java-unions.txt.gz")
	for _, c := range cases {
		if c.name != "two-high" {
			continue
		}
		got, err := Values(c.union)
		if err != nil {
			t.Fatal(err)
		}
		want := []uint64{1, 1<<40 + 5, 1 << 63, 1<<64 - 1}
		if len(got) != len(want) {
			t.Fatalf("values %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("values %v, want %v", got, want)
			}
		}
		return
	}
	t.Fatal("case two-high missing")
}

// TestCorrupt feeds every truncation and many single-byte corruptions of
// Java-written bitmaps: each gives ErrCorrupt or a result, never a panic.
func TestCorrupt(t *testing.T) {
	cases := loadCases(t, "testdata/java-unions.txt.gz")
	for _, c := range cases[:12] {
		b := c.union
		for n := 0; n < len(b); n++ {
			if _, err := Union64(b[:n], c.in); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s truncated to %d bytes: err %v, want ErrCorrupt", c.name, n, err)
			}
		}
		for i := 0; i < len(b) && i < 400; i++ {
			for _, v := range []byte{0x00, 0x7f, 0x80, 0xff} {
				g := append([]byte(nil), b...)
				g[i] = v
				if _, err := Union64(g, c.in); err != nil && !errors.Is(err, ErrCorrupt) {
					t.Fatalf("%s byte %d = %#x: err %v, want ErrCorrupt or none", c.name, i, v, err)
				}
			}
		}
	}
}
