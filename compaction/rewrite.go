package compaction

import (
	"context"
	"fmt"
	"iter"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/merge"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// table holds what every bucket's compaction of one table shares. It is
// safe for concurrent use by the buckets.
type table struct {
	fio     *fileio.FileIO
	ts      *schema.TableSchema
	mem     memory.Allocator
	now     func() time.Time
	schemas *schema.Manager

	pk        bool
	thin      bool              // data-file.thin-mode: files may lack the _KEY_ columns
	kvFields  []types.DataField // KeyValue layout of ts
	kvSchema  *arrow.Schema
	nk        int
	keyTypes  []types.DataType
	pkValues  []int // indexes of the trimmed primary key among ts.Fields
	mergeCfg  *merge.Config
	mergers   [2]*merge.Merger // [dropDeletes]
	batchSize int

	mu      sync.Mutex
	cache   map[int64]*schema.TableSchema
	layouts map[int]*datafile.Layout
}

func newTable(fio *fileio.FileIO, ts *schema.TableSchema, mem memory.Allocator, now func() time.Time) (*table, error) {
	t := &table{
		fio: fio, ts: ts, mem: mem, now: now,
		schemas: schema.NewManager(fio, ""),
		pk:      len(ts.PrimaryKeys) > 0,
		cache:   map[int64]*schema.TableSchema{ts.ID: ts},
		layouts: map[int]*datafile.Layout{},
	}
	var err error
	if t.batchSize, err = ts.Options.ReadBatchSize(); err != nil {
		return nil, err
	}
	t.batchSize = max(t.batchSize, merge.DefaultBatchSize)
	if !t.pk {
		return t, nil
	}
	if t.thin, err = ts.Options.DataFileThinMode(); err != nil {
		return nil, err
	}
	t.kvFields = datafile.KeyValueFields(ts)
	t.kvSchema = types.SchemaToArrow(t.kvFields)
	t.nk = len(ts.TrimmedPrimaryKeys())
	t.keyTypes = row.FieldTypes(t.kvFields[:t.nk])
	t.pkValues = ts.FieldIndexes(ts.TrimmedPrimaryKeys())
	if t.mergeCfg, err = merge.NewConfig(ts.Options, ts.Fields, ts.PrimaryKeys); err != nil {
		return nil, err
	}
	keyCols := make([]int, t.nk)
	for i := range keyCols {
		keyCols[i] = i
	}
	for i, drop := range []bool{false, true} {
		t.mergers[i], err = merge.NewMerger(t.mergeCfg, t.kvSchema, merge.Options{
			KeyColumns: keyCols, DropDeletes: drop, Layout: merge.LayoutKeyValue,
			BatchSize: t.batchSize, Allocator: mem,
		})
		if err != nil {
			return nil, err
		}
	}
	return t, nil
}

// schemaOf returns the schema a data file was written with.
func (t *table) schemaOf(ctx context.Context, id int64) (*schema.TableSchema, error) {
	t.mu.Lock()
	s, ok := t.cache[id]
	t.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := t.schemas.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("compaction: schema %d: %w", id, err)
	}
	t.mu.Lock()
	t.cache[id] = s
	t.mu.Unlock()
	return s, nil
}

// bucketJob compacts one partition-bucket.
type bucketJob struct {
	t     *table
	dir   string // bucket directory relative to the table root
	names *datafile.Namer
	keys  *KeyOrder
	// written collects the files this job wrote, for abort.
	written []string
}

// readFile reads a data file of the job's bucket as batches of the target
// fields, evolved from the file's schema by field id (reader.ReadDataFile).
// The consumer owns each batch, also one it stops at.
func (j *bucketJob) readFile(ctx context.Context, f *manifest.DataFileMeta, target []types.DataField) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		p := j.dir + "/" + f.FileName
		if f.ExternalPath != nil {
			yield(nil, fmt.Errorf("%w: data file %s lives in external path %s", ErrUnsupported, p, *f.ExternalPath))
			return
		}
		if ext := path.Ext(f.FileName); !strings.EqualFold(ext, ".parquet") {
			yield(nil, fmt.Errorf("%w: data file %s is not parquet", ErrUnsupported, p))
			return
		}
		fs, err := j.t.schemaOf(ctx, f.SchemaID)
		if err != nil {
			yield(nil, err)
			return
		}
		for rec, err := range reader.ReadDataFile(ctx, j.t.fio, p, fs, target, reader.FileReadOptions{BatchSize: j.t.batchSize, Allocator: j.t.mem}) {
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(rec, nil) {
				return
			}
		}
	}
}

