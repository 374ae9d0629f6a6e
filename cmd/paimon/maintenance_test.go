package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/internal/fixture"
	"github.com/paimon-go/paimon/snapshot"
)

const dvTable = "pk_table_scan_and_read_dv_parquet"

func lines(s ...string) string { return strings.Join(s, "\n") + "\n" }

func TestExpireCommand(t *testing.T) {
	dir := fixture.Copy(t, dvTable)
	var want []string
	want = append(want, "deleted f1=10/bucket-1/data-d18e5571-abce-4309-ad4a-37f0bc93679f-1.parquet")
	for i := 0; i <= 5; i++ {
		want = append(want, fmt.Sprintf("deleted manifest/manifest-list-4b28f974-5a59-4b2e-9a6e-eb6a5477557f-%d", i))
	}
	want = append(want, "deleted snapshot/snapshot-1", "deleted snapshot/snapshot-2", "deleted snapshot/snapshot-3")
	dry := make([]string, len(want))
	for i, w := range want {
		dry[i] = "would " + strings.Replace(w, "deleted", "delete", 1)
	}
	// The fixture's snapshots are from 2025: older than any threshold.
	if got := mustRun(t, "expire", "--retain-min", "3", "--dry-run", dir); got != lines(append(dry, "would expire 3 snapshots (1 to 3); earliest snapshot would be 4")...) {
		t.Errorf("dry run output:\n%s", got)
	}
	if got := mustRun(t, "expire", "--retain-min", "3", "--older-than", "1 h", dir); got != lines(append(want, "expired 3 snapshots (1 to 3); earliest snapshot is 4")...) {
		t.Errorf("output:\n%s", got)
	}
	if got := mustRun(t, "expire", "--retain-min", "3", dir); got != "no snapshot expired; earliest snapshot is 4\n" {
		t.Errorf("second run output:\n%s", got)
	}
	out := mustRun(t, "snapshots", dir)
	if n := strings.Count(out, "\n"); n != 4 || !strings.Contains(out, "\n4 ") {
		t.Errorf("snapshots after expiration:\n%s", out)
	}
}

