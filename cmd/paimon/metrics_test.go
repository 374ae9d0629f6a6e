package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/testenv"
)

// runErr executes the CLI in-process and returns stdout, stderr and the
// error.
func runErr(args ...string) (string, string, error) {
	var out, errOut bytes.Buffer
	root := newRoot(&out)
	root.SetArgs(args)
	root.SetErr(&errOut)
	err := root.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// TestMetricsFlag: --metrics prints one JSON line per commit, scan plan,
// compaction and expiration on stderr, with the figures of the work done;
// without it nothing is printed there.
func TestMetricsFlag(t *testing.T) {
	url := filepath.Join(t.TempDir(), "db.db", "f")
	src := filepath.Join("..", "..", "testdata", "flights", "flights-3m.parquet")
	lines := func(what, stderr string) []map[string]any {
		t.Helper()
		var out []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
			if l == "" {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("%s: stderr line %q: %v", what, l, err)
			}
			out = append(out, m)
		}
		return out
	}
	for i, n := range []string{"1000", "500"} {
		args := []string{"--metrics", "import", "--limit", n, url, src}
		if i == 0 {
			args = []string{"--metrics", "import", "--create", "--limit", n, url, src}
		}
		if _, stderr, err := runErr(args...); err != nil {
			t.Fatal(err)
		} else if ls := lines("import", stderr); len(ls) != 1 || ls[0]["msg"] != "paimon commit" ||
			ls[0]["added_records"].(float64) != []float64{1000, 500}[i] ||
			ls[0]["snapshots"].([]any)[0].(float64) != float64(i+1) || ls[0]["error"] != "" {
			t.Fatalf("import %s: metrics %v", n, ls)
		}
	}
	_, stderr, err := runErr("--metrics", "cat", "--format", "jsonl", "--where", "origin = 'SFO'", url)
	if err != nil {
		t.Fatal(err)
	}
	if ls := lines("cat", stderr); len(ls) != 1 || ls[0]["msg"] != "paimon scan" || ls[0]["snapshot"].(float64) != 2 ||
		ls[0]["manifests"].(float64) != 2 || ls[0]["data_files"].(float64) != 2 || ls[0]["filter"] != "origin = 'SFO'" {
		t.Fatalf("cat: metrics %v", ls)
	}
	_, stderr, err = runErr("--metrics", "compact", "--full", url)
	if err != nil {
		t.Fatal(err)
	}
	// The compaction's commit, then the compaction.
	ls := lines("compact", stderr)
	if len(ls) != 2 || ls[0]["msg"] != "paimon commit" || ls[0]["snapshots"].([]any)[0].(float64) != 3 || ls[0]["deleted_files"].(float64) != 2 ||
		ls[1]["msg"] != "paimon compaction" || ls[1]["snapshot"].(float64) != 3 || ls[1]["input_files"].(float64) != 2 || ls[1]["output_files"].(float64) != 1 {
		t.Fatalf("compact: metrics %v", ls)
	}
	_, stderr, err = runErr("--metrics", "expire", "--retain-min", "1", "--retain-max", "1", url)
	if err != nil {
		t.Fatal(err)
	}
	if ls := lines("expire", stderr); len(ls) != 1 || ls[0]["msg"] != "paimon expiration" || ls[0]["snapshots"].(float64) != 2 || ls[0]["data_files"].(float64) != 2 {
		t.Fatalf("expire: metrics %v", ls)
	}
	if _, stderr, err := runErr("cat", "--format", "jsonl", url); err != nil || stderr != "" {
		t.Fatalf("cat without --metrics: stderr %q, %v", stderr, err)
	}
}

// TestMissingBucketMessage: a table URL whose bucket does not exist says
// so, instead of "no schema file".
func TestMissingBucketMessage(t *testing.T) {
	good := testenv.MinIO(t)
	_, query, _ := strings.Cut(good, "?")
	_, err := run(t, "cat", "s3://nosuchbucket0/db.db/t?"+query)
	if err == nil || !strings.Contains(err.Error(), "its bucket or container does not exist") || !errors.Is(err, fileio.ErrNoBucket) {
		t.Fatalf("cat in a missing bucket: %v", err)
	}
}
