package writer

import "testing"

func TestContiguous(t *testing.T) {
	cases := []struct {
		rows []int32
		want bool
	}{
		{[]int32{0, 1, 2, 3}, true},
		{[]int32{5}, true},
		{[]int32{7, 8}, true},
		{[]int32{0, 2, 1, 3}, false}, // same span as 0..3, permuted
		{[]int32{3, 2, 1, 0}, false},
		{[]int32{0, 1, 3}, false},
	}
	for _, c := range cases {
		if got := contiguous(c.rows); got != c.want {
			t.Errorf("contiguous(%v) = %v, want %v", c.rows, got, c.want)
		}
	}
}
