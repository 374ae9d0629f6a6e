package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/google/uuid"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/flights"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/writer"
)

// upsertTable is the table of the upsert phase.
const upsertTable = "upsert"

// upsertKey returns the primary key of the upsert table.
func upsertKey() []string { return []string{"origin", "destination"} }

// progressEvery is the interval of progress lines during the upsert writes.
const progressEvery = 30 * time.Second

// ampResult is the write-amplification part of the upsert phase. Every
// count comes from the commit messages PrepareCommit returned (see the
// package documentation for which fields), except Snapshots, Live* (a
// reader plan of the latest snapshot), Store* (a listing of the bucket
// directories) and WriterPuts (the writer's own FileIO).
type ampResult struct {
	// Table, PrimaryKey and Buckets describe the table; AsyncCompaction is
	// --async-compaction, CommitRows --commit-rows.
	Table           string   `json:"table"`
	PrimaryKey      []string `json:"primary_key"`
	Buckets         int      `json:"buckets"`
	AsyncCompaction bool     `json:"async_compaction"`
	CommitRows      int64    `json:"commit_rows"`
	// DurationS is the wall time of the write loop, commits included.
	DurationS float64 `json:"duration_s"`
	// SourceRows is how many rows of the file are looped over; Passes is
	// InputRows / SourceRows.
	SourceRows int64   `json:"source_rows"`
	Passes     float64 `json:"passes"`
	// InputRows and InputArrowBytes are the rows given to Write and their
	// datafile.RecordSize.
	InputRows       int64 `json:"input_rows"`
	InputArrowBytes int64 `json:"input_arrow_bytes"`
	// DistinctKeys counts the distinct (origin, destination) of the rows
	// written, counted in Go.
	DistinctKeys   int64   `json:"distinct_keys"`
	IngestRowsPerS float64 `json:"ingest_rows_per_s"`
	// PrepareS and CommitS are the total time spent in PrepareCommit (flush
	// and synchronous compaction) and Commit.
	PrepareS float64 `json:"prepare_s"`
	CommitS  float64 `json:"commit_s"`

	Commits int `json:"commits"`
	// Snapshots is the latest snapshot id (the table is new);
	// AppendSnapshots and CompactSnapshots are those the messages imply.
	Snapshots        int64 `json:"snapshots"`
	AppendSnapshots  int   `json:"append_snapshots"`
	CompactSnapshots int   `json:"compact_snapshots"`
	// Compactions counts messages whose Compact increment wrote a file.
	Compactions int `json:"compactions"`
	// Upgrades are Compact.After files named like a Compact.Before file.
	Upgrades     int   `json:"upgrades"`
	UpgradeBytes int64 `json:"upgrade_bytes"`

	Level0Files int   `json:"level0_files"`
	Level0Bytes int64 `json:"level0_bytes"`
	// NewFilesNotLevel0 counts Data.NewFiles above level 0 (must be 0).
	NewFilesNotLevel0 int `json:"new_files_not_level0"`
	// CompactionFiles and CompactionBytes are the new Compact.After files;
	// CompactionOutputLevels counts them per level.
	CompactionFiles        int            `json:"compaction_files"`
	CompactionBytes        int64          `json:"compaction_bytes"`
	CompactionOutputLevels map[string]int `json:"compaction_output_levels"`
	// CompactionInputFiles and CompactionInputBytes are the Compact.Before
	// files that were rewritten (not upgraded).
	CompactionInputFiles int   `json:"compaction_input_files"`
	CompactionInputBytes int64 `json:"compaction_input_bytes"`

	TotalBytesWritten int64 `json:"total_bytes_written"`
	// WriteAmpLevel0 = TotalBytesWritten / Level0Bytes; WriteAmpInput =
	// TotalBytesWritten / InputArrowBytes.
	WriteAmpLevel0 float64 `json:"write_amp_level0"`
	WriteAmpInput  float64 `json:"write_amp_input"`

	// WriterPuts are the write requests of the writer's FileIO: every data
	// file it wrote, also compaction outputs deleted before a commit.
	WriterPuts int64 `json:"writer_puts"`
	// Live is the latest snapshot's files.
	Live layout `json:"live"`
	// StoreFiles and StoreBytes are the files in the bucket directories.
	StoreFiles int   `json:"store_files"`
	StoreBytes int64 `json:"store_bytes"`
}

