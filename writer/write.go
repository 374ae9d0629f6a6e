package writer

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrSchemaMismatch: a batch's columns do not match the table's (missing,
	// extra or duplicate column, wrong Arrow type).
	ErrSchemaMismatch = errors.New("writer: record does not match table schema")
	// ErrNullViolation: a NOT NULL column holds a null (Java "Cannot write
	// null to non-null column").
	ErrNullViolation = errors.New("writer: null in NOT NULL column")
	// ErrRowKind: a row kind that is invalid, null, or not accepted by the
	// table (append tables take only +I and +U unless ignore-delete).
	ErrRowKind = errors.New("writer: invalid row kind")
	// ErrUnsupported: a table option value this writer does not implement;
	// the message names the option.
	ErrUnsupported = errors.New("writer: unsupported table option")
	// ErrUnsupportedBucketMode: Route of cross-partition upsert tables is
	// not implemented yet; the message names it.
	ErrUnsupportedBucketMode = errors.New("writer: unsupported bucket mode")
	// ErrBucketCountChanged: the partition's existing files were written with
	// another bucket count (Java asks for INSERT OVERWRITE to rescale).
	ErrBucketCountChanged = errors.New("writer: bucket count of partition changed")
	// ErrSequenceNumber: a value of the WithSequenceColumn column is
	// negative (Paimon's sequence numbers start at 0).
	ErrSequenceNumber = errors.New("writer: invalid sequence number")
	// ErrClosed: the Write was used after Close.
	ErrClosed = errors.New("writer: write is closed")
	// ErrSpill: a primary-key sort buffer could not be spilled to, or read
	// back from, its local temp files; the message names the file or
	// directory.
	ErrSpill = errors.New("writer: spill to local disk")
)

// DefaultRowKindColumn is the extra input column that carries row kinds
// when WithRowKindColumn is not given.
const DefaultRowKindColumn = "_ROW_KIND"

// Option configures New.
type Option func(*config)

type config struct {
	rowKindColumn    string
	seqColumn        string // "" unless WithSequenceColumn
	mem              memory.Allocator
	spillDir         string
	asyncCompactions int // 0: compactions run synchronously
	writtenRows      *datafile.RowsHook
}

// WithRowKindColumn names the extra input column that carries the row kind
// of each row (Int8 RowKind bytes or "+I"/"-U"/"+U"/"-D" strings). It is not
// a table column and is not written. Default DefaultRowKindColumn.
func WithRowKindColumn(name string) Option { return func(c *config) { c.rowKindColumn = name } }

// WithSequenceColumn names an extra input column of a primary-key table
// that carries each row's sequence number (typically SequenceNumberColumn,
// "_SEQUENCE_NUMBER"): a non-null Int64 column, present in every batch given
// to Write. It is not a table column; its values become the rows'
// _SEQUENCE_NUMBER instead of numbers the writer assigns (Java's KeyValue
// sequence number as MergeTreeWriter.write receives it), so level-0 files
// carry exactly the given numbers (min/max sequence number of their
// DataFileMeta) and the records of a key are merged in the order of their
// numbers, whatever their input order. The bucket's own counter continues
// after the highest number given. Together with WithRowKindColumn (Int8 kinds,
// e.g. ValueKindColumn) this writes batches that already carry the KeyValue
// system columns, such as those the real-time layer flushes.
//
// Errors: New returns ErrSchemaMismatch for an append table or a name that is
// a table column or the row kind column; Write returns ErrSchemaMismatch for
// a batch without the column or with a column that is not Int64,
// ErrNullViolation for a null and ErrSequenceNumber for a negative number.
func WithSequenceColumn(name string) Option { return func(c *config) { c.seqColumn = name } }

// WithAllocator sets the Arrow allocator for buffers the writer builds;
// default memory.DefaultAllocator.
func WithAllocator(mem memory.Allocator) Option { return func(c *config) { c.mem = mem } }

// WithSpillDir sets the local directory under which a primary-key Write
// creates its temporary directory of spill files (Java's IOManager temp
// directories); default os.TempDir().
func WithSpillDir(dir string) Option { return func(c *config) { c.spillDir = dir } }

// WithWrittenRows hands the rows of every data file the writer writes
// (level-0 files of its flushes, the files of an append table, the outputs
// of its primary-key compactions; not changelog files) to h, as written,
// so that a reader in the same process need not read them back (the
// real-time layer offers them to its lookup cache, reader.LookupCache.Offer).
// See datafile.RowsHook for the bound and the batches' ownership; h may be
// called from compaction goroutines (WithAsyncCompaction).
func WithWrittenRows(h *datafile.RowsHook) Option { return func(c *config) { c.writtenRows = h } }

