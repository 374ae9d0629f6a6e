package realtime_test

import (
	"context"
	"iter"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/writer"
)

// scKV is one primary-key input row (id, payload, pt, kind).
func scKV(id int64, payload any, kind string) []any {
	return []any{id, payload, "x", kind}
}

// Scenario 46 (TestPkDeleteInsertAndPinnedReadsAcrossRefresh), adapted:
// besides key 1 (-D then +I in memory, prepared, not committed) the disk
// holds key 0, untouched, so that the pinned reader can be started (its
// first batch of one row taken) before the commit and refresh. Both the
// pinned plan and the pinned reader yield the inserted version of key 1.
func TestScenario46PkDeleteInsertPinnedAcrossRefresh(t *testing.T) {
	tbl := newFooTable(t, []string{"id"}, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, kindRows(t, scKV(0, "zero", "+I"), scKV(1, "one", "+I")))
	id := commitProg(t, cm, prepare(t, w, 1), 1)
	refresh(t, rc, id)
	write(t, w, kindRows(t, scKV(1, "one", "-D")))
	write(t, w, kindRows(t, scKV(1, "inserted", "+I")))
	prog := prepare(t, w, 2)
	equal(t, "ranges", ranges(prog), []string{"{}/bucket-0[2,4)"})
	want := []string{"0|zero|x", "1|inserted|x"}

	pinnedPlan := plan(t, rc)
	readerPlan := plan(t, rc, reader.WithBatchSize(1))
	next, stop := iter.Pull2(readerPlan.Records(context.Background()))
	defer stop()
	rec, err, ok := next()
	if !ok || err != nil {
		t.Fatalf("first batch: %v %v", ok, err)
	}
	fromReader := recStrings(rec)
	rec.Release()

	id = commitProg(t, cm, prog, 2)
	refresh(t, rc, id)
	scUsageZero(t, rc, "after refresh")
	for {
		rec, err, ok := next()
		if !ok {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		fromReader = append(fromReader, recStrings(rec)...)
		rec.Release()
	}
	equal(t, "pinned reader", fromReader, want)
	equal(t, "pinned plan", readPlan(t, pinnedPlan), want)
	equal(t, "new plan", scanRows(t, rc), want)
	equal(t, "plain read", diskRows(t, tbl), want)
}

// Scenario 47 (TestPkMergeDiskSealedAndActive): with a read batch size of
// 2 (the scan's and the table's read.batch-size) the union read comes in
// several chunks of at most 2 rows and merges two disk snapshots, a sealed
// segment and the building segment.
func TestScenario47PkMergeDiskSealedAndActive(t *testing.T) {
	tbl := newFooTable(t, []string{"id"}, nil, map[string]string{"read.batch-size": "2"})
	rc, spy := scSpyContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, kindRows(t, scKV(1, "disk-1", "+I"), scKV(3, "disk-3", "+I"), scKV(5, "disk-5", "+I")))
	commitProg(t, cm, prepare(t, w, 1), 1)
	write(t, w, kindRows(t, scKV(10, "disk-10", "+I"), scKV(11, "disk-11", "+I")))
	id := commitProg(t, cm, prepare(t, w, 2), 2)
	refresh(t, rc, id)
	write(t, w, kindRows(t, scKV(5, "sealed-5", "+U"), scKV(1, "sealed-1", "+U")))
	sealed := prepare(t, w, 3)
	equal(t, "sealed range", ranges(sealed), []string{"{}/bucket-0[5,7)"})
	write(t, w, kindRows(t, scKV(1, "active-1", "+U"), scKV(5, "active-5", "+U")))
	spy.reset()
	p := plan(t, rc, reader.WithBatchSize(2))
	equal(t, "splits", splitInfos(p), []string{"rt {}/bucket-0 disk=1 snap=" + itoa(id) + " C=5 M=9"})
	if n := len(p.Splits[0].Disk[0].Files); n != 2 {
		t.Fatalf("%d disk files, want the 2 of the two snapshots", n)
	}
	rows, sizes := scReadPlan(t, p)
	equal(t, "merged", rows, []string{"1|active-1|x", "3|disk-3|x", "5|active-5|x", "10|disk-10|x", "11|disk-11|x"})
	if len(sizes) < 3 || slices.Max(sizes) > 2 {
		t.Fatalf("chunk sizes %v: want several chunks of at most 2 rows", sizes)
	}
	spy.mu.Lock()
	defer spy.mu.Unlock()
	for _, q := range spy.queries {
		if q.BatchSize != 2 {
			t.Errorf("store query batch size %d, want 2", q.BatchSize)
		}
	}
	if len(spy.batches) == 0 || slices.Max(spy.batches) > 2 {
		t.Errorf("store batches %v: want at most 2 rows each", spy.batches)
	}
}