// readResult is the read part of the upsert phase.
type readResult struct {
	// TailCommits is the number of write-only commits made after the
	// upsert run (not counted in its write amplification), which leave
	// level-0 sorted runs for the full compaction.
	TailCommits int        `json:"tail_commits"`
	Before      *readStats `json:"before"`
	// FullCompactionMS is the wall time of compaction.Compact(Full);
	// CompactSnapshot the snapshot it committed (0: nothing to compact).
	FullCompactionMS float64    `json:"full_compaction_ms"`
	CompactSnapshot  int64      `json:"compact_snapshot"`
	Parallelism      int        `json:"parallelism"`
	After            *readStats `json:"after"`
	// DistinctKeys is the expected row count; RowsMatch reports that
	// before, after and DistinctKeys agree.
	DistinctKeys int64 `json:"distinct_keys"`
	RowsMatch    bool  `json:"rows_match"`
	// Speedup is After.RowsPerS / Before.RowsPerS.
	Speedup float64 `json:"speedup"`
}

// route is an upsert key.
type route struct{ origin, destination string }

// msgTally adds up commit messages.
type msgTally struct{ r *ampResult }

// add counts the files of one PrepareCommit's messages and reports
// whether they hold new data files and compaction changes.
func (t msgTally) add(msgs []commit.Message) (data, compact bool) {
	r := t.r
	for i := range msgs {
		m := &msgs[i]
		for _, f := range m.Data.NewFiles {
			data = true
			if f.Level != 0 {
				r.NewFilesNotLevel0++
				continue
			}
			r.Level0Files++
			r.Level0Bytes += f.FileSize
		}
		if m.Compact.IsEmpty() {
			continue
		}
		compact = true
		before := make(map[string]bool, len(m.Compact.Before))
		for _, f := range m.Compact.Before {
			before[f.FileName] = true
		}
		upgraded := map[string]bool{}
		wrote := false
		for _, f := range m.Compact.After {
			if before[f.FileName] {
				upgraded[f.FileName] = true
				r.Upgrades++
				r.UpgradeBytes += f.FileSize
				continue
			}
			wrote = true
			r.CompactionFiles++
			r.CompactionBytes += f.FileSize
			r.CompactionOutputLevels[strconv.Itoa(int(f.Level))]++
		}
		for _, f := range m.Compact.Before {
			if !upgraded[f.FileName] {
				r.CompactionInputFiles++
				r.CompactionInputBytes += f.FileSize
			}
		}
		if wrote {
			r.Compactions++
		}
	}
	return data, compact
}

// createTable creates table name in the bench database and returns it.
func createTable(ctx context.Context, cat *catalog.Catalog, name string, pk []string, opts map[string]string, comment string) (*catalog.Table, error) {
	id := catalog.NewIdentifier(database, name)
	s := catalog.Schema{Fields: flights.Fields(), PrimaryKeys: pk, Options: opts, Comment: comment}
	if err := cat.CreateTable(ctx, id, s, false); err != nil {
		return nil, fmt.Errorf("create table %s: %w", name, err)
	}
	return cat.GetTable(ctx, id)
}

// runUpsert runs the upsert phase: the timed upsert stream with the
// writer's compaction, then reads before and after a full compaction.
func runUpsert(ctx context.Context, e *env) (*ampResult, *readResult, error) {
	cfg := e.cfg
	t0 := time.Now()
	batches, srcRows, err := flights.Load(ctx, cfg.data, flights.Options{BatchRows: cfg.batchRows, MaxRows: cfg.rows})
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	if srcRows == 0 {
		return nil, nil, fmt.Errorf("flights data %s holds no rows", cfg.data)
	}
	e.logf("upsert: loaded %d rows in %d batches in %v", srcRows, len(batches), time.Since(t0).Round(time.Millisecond))

	tbl, err := createTable(ctx, e.cat, upsertTable, upsertKey(),
		map[string]string{"bucket": strconv.Itoa(cfg.buckets)},
		"compactbench upsert: flights upserted by route")
	if err != nil {
		return nil, nil, err
	}
	url := tbl.FileIO.URL()
	amp := &ampResult{
		Table: database + "." + upsertTable, PrimaryKey: upsertKey(), Buckets: cfg.buckets,
		AsyncCompaction: cfg.async, CommitRows: cfg.commitRows, SourceRows: srcRows,
		CompactionOutputLevels: map[string]int{},
	}
	if err := writeUpserts(ctx, e, tbl, batches, amp); err != nil {
		return amp, nil, err
	}
	if err := censusUpsert(ctx, tbl, amp); err != nil {
		return amp, nil, err
	}
	e.logf("upsert: %d rows, %d commits, %d compactions, write amplification %.3f (of level 0), %.3f (of input)",
		amp.InputRows, amp.Commits, amp.Compactions, amp.WriteAmpLevel0, amp.WriteAmpInput)

	rd := &readResult{DistinctKeys: amp.DistinctKeys, Parallelism: cfg.parallelism, TailCommits: cfg.tailCommits}
	if err := writeTail(ctx, tbl, batches, cfg.tailCommits, cfg.commitRows); err != nil {
		return amp, rd, err
	}
	if rd.Before, err = timeReads(ctx, url, cfg.reads); err != nil {
		return amp, rd, fmt.Errorf("read before full compaction: %w", err)
	}
	ms, id, err := fullCompact(ctx, url, cfg.parallelism)
	rd.FullCompactionMS, rd.CompactSnapshot = ms, id
	if err != nil {
		return amp, rd, err
	}
	if rd.After, err = timeReads(ctx, url, cfg.reads); err != nil {
		return amp, rd, fmt.Errorf("read after full compaction: %w", err)
	}
	rd.RowsMatch = rd.Before.Rows == rd.After.Rows && rd.After.Rows == rd.DistinctKeys
	if rd.Before.RowsPerS > 0 {
		rd.Speedup = rd.After.RowsPerS / rd.Before.RowsPerS
	}
	e.logf("upsert: read %d rows before (%.0f rows/s), %d after (%.0f rows/s) the full compaction",
		rd.Before.Rows, rd.Before.RowsPerS, rd.After.Rows, rd.After.RowsPerS)
	return amp, rd, nil
}

