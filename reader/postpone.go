package reader

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"path"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// keyPostponeMergeOnRead is Java 2.x's CoreOptions.POSTPONE_MERGE_ON_READ
// (default false).
const keyPostponeMergeOnRead = "postpone.merge-on-read"

// postponeSource is the bucket-postpone side of a real-bucket split read
// with postpone.merge-on-read: its partition's postpone files, whose rows
// routed to the split's bucket are merged with the split's files.
type postponeSource struct {
	files      []manifest.DataFileMeta // replay order: creation time, then commit order
	dir        string                  // the partition's bucket-postpone directory
	numBuckets int                     // the partition's bucket count
	seq        int64                   // sequence number of the first routed row
}

// mergeOnRead reports whether batch reads of ts merge bucket-postpone rows
// (bucket = -2 primary-key table with postpone.merge-on-read = true).
func mergeOnRead(ts *schema.TableSchema) (bool, error) {
	n, err := ts.NumBuckets()
	if err != nil || n != -2 || len(ts.PrimaryKeys) == 0 {
		return false, err
	}
	return ts.Options.Bool(keyPostponeMergeOnRead, false)
}

// attachPostpone turns splits planned with the bucket-postpone splits into
// the splits of a postpone.merge-on-read read (Java 2.x
// PostponeMergeReadBuilder): each partition's postpone files are attached
// to every real bucket of the partition (the _TOTAL_BUCKETS of its
// real-bucket files, else postpone.default-bucket-num), with an empty split
// for each bucket without files, and the postpone splits are dropped.
func attachPostpone(t *tableState, ts *schema.TableSchema, splits []*Split) ([]*Split, error) {
	defNum, err := ts.Options.Int("postpone.default-bucket-num", 1)
	if err != nil {
		return nil, err
	}
	if defNum <= 0 {
		return nil, fmt.Errorf("%w: postpone.default-bucket-num = %d must be positive", schema.ErrInvalidOption, defNum)
	}
	type part struct {
		post   *Split
		real   []*Split
		counts int32
	}
	parts := map[string]*part{}
	var order []string
	var out []*Split
	for _, sp := range splits {
		k := string(sp.Partition)
		p := parts[k]
		if p == nil {
			p = &part{}
			parts[k] = p
			order = append(order, k)
		}
		if sp.Bucket == -2 {
			p.post = sp
			continue
		}
		out = append(out, sp)
		p.real = append(p.real, sp)
		if sp.TotalBuckets > 0 {
			if p.counts != 0 && p.counts != sp.TotalBuckets {
				return nil, fmt.Errorf("%w: partition of %s has real-bucket files for %d and for %d buckets", ErrInvalidScan, sp.BucketPath, p.counts, sp.TotalBuckets)
			}
			p.counts = sp.TotalBuckets
		}
	}
	for _, k := range order {
		p := parts[k]
		if p.post == nil {
			continue
		}
		n := int(p.counts)
		if n == 0 {
			n = defNum
		}
		files := slices.Clone(p.post.Files)
		slices.SortStableFunc(files, func(a, b manifest.DataFileMeta) int {
			return cmp.Compare(creation(a.CreationTime), creation(b.CreationTime))
		})
		have := map[int32]bool{}
		dir := strings.TrimSuffix(p.post.BucketPath, "bucket-postpone")
		attach := func(sp *Split) {
			seq := int64(-1)
			for _, f := range sp.Files {
				seq = max(seq, f.MaxSequenceNumber)
			}
			sp.post = &postponeSource{files: files, dir: p.post.BucketPath, numBuckets: n, seq: seq + 1}
			sp.RawConvertible = false
			have[sp.Bucket] = true
		}
		for _, sp := range p.real {
			attach(sp)
		}
		for b := range int32(n) {
			if have[b] {
				continue
			}
			sp := &Split{
				Partition: p.post.Partition, PartitionValues: p.post.PartitionValues, Bucket: b, TotalBuckets: int32(n),
				BucketPath: bucketPath(dir, b), PrimaryKey: true, table: t, schema: ts, DeletionFiles: map[string]DeletionFile{},
			}
			attach(sp)
			out = append(out, sp)
		}
	}
	sortSplits(out)
	return out, nil
}

