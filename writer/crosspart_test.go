package writer_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// crossTable creates a cross-partition upsert table: id INT primary key,
// partitioned by p INT (not in the key), bucket = -1, and value columns.
func crossTable(t *testing.T, opts map[string]string, values ...types.DataField) *catalog.Table {
	t.Helper()
	o := map[string]string{"bucket": "-1"}
	for k, v := range opts {
		o[k] = v
	}
	return newTable(t, "", catalog.Schema{
		Fields:        append([]types.DataField{{Name: "id", Type: types.Int().NotNull()}, {Name: "p", Type: types.Int()}}, values...),
		PartitionKeys: []string{"p"},
		PrimaryKeys:   []string{"id"},
		Options:       o,
	})
}

var kindField = arrow.Field{Name: writer.DefaultRowKindColumn, Type: arrow.BinaryTypes.String}

// withKinds appends "+I" to rows given without a kind.
func withKinds(rows [][]any, n int) [][]any {
	for i, r := range rows {
		if len(r) < n {
			rows[i] = append(r, "+I")
		}
	}
	return rows
}

// TestCrossPartitionDeduplicate: a key written with another partition
// moves (its old row is deleted, Java DeleteExistingProcessor), moves
// again, is deleted and inserted anew; a batch holding one key in three
// partitions keeps the last (Java's bulk load keeps the last row); each
// step is a new Write that bootstraps its key index from the table.
func TestCrossPartitionDeduplicate(t *testing.T) {
	tbl := crossTable(t, nil, types.DataField{Name: "v", Type: types.String()})
	fs := arrowFields(tbl.Schema, kindField)
	step := func(id int64, want []string, rows ...[]any) {
		t.Helper()
		writeCommit(t, tbl, "u", id, rec(t, fs, withKinds(rows, 4)...))
		equalRows(t, fmt.Sprint("after commit ", id), readRows(t, tbl.FileIO.URL()), sorted(want...))
	}
	step(1, []string{"1|1|a", "2|1|b", "3|2|c"},
		[]any{int32(1), int32(1), "a"}, []any{int32(2), int32(1), "b"}, []any{int32(3), int32(2), "c"})
	step(2, []string{"1|2|x", "2|1|b", "3|2|c2"},
		[]any{int32(1), int32(2), "x"}, []any{int32(3), int32(2), "c2"})
	step(3, []string{"1|3|y", "3|2|c2"},
		[]any{int32(1), int32(3), "y"}, []any{int32(2), int32(1), "b", "-D"})
	step(4, []string{"1|3|y", "2|2|z", "3|2|c2"},
		[]any{int32(2), int32(2), "z"})
	step(5, []string{"1|3|y", "2|2|z", "3|2|c2", "5|3|r"},
		[]any{int32(5), int32(1), "p"}, []any{int32(5), int32(2), "q"}, []any{int32(5), int32(3), "r"})
	// A key deleted with another partition: deleted in its own (Java
	// retracts it there and writes the DELETE into the given partition).
	step(6, []string{"1|3|y", "2|2|z", "5|3|r"},
		[]any{int32(3), int32(1), "c2", "-D"})
}

// TestCrossPartitionOneWrite: one Write committing twice keeps its key
// index between commits: a key it wrote moves in the second commit.
func TestCrossPartitionOneWrite(t *testing.T) {
	ctx := context.Background()
	tbl := crossTable(t, nil, types.DataField{Name: "v", Type: types.String()})
	fs := arrowFields(tbl.Schema)
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	c, err := commit.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i, rows := range [][][]any{
		{{int32(1), int32(1), "a"}, {int32(2), int32(1), "b"}},
		{{int32(1), int32(2), "x"}, {int32(2), int32(3), "y"}, {int32(2), int32(1), "z"}},
	} {
		r := rec(t, fs, rows...)
		if err := w.Write(ctx, r); err != nil {
			t.Fatal(err)
		}
		r.Release()
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Commit(ctx, int64(i+1), msgs); err != nil {
			t.Fatal(err)
		}
	}
	equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), sorted("1|2|x", "2|1|z"))
}