// Scenario 48 (TestPkMergeAllDiskSplitsWithMemory), adapted: our planner
// makes one disk split per partition-bucket (no split target size), so
// "three disk splits folded into one real-time split" becomes three
// level-0 files (three commits) read by the one real-time split together
// with the memory rows.
func TestScenario48PkMergeAllDiskFilesWithMemory(t *testing.T) {
	tbl := newFooTable(t, []string{"id"}, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	var id int64
	for i, keys := range [][]int64{{1, 2}, {10, 11}, {20, 21}} {
		rows := make([][]any, len(keys))
		for j, k := range keys {
			rows[j] = scKV(k, "value-"+itoa(k), "+I")
		}
		write(t, w, kindRows(t, rows...))
		id = commitProg(t, cm, prepare(t, w, int64(i+1)), int64(i+1))
	}
	refresh(t, rc, id)
	write(t, w, kindRows(t, scKV(1, "memory-1", "+U"), scKV(10, "value-10", "-D")))
	p := plan(t, rc)
	equal(t, "splits", splitInfos(p), []string{"rt {}/bucket-0 disk=1 snap=" + itoa(id) + " C=6 M=8"})
	var levels []int32
	for _, f := range p.Splits[0].Disk[0].Files {
		levels = append(levels, f.Level)
	}
	equal(t, "disk file levels", levels, []int32{0, 0, 0})
	want := []string{"1|memory-1|x", "2|value-2|x", "11|value-11|x", "20|value-20|x", "21|value-21|x"}
	equal(t, "merged", readPlan(t, p), want)
	id = commitProg(t, cm, prepare(t, w, 4), 4)
	refresh(t, rc, id)
	equal(t, "plain read", scDiskRows(t, tbl), want)
}

// Scenario 49 (TestPkNestedProjectionAcrossDiskAndMemory), adapted: our
// projection selects top-level columns, so the test projects (id,
// profile) and checks profile.address.city: the newest version per key
// across disk, the sealed and the building segment, with a null nested
// value preserved.
func TestScenario49PkNestedAcrossDiskAndMemory(t *testing.T) {
	fields := scNestedFields(true)
	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: fields, PrimaryKeys: []string{"id"}, Options: tableOpts(nil)})
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	kind := []arrow.Field{kindField}
	row := func(id int64, name, city any, k string) []any {
		return []any{id, []any{name, []any{city, int32(id)}}, "x", k}
	}
	write(t, w, scBatch(t, fields, kind, row(1, "disk", "Paris", "+I"), row(2, "disk", "Rome", "+I"), row(3, "disk", "Oslo", "+I")))
	id := commitProg(t, cm, prepare(t, w, 1), 1)
	refresh(t, rc, id)
	write(t, w, scBatch(t, fields, kind, row(2, "sealed", "Lima", "+U"), row(3, "sealed", nil, "+U")))
	prepare(t, w, 2)
	write(t, w, scBatch(t, fields, kind, row(1, "active", nil, "+U")))
	want := []string{
		"1|{name:active,address:{city:null,zip:1}}",
		"2|{name:sealed,address:{city:Lima,zip:2}}",
		"3|{name:sealed,address:{city:null,zip:3}}",
	}
	opts := []reader.Option{reader.WithColumns("id", "profile")}
	equal(t, "union", scScan(t, rc, opts...), want)
	equal(t, "profile only", scScan(t, rc, reader.WithColumns("profile")), []string{
		"{name:active,address:{city:null,zip:1}}",
		"{name:sealed,address:{city:Lima,zip:2}}",
		"{name:sealed,address:{city:null,zip:3}}",
	})
}