// WithAsyncCompaction runs the Write's compactions in background goroutines,
// at most n at once across all its partition-buckets (n below 1 counts as
// 1; Java's AbstractFileStoreWrite runs them on one compaction thread),
// instead of synchronously. It is Java's stream write,
// StreamTableWrite.prepareCommit(waitCompaction = false): each bucket has at
// most one compaction running, started after each flush of its level-0
// files; PrepareCommit hands out the compactions that finished and waits
// only with commit.force-compact = true, for the full compactions of
// full-compaction.delta-commits, or for a primary-key bucket with more than
// num-sorted-run.stop-trigger + 1 sorted runs; and a flush of a full write
// buffer into a bucket with more than num-sorted-run.stop-trigger sorted
// runs waits for the bucket's running compaction first (the write stall,
// MergeTreeCompactManager.shouldWaitForLatestCompaction). Close cancels the
// running compactions and deletes their outputs.
func WithAsyncCompaction(n int) Option {
	return func(c *config) { c.asyncCompactions = max(n, 1) }
}

// BufferStats describes the primary-key sort buffers of a Write (Java's
// WriterBufferMetric and the spill channels of BinaryExternalSortBuffer).
type BufferStats struct {
	// BufferedBytes is the estimated size of the rows held in memory, the
	// quantity write-buffer-size bounds.
	BufferedBytes int64
	// SpilledRuns and SpilledBytes are the sorted runs currently in local
	// spill files and the files' total size in bytes.
	SpilledRuns  int
	SpilledBytes int64
	// Spills counts the buffers spilled to disk since New.
	Spills int64
	// Flushes counts the buffers written as level-0 files because memory
	// ran out (spilling disabled or write-buffer-spill.max-disk-size
	// reached), not counting PrepareCommit.
	Flushes int64
}

// Write writes record batches into one table's data files (Java
// TableWriteImpl over an AbstractFileStoreWrite). It keeps one writer per
// partition-bucket between PrepareCommit calls, as Java does, so sequence
// numbers and file counters continue. A Write is not safe for concurrent use:
// callers serialise all its calls (Write, Route, NextSequenceNumber,
// PrepareCommit, BufferStats, Close).
type Write struct {
	fio        *fileio.FileIO
	ts         *schema.TableSchema
	commitUser string
	cfg        config
	reseq      resequenced // reports of committers, see applyResequenced

	numBuckets  int              // "bucket" option
	unaware     bool             // append table with bucket = -1
	dyn         *dynamicBuckets  // primary-key table with bucket = -1; nil otherwise
	xp          *crossPartition  // cross-partition upsert table (bucket = -1); nil otherwise
	post        *postponeBuckets // primary-key table with bucket = -2; nil otherwise
	modBuckets  bool             // bucket-function.type = mod
	tableSchema *arrow.Schema
	notNull     []int // indexes of NOT NULL table fields

	partIdx    []int
	partFields []types.DataField
	partTypes  []types.DataType
	partComp   row.PartitionComputer
	bucketIdx  []int
	bucketType []types.DataType

	rowKindField       int // index of the "rowkind.field" column, or -1
	ignoreDelete       bool
	ignoreUpdateBefore bool

	writeBufferSize int64
	layout          *datafile.Layout // level-0 / append data files
	clLayout        *datafile.Layout // changelog files (changelog-producer = input); nil: none
	pk              *pkLayout        // nil for append tables
	comp            *compactor       // nil: the Write never compacts

	writers       map[string]*bucketWriter
	restored      map[string]restoredBucket     // nil until loaded
	restoredSnap  int64                         // snapshot id restored is from; 0 = no snapshot
	indexEntries  []manifest.IndexManifestEntry // deletion-vector tables: the restored snapshot's index manifest
	partBkts      map[string]int32              // partition -> total buckets of its live files
	partBktsMixed map[string][2]int32           // partition -> two different total buckets of its live files
	buffered      int64                         // bytes held by primary-key sort buffers
	spill         spillConfig
	spillDir      *spillDir
	stats         BufferStats
	zeros         []int8  // shared +I row kinds, never written
	zeros64       []int64 // shared zeros, never written
	closed        bool

	now     func() time.Time
	newUUID func() string
}

// restoredBucket is what a partition-bucket's live files tell a new writer.
type restoredBucket struct {
	maxSeq int64
	files  []manifest.DataFileMeta // kept when the Write compacts
}

