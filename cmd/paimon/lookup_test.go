package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestLookup: `paimon lookup` prints the merged row of each key found
// (JSON Lines by default), nothing for a missing key; bad keys are usage
// errors naming the problem.
func TestLookup(t *testing.T) {
	dir := t.TempDir()
	url := filepath.Join(dir, "db.db", "kv")
	if _, err := run(t, "create", url, "--column", "id:INT", "--column", "dt:DATE", "--column", "v:STRING",
		"--primary-key", "id,dt", "--partition", "dt", "--bucket", "2"); err != nil {
		t.Fatal(err)
	}
	for i, rows := range []string{
		`{"id":1,"dt":"2024-01-01","v":"a"}` + "\n" + `{"id":2,"dt":"2024-01-01","v":"b"}` + "\n" + `{"id":1,"dt":"2024-01-02","v":"c"}` + "\n",
		`{"id":1,"dt":"2024-01-01","v":"A"}` + "\n",
	} {
		in := filepath.Join(dir, "rows.jsonl")
		if err := os.WriteFile(in, []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := run(t, "import", url, in); err != nil {
			t.Fatalf("import %d: %v", i, err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--key", "id=1,dt=2024-01-01", "--key", "dt=2024-01-02,id=1", "--key", "id=9,dt=2024-01-01"},
			`{"id":1,"dt":"2024-01-01","v":"A"}` + "\n" + `{"id":1,"dt":"2024-01-02","v":"c"}` + "\n"},
		{[]string{"--key", "id=9,dt=2024-01-01"}, ""},
		{[]string{"--key", "id=1,dt=2024-01-01", "--snapshot", "1", "--columns", "v", "--format", "csv"}, "v\na\n"},
	} {
		got, err := run(t, append([]string{"lookup", url}, c.args...)...)
		if err != nil || got != c.want {
			t.Errorf("lookup %v: %q, %v; want %q", c.args, got, err, c.want)
		}
	}
	for _, args := range [][]string{
		{"--key", "id=1"},
		{"--key", "id=x,dt=2024-01-01"},
		{"--key", "id=1,dt=2024-01-01,v=a"},
		{"--key", "id=1,id=2,dt=2024-01-01"},
		{"--key", "id"},
		{"--key", "id=null,dt=2024-01-01"},
		{},
	} {
		_, err := run(t, append([]string{"lookup", url}, args...)...)
		var u usageError
		if !errors.As(err, &u) {
			t.Errorf("lookup %v: %v, want a usage error", args, err)
		}
	}
}