// Scenario 50 (TestPkKeylessProjection): projecting only value columns
// still merges by key; the memory version wins.
func TestScenario50PkKeylessProjection(t *testing.T) {
	tbl := newFooTable(t, []string{"id"}, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, kindRows(t, scKV(1, "one", "+I"), scKV(2, "two", "+I"), scKV(3, "three", "+I")))
	id := commitProg(t, cm, prepare(t, w, 1), 1)
	refresh(t, rc, id)
	write(t, w, kindRows(t, scKV(2, "two-sealed", "+U")))
	prepare(t, w, 2)
	write(t, w, kindRows(t, scKV(1, "one-new", "+U"), scKV(3, "three", "-D")))
	equal(t, "payload only", scanRows(t, rc, reader.WithColumns("payload")), []string{"one-new", "two-sealed"})
	equal(t, "pt only", scanRows(t, rc, reader.WithColumns("pt")), []string{"x", "x"})
	equal(t, "payload with a value filter", scanRows(t, rc, reader.WithColumns("payload"), reader.WithWhere("payload = 'one'")), nil)
}

// Scenario 51 (TestCompositePkKeylessProjection): primary key (id, pt),
// projecting payload only; the memory version of (1, a) wins, (1, b) and
// (2, a) come from disk.
func TestScenario51CompositePkKeylessProjection(t *testing.T) {
	tbl := newFooTable(t, []string{"id", "pt"}, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, kindRows(t,
		[]any{int64(1), "old-1a", "a", "+I"},
		[]any{int64(1), "old-1b", "b", "+I"},
		[]any{int64(2), "old-2a", "a", "+I"}))
	id := commitProg(t, cm, prepare(t, w, 1), 1)
	refresh(t, rc, id)
	write(t, w, kindRows(t, []any{int64(1), "new-1a", "a", "+U"}))
	equal(t, "payload only", scanRows(t, rc, reader.WithColumns("payload")), []string{"new-1a", "old-1b", "old-2a"})
	equal(t, "full rows", scanRows(t, rc), []string{"1|new-1a|a", "1|old-1b|b", "2|old-2a|a"})
}

// Scenario 53 (TestPkWriterHandoff): a second writer of the same context
// continues offsets and sequence numbers (files 0-2 then 3-4); both
// writers' progress commits together.
func TestScenario53PkWriterHandoff(t *testing.T) {
	tbl := newFooTable(t, []string{"id"}, nil, nil)
	rc := newContext(t, tbl)
	w1 := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w1, kindRows(t, scKV(1, "a", "+I"), scKV(2, "b", "+I"), scKV(3, "c", "+I")))
	p1 := prepare(t, w1, 1)
	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}
	w2 := newWrite(t, rc, "u")
	write(t, w2, kindRows(t, scKV(4, "d", "+I"), scKV(2, "b2", "+U")))
	p2 := prepare(t, w2, 2)
	equal(t, "ranges", append(ranges(p1), ranges(p2)...), []string{"{}/bucket-0[0,3)", "{}/bucket-0[3,5)"})
	equal(t, "file sequences", append(scSeqRange(p1), scSeqRange(p2)...), []string{"0-2", "3-4"})
	id := commitProg(t, cm, append(p1, p2...), 2)
	equal(t, "committed", committed(t, tbl, id), []string{"{}/bucket-0=5"})
	equal(t, "rows", diskRows(t, tbl), []string{"1|a|x", "2|b2|x", "3|c|x", "4|d|x"})
}