func TestCleanOrphansCommand(t *testing.T) {
	dir := fixture.Copy(t, "pk_table_scan_and_read_dv_orc")
	// The copy is new: nothing is older than an hour.
	if got := mustRun(t, "clean-orphans", "--older-than", "1h", dir); got != "deleted 0 orphan files (0 bytes)\n" {
		t.Errorf("output for young files:\n%s", got)
	}
	old := time.Now().Add(-48 * time.Hour)
	var size int64
	const orphanFile = "f1=10/bucket-1/data-0b9eadf8-7773-4de7-8f02-3765934f62b7-0.orc"
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		if strings.HasSuffix(p, orphanFile) {
			size = fi.Size()
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil || size == 0 {
		t.Fatal(size, err)
	}
	if got, want := mustRun(t, "clean-orphans", "--dry-run", dir), lines("would delete "+orphanFile, fmt.Sprintf("would delete 1 orphan files (%d bytes)", size)); got != want {
		t.Errorf("dry run output:\n%s\nwant\n%s", got, want)
	}
	if got, want := mustRun(t, "clean-orphans", "--older-than", "1d", dir), lines("deleted "+orphanFile, fmt.Sprintf("deleted 1 orphan files (%d bytes)", size)); got != want {
		t.Errorf("output:\n%s\nwant\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, orphanFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("orphan still there: %v", err)
	}
}

func TestTagCommands(t *testing.T) {
	dir := fixture.Copy(t, "pk_table_scan_and_read_dv_orc")
	// Both times zone-less, as Java's $tags system table shows them.
	header := "NAME  SNAPSHOT  SNAPSHOT_TIME            CREATE_TIME              TIME_RETAINED  TOTAL_RECORDS"
	if got, want := mustRun(t, "tag", "list", dir), lines(header,
		"1     1         2025-03-20T07:11:29.038  2026-02-04T06:08:10.000  3s             9"); got != want {
		t.Errorf("list:\n%s\nwant\n%s", got, want)
	}
	if got := mustRun(t, "tag", "create", dir, "six"); got != "created tag six of snapshot 6\n" {
		t.Errorf("create: %q", got)
	}
	if got := mustRun(t, "tag", "create", "--snapshot", "4", dir, "four"); got != "created tag four of snapshot 4\n" {
		t.Errorf("create --snapshot: %q", got)
	}
	out := mustRun(t, "tag", "list", dir)
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		names = append(names, strings.Fields(l)[0])
	}
	if strings.Join(names, ",") != "1,four,six" {
		t.Errorf("list after create:\n%s", out)
	}
	if got := mustRun(t, "tag", "delete", dir, "four"); got != "deleted tag four of snapshot 4\n" {
		t.Errorf("delete: %q", got)
	}
	if _, err := run(t, "tag", "create", dir, "six"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("create of an existing tag: %v", err)
	}
	if _, err := run(t, "tag", "delete", dir, "nope"); !errors.Is(err, snapshot.ErrNotFound) {
		t.Errorf("delete of a missing tag: %v", err)
	}
}

func TestRollbackCommand(t *testing.T) {
	dir := fixture.Copy(t, dvTable)
	mustRun(t, "tag", "create", dir, "six")
	mustRun(t, "tag", "create", "--snapshot", "1", dir, "one")
	want := lines(
		"removed snapshot 6",
		"removed snapshot 5",
		"removed tag six",
		"deleted f1=10/bucket-1/data-c5916932-cdff-44eb-93af-32613a1c7004-0.parquet",
		"deleted f1=10/bucket-1/data-e9932532-7b58-48a2-8952-368ec6dec536-0.parquet",
		"deleted manifest/manifest-b84cd918-578a-4bf8-8617-af23f1d3ca3d-0",
		"deleted manifest/manifest-f8a48265-7722-437a-88f6-84d859c902a8-0",
		"deleted manifest/manifest-list-5cb2b1b6-7b74-4641-aed0-4702a6788999-0",
		"deleted manifest/manifest-list-5cb2b1b6-7b74-4641-aed0-4702a6788999-1",
		"deleted manifest/manifest-list-c4d273a1-00ed-4ca0-928a-bb0c59ada7b4-0",
		"deleted manifest/manifest-list-c4d273a1-00ed-4ca0-928a-bb0c59ada7b4-1",
		"rolled back to snapshot 4",
	)
	if got := mustRun(t, "rollback", "--to", "4", "--delete-files", dir); got != want {
		t.Errorf("output:\n%s\nwant\n%s", got, want)
	}
	c := fixture.Lookup(t, dvTable, "snapshot4_all_levels")
	fixture.AssertJSONL(t, c, []byte(mustRun(t, "cat", "--format", "jsonl", "--all-levels", dir)))
	if got := mustRun(t, "rollback", "--tag", "one", dir); got != lines("removed snapshot 4", "removed snapshot 3", "removed snapshot 2", "rolled back to snapshot 1") {
		t.Errorf("rollback to tag output:\n%s", got)
	}
}

func TestMaintenanceUsageErrors(t *testing.T) {
	dir := fixture.Dir(t, dvTable)
	for _, args := range [][]string{
		{"expire"},
		{"expire", "--older-than", "soon", dir},
		{"expire", "--retain-min", "-1", dir},
		{"expire", "--retain-min", "0", dir},
		{"expire", "--retain-max", "0", dir},
		{"expire", "--max-deletes", "0", dir},
		{"expire", "--retain-min", "3", "--retain-max", "2", dir},
		{"expire", "--retain-min", "0", filepath.Join(t.TempDir(), "missing")},
		{"clean-orphans", "--older-than", "x", dir},
		{"rollback", dir},
		{"rollback", "--to", "2", "--tag", "t", dir},
		{"rollback", "--to", "0", dir},
		{"tag", "create", dir},
		{"tag", "delete", dir, "a", "b"},
		{"tag", "create", "--snapshot", "0", dir, "x"},
		{"tag", "create", "--time-retained", "forever", dir, "x"},
	} {
		_, err := run(t, args...)
		var u usageError
		if !errors.As(err, &u) {
			t.Errorf("paimon %v: err = %v, want a usage error", args, err)
		}
	}
}

// TestExpireRetainFlags: a given --retain-min overrides the table option
// (default 10, which would keep all six snapshots), also at 1, its
// smallest value; 0 is a usage error (Java: snapshot.num-retained.min
// should be at least 1), not the default.
func TestExpireRetainFlags(t *testing.T) {
	dir := fixture.Copy(t, dvTable)
	if got := mustRun(t, "expire", "--dry-run", dir); got != "no snapshot expired; earliest snapshot is 1\n" {
		t.Errorf("expire with the table options printed:\n%s", got)
	}
	for flag, want := range map[string]string{
		"--retain-min":  "--retain-min must be at least 1, got 0",
		"--retain-max":  "--retain-max must be at least 1, got 0",
		"--max-deletes": "--max-deletes must be at least 1, got 0",
	} {
		var u usageError
		if _, err := run(t, "expire", flag, "0", dir); !errors.As(err, &u) || err.Error() != want {
			t.Errorf("expire %s 0: err = %v, want usage error %q", flag, err, want)
		}
	}
	got := strings.Split(strings.TrimSpace(mustRun(t, "expire", "--retain-min", "1", "--max-deletes", "4", dir)), "\n")
	if l := got[len(got)-1]; l != "expired 4 snapshots (1 to 4); earliest snapshot is 5" {
		t.Errorf("expire --retain-min 1 --max-deletes 4: last line %q", l)
	}
	got = strings.Split(strings.TrimSpace(mustRun(t, "expire", "--retain-min", "1", dir)), "\n")
	if l := got[len(got)-1]; l != "expired 1 snapshots (5 to 5); earliest snapshot is 6" {
		t.Errorf("expire --retain-min 1: last line %q", l)
	}
}
