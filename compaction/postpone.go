package compaction

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/merge"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// postponeBucket is the bucket of bucket-postpone files (Java
// BucketMode.POSTPONE_BUCKET).
const postponeBucket = -2

// postponePart is the postpone compaction of one partition: its
// bucket-postpone files in replay order and the real buckets they go to.
type postponePart struct {
	partition  []byte
	values     []any
	dir        string                  // partition directory: "" or "<path>/" below data-file.path-directory
	files      []manifest.DataFileMeta // bucket-postpone files, oldest first
	numBuckets int
	maxSeq     map[int32]int64                   // highest sequence number of each real bucket's live files
	live       map[int32][]manifest.DataFileMeta // each real bucket's live files
}

// Postpone compacts a postpone-bucket table (bucket = -2), the compaction
// Java's Flink CompactAction runs for such tables
// (buildForPostponeBucketCompaction with PostponeBucketCompactSplitSource,
// a FixedBucketSink and RewritePostponeBucketCommittableOperator): for every
// partition (of opts.Partitions) with bucket-postpone files in the latest
// snapshot, it reads those files one after the other in creation-time order
// (ties in commit order), routes each row to
// bucket(bucket key, N) of the partition's bucket count N (the
// _TOTAL_BUCKETS of its real-bucket files, else postpone.default-bucket-num),
// gives the rows of each real bucket sequence numbers after the bucket's
// highest live one in replay order, merges each key's records with the merge
// engine as a writer's flush does (retractions kept), and writes level-0
// files (file source APPEND, as Java's writer) into the real buckets. One
// COMPACT snapshot deletes the postpone files and adds the new ones.
//
// Tables compacted with lookup (deletion-vectors.enabled, merge-engine =
// first-row), whose batch reads skip level 0, get what Java's real-table
// writer gives them at prepareCommit with lookup.wait: each real bucket that
// received rows is restored from its live files (and deletion vectors) and
// compacted with the universal strategy and ForceUpLevel0 until level 0 is
// empty (deletion-vector lookups mark the replaced rows; first-row drops
// keys already on a higher level), the intermediate level-0 files are
// deleted, and the same COMPACT snapshot carries the compacted real-bucket
// files and the bucket's new deletion-vector index file
// (PostponeBucketCommittableRewriter). As in Java, level-0 files of real
// buckets that receive no postpone row (a fixed-bucket batch write is
// write-only) stay where they are.
//
// The partition's postpone rows are held in memory while its buckets are
// written. It returns the new snapshot's id, or 0 when no partition had
// postpone files.
//
// Concurrency: postpone files committed after the snapshot the compaction
// read stay live for the next compaction. If another commit removed one of
// the postpone files meanwhile (a second compaction of the partition), the
// commit fails with an error wrapping commit.ErrConflict, the new files are
// deleted and the table is unchanged, so no row is lost or applied twice.
//
// Errors wrap ErrUnsupported (the features NewPlan refuses),
// ErrInvalidArgument (a partition whose real-bucket files have two bucket
// counts, a partition spec that does not fit), schema.ErrInvalidOption, the
// errors of reading (format.ErrCorrupt naming the file, fileio.ErrNotExist)
// and of committing.
func Postpone(ctx context.Context, fio *fileio.FileIO, ts *schema.TableSchema, commitUser string, opts Options) (int64, error) {
	if n, err := ts.NumBuckets(); err != nil {
		return 0, err
	} else if n != postponeBucket || len(ts.PrimaryKeys) == 0 {
		return 0, fmt.Errorf("%w: postpone compaction of a table with bucket = %d (needs bucket = -2 and a primary key)", ErrInvalidArgument, n)
	}
	if err := checkTable(ts); err != nil {
		return 0, err
	}
	if opts.Allocator == nil {
		opts.Allocator = memory.DefaultAllocator
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	o := ts.Options
	defNum, err := o.Int("postpone.default-bucket-num", 1)
	if err != nil {
		return 0, err
	}
	if defNum <= 0 {
		return 0, fmt.Errorf("%w: postpone.default-bucket-num = %d must be positive", schema.ErrInvalidOption, defNum)
	}
	fn, err := o.BucketFunctionType()
	if err != nil {
		return 0, err
	}
	if fn != "default" && fn != "mod" {
		return 0, fmt.Errorf("%w: bucket-function.type = %s", ErrUnsupported, fn)
	}
	sel, err := newSelector(ts, opts.Partitions)
	if err != nil {
		return 0, err
	}
	t, err := newTable(fio, ts, opts.Allocator, opts.Now)
	if err != nil {
		return 0, err
	}
	latest, err := snapshot.NewManager(fio).LatestID(ctx)
	if errors.Is(err, snapshot.ErrNotFound) || (err == nil && latest == 0) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("compaction: latest snapshot: %w", err)
	}
	plan, err := reader.NewScan(fio, reader.WithSnapshot(latest), reader.WithAllLevels(), reader.WithoutFallback(), reader.WithPostponeFiles()).Plan(ctx)
	if err != nil {
		return 0, fmt.Errorf("compaction: plan snapshot %d: %w", latest, err)
	}
	parts, err := postponeParts(plan, ts, sel, defNum)
	if err != nil {
		return 0, err
	}
	if len(parts) == 0 {
		return 0, nil
	}
	pc := &postponeCompaction{t: t}
	var index []manifest.IndexManifestEntry
	if t.dv && plan.Snapshot != nil && plan.Snapshot.IndexManifest != nil && *plan.Snapshot.IndexManifest != "" {
		if index, err = manifest.ReadIndexManifest(ctx, fio, *plan.Snapshot.IndexManifest); err != nil {
			return 0, fmt.Errorf("compaction: index manifest of snapshot %d: %w", latest, err)
		}
	}
	if pc.lookup, err = newPostponeLookup(fio, ts, opts, index); err != nil {
		return 0, err
	}
	if pc.router, err = reader.NewPostponeRouter(ts); err != nil {
		return 0, err
	}
	if pc.layout, err = datafile.NewLayout(ts, datafile.Config{
		Level: 0, Source: manifest.SourceAppend, RowGroupBytes: defaultRowGroupBytes, Allocator: t.mem, Now: t.now,
	}); err != nil {
		if errors.Is(err, datafile.ErrUnsupported) {
			err = fmt.Errorf("%w: %w", ErrUnsupported, err)
		}
		return 0, err
	}
	var msgs []commit.Message
	for i := range parts {
		m, err := pc.compact(ctx, &parts[i])
		if err != nil {
			pc.discard(context.WithoutCancel(ctx))
			return 0, err
		}
		msgs = append(msgs, m...)
	}
	c, err := commit.New(fio, ts, commitUser)
	if err != nil {
		pc.discard(context.WithoutCancel(ctx))
		return 0, err
	}
	defer c.Close()
	id := opts.Identifier
	if id == 0 {
		id = commit.BatchIdentifier
	}
	snap, err := c.Commit(ctx, id, msgs)
	if err != nil {
		if errors.Is(err, commit.ErrConflict) || errors.Is(err, commit.ErrRetriesExhausted) ||
			errors.Is(err, commit.ErrUnsupported) || errors.Is(err, commit.ErrInvalidArgument) {
			pc.discard(context.WithoutCancel(ctx))
		}
		return 0, fmt.Errorf("compaction: %w", err)
	}
	return snap, nil
}