// readKV reads a primary-key data file in the KeyValue layout of the
// table schema. In data-file.thin-mode the key columns are taken from the
// primary-key value columns, as the reader does.
func (j *bucketJob) readKV(ctx context.Context, f *manifest.DataFileMeta) iter.Seq2[arrow.RecordBatch, error] {
	t := j.t
	if !t.thin {
		return j.readFile(ctx, f, t.kvFields)
	}
	return func(yield func(arrow.RecordBatch, error) bool) {
		for rec, err := range j.readFile(ctx, f, t.kvFields[t.nk:]) {
			if err != nil {
				yield(nil, err)
				return
			}
			cols := make([]arrow.Array, 0, len(t.kvFields))
			for _, vi := range t.pkValues {
				cols = append(cols, rec.Column(2+vi))
			}
			cols = append(cols, rec.Columns()...)
			out := array.NewRecordBatch(t.kvSchema, cols, rec.NumRows())
			rec.Release()
			if !yield(out, nil) {
				return
			}
		}
	}
}

// readKeys reads only the key columns of a primary-key data file.
func (j *bucketJob) readKeys(ctx context.Context, f *manifest.DataFileMeta) iter.Seq2[arrow.RecordBatch, error] {
	t := j.t
	if !t.thin {
		return j.readFile(ctx, f, t.kvFields[:t.nk])
	}
	var fields []types.DataField
	for _, vi := range t.pkValues {
		fields = append(fields, t.ts.Fields[vi])
	}
	return j.readFile(ctx, f, fields)
}

// runOf reads a sorted run's files one after the other.
func (j *bucketJob) runOf(ctx context.Context, r SortedRun) merge.Run {
	files := r.Files
	return merge.RunFromSeq(func(yield func(arrow.RecordBatch, error) bool) {
		for i := range files {
			for rec, err := range j.readKV(ctx, &files[i]) {
				if !yield(rec, err) || err != nil {
					return
				}
			}
		}
	})
}

// rewrite merges the sections of a step and writes the result as files at
// outputLevel (MergeTreeCompactRewriter.rewriteCompaction; with step.Lookup
// the first-row lookup of LookupMergeTreeCompactRewriter). probes are the
// sorted runs of the levels above outputLevel (for Lookup).
func (j *bucketJob) rewrite(ctx context.Context, step Step, outputLevel int, above []SortedRun) (_ []manifest.DataFileMeta, err error) {
	t := j.t
	l, err := t.layout(outputLevel)
	if err != nil {
		return nil, err
	}
	w := datafile.NewRollingWriter(t.fio, j.dir, l, j.names, 0)
	defer func() {
		if err != nil {
			_ = w.Abort(context.WithoutCancel(ctx))
		}
	}()
	var probes []*runProbe
	if step.Lookup {
		for _, r := range above {
			probes = append(probes, &runProbe{j: j, files: r.Files})
		}
		defer func() {
			for _, p := range probes {
				p.close()
			}
		}()
	}
	m := t.mergers[0]
	if step.DropDeletes {
		m = t.mergers[1]
	}
	for _, section := range step.Sections {
		runs := make([]merge.Run, len(section))
		for i, r := range section {
			runs[i] = j.runOf(ctx, r)
		}
		for b, merr := range m.Merge(ctx, runs) {
			if merr != nil {
				return nil, fmt.Errorf("compaction: merge bucket %s: %w", j.dir, merr)
			}
			out := b
			if !out.Schema().Equal(t.kvSchema) {
				out = array.NewRecordBatch(t.kvSchema, b.Columns(), b.NumRows())
				b.Release()
			}
			if len(probes) > 0 {
				err = j.writeAbsent(ctx, w, out, probes)
			} else {
				err = w.Write(ctx, out)
			}
			out.Release()
			if err != nil {
				return nil, err
			}
		}
	}
	files, err := w.Flush(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		j.written = append(j.written, j.dir+"/"+f.FileName)
	}
	return files, nil
}

// writeAbsent writes the rows of rec whose key none of the probes holds
// (FirstRowMergeFunctionWrapper: a key already on a higher level keeps its
// first row there).
func (j *bucketJob) writeAbsent(ctx context.Context, w *datafile.RollingWriter, rec arrow.RecordBatch, probes []*runProbe) error {
	n := int(rec.NumRows())
	start := -1
	flush := func(end int) error {
		if start < 0 {
			return nil
		}
		s := rec.NewSlice(int64(start), int64(end))
		defer s.Release()
		start = -1
		return w.Write(ctx, s)
	}
	for i := range n {
		k, err := keyView(rec, i, j.t.keyTypes)
		if err != nil {
			return err
		}
		found := false
		for _, p := range probes {
			if found, err = p.contains(ctx, k); err != nil {
				return err
			} else if found {
				break
			}
		}
		if found {
			if err := flush(i); err != nil {
				return err
			}
		} else if start < 0 {
			start = i
		}
	}
	return flush(n)
}

