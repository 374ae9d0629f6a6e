//go:build interop

package interop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/consumer"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/stream"
	"github.com/paimon-go/paimon/types"
)

// javaConsumers runs the Java peer's Consumers cell (interop/java
// Consumers.java) and returns its standard output.
func javaConsumers(t *testing.T, args ...string) string {
	t.Helper()
	cp := os.Getenv(envJavaCP)
	java := os.Getenv(envJava)
	if java == "" {
		java = "java"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, java, append([]string{"-cp", cp, "org.paimongo.interop.Consumers"}, args...)...)
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("java Consumers %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// TestConsumersJava: consumer files are one format both ways. Java's
// streaming read with consumer-id writes a file byte-identical to ours and we
// resume from it; Java's snapshot expiration honours a consumer we wrote, and
// ours honours Java's; Java's streaming read resumes from our checkpoint.
func TestConsumersJava(t *testing.T) {
	if os.Getenv(envJavaCP) == "" {
		t.Fatal(envJavaCP + " is not set (run scripts/interop.sh)")
	}
	ctx := context.Background()
	wh := workDir(t, "consumers")
	cat, err := catalog.Open(ctx, "file://"+wh)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	if err := cat.CreateDatabase(ctx, "interop", true); err != nil {
		t.Fatal(err)
	}
	id := catalog.NewIdentifier("interop", "go_consumers")
	fields := []types.DataField{{ID: 0, Name: "k", Type: types.BigInt()}, {ID: 1, Name: "v", Type: types.String()}}
	if err := cat.CreateTable(ctx, id, catalog.Schema{Fields: fields, PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "1"}}, false); err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.GetTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(wh, "interop.db", "go_consumers")
	commit := func(n int64, k int64, v string) {
		t.Helper()
		if err := commitRows(ctx, tbl, "go", n, []goRow{ins(k, v)}, false); err != nil {
			t.Fatal(err)
		}
	}
	commit(1, 1, "a")
	commit(2, 2, "b")
	commit(3, 3, "c")

	// Java reads every snapshot's delta as consumer "java" and checkpoints.
	got := javaConsumers(t, "stream", path, "java")
	if want := "+I\t{\"k\":1,\"v\":\"a\"}\n+I\t{\"k\":2,\"v\":\"b\"}\n+I\t{\"k\":3,\"v\":\"c\"}\n"; got != want {
		t.Fatalf("java stream printed\n%s\nwant\n%s", got, want)
	}
	cm := consumer.New(tbl.FileIO, "")
	if n, ok, err := cm.Read(ctx, "java"); n != 4 || !ok || err != nil {
		t.Fatalf("java's consumer = %d %v %v, want 4", n, ok, err)
	}
	data, err := os.ReadFile(filepath.Join(path, "consumer", "consumer-java"))
	if err != nil || string(data) != string(consumer.Encode(4)) {
		t.Fatalf("java's consumer file %q (%v), ours would be %q", data, err, consumer.Encode(4))
	}

	// Java's expiration honours our consumer at 2.
	if err := cm.Write(ctx, "go", 2); err != nil {
		t.Fatal(err)
	}
	commit(4, 4, "d")
	if got := javaConsumers(t, "expire", path); got != "2\n3\n4\n" {
		t.Fatalf("java expire left snapshots %q, want 2 3 4 (our consumer at 2)", got)
	}

	// Ours honours Java's consumer at 4.
	if err := cm.Delete(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	commit(5, 5, "e")
	if _, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1, RetainMax: 1, OlderThan: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	ids, err := snapshot.NewManager(tbl.FileIO).IDs(ctx)
	// Commit 5 is APPEND snapshot 5 and the writer's COMPACT snapshot 6.
	if err != nil || !slices.Equal(ids, []int64{4, 5, 6}) {
		t.Fatalf("our expire left %v (%v), want 4 5 6 (java's consumer at 4)", ids, err)
	}

	// Our follower resumes from Java's progress, checkpoints, and Java resumes from ours.
	src := &stream.ReaderSource{FIO: tbl.FileIO, Table: tbl.Schema}
	f := stream.New(tbl.FileIO, tbl.Schema, src, stream.Options{Mode: stream.ModeLatest, ConsumerID: "java", Interval: 10 * time.Millisecond})
	var rows []string
	for range 2 {
		s, err := f.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range s.Batches {
			for i := range int(b.NumRows()) {
				rows = append(rows, b.Column(0).ValueStr(i)+" "+b.Column(1).ValueStr(i)+" "+b.Column(2).ValueStr(i))
			}
		}
		s.Release()
		if err := f.Checkpoint(ctx, s.Next); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"+I 4 d", "+I 5 e"}; !slices.Equal(rows, want) {
		t.Fatalf("our follower from java's consumer read %q, want %q", rows, want)
	}
	commit(6, 6, "f")
	if got := javaConsumers(t, "stream", path, "java"); got != "+I\t{\"k\":6,\"v\":\"f\"}\n" {
		t.Fatalf("java stream after our checkpoint printed %q, want only k=6", got)
	}
}