// postponeParts groups a plan's splits into the partitions with
// bucket-postpone files.
func postponeParts(plan *reader.Plan, ts *schema.TableSchema, sel *selector, defNum int) ([]postponePart, error) {
	byPart := map[string]*postponePart{}
	var order []string
	get := func(sp *reader.Split) *postponePart {
		k := string(sp.Partition)
		p := byPart[k]
		if p == nil {
			p = &postponePart{partition: sp.Partition, values: sp.PartitionValues, maxSeq: map[int32]int64{}, live: map[int32][]manifest.DataFileMeta{}}
			byPart[k] = p
			order = append(order, k)
		}
		return p
	}
	for _, sp := range plan.Splits {
		if !sel.match(sp.PartitionValues) {
			continue
		}
		p := get(sp)
		if sp.Bucket == postponeBucket {
			p.files = append(p.files, sp.Files...)
			p.dir = strings.TrimSuffix(sp.BucketPath, "bucket-postpone")
			continue
		}
		if sp.TotalBuckets > 0 {
			if p.numBuckets != 0 && p.numBuckets != int(sp.TotalBuckets) {
				return nil, fmt.Errorf("%w: partition of %s has real-bucket files for %d and for %d buckets",
					ErrInvalidArgument, sp.BucketPath, p.numBuckets, sp.TotalBuckets)
			}
			p.numBuckets = int(sp.TotalBuckets)
		}
		m := int64(-1)
		for _, f := range sp.Files {
			m = max(m, f.MaxSequenceNumber)
		}
		p.maxSeq[sp.Bucket] = m
		p.live[sp.Bucket] = sp.Files
	}
	var out []postponePart
	for _, k := range order {
		p := byPart[k]
		if len(p.files) == 0 {
			continue
		}
		for i := range p.files {
			if f := &p.files[i]; f.SchemaID > ts.ID {
				return nil, fmt.Errorf("%w: data file %sbucket-postpone/%s was written with schema %d, newer than the given schema %d",
					ErrInvalidArgument, p.dir, f.FileName, f.SchemaID, ts.ID)
			}
		}
		if p.numBuckets == 0 {
			p.numBuckets = defNum
		}
		slices.SortStableFunc(p.files, replayOrder)
		out = append(out, *p)
	}
	return out, nil
}