// writeTail makes n write-only commits of commitRows rows each (continuing
// through batches from the start), without compaction: a stream stopped
// between two compactions leaves the table this way, and the read before
// the full compaction then has sorted runs to merge.
func writeTail(ctx context.Context, tbl *catalog.Table, batches []arrow.RecordBatch, n int, commitRows int64) (err error) {
	if n == 0 {
		return nil
	}
	ts := *tbl.Schema
	ts.Options = maps.Clone(tbl.Schema.Options)
	ts.Options[schema.KeyWriteOnly] = "true"
	user := "compactbench-tail-" + uuid.NewString()
	w, err := writer.New(tbl.FileIO, &ts, user)
	if err != nil {
		return fmt.Errorf("tail: new write: %w", err)
	}
	defer func() { err = errors.Join(err, w.Close()) }()
	c, err := commit.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		return fmt.Errorf("tail: new commit: %w", err)
	}
	defer func() { err = errors.Join(err, c.Close()) }()
	next := 0
	for i := 1; i <= n; i++ {
		for rows := int64(0); rows < commitRows; next = (next + 1) % len(batches) {
			if err := w.Write(ctx, batches[next]); err != nil {
				return fmt.Errorf("tail: write: %w", err)
			}
			rows += batches[next].NumRows()
		}
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			return fmt.Errorf("tail: prepare commit %d: %w", i, err)
		}
		if _, err := c.Commit(ctx, int64(i), msgs); err != nil {
			return fmt.Errorf("tail: commit %d: %w", i, err)
		}
	}
	return nil
}

