package theta

import (
	"bufio"
	"compress/gzip"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
)

// javaCase is one line of testdata/java-unions.txt.gz, written by Java
// Paimon 1.4.2 (interop/java SketchCases): name, acc, input and
// FieldThetaSketchAgg.agg(acc, input), hex.
type javaCase struct {
	name           string
	acc, in, union []byte
}

func loadCases(t *testing.T) []javaCase {
	t.Helper()
	path := "testdata/java-unions.txt.gz"
	if p := os.Getenv("THETA_CASES"); p != "" {
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

// TestUnionJava checks Union against Java's theta_sketch aggregate for
// every pairing of empty, single-item, exact (ordered, unordered, hash
// table form), estimation-mode (> 4096 distinct), other nominal entries
// and p < 1 sketches, and a fold of several sketches.
func TestUnionJava(t *testing.T) {
	for _, c := range loadCases(t) {
		got, err := Union(c.acc, c.in)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if string(got) != string(c.union) {
			t.Errorf("%s: union differs from Java's (%d bytes, want %d):\n got %.200x\nwant %.200x", c.name, len(got), len(c.union), got, c.union)
		}
	}
}

// TestCorrupt truncates and garbles Java-written sketches: each gives a
// typed error or a result (Java ignores inputs under 16 bytes), never a
// panic.
func TestCorrupt(t *testing.T) {
	for _, c := range loadCases(t) {
		if !strings.HasSuffix(c.name, "+exact") && !strings.HasSuffix(c.name, "+exactupd") && !strings.HasSuffix(c.name, "+est") {
			continue
		}
		b := c.in
		for n := 16; n < len(b); n += 7 {
			if _, err := Union(c.acc, b[:n]); err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s truncated to %d bytes: err %v", c.name, n, err)
			}
		}
		for i := 0; i < 40 && i < len(b); i++ {
			for _, v := range []byte{0x00, 0x7f, 0x80, 0xff} {
				g := append([]byte(nil), b...)
				g[i] = v
				if _, err := Union(c.acc, g); err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupported) {
					t.Fatalf("%s byte %d = %#x: err %v", c.name, i, v, err)
				}
			}
		}
	}
}

// TestTruncatedExact: an exact sketch cut short of its hashes is an error.
func TestTruncatedExact(t *testing.T) {
	for _, c := range loadCases(t) {
		if c.name != "empty+exact" {
			continue
		}
		_, err := Union(c.acc, c.in[:len(c.in)-8])
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("err %v, want ErrCorrupt", err)
		}
		return
	}
	t.Fatal("case empty+exact missing")
}