// replayOrder orders bucket-postpone files as Java's compaction replays
// them (PostponeBucketCompactSplitSource: a stable sort by creation time);
// files created in the same millisecond keep their commit order.
func replayOrder(a, b manifest.DataFileMeta) int {
	return compareCreation(a.CreationTime, b.CreationTime)
}

// postponeCompaction writes the real-bucket files of postpone compactions.
type postponeCompaction struct {
	t       *table
	layout  *datafile.Layout
	router  *reader.PostponeRouter
	lookup  *postponeLookup // nil unless the table is compacted with lookup
	written []string
}

func (pc *postponeCompaction) discard(ctx context.Context) {
	for _, p := range pc.written {
		_ = datafile.DeleteLocation(ctx, pc.t.fio, p)
	}
	pc.written = nil
}

// compact routes one partition's postpone rows into its real buckets and
// returns the commit messages: the postpone files deleted (bucket -2) and
// each real bucket's new files added.
func (pc *postponeCompaction) compact(ctx context.Context, p *postponePart) ([]commit.Message, error) {
	t := pc.t
	src := &bucketJob{t: t, dir: p.dir + "bucket-postpone"}
	// Routed rows per real bucket, in replay order.
	routed := map[int32][]arrow.RecordBatch{}
	defer func() {
		for _, rs := range routed {
			for _, r := range rs {
				r.Release()
			}
		}
	}()
	for i := range p.files {
		f := &p.files[i]
		for rec, err := range src.readKV(ctx, f, nil) {
			if err != nil {
				return nil, fmt.Errorf("compaction: postpone file %s/%s: %w", src.dir, f.FileName, err)
			}
			rows := map[int32][]int32{}
			var bucketOrder []int32
			for r := range int(rec.NumRows()) {
				vals, err := pc.router.Key(rec, r)
				if err != nil {
					rec.Release()
					return nil, fmt.Errorf("%w: postpone file %s/%s: %w", ErrSchema, src.dir, f.FileName, err)
				}
				b, err := pc.router.Bucket(vals, p.numBuckets)
				if err != nil {
					rec.Release()
					return nil, fmt.Errorf("compaction: postpone file %s/%s: bucket of row %d: %w", src.dir, f.FileName, r, err)
				}
				if _, ok := rows[b]; !ok {
					bucketOrder = append(bucketOrder, b)
				}
				rows[b] = append(rows[b], int32(r))
			}
			for _, b := range bucketOrder {
				sub, err := format.Take(ctx, t.mem, rec, rows[b])
				if err != nil {
					rec.Release()
					return nil, fmt.Errorf("compaction: select rows: %w", err)
				}
				routed[b] = append(routed[b], sub)
			}
			rec.Release()
		}
	}
	msgs := []commit.Message{{
		Partition: p.partition, Bucket: postponeBucket, TotalBuckets: postponeBucket,
		Compact: commit.CompactIncrement{Before: p.files},
	}}
	buckets := make([]int32, 0, len(routed))
	for b := range routed {
		buckets = append(buckets, b)
	}
	slices.Sort(buckets)
	for _, b := range buckets {
		seq, ok := p.maxSeq[b]
		if !ok {
			seq = -1
		}
		dir := p.dir + "bucket-" + strconv.Itoa(int(b))
		files, err := pc.writeBucket(ctx, dir, routed[b], seq+1)
		if err != nil {
			return nil, err
		}
		inc := commit.CompactIncrement{After: files}
		var view *commit.LevelsView
		if pc.lookup != nil && len(files) > 0 {
			var written []string
			inc, view, written, err = pc.lookup.raise(ctx, p.partition, b, int32(p.numBuckets), dir, p.live[b], files)
			if err != nil {
				return nil, err
			}
			pc.written = append(pc.written, written...)
		}
		if !inc.IsEmpty() {
			msgs = append(msgs, commit.Message{
				Partition: p.partition, Bucket: b, TotalBuckets: int32(p.numBuckets),
				Compact: inc, Levels: view,
			})
		}
	}
	return msgs, nil
}