// New returns a Write for the table rooted at fio with schema ts.
// commitUser identifies the writing job (Java's commit user); it is kept
// for the commit messages' consumers and postpone-bucket file names.
//
// Postpone-bucket tables (bucket = -2) are written into real buckets, see
// postponeBuckets (Java PostponeBatchWriteOperator), without compaction;
// with postpone.batch-write-fixed-bucket = false into bucket-postpone, see
// initPostpone (Java PostponeBucketWriter).
//
// Cross-partition upsert tables (bucket = -1 with a primary key that lacks
// a partition field) route every row through a key index bootstrapped
// from the restored snapshot, see crossPartition (Java
// GlobalIndexAssigner); their commit messages carry
// commit.Message.KeyIndexFrom.
//
// Errors:
// ErrNoChangelog (with ErrUnsupported) for changelog-producer = input into
// bucket-postpone files, and lookup or full-compaction unless write-only =
// true when package compaction cannot produce their changelog (deletion
// vectors, first-row, lookup with another merge engine than deduplicate);
// ErrUnsupported for file formats other than parquet,
// and deletion-vector or first-row tables that
// package compaction cannot compact (their level-0 files only become
// visible through compaction; e.g. first-row with deletion vectors, which
// Java refuses too) unless write-only = true;
// schema.ErrInvalidOption and merge.ErrInvalidOption for malformed options.
func New(fio *fileio.FileIO, ts *schema.TableSchema, commitUser string, opts ...Option) (*Write, error) {
	w := &Write{
		fio: fio, ts: ts, commitUser: commitUser,
		cfg:          config{rowKindColumn: DefaultRowKindColumn, mem: memory.DefaultAllocator},
		writers:      map[string]*bucketWriter{},
		rowKindField: -1,
		now:          time.Now,
		newUUID:      uuid.NewString,
	}
	for _, o := range opts {
		o(&w.cfg)
	}
	if err := w.init(); err != nil {
		return nil, err
	}
	w.spillDir = &spillDir{parent: w.cfg.spillDir}
	// A Write dropped without Close still removes its spill files once it is
	// garbage collected.
	runtime.AddCleanup(w, func(d *spillDir) { _ = d.remove() }, w.spillDir)
	return w, nil
}

