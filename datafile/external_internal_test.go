package datafile

import (
	"errors"
	"testing"

	"github.com/paimon-go/paimon/schema"
)

// TestMurmur3x86: the published Murmur3 x86_32 seed-0 vectors (Guava
// Hashing.murmur3_32 of ASCII strings), which entropy-inject hashes file
// names with.
func TestMurmur3x86(t *testing.T) {
	for s, want := range map[string]uint32{
		"":      0,
		"hello": 0x248bfa47,
		"The quick brown fox jumps over the lazy dog": 0x2e4ff723,
	} {
		if got := murmur3x86(s); got != want {
			t.Errorf("murmur3x86(%q) = %#x, want %#x", s, got, want)
		}
	}
	// 0x248bfa47: low 20 bits 1011 1111 1010 0100 0111.
	if got := EntropyDirs("hello"); got != "1011/1111/1010/01000111" {
		t.Errorf("EntropyDirs(hello) = %s", got)
	}
}

// TestJavaPath: roots are spelled as Java's org.apache.paimon.fs.Path
// prints them, the form of _EXTERNAL_PATH.
func TestJavaPath(t *testing.T) {
	for in, want := range map[string]string{
		"file:///tmp/a/":   "file:/tmp/a",
		"file:/tmp//a":     "file:/tmp/a",
		"s3://bucket/x/y/": "s3://bucket/x/y",
		"s3a://bucket":     "s3a://bucket",
		"gs://b/dir":       "gs://b/dir",
		" file:///tmp/b ":  "file:/tmp/b",
	} {
		if got, err := javaPath(in); err != nil || got != want {
			t.Errorf("javaPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestParseExternalPaths: weights and strategies as Java's
// ExternalPathProvider.create reads them; bad weights are
// schema.ErrInvalidOption.
func TestParseExternalPaths(t *testing.T) {
	base := func(kv ...string) schema.Options {
		o := schema.Options{schema.KeyDataFileExternalPaths: "file:///a,file:///b"}
		for i := 0; i < len(kv); i += 2 {
			o[kv[i]] = kv[i+1]
		}
		return o
	}
	if e, err := parseExternalPaths(base()); e != nil || err != nil {
		t.Errorf("strategy none: %+v, %v", e, err)
	}
	e, err := parseExternalPaths(base(schema.KeyDataFileExternalPathsStrategy, "weighted", KeyExternalPathsWeights, "3, 1"))
	if err != nil || len(e.weights) != 2 || e.total != 4 {
		t.Errorf("weighted: %+v, %v", e, err)
	}
	for _, w := range []string{"1", "1,0", "1,x"} {
		if _, err := parseExternalPaths(base(schema.KeyDataFileExternalPathsStrategy, "weighted", KeyExternalPathsWeights, w)); !errors.Is(err, schema.ErrInvalidOption) {
			t.Errorf("weights %q: %v, want ErrInvalidOption", w, err)
		}
	}
	// specific-fs keeps only the roots of that file system; one root makes
	// round-robin trivial.
	e, err = parseExternalPaths(schema.Options{schema.KeyDataFileExternalPaths: "s3://x/a,file:///b",
		schema.KeyDataFileExternalPathsStrategy: "specific-fs", schema.KeyDataFileExternalPathsSpecificFS: "S3"})
	if err != nil || len(e.roots) != 1 || e.roots[0] != "s3://x/a" {
		t.Fatalf("specific-fs: %+v, %v", e, err)
	}
	n := NewNamer("u")
	for i := range 3 {
		if got := e.place(n, "p=1/bucket-0", "f"); got != "s3://x/a/p=1/bucket-0/f" {
			t.Errorf("file %d at %s", i, got)
		}
	}
}