// writeBucket writes one real bucket's routed rows (in replay order) as
// level-0 files: sequence numbers seq, seq+1, ... in replay order, sorted by
// key then sequence number, each key's records merged (MergeTreeWriter's
// flush).
func (pc *postponeCompaction) writeBucket(ctx context.Context, dir string, recs []arrow.RecordBatch, seq int64) (_ []manifest.DataFileMeta, err error) {
	t := pc.t
	run, err := reader.PostponeRun(ctx, t.mem, t.kvSchema, recs, t.keyTypes, seq)
	if errors.Is(err, types.ErrValue) {
		return nil, fmt.Errorf("compaction: bucket %s: %w: %w", dir, ErrSchema, err)
	} else if err != nil {
		return nil, fmt.Errorf("compaction: bucket %s: %w", dir, err)
	}
	w := datafile.NewRollingWriter(t.fio, dir, pc.layout, datafile.NewNamer(uuid.NewString()), 0)
	defer func() {
		if err != nil {
			_ = w.Abort(context.WithoutCancel(ctx))
		}
	}()
	for b, merr := range t.mergers[0].Merge(ctx, []merge.Run{merge.RunOf(run)}) {
		if merr != nil {
			return nil, fmt.Errorf("compaction: bucket %s: %w", dir, merr)
		}
		out := b
		if !out.Schema().Equal(t.kvSchema) {
			out = array.NewRecordBatch(t.kvSchema, b.Columns(), b.NumRows())
			b.Release()
		}
		err = w.Write(ctx, out)
		out.Release()
		if err != nil {
			return nil, fmt.Errorf("compaction: bucket %s: %w", dir, err)
		}
	}
	files, err := w.Flush(ctx)
	if err != nil {
		return nil, fmt.Errorf("compaction: bucket %s: %w", dir, err)
	}
	for _, f := range files {
		pc.written = append(pc.written, dir+"/"+f.FileName)
	}
	return files, nil
}