func (w *Write) init() error {
	ts := w.ts
	hasPK := len(ts.PrimaryKeys) > 0
	var err error
	if w.numBuckets, err = ts.NumBuckets(); err != nil {
		return err
	}
	switch {
	case w.numBuckets == -2:
		if err := w.initPostpone(); err != nil {
			return err
		}
	case w.numBuckets == -1 && hasPK:
		if err := w.initDynamic(); err != nil {
			return err
		}
	case w.numBuckets == -1:
		w.unaware = true
	case w.numBuckets <= 0:
		return fmt.Errorf("%w: bucket = %d", ErrUnsupportedBucketMode, w.numBuckets)
	}
	ts, o := w.ts, w.ts.Options // initPostpone may have set options
	fn, err := o.BucketFunctionType()
	if err != nil {
		return err
	}
	switch fn {
	case "default":
	case "mod":
		w.modBuckets = true
	default:
		return fmt.Errorf("%w: bucket-function.type = %s", ErrUnsupported, fn)
	}
	if f := o.FileFormat(); !datafile.Writes(f) {
		return fmt.Errorf("%w: file.format = %s (parquet, avro and orc are written)", ErrUnsupported, f)
	}
	if _, err = o.TargetFileSize(hasPK); err != nil {
		return err
	}
	if w.writeBufferSize, err = o.WriteBufferSize(); err != nil {
		return err
	}
	if w.ignoreDelete, err = o.IgnoreDelete(); err != nil {
		return err
	}
	if w.ignoreUpdateBefore, err = o.Bool("ignore-update-before", false); err != nil {
		return err
	}
	w.tableSchema = types.SchemaToArrow(ts.Fields)
	if sc := w.cfg.seqColumn; sc != "" {
		switch {
		case !hasPK:
			return fmt.Errorf("%w: sequence number column %q given for a table without primary key (append tables take plain rows)", ErrSchemaMismatch, sc)
		case w.tableSchema.HasField(sc):
			return fmt.Errorf("%w: sequence number column %q is a table column", ErrSchemaMismatch, sc)
		case sc == w.cfg.rowKindColumn:
			return fmt.Errorf("%w: sequence number column %q is also the row kind column", ErrSchemaMismatch, sc)
		}
	}
	for i, f := range ts.Fields {
		if !f.Type.Nullable {
			w.notNull = append(w.notNull, i)
		}
	}
	if name, ok := o.Get("rowkind.field"); ok {
		i, f, found := types.FieldByName(ts.Fields, name)
		if !found || !f.Type.IsString() {
			return fmt.Errorf("%w: rowkind.field = %s must name a STRING column", schema.ErrInvalidOption, name)
		}
		w.rowKindField = i
	}

	w.partFields = ts.PartitionFields()
	w.partIdx = ts.FieldIndexes(ts.PartitionKeys)
	w.partTypes = row.FieldTypes(w.partFields)
	legacy, err := o.PartitionLegacyName()
	if err != nil {
		return err
	}
	w.partComp = row.PartitionComputer{Fields: w.partFields, DefaultName: o.PartitionDefaultName(), Legacy: legacy}
	switch {
	case w.dyn != nil || w.xp != nil:
		// Dynamic buckets assign by the trimmed primary key's hash
		// (HashBucketAssignerOperator: trimmedPrimaryKey().hashCode()).
		w.bucketIdx = ts.FieldIndexes(ts.TrimmedPrimaryKeys())
		w.bucketType = row.FieldTypes(ts.TrimmedPrimaryKeyFields())
		if len(w.bucketIdx) == 0 || slices.Contains(w.bucketIdx, -1) {
			return fmt.Errorf("%w: bucket = -1 needs a primary key beyond the partition fields", schema.ErrInvalidSchema)
		}
	case !w.unaware:
		w.bucketIdx = ts.FieldIndexes(ts.BucketKeys())
		w.bucketType = row.FieldTypes(ts.BucketKeyFields())
		if len(w.bucketIdx) == 0 || slices.Contains(w.bucketIdx, -1) {
			return fmt.Errorf("%w: bucket = %d needs a bucket key (bucket-key option or primary key)", schema.ErrInvalidSchema, w.numBuckets)
		}
		if w.modBuckets && (len(w.bucketType) != 1 || (w.bucketType[0].Kind != types.KindInt && w.bucketType[0].Kind != types.KindBigInt)) {
			return fmt.Errorf("%w: bucket-function.type = mod needs a single INT or BIGINT bucket key", schema.ErrInvalidOption)
		}
	}
	lc := datafile.Config{Source: manifest.SourceAppend, Allocator: w.cfg.mem, Now: func() time.Time { return w.now() }}
	if hasPK {
		lc.RowGroupBytes = levelZeroRowGroupBytes
	}
	if w.layout, err = datafile.NewLayout(ts, lc); err != nil {
		if errors.Is(err, datafile.ErrUnsupported) {
			err = fmt.Errorf("%w: %w", ErrUnsupported, err)
		}
		return err
	}
	if hasPK {
		if err := w.initPK(); err != nil {
			return err
		}
	}
	return w.initCompaction()
}

// Write writes the rows of rec. rec must have one column per table column
// (matched by name) of the types types.ToArrow gives, plus optionally the row
// kind column. All checks (schema, NOT NULL, row kinds, partition values,
// bucket counts of existing partitions) run before any row is written. Append
// tables write straight into the current data file of each partition-bucket;
// primary-key tables buffer rows, spilling sorted runs to local files (or
// flushing level-0 files) when write-buffer-size is reached, until
// PrepareCommit. rec is not retained after Write returns except through
// reference-counted column buffers. Errors of spilling name the spill file or
// directory.
func (w *Write) Write(ctx context.Context, rec arrow.RecordBatch) error {
	in, err := w.begin(ctx, rec)
	if err != nil {
		return err
	}
	defer in.release()
	if w.xp != nil {
		routed, err := w.routeCross(ctx, in)
		if err != nil {
			return err
		}
		if routed != in {
			defer routed.release()
		}
		in = routed
	}
	groups, err := w.group(ctx, in)
	if err != nil {
		return err
	}
	return w.writeGroups(ctx, in, groups)
}

// ErrNotInBucket reports rows given to WriteBucket that do not belong to
// the partition-bucket named.
var ErrNotInBucket = errors.New("writer: rows do not belong to the partition-bucket given")