// writeUpserts streams the batches into tbl, again and again, for the
// configured duration, committing every commitRows rows, and tallies the
// messages into amp.
func writeUpserts(ctx context.Context, e *env, tbl *catalog.Table, batches []arrow.RecordBatch, amp *ampResult) (err error) {
	cfg := e.cfg
	// The writer gets a FileIO of its own so that its Put requests count
	// exactly the data files it writes.
	wfio, err := fileio.Open(ctx, tbl.FileIO.URL())
	if err != nil {
		return fmt.Errorf("open table: %w", err)
	}
	defer wfio.Close()
	user := "compactbench-" + uuid.NewString()
	var wopts []writer.Option
	if cfg.async {
		wopts = append(wopts, writer.WithAsyncCompaction(1))
	}
	w, err := writer.New(wfio, tbl.Schema, user, wopts...)
	if err != nil {
		return fmt.Errorf("new write: %w", err)
	}
	defer func() { err = errors.Join(err, w.Close()) }()
	c, err := commit.New(tbl.FileIO, tbl.Schema, user)
	if err != nil {
		return fmt.Errorf("new commit: %w", err)
	}
	defer func() { err = errors.Join(err, c.Close()) }()

	tally := msgTally{amp}
	seen := map[route]struct{}{}
	var pending int64
	var prepare, publish time.Duration
	commitOnce := func() error {
		t0 := time.Now()
		msgs, err := w.PrepareCommit(ctx)
		if err != nil {
			return fmt.Errorf("prepare commit %d: %w", amp.Commits+1, err)
		}
		t1 := time.Now()
		prepare += t1.Sub(t0)
		data, compact := tally.add(msgs)
		if _, err := c.Commit(ctx, int64(amp.Commits+1), msgs); err != nil {
			return fmt.Errorf("commit %d: %w", amp.Commits+1, err)
		}
		publish += time.Since(t1)
		amp.Commits++
		if data {
			amp.AppendSnapshots++
		}
		if compact {
			amp.CompactSnapshots++
		}
		pending = 0
		return nil
	}

	start := time.Now()
	nextLog := start.Add(progressEvery)
	pass := 0
loop:
	for {
		for _, b := range batches {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := w.Write(ctx, b); err != nil {
				return fmt.Errorf("write: %w", err)
			}
			n := b.NumRows()
			amp.InputRows += n
			amp.InputArrowBytes += datafile.RecordSize(b)
			pending += n
			if pass == 0 {
				addRoutes(seen, b)
			}
			if pending >= cfg.commitRows {
				if err := commitOnce(); err != nil {
					return err
				}
			}
			if now := time.Now(); now.After(nextLog) {
				nextLog = now.Add(progressEvery)
				e.logf("upsert: %v: %d rows, %d commits, %d compactions", now.Sub(start).Round(time.Second), amp.InputRows, amp.Commits, amp.Compactions)
			}
			if time.Since(start) >= cfg.duration {
				break loop
			}
		}
		pass++
	}
	if pending > 0 {
		if err := commitOnce(); err != nil {
			return err
		}
	}
	elapsed := time.Since(start)
	amp.DurationS = elapsed.Seconds()
	amp.IngestRowsPerS = float64(amp.InputRows) / elapsed.Seconds()
	amp.PrepareS, amp.CommitS = prepare.Seconds(), publish.Seconds()
	amp.DistinctKeys = int64(len(seen))
	amp.Passes = float64(amp.InputRows) / float64(amp.SourceRows)
	amp.TotalBytesWritten = amp.Level0Bytes + amp.CompactionBytes
	if amp.Level0Bytes > 0 {
		amp.WriteAmpLevel0 = float64(amp.TotalBytesWritten) / float64(amp.Level0Bytes)
	}
	if amp.InputArrowBytes > 0 {
		amp.WriteAmpInput = float64(amp.TotalBytesWritten) / float64(amp.InputArrowBytes)
	}
	amp.WriterPuts = wfio.Stats().Put
	return nil
}

// addRoutes adds the (origin, destination) keys of a flights batch to seen.
func addRoutes(seen map[route]struct{}, b arrow.RecordBatch) {
	o := b.Column(flights.Origin).(*array.String)
	d := b.Column(flights.Destination).(*array.String)
	for i := range int(b.NumRows()) {
		k := route{o.Value(i), d.Value(i)}
		if _, ok := seen[k]; !ok {
			seen[route{strings.Clone(k.origin), strings.Clone(k.destination)}] = struct{}{}
		}
	}
}

// censusUpsert fills in what is read from the table after the writes: the
// latest snapshot id, the live files and the files on the store.
func censusUpsert(ctx context.Context, tbl *catalog.Table, amp *ampResult) error {
	id, err := snapshot.NewManager(tbl.FileIO).LatestID(ctx)
	if err != nil {
		return fmt.Errorf("latest snapshot: %w", err)
	}
	amp.Snapshots = id
	t, err := paimon.OpenTable(ctx, tbl.FileIO.URL())
	if err != nil {
		return err
	}
	defer t.Close()
	p, err := t.NewScan().Plan(ctx)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	amp.Live = layoutOf(p)
	amp.StoreFiles, amp.StoreBytes, err = storeFiles(ctx, tbl.FileIO)
	return err
}

// fullCompact runs compaction.Compact with Full on the table at url, as
// `paimon compact --full` does, and returns its wall time in milliseconds
// and the snapshot it committed.
func fullCompact(ctx context.Context, url string, parallelism int) (float64, int64, error) {
	t, err := paimon.OpenTable(ctx, url)
	if err != nil {
		return 0, 0, err
	}
	defer t.Close()
	t0 := time.Now()
	id, err := compaction.Compact(ctx, t.FileIO(), t.Schema(), "compactbench-compact-"+uuid.NewString(),
		compaction.Options{Full: true, Parallelism: parallelism})
	ms := float64(time.Since(t0).Microseconds()) / 1000
	if err != nil {
		return ms, 0, fmt.Errorf("full compaction: %w", err)
	}
	return ms, id, nil
}