// TestCrossPartitionBuckets: new keys of a partition fill bucket 0 up to
// dynamic-bucket.target-row-num, then bucket 1 (Java BucketAssigner); a
// key that moves out frees its place (BucketAssigner.decrement), and an
// updated key stays in its bucket.
func TestCrossPartitionBuckets(t *testing.T) {
	tbl := crossTable(t, map[string]string{"dynamic-bucket.target-row-num": "2"}, types.DataField{Name: "v", Type: types.String()})
	fs := arrowFields(tbl.Schema)
	writeCommit(t, tbl, "u", 1, rec(t, fs,
		[]any{int32(1), int32(1), "a"}, []any{int32(2), int32(1), "b"}, []any{int32(3), int32(1), "c"}))
	_, es := deltaEntries(t, tbl.FileIO, 1)
	if got := entryBuckets(es); got != "[p=1/0 p=1/1]" {
		t.Errorf("commit 1 buckets %s, want [p=1/0 p=1/1]", got)
	}
	// 1 leaves bucket 0 (a DELETE there) for p=2 bucket 0; 4 takes its
	// place in bucket 0 of p=1; 3 is updated in bucket 1.
	writeCommit(t, tbl, "u", 2, rec(t, fs,
		[]any{int32(1), int32(2), "x"}, []any{int32(4), int32(1), "d"}, []any{int32(3), int32(1), "c2"}))
	_, es = deltaEntries(t, tbl.FileIO, 2)
	if got := entryBuckets(es); got != "[p=1/0 p=1/1 p=2/0]" {
		t.Errorf("commit 2 buckets %s, want [p=1/0 p=1/1 p=2/0]", got)
	}
	equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), sorted("1|2|x", "2|1|b", "3|1|c2", "4|1|d"))
}

// entryBuckets lists the partition-buckets of entries of a table
// partitioned by one INT.
func entryBuckets(es []manifest.Entry) string {
	var out []string
	for _, e := range es {
		vals := must(row.Decode([]types.DataType{types.Int()}, must(row.Deserialize(e.Partition))))
		out = append(out, fmt.Sprintf("p=%v/%d", vals[0], e.Bucket))
	}
	return fmt.Sprint(out)
}

// TestCrossPartitionPartialUpdate: partial-update and aggregation write a
// key given with another partition into its old partition-bucket with the
// old partition's values (Java UseOldExistingProcessor), also within one
// batch (Java's bulk load puts every row of a key in its first row's
// partition).
func TestCrossPartitionPartialUpdate(t *testing.T) {
	tbl := crossTable(t, map[string]string{"merge-engine": "partial-update"},
		types.DataField{Name: "a", Type: types.String()}, types.DataField{Name: "b", Type: types.String()})
	fs := arrowFields(tbl.Schema)
	writeCommit(t, tbl, "u", 1, rec(t, fs, []any{int32(1), int32(1), "a1", nil}))
	writeCommit(t, tbl, "u", 2, rec(t, fs, []any{int32(1), int32(2), nil, "b2"},
		[]any{int32(5), int32(3), "x", nil}, []any{int32(5), int32(2), nil, "y"}, []any{int32(5), int32(1), "x2", nil}))
	equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), sorted("1|1|a1|b2", "5|3|x2|y"))

	agg := crossTable(t, map[string]string{"merge-engine": "aggregation", "fields.n.aggregate-function": "sum"},
		types.DataField{Name: "n", Type: types.BigInt()})
	fs = arrowFields(agg.Schema)
	writeCommit(t, agg, "u", 1, rec(t, fs, []any{int32(1), int32(1), int64(10)}, []any{int32(1), int32(2), int64(5)}))
	writeCommit(t, agg, "u", 2, rec(t, fs, []any{int32(1), int32(3), int64(1)}, []any{int32(2), int32(3), int64(7)}))
	equalRows(t, "aggregation rows", readRows(t, agg.FileIO.URL()), sorted("1|1|16", "2|3|7"))
}

// TestCrossPartitionFirstRow: first-row drops a row whose key lives in
// another partition (Java SkipNewExistingProcessor), also within one batch.
func TestCrossPartitionFirstRow(t *testing.T) {
	tbl := crossTable(t, map[string]string{"merge-engine": "first-row"}, types.DataField{Name: "v", Type: types.String()})
	fs := arrowFields(tbl.Schema)
	writeCommit(t, tbl, "u", 1, rec(t, fs, []any{int32(1), int32(1), "a"}, []any{int32(5), int32(2), "p"}, []any{int32(5), int32(1), "q"}))
	writeCommit(t, tbl, "u", 2, rec(t, fs, []any{int32(1), int32(2), "b"}, []any{int32(1), int32(1), "c"}, []any{int32(2), int32(2), "d"}))
	equalRows(t, "rows", readRows(t, tbl.FileIO.URL()), sorted("1|1|a", "2|2|d", "5|2|p"))
}

