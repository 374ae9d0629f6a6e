package row

import "testing"

// TestMurmur3: published Murmur3 x86_32 vectors (SMHasher's
// MurmurHash3_x86_32), covering every tail length and non-zero seeds.
func TestMurmur3(t *testing.T) {
	for _, c := range []struct {
		in   string
		seed uint32
		want uint32
	}{
		{"", 0, 0},
		{"", 1, 0x514e28b7},
		{"", 0xffffffff, 0x81f16f39},
		{"test", 0, 0xba6bd213},
		{"Hello, world!", 0, 0xc0363e43},
		{"Hello, world!", 0x9747b28c, 0x24884cba},
		{"hello", 0, 0x248bfa47},
		{"The quick brown fox jumps over the lazy dog", 0, 0x2e4ff723},
	} {
		if got := Murmur3([]byte(c.in), c.seed); got != c.want {
			t.Errorf("Murmur3(%q, %#x) = %#x, want %#x", c.in, c.seed, got, c.want)
		}
	}
}