// WriteBucket writes rec as Write does, when every row of rec belongs to
// one partition-bucket: partition is its serialized BinaryRow (row.Serialize,
// as commit.Message.Partition and Share.Partition) and bucket its bucket,
// such as a Share of Route, or the rows a real-time store holds for one
// partition-bucket. It skips what Write spends on computing each row's
// partition and bucket (encoding the partition values, hashing the bucket
// key, grouping); the first row's partition and bucket are computed and
// must equal those given, else nothing is written and the error wraps
// ErrNotInBucket. Tables whose bucket assignment keeps state (dynamic
// bucket, cross-partition upsert, postpone bucket) go through Write, as do
// batches with row kinds the table drops (ignore-delete). Java has no
// counterpart: its TableWriteImpl.write(row, bucket) takes a bucket but
// computes the partition of every row. Errors are Write's.
func (w *Write) WriteBucket(ctx context.Context, partition []byte, bucket int32, rec arrow.RecordBatch) error {
	if w.closed {
		return ErrClosed
	}
	if w.xp != nil || w.dyn != nil || w.post != nil {
		return w.Write(ctx, rec)
	}
	in, err := w.begin(ctx, rec)
	if err != nil {
		return err
	}
	defer in.release()
	if in.keep != nil || in.numRows() == 0 {
		groups, err := w.group(ctx, in)
		if err != nil {
			return err
		}
		return w.writeGroups(ctx, in, groups)
	}
	first := &input{rec: in.rec.NewSlice(0, 1)}
	defer first.release()
	gs, err := w.group(ctx, first)
	if err != nil {
		return err
	}
	if len(gs) != 1 || !bytes.Equal(gs[0].partition, partition) || gs[0].bucket != bucket {
		return fmt.Errorf("%w: given bucket %d of partition %x, the first row is in bucket %d of partition %x", ErrNotInBucket, bucket, partition, gs[0].bucket, gs[0].partition)
	}
	g := gs[0]
	g.rows = nil
	return w.writeGroups(ctx, in, []*group{g})
}

// begin checks that w is open, takes in what other writers re-sequenced
// and checks rec against the table (prepare).
func (w *Write) begin(ctx context.Context, rec arrow.RecordBatch) (*input, error) {
	if w.closed {
		return nil, ErrClosed
	}
	if err := w.applyResequenced(ctx); err != nil {
		return nil, err
	}
	return w.prepare(rec)
}