func creation(t *int64) int64 {
	if t == nil {
		return -1 << 63
	}
	return *t
}

// postponeRows is the sorted run of the postpone rows of sp's partition
// that route to sp's bucket: read in replay order, sequence numbers
// sp.post.seq, +1, ... in that order, sorted by key then sequence number,
// in the KeyValue layout (ReadSplitWith's mem stream).
func (p *Plan) postponeRows(ctx context.Context, sp *Split) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		rec, err := p.routePostpone(ctx, sp)
		if err != nil {
			yield(nil, err)
			return
		}
		if rec != nil {
			yield(rec, nil)
		}
	}
}

func (p *Plan) routePostpone(ctx context.Context, sp *Split) (arrow.RecordBatch, error) {
	t, ts, src := sp.table, sp.schema, sp.post
	mem := memory.DefaultAllocator
	kv := datafile.KeyValueFields(ts)
	sc := types.SchemaToArrow(kv)
	nk := len(ts.TrimmedPrimaryKeys())
	rt, err := NewPostponeRouter(ts)
	if err != nil {
		return nil, err
	}
	var parts []arrow.RecordBatch
	defer func() {
		for _, r := range parts {
			r.Release()
		}
	}()
	for i := range src.files {
		f := &src.files[i]
		fileSchema, err := t.schema(ctx, f.SchemaID)
		if err != nil {
			return nil, err
		}
		fp := path.Join(src.dir, f.FileName)
		for rec, err := range ReadDataFile(ctx, t.fio, fp, fileSchema, kv, FileReadOptions{BatchSize: p.cfg.batchSize, Allocator: mem, RowCount: f.RowCount}) {
			if err != nil {
				return nil, fmt.Errorf("reader: postpone file %s: %w", fp, err)
			}
			var idx []int32
			for r := range int(rec.NumRows()) {
				vals, err := rt.Key(rec, r)
				if err != nil {
					rec.Release()
					return nil, fmt.Errorf("reader: postpone file %s: %w", fp, err)
				}
				b, err := rt.Bucket(vals, src.numBuckets)
				if err != nil {
					rec.Release()
					return nil, fmt.Errorf("reader: postpone file %s: bucket of row %d: %w", fp, r, err)
				}
				if b == sp.Bucket {
					idx = append(idx, int32(r))
				}
			}
			if len(idx) > 0 {
				sub, err := format.Take(ctx, mem, rec, idx)
				if err != nil {
					rec.Release()
					return nil, fmt.Errorf("reader: select rows: %w", err)
				}
				parts = append(parts, sub)
			}
			rec.Release()
		}
	}
	if len(parts) == 0 {
		return nil, nil
	}
	run, err := PostponeRun(ctx, mem, sc, parts, row.FieldTypes(kv[:nk]), src.seq)
	if err != nil {
		return nil, fmt.Errorf("reader: postpone rows of %s: %w", sp.BucketPath, err)
	}
	return run, nil
}

// concatBatches concatenates batches of schema sc into one.
func concatBatches(sc *arrow.Schema, recs []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, sc.NumFields())
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	parts := make([]arrow.Array, len(recs))
	for c := range cols {
		for i, r := range recs {
			parts[i] = r.Column(c)
		}
		a, err := array.Concatenate(parts, mem)
		if err != nil {
			for _, x := range cols[:c] {
				x.Release()
			}
			return nil, fmt.Errorf("reader: concatenate postpone rows: %w", err)
		}
		cols[c] = a
	}
	out := array.NewRecordBatch(sc, cols, n)
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}