// openCross returns a Write of tbl as user that has written rows (so its
// key index is bootstrapped now), and a Committer.
func openCross(t *testing.T, tbl *catalog.Table, user string, rows ...[]any) (*writer.Write, *commit.Committer) {
	t.Helper()
	ctx := context.Background()
	w, err := writer.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	c, err := commit.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	r := rec(t, arrowFields(tbl.Schema), rows...)
	defer r.Release()
	if err := w.Write(ctx, r); err != nil {
		t.Fatal(err)
	}
	return w, c
}

func commitWrite(t *testing.T, w *writer.Write, c *commit.Committer, id int64) error {
	t.Helper()
	msgs, err := w.PrepareCommit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Commit(context.Background(), id, msgs)
	return err
}

// TestCrossPartitionConcurrentWriters: Writes bootstrapped from the same
// snapshot commit as separate users, one after another. Deduplicate: a key
// the first moved and the second put elsewhere, and a new key both put in
// different partitions, end where the later commit put them (the commit
// retracts the other writer's placement, as Java would have had the
// writes run in commit order); keys the first did not touch are untouched.
func TestCrossPartitionConcurrentWriters(t *testing.T) {
	tbl := crossTable(t, nil, types.DataField{Name: "v", Type: types.String()})
	writeCommit(t, tbl, "u0", 1, rec(t, arrowFields(tbl.Schema), []any{int32(1), int32(1), "a"}, []any{int32(2), int32(1), "b"}))
	w1, c1 := openCross(t, tbl, "u1", []any{int32(1), int32(2), "x"}, []any{int32(8), int32(1), "n1"})
	w2, c2 := openCross(t, tbl, "u2", []any{int32(1), int32(3), "y"}, []any{int32(8), int32(2), "n2"})
	w3, c3 := openCross(t, tbl, "u3", []any{int32(2), int32(1), "b3"}, []any{int32(7), int32(1), "g"})
	if err := commitWrite(t, w1, c1, 1); err != nil {
		t.Fatal(err)
	}
	equalRows(t, "after writer 1", readRows(t, tbl.FileIO.URL()), sorted("1|2|x", "2|1|b", "8|1|n1"))
	if err := commitWrite(t, w2, c2, 1); err != nil {
		t.Fatalf("writer 2 commit = %v", err)
	}
	equalRows(t, "after writer 2", readRows(t, tbl.FileIO.URL()), sorted("1|3|y", "2|1|b", "8|2|n2"))
	if err := commitWrite(t, w3, c3, 1); err != nil {
		t.Fatalf("writer 3 (other keys) commit = %v", err)
	}
	equalRows(t, "after writer 3", readRows(t, tbl.FileIO.URL()), sorted("1|3|y", "2|1|b3", "7|1|g", "8|2|n2"))
	// Writer 1 again, its key index refreshed to the latest snapshot (1 is
	// in p=3, where writer 2 put it): it moves 1 back to p=2, deleting it
	// in p=3.
	r := rec(t, arrowFields(tbl.Schema), []any{int32(1), int32(2), "x2"})
	if err := w1.Write(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	r.Release()
	if err := commitWrite(t, w1, c1, 2); err != nil {
		t.Fatal(err)
	}
	equalRows(t, "after writer 1 again", readRows(t, tbl.FileIO.URL()), sorted("1|2|x2", "2|1|b3", "7|1|g", "8|2|n2"))
}

// resolveCase is two Writes bootstrapped from the same snapshot, each
// writing rows, committed in both orders.
type resolveCase struct {
	name         string
	opts         map[string]string
	values       []types.DataField
	rows1, rows2 [][]any
	// want1 are the table's rows when writer 1 commits first, want2 when
	// writer 2 does.
	want1, want2 []string
}

// runResolve commits the Writes of c in both orders and checks the rows
// after each commit; first is the writer that commits first.
func runResolve(t *testing.T, c resolveCase) {
	for first := 1; first <= 2; first++ {
		t.Run(fmt.Sprintf("%s/writer%dFirst", c.name, first), func(t *testing.T) {
			tbl := crossTable(t, c.opts, c.values...)
			w1, c1 := openCross(t, tbl, "u1", c.rows1...)
			w2, c2 := openCross(t, tbl, "u2", c.rows2...)
			ws := []*writer.Write{w1, w2}
			cs := []*commit.Committer{c1, c2}
			if first == 2 {
				ws[0], ws[1], cs[0], cs[1] = w2, w1, c2, c1
			}
			if err := commitWrite(t, ws[0], cs[0], 1); err != nil {
				t.Fatal(err)
			}
			if err := commitWrite(t, ws[1], cs[1], 1); err != nil {
				t.Fatalf("second commit = %v", err)
			}
			want := c.want1
			if first == 2 {
				want = c.want2
			}
			// All levels: a first-row table's batch read skips level 0,
			// which holds the second writer's files until it compacts
			// (its compaction of the commit was refused: the files it
			// read were replaced).
			equalRows(t, "rows", readRows(t, tbl.FileIO.URL(), reader.WithAllLevels()), want)
		})
	}
}

// TestCrossPartitionConcurrentResolved: partial-update, aggregation and
// first-row tables: two writers both put key 1 as a new key into different
// partitions. The commit that comes second is resolved, not refused (the
// old behaviour was commit.ErrKeyIndexStale): the first committed
// placement wins, as with one Java GlobalIndexAssigner taking the writes
// in commit order. Partial-update and aggregation move the second
// writer's rows of the key into the first one's partition-bucket, with
// its partition value, merged after the rows there (UseOldExistingProcessor);
// first-row drops them (SkipNewExistingProcessor); other keys stay where
// they were written. A partition holds no row of a key moved out of it.
func TestCrossPartitionConcurrentResolved(t *testing.T) {
	pu := []types.DataField{{Name: "a", Type: types.String()}, {Name: "b", Type: types.String()}}
	for _, c := range []resolveCase{{
		name: "partial-update", opts: map[string]string{"merge-engine": "partial-update"}, values: pu,
		rows1: [][]any{{int32(1), int32(1), "a1", "b1"}},
		rows2: [][]any{{int32(1), int32(2), "a2", nil}, {int32(2), int32(2), "x", nil}},
		want1: sorted("1|1|a2|b1", "2|2|x|(null)"),
		want2: sorted("1|2|a1|b1", "2|2|x|(null)"),
	}, {
		name: "aggregation", opts: map[string]string{"merge-engine": "aggregation", "fields.n.aggregate-function": "sum"},
		values: []types.DataField{{Name: "n", Type: types.BigInt()}},
		rows1:  [][]any{{int32(1), int32(1), int64(10)}, {int32(3), int32(1), int64(1)}},
		rows2:  [][]any{{int32(1), int32(2), int64(5)}, {int32(2), int32(2), int64(7)}},
		want1:  sorted("1|1|15", "2|2|7", "3|1|1"),
		want2:  sorted("1|2|15", "2|2|7", "3|1|1"),
	}, {
		name: "first-row", opts: map[string]string{"merge-engine": "first-row"},
		values: []types.DataField{{Name: "v", Type: types.String()}},
		rows1:  [][]any{{int32(1), int32(1), "a"}},
		rows2:  [][]any{{int32(1), int32(2), "b"}, {int32(4), int32(2), "d"}},
		want1:  sorted("1|1|a", "4|2|d"),
		want2:  sorted("1|2|b", "4|2|d"),
	}} {
		runResolve(t, c)
	}
}

// TestCrossPartitionResolvedThenWrite: after a resolved commit the
// writer's key index follows the other writer's placement: its next row of
// the key goes to that partition-bucket.
func TestCrossPartitionResolvedThenWrite(t *testing.T) {
	ctx := context.Background()
	tbl := crossTable(t, map[string]string{"merge-engine": "partial-update"},
		types.DataField{Name: "a", Type: types.String()}, types.DataField{Name: "b", Type: types.String()})
	w1, c1 := openCross(t, tbl, "u1", []any{int32(1), int32(1), "a1", nil})
	w2, c2 := openCross(t, tbl, "u2", []any{int32(1), int32(2), nil, "b2"})
	if err := commitWrite(t, w1, c1, 1); err != nil {
		t.Fatal(err)
	}
	if err := commitWrite(t, w2, c2, 1); err != nil {
		t.Fatal(err)
	}
	equalRows(t, "after writer 2", readRows(t, tbl.FileIO.URL()), sorted("1|1|a1|b2"))
	r := rec(t, arrowFields(tbl.Schema), []any{int32(1), int32(2), "a3", nil})
	if err := w2.Write(ctx, r); err != nil {
		t.Fatal(err)
	}
	r.Release()
	if err := commitWrite(t, w2, c2, 2); err != nil {
		t.Fatal(err)
	}
	equalRows(t, "after writer 2 again", readRows(t, tbl.FileIO.URL()), sorted("1|1|a3|b2"))
}

// TestCrossPartitionBootstrapCorrupt: a truncated data file fails the
// key index bootstrap of a new Write with format.ErrCorrupt naming the
// file, and nothing is written.
func TestCrossPartitionBootstrapCorrupt(t *testing.T) {
	ctx := context.Background()
	tbl := crossTable(t, nil, types.DataField{Name: "v", Type: types.String()})
	fs := arrowFields(tbl.Schema)
	writeCommit(t, tbl, "u", 1, rec(t, fs, []any{int32(1), int32(1), "a"}))
	_, es := deltaEntries(t, tbl.FileIO, 1)
	path := "p=1/bucket-0/" + es[0].File.FileName
	data, err := tbl.FileIO.ReadFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := tbl.FileIO.Delete(ctx, path); err != nil {
		t.Fatal(err)
	}
	if err := tbl.FileIO.WriteFile(ctx, path, data[:len(data)/2]); err != nil {
		t.Fatal(err)
	}
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r := rec(t, fs, []any{int32(1), int32(2), "b"})
	defer r.Release()
	err = w.Write(ctx, r)
	if !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), es[0].File.FileName) || !strings.Contains(err.Error(), "key index") {
		t.Fatalf("Write = %v, want format.ErrCorrupt from the key index naming %s", err, es[0].File.FileName)
	}
	if msgs, err := w.PrepareCommit(ctx); err != nil || len(msgs) != 0 {
		t.Errorf("PrepareCommit after the failed Write = %d messages, %v; want none", len(msgs), err)
	}
}