// Scenario 54 (TestPkPartitionBucketRecovery): two buckets, partitioned;
// a new context restarts each partition-bucket's offsets at its committed
// end and its sequence numbers after its files' highest.
func TestScenario54PkPartitionBucketRecovery(t *testing.T) {
	tbl := newFooTable(t, []string{"id", "pt"}, []string{"pt"}, map[string]string{"bucket": "2"})
	b0 := scIDsInBucket(t, 0, 2, 4)
	b1 := scIDsInBucket(t, 1, 2, 5)
	rows := func(pt string, ids ...int64) arrow.RecordBatch {
		r := make([][]any, len(ids))
		for i, id := range ids {
			r[i] = []any{id, "value-" + itoa(id), pt, "+I"}
		}
		return kindRows(t, r...)
	}
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, rows("p0", b0[:2]...))
	write(t, w, rows("p1", b1[:3]...))
	prog := prepare(t, w, 1)
	equal(t, "ranges", ranges(prog), []string{"{pt=p0}/bucket-0[0,2)", "{pt=p1}/bucket-1[0,3)"})
	equal(t, "sequences", scSeqRange(prog), []string{"0-1", "0-2"})
	commitProg(t, cm, prog, 1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rc.Close()

	rc2 := newContext(t, tbl)
	w2 := newWrite(t, rc2, "u")
	cm2 := newCommit(t, rc2, "u")
	write(t, w2, rows("p1", b1[3:5]...))
	write(t, w2, rows("p0", b0[2:4]...))
	prog = prepare(t, w2, 2)
	equal(t, "restored ranges", ranges(prog), []string{"{pt=p0}/bucket-0[2,4)", "{pt=p1}/bucket-1[3,5)"})
	equal(t, "restored sequences", scSeqRange(prog), []string{"2-3", "3-4"})
	id := commitProg(t, cm2, prog, 2)
	equal(t, "committed", committed(t, tbl, id), []string{"{pt=p0}/bucket-0=4", "{pt=p1}/bucket-1=5"})
	var want []string
	for _, id := range b0 {
		want = append(want, itoa(id)+"|value-"+itoa(id)+"|p0")
	}
	for _, id := range b1 {
		want = append(want, itoa(id)+"|value-"+itoa(id)+"|p1")
	}
	slices.Sort(want)
	equal(t, "rows", diskRows(t, tbl), want)
}

// scCompactPK simulates a full compaction of the single bucket of an
// unpartitioned primary-key table (compaction is not built yet): the
// surviving rows, given with the sequence numbers they carry in their
// files, are written as one file at the highest level that replaces every
// current file in a COMPACT commit of user.
func scCompactPK(t *testing.T, tbl *catalog.Table, user string, rows [][]any, seqs []int64) (int64, manifest.DataFileMeta) {
	t.Helper()
	ctx := context.Background()
	levels, err := tbl.Schema.Options.NumLevels()
	if err != nil {
		t.Fatal(err)
	}
	w, err := writer.New(tbl.FileIO, tbl.Schema, user,
		writer.WithRowKindColumn(writer.ValueKindColumn), writer.WithSequenceColumn(writer.SequenceNumberColumn))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	in := make([][]any, len(rows))
	for i, r := range rows {
		in[i] = append(slices.Clone(r), int8(0), seqs[i])
	}
	extra := []arrow.Field{
		{Name: writer.ValueKindColumn, Type: arrow.PrimitiveTypes.Int8},
		{Name: writer.SequenceNumberColumn, Type: arrow.PrimitiveTypes.Int64},
	}
	rec := scBatch(t, tbl.Schema.Fields, extra, in...)
	err = w.Write(ctx, rec)
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	out, err := w.PrepareCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || len(out[0].Data.NewFiles) != 1 {
		t.Fatalf("compaction output %+v", out)
	}
	f := out[0].Data.NewFiles[0]
	f.Level = int32(levels - 1)
	before := scDiskSplits(t, tbl).Splits[0].Files
	msg := commit.Message{Partition: out[0].Partition, Bucket: out[0].Bucket, TotalBuckets: out[0].TotalBuckets,
		Compact: commit.CompactIncrement{Before: before, After: []manifest.DataFileMeta{f}}}
	return scCommitCompact(t, tbl, user, []commit.Message{msg}), f
}

