package writer_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/writer"
)

// changelogRows reads a changelog (or data) file of bucket 0 in the
// key-value layout as "_KEY_k|_SEQUENCE_NUMBER|_VALUE_KIND|k|v" rows, in
// file order.
func changelogRows(t *testing.T, tbl *catalog.Table, f manifest.DataFileMeta) []string {
	t.Helper()
	var out []string
	for b, err := range reader.ReadDataFile(context.Background(), tbl.FileIO, "bucket-0/"+f.FileName, tbl.Schema,
		datafile.KeyValueFields(tbl.Schema), reader.FileReadOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		for i := range int(b.NumRows()) {
			var cols []string
			for _, c := range b.Columns() {
				cols = append(cols, c.ValueStr(i))
			}
			out = append(out, strings.Join(cols, "|"))
		}
		b.Release()
	}
	return out
}

// writeOps writes ops with w and returns PrepareCommit's one message.
func writeOps(t *testing.T, w *writer.Write, tbl *catalog.Table, ops ...kvOp) commit.Message {
	t.Helper()
	ctx := context.Background()
	r := kvRecord(t, tbl, ops)
	defer r.Release()
	if err := w.Write(ctx, r); err != nil {
		t.Fatal(err)
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 {
		t.Fatalf("%d messages, want 1", len(msgs))
	}
	return msgs[0]
}

// TestInputChangelog: with changelog-producer = input every flush writes
// its input records, unmerged, with their row kinds and sequence numbers,
// sorted by key then sequence number, to a level-0 changelog file
// changelog-<uuid>-<n> of the bucket writer's uuid and file counter
// (MergeTreeWriter.flushWriteBuffer: the changelog file is opened before
// the data file); the committer puts it into the snapshot's changelog.
func TestInputChangelog(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		opts map[string]string
		ext  string
	}{
		{map[string]string{}, "parquet"},
		{map[string]string{"deletion-vectors.enabled": "true"}, "parquet"},
		{map[string]string{"changelog-file.format": "avro", "changelog-file.stats-mode": "none"}, "avro"},
	} {
		t.Run(fmt.Sprint(tc.opts), func(t *testing.T) {
			o := map[string]string{"changelog-producer": "input"}
			for k, v := range tc.opts {
				o[k] = v
			}
			tbl := kvTable(t, o)
			w, err := writer.New(tbl.FileIO, tbl.Schema, "u")
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			// An update of key 1 within the batch (+I, -U, +U) is kept as
			// input; key 3 is deleted without ever existing.
			m := writeOps(t, w, tbl, kvOp{0, 2, "a"}, kvOp{0, 1, "a"}, kvOp{1, 1, "a"}, kvOp{2, 1, "b"}, kvOp{3, 3, "x"})
			if len(m.Data.ChangelogFiles) != 1 || len(m.Data.NewFiles) != 1 {
				t.Fatalf("message: %d changelog files, %d data files; want 1 and 1", len(m.Data.ChangelogFiles), len(m.Data.NewFiles))
			}
			cl, data := m.Data.ChangelogFiles[0], m.Data.NewFiles[0]
			re := regexp.MustCompile(`^changelog-([0-9a-f-]{36})-0\.` + tc.ext + `$`)
			sub := re.FindStringSubmatch(cl.FileName)
			if sub == nil {
				t.Fatalf("changelog file %s, want changelog-<uuid>-0.%s", cl.FileName, tc.ext)
			}
			wantData := "data-" + sub[1] + "-1.parquet"
			if tc.ext != "parquet" {
				// Another format: its own path factory (uuid, counter).
				wantData = ""
			}
			if wantData != "" && data.FileName != wantData {
				t.Errorf("data file %s, want %s", data.FileName, wantData)
			}
			if cl.Level != 0 || cl.FileSource == nil || *cl.FileSource != manifest.SourceAppend || cl.RowCount != 5 ||
				cl.MinSequenceNumber != 0 || cl.MaxSequenceNumber != 4 || cl.DeleteRowCount == nil || *cl.DeleteRowCount != 2 ||
				cl.SchemaID != 0 {
				t.Errorf("changelog meta: level %d source %v rows %d seq %d..%d deletes %v schema %d",
					cl.Level, cl.FileSource, cl.RowCount, cl.MinSequenceNumber, cl.MaxSequenceNumber, cl.DeleteRowCount, cl.SchemaID)
			}
			want := []string{"1|1|0|1|a", "1|2|1|1|a", "1|3|2|1|b", "2|0|0|2|a", "3|4|3|3|x"}
			if got := changelogRows(t, tbl, cl); !slices.Equal(got, want) {
				t.Errorf("changelog rows\n got %q\nwant %q", got, want)
			}
			if got, want := changelogRows(t, tbl, data), []string{"1|3|2|1|b", "2|0|0|2|a", "3|4|3|3|x"}; !slices.Equal(got, want) {
				t.Errorf("data rows\n got %q\nwant %q", got, want)
			}
			c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Commit(ctx, 1, []commit.Message{m}); err != nil {
				t.Fatal(err)
			}
			// The next commit's changelog continues the sequence numbers.
			m2 := writeOps(t, w, tbl, kvOp{2, 2, "c"}, kvOp{3, 1, "b"})
			if len(m2.Data.ChangelogFiles) != 1 {
				t.Fatalf("second message: %d changelog files", len(m2.Data.ChangelogFiles))
			}
			if got, want := changelogRows(t, tbl, m2.Data.ChangelogFiles[0]), []string{"1|6|3|1|b", "2|5|2|2|c"}; !slices.Equal(got, want) {
				t.Errorf("second changelog rows\n got %q\nwant %q", got, want)
			}
			if _, err := c.Commit(ctx, 2, []commit.Message{m2}); err != nil {
				t.Fatal(err)
			}
			snaps, err := snapshot.NewManager(tbl.FileIO).List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var counts []string
			for _, s := range snaps {
				n := "nil"
				if s.ChangelogRecordCount != nil {
					n = fmt.Sprint(*s.ChangelogRecordCount)
				}
				counts = append(counts, string(s.CommitKind)+":"+n)
			}
			// Deletion-vector tables compact level 0 away at once: their
			// COMPACT snapshots carry no changelog (input writes none).
			wantCounts := "APPEND:5,APPEND:2"
			if tc.opts["deletion-vectors.enabled"] == "true" {
				wantCounts = "APPEND:5,COMPACT:nil,APPEND:2,COMPACT:nil"
			}
			if got := strings.Join(counts, ","); got != wantCounts {
				t.Errorf("snapshots %s, want %s", got, wantCounts)
			}
			if got, want := readRows(t, tbl.FileIO.URL()), []string{"2|c"}; !slices.Equal(got, want) {
				t.Errorf("table rows %q, want %q", got, want)
			}
		})
	}
}