// TestCrossPartitionExpiredRange: when a snapshot committed after the
// Write's key index bootstrap has expired, its keys are unknown: the
// commit fails with commit.ErrKeyIndexStale naming the snapshot and
// publishes nothing.
func TestCrossPartitionExpiredRange(t *testing.T) {
	ctx := context.Background()
	tbl := crossTable(t, nil, types.DataField{Name: "v", Type: types.String()})
	writeCommit(t, tbl, "u0", 1, rec(t, arrowFields(tbl.Schema), []any{int32(1), int32(1), "a"}))
	w2, c2 := openCross(t, tbl, "u2", []any{int32(1), int32(3), "y"})
	writeCommit(t, tbl, "u1", 1, rec(t, arrowFields(tbl.Schema), []any{int32(2), int32(2), "b"}))
	writeCommit(t, tbl, "u1", 2, rec(t, arrowFields(tbl.Schema), []any{int32(3), int32(2), "c"}))
	if _, err := expire.Expire(ctx, tbl.FileIO, tbl.Schema, expire.Options{RetainMin: 1, RetainMax: 1, OlderThan: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	before := readRows(t, tbl.FileIO.URL())
	err := commitWrite(t, w2, c2, 1)
	if !errors.Is(err, commit.ErrKeyIndexStale) || !strings.Contains(err.Error(), "snapshot 2") {
		t.Fatalf("commit = %v, want ErrKeyIndexStale naming snapshot 2", err)
	}
	equalRows(t, "after the refused commit", readRows(t, tbl.FileIO.URL()), before)
}

// TestCrossPartitionRoute: Route (the real-time layer's routing) refuses
// cross-partition upsert tables with ErrUnsupportedBucketMode instead of
// routing every row to bucket 0 without the key index.
func TestCrossPartitionRoute(t *testing.T) {
	tbl := crossTable(t, nil, types.DataField{Name: "v", Type: types.String()})
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r := rec(t, arrowFields(tbl.Schema), []any{int32(1), int32(1), "a"})
	defer r.Release()
	if _, err := w.Route(context.Background(), r, false); !errors.Is(err, writer.ErrUnsupportedBucketMode) {
		t.Fatalf("Route = %v, want ErrUnsupportedBucketMode", err)
	}
}

// TestCrossPartitionSequenceGrowth: two long-lived writers keep putting key
// 1 in different partitions (each commit retracts the other's placement)
// while writing new keys into the partition-bucket they retract in. The
// retraction takes the sequence numbers of the commit's other files there,
// so sequence numbers grow with the rows written: a retraction at 0 made
// the re-sequencing shift the commit's other files by the bucket's whole
// range again on every commit (the highest number doubled per round, and
// after about 60 commits the shift left [0, 2^63)).
func TestCrossPartitionSequenceGrowth(t *testing.T) {
	ctx := context.Background()
	tbl := crossTable(t, nil, types.DataField{Name: "v", Type: types.String()})
	fs := arrowFields(tbl.Schema)
	writeCommit(t, tbl, "u0", 1, rec(t, fs, []any{int32(1), int32(1), "seed"}))
	// Writer 1 keeps key 1 in p=1 and adds keys to p=2; writer 2 keeps it
	// in p=2 and adds keys to p=1.
	const rounds = 20
	w1, c1 := openCross(t, tbl, "u1")
	w2, c2 := openCross(t, tbl, "u2")
	want := map[string]bool{}
	for r := range int32(rounds) {
		for _, wc := range []struct {
			w     *writer.Write
			c     *commit.Committer
			own   int32 // partition this writer puts key 1 in
			other int32
			base  int32
		}{{w1, c1, 1, 2, 100}, {w2, c2, 2, 1, 200}} {
			v := fmt.Sprintf("r%d", r)
			b := rec(t, fs, []any{int32(1), wc.own, v}, []any{wc.base + r, wc.other, v})
			if err := wc.w.Write(ctx, b); err != nil {
				t.Fatal(err)
			}
			b.Release()
			if err := commitWrite(t, wc.w, wc.c, int64(r)+1); err != nil {
				t.Fatalf("round %d, writer with key 1 in p=%d: %v", r, wc.own, err)
			}
			want[fmt.Sprintf("%d|%d|%s", wc.base+r, wc.other, v)] = true
		}
	}
	rows := []string{fmt.Sprintf("1|2|r%d", rounds-1)}
	for k := range want {
		rows = append(rows, k)
	}
	equalRows(t, "after the rounds", readRows(t, tbl.FileIO.URL()), sorted(rows...))
	latest, err := snapshot.NewManager(tbl.FileIO).LatestID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var maxSeq int64
	for id := int64(1); id <= latest; id++ {
		_, es := deltaEntries(t, tbl.FileIO, id)
		for _, e := range es {
			if e.Kind == manifest.Add {
				maxSeq = max(maxSeq, e.File.MaxSequenceNumber)
			}
		}
	}
	// Rows written: 1 + 4 per round, plus one retraction per commit.
	if bound := int64(1+4*rounds) + latest; maxSeq > bound {
		t.Errorf("highest sequence number %d, want at most rows + snapshots = %d", maxSeq, bound)
	}
}

// TestCrossPartitionIndexTTL: with cross-partition-upsert.index-ttl, a new
// Write's key index skips the partition-buckets none of whose files was
// created within the TTL (Java IndexBootstrap.filterSplit): a key of such
// a bucket counts as new and is written again in its row's partition
// without retracting the old row (the duplication Java documents), while
// a key of a fresh bucket moves (deduplicate). Without the option both
// keys move.
func TestCrossPartitionIndexTTL(t *testing.T) {
	ctx := context.Background()
	t0 := time.Now()
	for _, c := range []struct {
		opts map[string]string
		want []string
	}{
		{map[string]string{"cross-partition-upsert.index-ttl": "1 h"}, sorted("1|1|a", "1|3|x", "2|3|y")},
		{nil, sorted("1|3|x", "2|3|y")},
	} {
		tbl := crossTable(t, c.opts, types.DataField{Name: "v", Type: types.String()})
		fs := arrowFields(tbl.Schema)
		step := func(user string, id int64, at time.Time, rows ...[]any) {
			t.Helper()
			w, err := writer.New(tbl.FileIO, tbl.Schema, user)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			writer.SetNow(w, func() time.Time { return at })
			cm, err := commit.New(tbl.FileIO, tbl.Schema, user)
			if err != nil {
				t.Fatal(err)
			}
			defer cm.Close()
			r := rec(t, fs, rows...)
			defer r.Release()
			if err := w.Write(ctx, r); err != nil {
				t.Fatal(err)
			}
			if err := commitWrite(t, w, cm, id); err != nil {
				t.Fatal(err)
			}
		}
		step("u1", 1, t0.Add(-3*time.Hour), []any{int32(1), int32(1), "a"})
		step("u2", 1, t0.Add(-30*time.Minute), []any{int32(2), int32(2), "b"})
		step("u3", 1, t0, []any{int32(1), int32(3), "x"}, []any{int32(2), int32(3), "y"})
		equalRows(t, fmt.Sprintf("rows with %v", c.opts), readRows(t, tbl.FileIO.URL()), c.want)
	}
}