// keyView returns row i's key columns as Go values that may alias rec's
// buffers (types.ArrowView).
func keyView(rec arrow.RecordBatch, i int, keyTypes []types.DataType) ([]any, error) {
	out := make([]any, len(keyTypes))
	for k, t := range keyTypes {
		v, err := types.ArrowView(t, rec.Column(k), i)
		if err != nil {
			return nil, fmt.Errorf("%w: key column %d: %w", ErrSchema, k, err)
		}
		out[k] = v
	}
	return out, nil
}

// runProbe answers "does this sorted run hold key k?" for keys asked in
// ascending order, reading the run's key columns sequentially and skipping
// files whose key range cannot hold k (the part of Java's LookupLevels a
// first-row compaction needs, without local lookup files).
type runProbe struct {
	j     *bucketJob
	files []manifest.DataFileMeta
	fi    int
	next  func() (arrow.RecordBatch, error, bool)
	stop  func()
	cur   arrow.RecordBatch
	pos   int
}

func (p *runProbe) contains(ctx context.Context, k []any) (bool, error) {
	keys := p.j.keys
	for {
		if p.cur != nil {
			for p.pos < int(p.cur.NumRows()) {
				ck, err := keyView(p.cur, p.pos, p.j.t.keyTypes)
				if err != nil {
					return false, err
				}
				c := keys.Compare(ck, k)
				if c < 0 {
					p.pos++
					continue
				}
				return c == 0, nil
			}
			p.cur.Release()
			p.cur = nil
		}
		if p.next != nil {
			rec, err, ok := p.next()
			if err != nil {
				return false, err
			}
			if ok {
				p.cur, p.pos = rec, 0
				continue
			}
			p.stop()
			p.next, p.stop = nil, nil
			p.fi++
		}
		for p.fi < len(p.files) {
			_, maxK, err := keys.Keys(&p.files[p.fi])
			if err != nil {
				return false, err
			}
			if keys.Compare(maxK, k) >= 0 {
				break
			}
			p.fi++
		}
		if p.fi >= len(p.files) {
			return false, nil
		}
		minK, _, err := keys.Keys(&p.files[p.fi])
		if err != nil {
			return false, err
		}
		if keys.Compare(minK, k) > 0 {
			return false, nil
		}
		p.next, p.stop = iter.Pull2(p.j.readKeys(ctx, &p.files[p.fi]))
	}
}

func (p *runProbe) close() {
	if p.cur != nil {
		p.cur.Release()
		p.cur = nil
	}
	if p.stop != nil {
		p.stop()
		p.next, p.stop = nil, nil
	}
}

// compactPK runs a primary-key unit of the job's bucket: the steps of
// PlanSteps, upgrades as level changes, rewrites through the merge. It
// returns the files removed (Before) and added (After).
func (j *bucketJob) compactPK(ctx context.Context, lv *Levels, u Unit, cfg TaskConfig) (before, after []manifest.DataFileMeta, err error) {
	steps, err := PlanSteps(u, j.keys, cfg)
	if err != nil {
		return nil, nil, err
	}
	var above []SortedRun
	for lvl := u.OutputLevel + 1; lvl <= lv.MaxLevel(); lvl++ {
		if r := lv.RunOfLevel(lvl); len(r.Files) > 0 {
			above = append(above, r)
		}
	}
	for _, s := range steps {
		if s.Upgrade != nil {
			before = append(before, *s.Upgrade)
			up := *s.Upgrade
			up.Level = int32(u.OutputLevel)
			after = append(after, up)
			continue
		}
		out, err := j.rewrite(ctx, s, u.OutputLevel, above)
		if err != nil {
			return nil, nil, err
		}
		for _, sec := range s.Sections {
			for _, r := range sec {
				before = append(before, r.Files...)
			}
		}
		after = append(after, out...)
	}
	return before, after, nil
}

// compactAppend rewrites a group of append files into files of
// target-file-size by concatenation (BaseAppendFileStoreWrite.compactRewrite):
// rows keep their order, sequence numbers restart from the first file's
// minimum.
func (j *bucketJob) compactAppend(ctx context.Context, group []manifest.DataFileMeta) (_ []manifest.DataFileMeta, err error) {
	t := j.t
	l, err := t.layout(0)
	if err != nil {
		return nil, err
	}
	w := datafile.NewRollingWriter(t.fio, j.dir, l, j.names, group[0].MinSequenceNumber)
	defer func() {
		if err != nil {
			_ = w.Abort(context.WithoutCancel(ctx))
		}
	}()
	for i := range group {
		for rec, rerr := range j.readFile(ctx, &group[i], t.ts.Fields) {
			if rerr != nil {
				return nil, rerr
			}
			err = w.Write(ctx, rec)
			rec.Release()
			if err != nil {
				return nil, err
			}
		}
	}
	files, err := w.Flush(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		j.written = append(j.written, j.dir+"/"+f.FileName)
	}
	return files, nil
}