// writeGroups writes the rows of in, grouped by partition-bucket.
func (w *Write) writeGroups(ctx context.Context, in *input, groups []*group) error {
	// Create every writer first: their restore may fail (bucket count check),
	// and nothing may be written then.
	var err error
	bws := make([]*bucketWriter, len(groups))
	for i, g := range groups {
		if bws[i], err = w.writer(ctx, g); err != nil {
			return err
		}
	}
	for i, g := range groups {
		sub, kinds, seqs, err := in.take(ctx, w.cfg.mem, g.rows)
		if err != nil {
			return err
		}
		if bc := bws[i].comp; bc != nil {
			bc.touched = true
		}
		if w.post != nil && w.post.into {
			err = w.writePostpone(ctx, bws[i], sub, kinds)
		} else if w.pk != nil {
			err = w.bufferPK(ctx, bws[i], sub, kinds, seqs)
		} else {
			err = bws[i].writeAppend(ctx, sub)
		}
		sub.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// group is one partition-bucket's share of a batch.
type group struct {
	key       string
	partition []byte // serialized partition row
	partPath  string // "k=v/" or ""
	bucket    int32
	rows      []int32 // nil = all rows of the batch
}

// groupKey is the map key of a partition-bucket.
func groupKey(partition []byte, bucket int32) string {
	b := binary.BigEndian.AppendUint32(append([]byte(nil), partition...), uint32(bucket))
	return string(b)
}

// group computes partition and bucket of every row (TableWriteImpl
// toSinkRecord: FixedBucketRowKeyExtractor / AppendTableRowKeyExtractor) and
// groups the rows, in order of first appearance.
func (w *Write) group(ctx context.Context, in *input) ([]*group, error) {
	n := in.numRows()
	// One bucket (or none) means bucket 0 for every row: skip the hashing.
	hashed := ((!w.unaware && w.numBuckets > 1) || w.dyn != nil || (w.post != nil && !w.post.into)) && in.buckets == nil
	bucket := int32(0)
	if w.post != nil && w.post.into {
		bucket = PostponeBucket
	}
	if len(w.partIdx) == 0 && !hashed && in.keep == nil && in.buckets == nil {
		p := row.Serialize(row.EmptyRow())
		return []*group{{key: groupKey(p, bucket), partition: p, bucket: bucket}}, nil
	}
	var partCmp, bucketCmp comparator
	var err error
	if len(w.partIdx) > 0 {
		if partCmp, err = keyComparator(in.cols(w.partIdx)); err != nil {
			return nil, err
		}
	}
	// Fixed buckets hashed from the Arrow columns straight (row.ArrowEncoder)
	// when the bucket key's types allow.
	var keyEnc *row.ArrowEncoder
	if hashed {
		if bucketCmp, err = keyComparator(in.cols(w.bucketIdx)); err != nil {
			return nil, err
		}
		if w.dyn == nil && w.post == nil && !w.modBuckets {
			keyEnc, _ = row.NewArrowEncoder(w.bucketType, in.cols(w.bucketIdx))
		}
	}
	// The groups of the current partition by bucket, so that a row whose
	// partition is the previous row's finds its group without building a
	// key: parts holds them per partition.
	parts := map[string]*bucketGroups{}
	var out []*group
	emptyPart := row.Serialize(row.EmptyRow())
	part, path := emptyPart, ""
	cur := &bucketGroups{}
	parts[string(part)] = cur
	partVals := make([]any, len(w.partIdx))
	bucketVals := make([]any, len(w.bucketIdx))
	prev := -1
	for i := range n {
		if in.keep != nil && !in.keep[i] {
			continue
		}
		newPart := false
		if len(w.partIdx) > 0 && (prev < 0 || partCmp(prev, i) != 0) {
			newPart = true
			for k, c := range w.partIdx {
				if partVals[k], err = viewAt(in.rec.Column(c), i, w.partFields[k].Type); err != nil {
					return nil, err
				}
			}
			br, err := row.Encode(w.partTypes, partVals)
			if err != nil {
				return nil, fmt.Errorf("writer: partition of row %d: %w", i, err)
			}
			part = row.Serialize(br)
			if path, err = w.partComp.Path(partVals); err != nil {
				return nil, fmt.Errorf("writer: partition path of row %d: %w", i, err)
			}
			if cur = parts[string(part)]; cur == nil {
				cur = &bucketGroups{}
				parts[string(part)] = cur
			}
		}
		if in.buckets != nil {
			bucket = in.buckets[i]
		} else if keyEnc != nil && (prev < 0 || bucketCmp(prev, i) != 0) {
			bucket = int32(row.Bucket(keyEnc.Row(i), w.numBuckets))
		} else if hashed && (prev < 0 || bucketCmp(prev, i) != 0 || (newPart && (w.dyn != nil || w.post != nil))) {
			for k, c := range w.bucketIdx {
				if bucketVals[k], err = viewAt(in.rec.Column(c), i, w.bucketType[k]); err != nil {
					return nil, err
				}
			}
			switch {
			case w.dyn != nil:
				bucket, err = w.dynamicBucket(ctx, part, bucketVals)
			case w.post != nil:
				var nb int
				if nb, err = w.postponeNumBuckets(ctx, part, path); err == nil {
					bucket, err = w.bucketOfN(bucketVals, nb)
				}
			default:
				bucket, err = w.bucketOf(bucketVals)
			}
			if err != nil {
				return nil, fmt.Errorf("writer: bucket of row %d: %w", i, err)
			}
		}
		prev = i
		g := cur.get(bucket)
		if g == nil {
			g = &group{key: groupKey(part, bucket), partition: part, partPath: path, bucket: bucket}
			cur.put(g)
			out = append(out, g)
		}
		g.rows = append(g.rows, int32(i))
	}
	if len(out) == 1 && len(out[0].rows) == n {
		out[0].rows = nil
	}
	return out, nil
}

// bucketGroups are the groups of one partition by bucket: a slice for
// buckets 0 to 1023, a map for the others (the postpone bucket, larger
// bucket numbers).
type bucketGroups struct {
	low  []*group
	high map[int32]*group
}

const lowBuckets = 1024

func (b *bucketGroups) get(bucket int32) *group {
	if bucket >= 0 && bucket < lowBuckets {
		if int(bucket) < len(b.low) {
			return b.low[bucket]
		}
		return nil
	}
	return b.high[bucket]
}

func (b *bucketGroups) put(g *group) {
	if g.bucket >= 0 && g.bucket < lowBuckets {
		if int(g.bucket) >= len(b.low) {
			b.low = append(b.low, make([]*group, int(g.bucket)+1-len(b.low))...)
		}
		b.low[g.bucket] = g
		return
	}
	if b.high == nil {
		b.high = map[int32]*group{}
	}
	b.high[g.bucket] = g
}

// bucketOf is the bucket function over the bucket key values.
func (w *Write) bucketOf(vals []any) (int32, error) { return w.bucketOfN(vals, w.numBuckets) }

// bucketOfN is the bucket function over the bucket key values for n buckets.
func (w *Write) bucketOfN(vals []any, n int) (int32, error) {
	if w.modBuckets {
		b, err := row.ModBucket(vals[0], n)
		return int32(b), err
	}
	br, err := row.Encode(w.bucketType, vals)
	if err != nil {
		return 0, err
	}
	return int32(row.Bucket(br, n)), nil
}

// writer returns the partition-bucket's writer, creating it (with the
// restore of its sequence numbers) on first use.
func (w *Write) writer(ctx context.Context, g *group) (*bucketWriter, error) {
	if bw := w.writers[g.key]; bw != nil {
		return bw, nil
	}
	if err := w.checkBucketCount(ctx, g); err != nil {
		return nil, err
	}
	bw := &bucketWriter{
		w: w, partition: g.partition, bucket: g.bucket,
		dir: w.ts.Options.DataFilePathDirectory() + g.partPath + bucketDir(g.bucket),
	}
	// Unaware-bucket append writers ignore previous files (AppendFileStoreWrite):
	// their sequence numbers restart at 0.
	var restored []manifest.DataFileMeta
	if !w.unaware {
		if r, ok := w.restored[g.key]; ok {
			bw.seq = r.maxSeq + 1
			restored = r.files
		}
	}
	if w.comp != nil {
		bc, err := w.newBucketCompaction(ctx, bw.dir, g.partition, g.bucket, restored)
		if err != nil {
			return nil, fmt.Errorf("writer: restore bucket %s: %w", bw.dir, err)
		}
		bw.comp = bc
	}
	// Append files count sequence numbers on from the bucket's; key-value
	// files carry their own.
	names := datafile.NewNamer(w.newUUID())
	bw.rw = datafile.NewRollingWriter(w.fio, bw.dir, w.layout, names, bw.seq)
	bw.rw.HandRows(w.cfg.writtenRows)
	if w.clLayout != nil {
		bw.cl = w.newChangelogWriter(bw, names)
	}
	w.writers[g.key] = bw
	return bw, nil
}

// checkBucketCount loads the restore (fixed-bucket tables) and reports
// ErrBucketCountChanged when g's partition has live files of another bucket
// count (AbstractFileStoreWrite.createWriterContainer's check).
func (w *Write) checkBucketCount(ctx context.Context, g *group) error {
	if w.unaware || (w.post != nil && w.post.into) {
		return nil // bucket-postpone writers ignore previous files (PostponeBucketFileStoreWrite)
	}
	if err := w.loadRestore(ctx); err != nil {
		return err
	}
	if w.post != nil {
		return nil // the partition's bucket count comes from its files
	}
	if tb, ok := w.partBkts[string(g.partition)]; ok && tb > 0 && int(tb) != w.numBuckets {
		name := strings.TrimSuffix(g.partPath, "/")
		return fmt.Errorf("%w: partition %q has files for %d buckets, the table now has %d; rescale it with an overwrite first",
			ErrBucketCountChanged, name, tb, w.numBuckets)
	}
	return nil
}

// PrepareCommit flushes every partition-bucket (closing open data files,
// merging primary-key buffers and their spilled runs into level-0 files),
// compacts them, and returns one commit message per partition-bucket that
// has new files or compaction changes since the previous PrepareCommit,
// ordered by partition bytes then bucket (AbstractFileStoreWrite.prepareCommit
// with MergeTreeWriter / AppendOnlyWriter.prepareCommit). Writers stay open
// for further Write calls.
//
// Compaction (unless write-only = true; not for bucket-unaware append
// tables, nor for tables package compaction does not compact): every
// partition-bucket keeps its files, restored from the latest snapshot when
// its writer is created and updated with each flush and compaction, as
// levels (primary key) or a queue of small files (append). After the flush,
// a primary-key bucket compacts what the universal strategy
// (compaction.StrategyOf) picks, an append bucket the files
// compaction.AppendPicker picks once compaction.min.file-num files are
// waiting; every full-compaction.delta-commits-th PrepareCommit of the Write
// (counting from 1) compacts the buckets written since the previous one
// fully, into the highest level. Without WithAsyncCompaction the compaction
// runs here and PrepareCommit waits for it (Java's batch write). The result
// is the message's Compact increment: Before the files removed (at their
// levels), After the new files and the upgraded ones (same name, new
// level); the committer publishes it as a COMPACT snapshot after the APPEND
// one, and its conflict check rejects a compaction whose input files a
// concurrent commit removed (commit.ErrConflict), and a compaction that
// needs a file deleted under the Write (expire.Rollback) fails with
// ErrStale, so a Write whose restored files went stale fails cleanly (see
// Restore).
//
// Deletion-vector and first-row tables are compacted with lookup (Java's
// needLookup): level 0 is forced up, and PrepareCommit compacts each
// written bucket until it has no level-0 file left and waits for it, also
// with WithAsyncCompaction (lookup.wait = true, the default; false is not
// supported), because batch reads of these tables skip level 0. With
// deletion vectors, each bucket's vectors are restored from the index
// manifest of the snapshot its writer restores from, compaction marks the
// rows newer records replace, and a bucket whose vectors changed gets one
// new index file holding all of them in the message's
// Compact.NewIndexFiles, replacing the ones in Compact.DeletedIndexFiles
// (the committer refuses it with commit.ErrConflict when another commit
// replaced those first). If PrepareCommit fails, the index files it wrote
// are deleted again.
func (w *Write) PrepareCommit(ctx context.Context) ([]commit.Message, error) {
	if w.closed {
		return nil, ErrClosed
	}
	if w.comp != nil {
		w.comp.prepares++
	}
	if err := w.applyResequenced(ctx); err != nil {
		return nil, err
	}
	bws := w.sortedWriters()
	var msgs []commit.Message
	for _, bw := range bws {
		if err := bw.prepareCompact(ctx); err != nil {
			return nil, err
		}
	}
	// Deletion vectors go into one new index file per changed bucket; if a
	// later bucket fails, the files written here are deleted again.
	var newIndex [][]manifest.IndexFileMeta
	var deletedIndex [][]manifest.IndexFileMeta
	for _, bw := range bws {
		n, d, err := bw.prepareIndex(ctx)
		if err != nil {
			w.deleteIndexFiles(context.WithoutCancel(ctx), newIndex)
			return nil, err
		}
		newIndex, deletedIndex = append(newIndex, n), append(deletedIndex, d)
	}
	for i, bw := range bws {
		m := commit.Message{
			Partition:    bytesClone(bw.partition),
			Bucket:       bw.bucket,
			TotalBuckets: w.totalBuckets(bw),
			Data:         commit.DataIncrement{NewFiles: bw.newFiles, ChangelogFiles: bw.newChangelog},
		}
		m.Compact, m.Levels = bw.drainCompact()
		if w.pk != nil {
			m.OnResequenced = w.reseq.report
		}
		if w.xp != nil {
			m.KeyIndexFrom = w.xp.from
		}
		if !m.Compact.IsEmpty() && !w.comp.async {
			// Writers with background compactions keep the documented
			// recovery (ErrCompactionNotCommitted, then Restore): rebuilding
			// their levels while a compaction runs is not covered yet.
			m.OnCompactionRefused = w.reseq.refuse
		}
		m.Compact.NewIndexFiles, m.Compact.DeletedIndexFiles = newIndex[i], deletedIndex[i]
		bw.newFiles, bw.newChangelog = nil, nil
		if m.Data.IsEmpty() && m.Compact.IsEmpty() {
			continue
		}
		msgs = append(msgs, m)
	}
	if w.xp != nil {
		w.xp.pending = false // the next row refreshes the key index first
	}
	if w.dyn != nil {
		return w.prepareDynamicIndex(ctx, msgs)
	}
	return msgs, nil
}

// deleteIndexFiles deletes index files written by a PrepareCommit that
// failed, best effort (one left behind is an orphan).
func (w *Write) deleteIndexFiles(ctx context.Context, files [][]manifest.IndexFileMeta) {
	for _, fs := range files {
		for _, f := range fs {
			_ = w.fio.Delete(ctx, deletionvector.Path(f.FileName))
		}
	}
}

func (w *Write) sortedWriters() []*bucketWriter {
	bws := make([]*bucketWriter, 0, len(w.writers))
	for _, bw := range w.writers {
		bws = append(bws, bw)
	}
	slices.SortFunc(bws, func(a, b *bucketWriter) int {
		if c := cmp.Compare(string(a.partition), string(b.partition)); c != 0 {
			return c
		}
		return cmp.Compare(a.bucket, b.bucket)
	})
	return bws
}

// Close discards what has not been handed out by PrepareCommit: open data
// files are aborted, buffered rows dropped, the spill directory removed and
// flushed files not yet in a commit message deleted
// (MergeTreeWriter/AppendOnlyWriter.close). Files in messages already
// returned are left alone. Close is idempotent.
func (w *Write) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	ctx := context.Background()
	if w.comp != nil && w.comp.cancel != nil {
		w.comp.cancel()
	}
	var errs []error
	for _, bw := range w.sortedWriters() {
		errs = append(errs, bw.abortCompact(ctx), bw.abort(ctx))
	}
	w.writers = nil
	errs = append(errs, w.spillDir.remove())
	return errors.Join(errs...)
}

func bytesClone(b []byte) []byte { return append([]byte(nil), b...) }

// BufferStats returns the current state of the primary-key sort buffers
// (all zero for append tables).
func (w *Write) BufferStats() BufferStats {
	st := w.stats
	st.BufferedBytes = w.buffered
	return st
}
