//go:build interop

package interop

import (
	"strings"
	"testing"
)

// TestDiffRows pins the comparison the matrix relies on: only number spelling
// and key order are normalised; any other difference, and any change in a
// row's multiplicity, is reported.
func TestDiffRows(t *testing.T) {
	equal := []struct{ want, got string }{
		{`{"a":1e-07,"b":"x"}`, `{"b":"x","a":1E-7}`},
		{`{"d":1.0}`, `{"d":1}`},
		{`{"d":1e+16}`, `{"d":10000000000000000}`},
		{`{"i":-9223372036854775808}`, `{"i":-9223372036854775808}`},
		{"{\"a\":1}\n{\"a\":2}\n", "{\"a\":2}\n{\"a\":1}"},
	}
	for _, c := range equal {
		d, err := diffRows([]byte(c.want), []byte(c.got))
		if err != nil || d != "" {
			t.Errorf("diffRows(%s, %s) = %q, %v; want equal", c.want, c.got, d, err)
		}
	}
	differ := []struct{ want, got, says string }{
		{`{"a":"1"}`, `{"a":1}`, "1 missing, 1 unexpected"},
		{`{"dec":"1.50"}`, `{"dec":"1.5"}`, "1 missing, 1 unexpected"},
		{`{"i":9007199254740993}`, `{"i":9007199254740992}`, "1 missing, 1 unexpected"},
		{`{"a":null}`, `{}`, "1 missing, 1 unexpected"},
		{"{\"a\":1}\n{\"a\":1}", `{"a":1}`, "expected 2 rows, read 1; 1 missing, 0 unexpected"},
		{`{"a":[1,2]}`, `{"a":[2,1]}`, "1 missing, 1 unexpected"},
		{``, `{"a":1}`, "expected 0 rows, read 1; 0 missing, 1 unexpected"},
	}
	for _, c := range differ {
		d, err := diffRows([]byte(c.want), []byte(c.got))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(d, c.says) {
			t.Errorf("diffRows(%s, %s) = %q; want it to say %q", c.want, c.got, d, c.says)
		}
	}
	if _, err := diffRows([]byte(`{"a":1}`), []byte(`[1]`)); err == nil {
		t.Error("a non-object row was accepted")
	}
}