// Scenario 56 (TestPkCompaction), adapted: the full compaction is a
// hand-made COMPACT commit (scCompactPK) of the surviving rows 0 and 1,
// with the sequence numbers their level-0 files carry, into one file at
// the highest level; it drops the deleted key 2. Four single-row commits,
// memory 0 after each refresh; the compaction keeps offset 4; a fresh
// context restarts the sequence at the compacted file's max + 1 (below the
// historical maximum 3); final rows 0, 1, 4 and offset 5.
func TestScenario56PkCompaction(t *testing.T) {
	tbl := newFooTable(t, []string{"id"}, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	var files []manifest.DataFileMeta
	for i, r := range [][]any{scKV(0, "value-0", "+I"), scKV(1, "value-1", "+I"), scKV(2, "value-2", "+I"), scKV(2, "value-2", "-D")} {
		write(t, w, kindRows(t, r))
		prog := prepare(t, w, int64(i+1))
		equal(t, "range", ranges(prog), []string{"{}/bucket-0[" + itoa(int64(i)) + "," + itoa(int64(i+1)) + ")"})
		files = append(files, prog[0].Message.Data.NewFiles...)
		id := commitProg(t, cm, prog, int64(i+1))
		refresh(t, rc, id)
		scUsageZero(t, rc, "after refresh "+itoa(int64(i)))
	}
	equal(t, "sequences", scSeqRange([]realtime.Progress{{Message: commit.Message{Data: commit.DataIncrement{NewFiles: files}}}}),
		[]string{"0-0", "1-1", "2-2", "3-3"})
	equal(t, "before compaction", scanRows(t, rc), []string{"0|value-0|x", "1|value-1|x"})

	cid, f := scCompactPK(t, tbl, "compactor",
		[][]any{{int64(0), "value-0", "x"}, {int64(1), "value-1", "x"}},
		[]int64{files[0].MinSequenceNumber, files[1].MinSequenceNumber})
	if f.MaxSequenceNumber != 1 {
		t.Fatalf("compacted file max sequence %d, want 1", f.MaxSequenceNumber)
	}
	equal(t, "compaction keeps the offset", committed(t, tbl, cid), []string{"{}/bucket-0=4"})
	refresh(t, rc, cid)
	equal(t, "after compaction", scanRows(t, rc), []string{"0|value-0|x", "1|value-1|x"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rc.Close()

	rc2 := newContext(t, tbl)
	w2 := newWrite(t, rc2, "u")
	cm2 := newCommit(t, rc2, "u")
	write(t, w2, kindRows(t, scKV(4, "value-4", "+I")))
	prog := prepare(t, w2, 5)
	equal(t, "range", ranges(prog), []string{"{}/bucket-0[4,5)"})
	equal(t, "restart sequence", scSeqRange(prog), []string{itoa(f.MaxSequenceNumber+1) + "-" + itoa(f.MaxSequenceNumber+1)})
	id := commitProg(t, cm2, prog, 5)
	equal(t, "committed", committed(t, tbl, id), []string{"{}/bucket-0=5"})
	equal(t, "rows", diskRows(t, tbl), []string{"0|value-0|x", "1|value-1|x", "4|value-4|x"})
}

// Scenario 57 (TestPkMultipleStoredBatchesMergeForQueryAndCommit): two
// unsorted batches with -D and +U; the query and the committed result
// agree.
func TestScenario57PkStoredBatchesMerge(t *testing.T) {
	tbl := newFooTable(t, []string{"id"}, nil, nil)
	rc := newContext(t, tbl)
	w := newWrite(t, rc, "u")
	cm := newCommit(t, rc, "u")
	write(t, w, kindRows(t, scKV(3, "three", "+I"), scKV(1, "one", "+I"), scKV(2, "two", "+I")))
	write(t, w, kindRows(t, scKV(4, "four", "+I"), scKV(2, "two", "-D"), scKV(1, "one-new", "+U")))
	want := []string{"1|one-new|x", "3|three|x", "4|four|x"}
	equal(t, "query", scanRows(t, rc), want)
	prog := prepare(t, w, 1)
	equal(t, "range", ranges(prog), []string{"{}/bucket-0[0,6)"})
	id := commitProg(t, cm, prog, 1)
	equal(t, "committed", diskRows(t, tbl), want)
	refresh(t, rc, id)
	equal(t, "after refresh", scanRows(t, rc), want)
	scUsageZero(t, rc, "after refresh")
}
