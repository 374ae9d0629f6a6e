//go:build interop

package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/stream"
)

// TestChangelogLifecycleJava: a table whose changelog outlives its
// snapshots (changelog-producer = input, snapshot.num-retained 1-2,
// changelog.num-retained 3-4, both time-retained 1 ms), written by Java.
// Java expires it as its committer does (snapshots, then changelogs); we
// expire a copy taken before. Both must leave the same files, with
// changelog/changelog-<id> byte for byte equal; our follower of Java's
// table from snapshot 6 (now a long-lived changelog) reads what Java's
// streaming read does, and Java's streaming read of our expired copy too.
func TestChangelogLifecycleJava(t *testing.T) {
	ctx := context.Background()
	out := workDir(t, "changelog-lifecycle")
	if _, err := javaPeer().run(ctx, "changelog-expire", out); err != nil {
		t.Fatalf("java changelog-expire: %v", err)
	}
	javaTbl := filepath.Join(out, "warehouse", "interop.db", "cl")
	goTbl := filepath.Join(out, "go-copy")
	tbl, err := paimon.OpenTable(ctx, goTbl)
	if err != nil {
		t.Fatal(err)
	}
	res, err := expire.Expire(ctx, tbl.FileIO(), tbl.Schema(), expire.Options{})
	tbl.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.KeptChangelogs, []int64{1, 2, 3, 4, 5, 6, 7}) || !slices.Equal(res.ExpiredChangelogs, []int64{1, 2, 3, 4, 5}) {
		t.Errorf("our expiration kept changelogs %v, expired %v", res.KeptChangelogs, res.ExpiredChangelogs)
	}
	javaFiles, goFiles := listTree(t, javaTbl), listTree(t, goTbl)
	if !slices.Equal(javaFiles, goFiles) {
		t.Fatalf("files after expiration differ:\n java %v\n ours %v", javaFiles, goFiles)
	}
	var changelogs int
	for _, f := range javaFiles {
		if !strings.HasPrefix(f, "changelog/") {
			continue
		}
		changelogs++
		j, err1 := os.ReadFile(filepath.Join(javaTbl, f))
		g, err2 := os.ReadFile(filepath.Join(goTbl, f))
		if err1 != nil || err2 != nil || string(j) != string(g) {
			t.Errorf("%s differs:\n java %s\n ours %s", f, j, g)
		}
	}
	if changelogs != 4 { // changelog-6, changelog-7, EARLIEST, LATEST
		t.Errorf("%d files in changelog/, want 4: %v", changelogs, javaFiles)
	}
	want := javaFollow(t, filepath.Join(out, "java-follow.txt"))
	if len(want) != 3 {
		t.Fatalf("Java's follow of its table from snapshot 6: %v, want 3 rows", want)
	}
	if got := goFollow(ctx, t, javaTbl, 6, 3); !slices.Equal(got, want) {
		t.Errorf("our follow of Java's table %v, Java's %v", got, want)
	}
	ours := filepath.Join(out, "java-follow-ours.txt")
	if _, err := javaPeer().run(ctx, "changelog-follow", goTbl, "6", ours); err != nil {
		t.Fatalf("java changelog-follow: %v", err)
	}
	if got := javaFollow(t, ours); !slices.Equal(got, want) {
		t.Errorf("Java's follow of our expired table %v, of its own %v", got, want)
	}
}

// listTree lists the files under dir, relative, slash-separated, sorted.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// javaFollow reads the changelog-follow output as "kind k v" rows.
func javaFollow(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		kind, js, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		var r struct {
			K int    `json:"k"`
			V string `json:"v"`
		}
		if err := json.Unmarshal([]byte(js), &r); err != nil {
			t.Fatalf("%s: %q: %v", file, line, err)
		}
		out = append(out, fmt.Sprintf("%s %d %s", kind, r.K, r.V))
	}
	return out
}

// goFollow follows the table at path from snapshot from with our Follower
// and returns the first n rows as "kind k v".
func goFollow(ctx context.Context, t *testing.T, path string, from int64, n int) []string {
	t.Helper()
	tbl, err := paimon.OpenTable(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	src := &stream.ReaderSource{FIO: tbl.FileIO(), Table: tbl.Schema()}
	f := stream.New(tbl.FileIO(), tbl.Schema(), src, stream.Options{Mode: stream.ModeFromSnapshot, SnapshotID: from, Interval: 10 * time.Millisecond})
	var out []string
	for len(out) < n {
		nctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		s, err := f.Next(nctx)
		cancel()
		if err != nil {
			t.Fatalf("follow %s from %d: %v (after %v)", path, from, err, out)
		}
		for _, b := range s.Batches {
			for i := range int(b.NumRows()) {
				out = append(out, fmt.Sprintf("%s %s %s", b.Column(0).ValueStr(i), b.Column(1).ValueStr(i), b.Column(2).ValueStr(i)))
			}
		}
		s.Release()
	}
	return out
}