// TestInputChangelogFlushes: with a 1-byte write buffer every batch is
// spilled (or, with spilling off, flushed as its own level-0 files); the
// changelog files of all flushes hold every input record exactly once with
// its kind and sequence number, each file sorted by key then sequence
// number, and the table reads as the deduplicate oracle.
func TestInputChangelogFlushes(t *testing.T) {
	ctx := context.Background()
	for _, spill := range []string{"true", "false"} {
		t.Run("spillable="+spill, func(t *testing.T) {
			tbl := kvTable(t, map[string]string{"changelog-producer": "input", "write-buffer-size": "1 b", "write-buffer-spillable": spill})
			w, err := writer.New(tbl.FileIO, tbl.Schema, "u", writer.WithSpillDir(t.TempDir()))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			batches := kvBatches()
			var want []string
			seq := 0
			for _, b := range batches {
				r := kvRecord(t, tbl, b)
				if err := w.Write(ctx, r); err != nil {
					t.Fatal(err)
				}
				r.Release()
				for _, op := range b {
					want = append(want, fmt.Sprintf("%d|%d|%d|%d|%s", op.k, seq, op.kind, op.k, op.v))
					seq++
				}
			}
			msgs, err := w.PrepareCommit(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range msgs[0].Data.ChangelogFiles {
				rows := changelogRows(t, tbl, f)
				sortedByKeySeq := slices.IsSortedFunc(rows, func(a, b string) int {
					var ka, sa, kb, sb int
					fmt.Sscanf(a, "%d|%d", &ka, &sa)
					fmt.Sscanf(b, "%d|%d", &kb, &sb)
					if ka != kb {
						return ka - kb
					}
					return sa - sb
				})
				if !sortedByKeySeq {
					t.Errorf("changelog file %s is not sorted by key and sequence number", f.FileName)
				}
				got = append(got, rows...)
			}
			slices.Sort(got)
			slices.Sort(want)
			equalRows(t, "changelog rows", got, want)
			if spill == "false" && len(msgs[0].Data.ChangelogFiles) < 2 {
				t.Errorf("%d changelog files, want one per flush", len(msgs[0].Data.ChangelogFiles))
			}
			c, _ := commit.New(tbl.FileIO, tbl.Schema, "u")
			defer c.Close()
			if _, err := c.Commit(ctx, 1, msgs); err != nil {
				t.Fatal(err)
			}
			equalRows(t, "table rows", readRows(t, tbl.FileIO.URL()), dedupOracle(batches...))
		})
	}
}
