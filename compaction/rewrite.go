package compaction

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/deletionvector"
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

	pk          bool
	thin        bool              // data-file.thin-mode: files may lack the _KEY_ columns
	kvFields    []types.DataField // KeyValue layout of ts
	kvSchema    *arrow.Schema
	nk          int
	keyTypes    []types.DataType
	pkValues    []int // indexes of the trimmed primary key among ts.Fields
	mergeCfg    *merge.Config
	mergers     [2]*merge.Merger // [dropDeletes]
	dv          bool             // deletion-vectors.enabled
	bitmap64    bool             // deletion-vectors.bitmap64
	lookupMerge bool             // dv or lookup changelog, with another merge engine than deduplicate or sequence.field
	firstRow    bool             // merge-engine = first-row
	lookup      bool             // the mergers pick records by level (merge.Options.Lookup)
	batchSize   int
	changelog   changelogConfig    // changelog-producer = lookup or full-compaction
	rows        *datafile.RowsHook // RewriterOptions.Rows

	mu        sync.Mutex
	clLayouts map[int]*datafile.Layout // changelog files by level
	cache     map[int64]*schema.TableSchema
	layouts   map[int]*datafile.Layout
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
	if t.dv, err = ts.Options.DeletionVectorsEnabled(); err != nil {
		return nil, err
	}
	if t.bitmap64, err = ts.Options.DeletionVectorsBitmap64(); err != nil {
		return nil, err
	}
	if t.changelog, err = newChangelogConfig(ts, t.nk); err != nil {
		return nil, err
	}
	// A lookup (deletion vectors, changelog-producer = lookup) merges the
	// version found above the output level into the result unless the
	// latest record wins anyway (LookupChangelogMergeFunctionWrapper).
	t.lookupMerge = (t.dv || t.changelog.mode == changelogLookup) &&
		(t.mergeCfg.Engine() != merge.Deduplicate || len(t.mergeCfg.SequenceFields()) > 0)
	t.firstRow = t.mergeCfg.Engine() == merge.FirstRow
	if t.lookup, err = ts.Options.LookupMerge(); err != nil {
		return nil, err
	}
	keyCols := make([]int, t.nk)
	for i := range keyCols {
		keyCols[i] = i
	}
	for i, drop := range []bool{false, true} {
		t.mergers[i], err = merge.NewMerger(t.mergeCfg, t.kvSchema, merge.Options{
			KeyColumns: keyCols, DropDeletes: drop, Layout: merge.LayoutKeyValue,
			BatchSize: t.batchSize, Allocator: mem, Lookup: t.lookup,
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
	// dvs are the bucket's deletion vectors (deletion-vector tables only):
	// inputs are read with them, compactions update them.
	dvs *deletionvector.Maintainer
	// written collects the files this job wrote, for abort.
	written []string
	// cl writes the changelog files of the job (nil until first used).
	cl *changelogEmitter
}

// inputDV returns the deletion vector of an input file, nil when it has
// none.
func (j *bucketJob) inputDV(f *manifest.DataFileMeta) *deletionvector.DeletionVector {
	if j.dvs == nil {
		return nil
	}
	return j.dvs.DeletionVectorOf(f.FileName)
}

// readFile reads a data file of the job's bucket as batches of the target
// fields, evolved from the file's schema by field id (reader.ReadDataFile),
// without the rows dv deletes (nil: every row). The consumer owns each
// batch, also one it stops at.
func (j *bucketJob) readFile(ctx context.Context, f *manifest.DataFileMeta, target []types.DataField, dv *deletionvector.DeletionVector) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		p, fio := j.dir+"/"+f.FileName, j.t.fio
		if f.ExternalPath != nil && *f.ExternalPath != "" {
			var done func() error
			var err error
			if fio, p, done, err = fio.OpenLocation(ctx, *f.ExternalPath); err != nil {
				yield(nil, fmt.Errorf("compaction: data file %s: %w", f.FileName, err))
				return
			}
			defer done()
		}
		fs, err := j.t.schemaOf(ctx, f.SchemaID)
		if err != nil {
			yield(nil, err)
			return
		}
		opts := reader.FileReadOptions{BatchSize: j.t.batchSize, Allocator: j.t.mem, DeletionVector: dv, RowCount: f.RowCount}
		for rec, err := range reader.ReadDataFile(ctx, fio, p, fs, target, opts) {
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
// table schema, without the rows dv deletes. In data-file.thin-mode the key
// columns are taken from the primary-key value columns, as the reader does.
func (j *bucketJob) readKV(ctx context.Context, f *manifest.DataFileMeta, dv *deletionvector.DeletionVector) iter.Seq2[arrow.RecordBatch, error] {
	t := j.t
	if !t.thin {
		return j.readFile(ctx, f, t.kvFields, dv)
	}
	return func(yield func(arrow.RecordBatch, error) bool) {
		for rec, err := range j.readFile(ctx, f, t.kvFields[t.nk:], dv) {
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

// readKeys reads only the key columns of a primary-key data file, without
// the rows dv deletes.
func (j *bucketJob) readKeys(ctx context.Context, f *manifest.DataFileMeta, dv *deletionvector.DeletionVector) iter.Seq2[arrow.RecordBatch, error] {
	t := j.t
	if !t.thin {
		return j.readFile(ctx, f, t.kvFields[:t.nk], dv)
	}
	var fields []types.DataField
	for _, vi := range t.pkValues {
		fields = append(fields, t.ts.Fields[vi])
	}
	return j.readFile(ctx, f, fields, dv)
}

// lookupKeys and lookupKV are the KeyReaders of lookups on the levels above
// a compaction's output: every row, so that positions count from the
// file's first row (the DVLookup skips deleted rows itself).
func (j *bucketJob) lookupKeys(ctx context.Context, f *manifest.DataFileMeta) iter.Seq2[arrow.RecordBatch, error] {
	return j.readKeys(ctx, f, nil)
}

func (j *bucketJob) lookupKV(ctx context.Context, f *manifest.DataFileMeta) iter.Seq2[arrow.RecordBatch, error] {
	return j.readKV(ctx, f, nil)
}

// runsOf reads a sorted run's files one after the other, with their
// deletion vectors applied (Java's compaction reader factory is built with
// the bucket's DeletionVector.Factory). A sorted run of a section
// (IntervalPartition) may hold files of several levels; it is read as one
// merge.Run per level, each marked with its level (merge.AtLevel), since
// the lookup merge picks records by the level of their file, as Java's
// KeyValue.level() does. Without the lookup merge it is one merge.Run.
func (j *bucketJob) runsOf(ctx context.Context, r SortedRun) []merge.Run {
	var levels []int32
	for _, f := range r.Files {
		if !slices.Contains(levels, f.Level) {
			levels = append(levels, f.Level)
		}
	}
	if !j.t.lookup && len(levels) > 1 {
		levels = levels[:1] // level unused: one run of every file
	}
	out := make([]merge.Run, 0, len(levels))
	for _, lvl := range levels {
		files := r.Files
		if j.t.lookup {
			files = nil
			for _, f := range r.Files {
				if f.Level == lvl {
					files = append(files, f)
				}
			}
		}
		out = append(out, merge.AtLevel(merge.RunFromSeq(func(yield func(arrow.RecordBatch, error) bool) {
			for i := range files {
				for rec, err := range j.readKV(ctx, &files[i], j.inputDV(&files[i])) {
					if !yield(rec, err) || err != nil {
						return
					}
				}
			}
		}), int(lvl)))
	}
	return out
}

// lookups are the lookups of one primary-key task on the levels above its
// output level, opened on first use and shared by its steps, which come in
// key order.
type lookups struct {
	j        *bucketJob
	maxLevel int
	above    []LevelSortedRun
	keys     *DVLookup // key columns: first-row, marking
	kv       *DVLookup // whole records: LookupMerge
}

func (l *lookups) keyLookup() *DVLookup {
	if l.keys == nil {
		l.keys = NewDVLookup(l.j.keys, l.j.t.keyTypes, l.above, l.j.lookupKeys, l.j.dvs)
	}
	return l.keys
}

func (l *lookups) kvLookup() *DVLookup {
	if l.kv == nil {
		l.kv = NewDVLookup(l.j.keys, l.j.t.keyTypes, l.above, l.j.lookupKV, l.j.dvs)
	}
	return l.kv
}

func (l *lookups) close() {
	if l.keys != nil {
		l.keys.Close()
	}
	if l.kv != nil {
		l.kv.Close()
	}
}

// rewrite merges the sections of a step and writes the result as files at
// outputLevel (MergeTreeCompactRewriter.rewriteCompaction; with step.Lookup
// the first-row lookup, with step.MarkDeleted the deletion-vector lookup of
// LookupMergeTreeCompactRewriter), reading inputs with their deletion
// vectors applied. lk looks keys up on the levels above outputLevel.
func (j *bucketJob) rewrite(ctx context.Context, step Step, outputLevel int, lk *lookups) (_ []manifest.DataFileMeta, err error) {
	t := j.t
	l, err := t.layout(outputLevel)
	if err != nil {
		return nil, err
	}
	w := datafile.NewRollingWriter(t.fio, j.dir, l, j.names, 0)
	w.HandRows(t.rows)
	defer func() {
		if err != nil {
			_ = w.Abort(context.WithoutCancel(ctx))
		}
	}()
	// Deletion vectors: the keys of the section's level-0 records are looked
	// up above the output level (Java looks up the keys that have no record
	// above level 0 among the inputs; the others have no live version above
	// the output level). Deduplicate only marks the version found; other
	// engines and sequence.field also merge it in.
	mergeIn := step.MarkDeleted && t.lookupMerge
	m := t.mergers[0]
	if step.DropDeletes {
		m = t.mergers[1]
	}
	for _, section := range step.Sections {
		runs := make([]merge.Run, 0, len(section)+1)
		for _, r := range section {
			runs = append(runs, j.runsOf(ctx, r)...)
		}
		if step.MarkDeleted {
			l0 := level0Files(section)
			if mergeIn {
				runs = append(runs, merge.AtLevel(j.lookedUp(ctx, l0, lk.kvLookup(), nil), outputLevel+1))
			} else if err := j.markLevel0(ctx, l0, lk.keyLookup()); err != nil {
				return nil, err
			}
		}
		for b, merr := range m.Merge(ctx, runs) {
			if merr != nil {
				return nil, merr
			}
			out := b
			if !out.Schema().Equal(t.kvSchema) {
				out = array.NewRecordBatch(t.kvSchema, b.Columns(), b.NumRows())
				b.Release()
			}
			if step.Lookup {
				err = j.writeAbsent(ctx, w, out, lk.keyLookup())
			} else {
				err = w.Write(ctx, out)
			}
			out.Release()
			if err != nil {
				return nil, err
			}
		}
	}
	return j.flush(ctx, w)
}

// level0Files returns the level-0 files of a section.
func level0Files(section []SortedRun) []manifest.DataFileMeta {
	var out []manifest.DataFileMeta
	for _, r := range section {
		for _, f := range r.Files {
			if f.Level == 0 {
				out = append(out, f)
			}
		}
	}
	return out
}

// writeFiltered writes the rows of rec for which keep is true, in slices
// of consecutive kept rows.
func writeFiltered(ctx context.Context, w *datafile.RollingWriter, rec arrow.RecordBatch, keep func(i int) (bool, error)) error {
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
		ok, err := keep(i)
		if err != nil {
			return err
		}
		if !ok {
			if err := flush(i); err != nil {
				return err
			}
		} else if start < 0 {
			start = i
		}
	}
	return flush(n)
}

// writeAbsent writes the rows of rec whose key no level above the output
// holds (FirstRowMergeFunctionWrapper: a key already on a higher level
// keeps its first row there).
func (j *bucketJob) writeAbsent(ctx context.Context, w *datafile.RollingWriter, rec arrow.RecordBatch, lk *DVLookup) error {
	return writeFiltered(ctx, w, rec, func(i int) (bool, error) {
		k, err := keyView(rec, i, j.t.keyTypes)
		if err != nil {
			return false, err
		}
		_, found, err := lk.Find(ctx, k)
		return !found, err
	})
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

// lookedUp is the sorted run of the versions found above the output level
// for the keys of the level-0 files l0 (read with their deletion vectors),
// each marked deleted as it is found when the table has deletion vectors
// (LookupChangelogMergeFunctionWrapper.getResult: lookup, notifyNewDeletion,
// insertInto) — or, with deferred not nil, appended to *deferred for the
// caller to mark once it no longer looks the levels up as they were. Merged with the
// section's runs, a found version takes its place among the key's records
// by sequence.field and sequence number, as insertInto puts it.
func (j *bucketJob) lookedUp(ctx context.Context, l0 []manifest.DataFileMeta, lk *DVLookup, deferred *[]DVHit) merge.Run {
	return merge.RunFromSeq(func(yield func(arrow.RecordBatch, error) bool) {
		var pending []arrow.RecordBatch // one-row slices of found records
		defer func() {
			for _, r := range pending {
				r.Release()
			}
		}()
		emit := func() bool {
			if len(pending) == 0 {
				return true
			}
			out, err := concatRows(j.t.kvSchema, pending, j.t.mem)
			for _, r := range pending {
				r.Release()
			}
			pending = pending[:0]
			return yield(out, err) && err == nil
		}
		for k, err := range j.level0Keys(ctx, l0) {
			if err != nil {
				yield(nil, err)
				return
			}
			hit, ok, err := lk.Find(ctx, k)
			if err != nil {
				yield(nil, err)
				return
			}
			if !ok {
				continue
			}
			switch {
			case j.dvs == nil:
				// no deletion vectors: the version stays, shadowed by the
				// lower level the merge writes (merge.Options.Lookup)
			case deferred != nil:
				*deferred = append(*deferred, DVHit{File: hit.File, Position: hit.Position})
			default:
				if err := j.dvs.NotifyNewDeletion(hit.File, hit.Position); err != nil {
					yield(nil, fmt.Errorf("compaction: mark %s row %d deleted: %w", hit.File, hit.Position, err))
					return
				}
			}
			pending = append(pending, hit.Batch.NewSlice(int64(hit.Row), int64(hit.Row)+1))
			if len(pending) >= j.t.batchSize && !emit() {
				return
			}
		}
		emit()
	})
}

// concatRows concatenates batches of schema sc into one.
func concatRows(sc *arrow.Schema, recs []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, sc.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	parts := make([]arrow.Array, len(recs))
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	for c := range cols {
		for i, r := range recs {
			parts[i] = r.Column(c)
		}
		a, err := array.Concatenate(parts, mem)
		if err != nil {
			return nil, fmt.Errorf("compaction: concatenate looked-up records: %w", err)
		}
		cols[c] = a
	}
	return array.NewRecordBatch(sc, cols, n), nil
}

// level0Keys yields the distinct keys of the level-0 files l0 (each sorted
// by key, without duplicates) in ascending order. A key may alias the
// buffers of a batch that is released once the next key is asked for.
func (j *bucketJob) level0Keys(ctx context.Context, l0 []manifest.DataFileMeta) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		type cursor struct {
			next func() (arrow.RecordBatch, error, bool)
			stop func()
			rec  arrow.RecordBatch
			row  int
			key  []any
		}
		cs := make([]*cursor, 0, len(l0))
		defer func() {
			for _, c := range cs {
				if c.rec != nil {
					c.rec.Release()
				}
				c.stop()
			}
		}()
		// advance moves c to its next row; false at the end of the file.
		advance := func(c *cursor) (bool, error) {
			for {
				if c.rec != nil && c.row < int(c.rec.NumRows()) {
					k, err := keyView(c.rec, c.row, j.t.keyTypes)
					c.key = k
					return err == nil, err
				}
				if c.rec != nil {
					c.rec.Release()
					c.rec = nil
				}
				rec, err, ok := c.next()
				if err != nil {
					return false, err
				}
				if !ok {
					return false, nil
				}
				c.rec, c.row = rec, 0
			}
		}
		var live []*cursor
		for i := range l0 {
			next, stop := iter.Pull2(j.readKeys(ctx, &l0[i], j.inputDV(&l0[i])))
			c := &cursor{next: next, stop: stop}
			cs = append(cs, c)
			ok, err := advance(c)
			if err != nil {
				yield(nil, err)
				return
			}
			if ok {
				live = append(live, c)
			}
		}
		for len(live) > 0 {
			minK := live[0].key
			for _, c := range live[1:] {
				if j.keys.Compare(c.key, minK) < 0 {
					minK = c.key
				}
			}
			// The key stays valid while no cursor moves: copy it first.
			k := cloneKey(minK, nil)
			if !yield(k, nil) {
				return
			}
			kept := live[:0]
			for _, c := range live {
				if j.keys.Compare(c.key, k) == 0 {
					c.row++
					ok, err := advance(c)
					if err != nil {
						yield(nil, err)
						return
					}
					if !ok {
						continue
					}
				}
				kept = append(kept, c)
			}
			live = kept
		}
	}
}

// compactPK runs a primary-key unit of the job's bucket: the steps of
// PlanSteps, upgrades as level changes, rewrites through the merge. It
// returns the files removed (Before) and added (After). With deletion
// vectors, the vectors of rewritten inputs are dropped afterwards
// (notifyRewriteCompactBefore) and the lookups mark what the compaction
// replaced.
func (j *bucketJob) compactPK(ctx context.Context, lv *Levels, u Unit, cfg TaskConfig) (before, after []manifest.DataFileMeta, err error) {
	steps, err := PlanSteps(u, j.keys, cfg)
	if err != nil {
		return nil, nil, err
	}
	lk := &lookups{j: j, maxLevel: lv.MaxLevel()}
	defer lk.close()
	for lvl := u.OutputLevel + 1; lvl <= lv.MaxLevel(); lvl++ {
		if r := lv.RunOfLevel(lvl); len(r.Files) > 0 {
			lk.above = append(lk.above, LevelSortedRun{Level: lvl, Run: r})
		}
	}
	for _, s := range steps {
		marked := false
		if s.Upgrade != nil && int(s.Upgrade.Level) != u.OutputLevel && j.t.changelogStep([][]SortedRun{{{Files: []manifest.DataFileMeta{*s.Upgrade}}}}, u.OutputLevel, lk.maxLevel) {
			// ChangelogMergeTreeRewriter.upgrade with a changelog strategy.
			one := Step{Sections: [][]SortedRun{{{Files: []manifest.DataFileMeta{*s.Upgrade}}}}, DropDeletes: s.DropDeletes, MarkDeleted: s.MarkDeleted}
			if j.t.upgradeRewrites(u.OutputLevel, lk.maxLevel) {
				out, err := j.rewriteChangelog(ctx, one, u.OutputLevel, lk, true)
				if err != nil {
					return nil, nil, err
				}
				before = append(before, *s.Upgrade)
				after = append(after, out...)
				continue
			}
			if _, err := j.rewriteChangelog(ctx, one, u.OutputLevel, lk, false); err != nil {
				return nil, nil, err
			}
			marked = s.MarkDeleted
		}
		if s.Upgrade != nil {
			if s.MarkDeleted && !marked {
				if err := j.markLevel0(ctx, []manifest.DataFileMeta{*s.Upgrade}, lk.keyLookup()); err != nil {
					return nil, nil, err
				}
			}
			before = append(before, *s.Upgrade)
			up := *s.Upgrade
			up.Level = int32(u.OutputLevel)
			after = append(after, up)
			continue
		}
		var out []manifest.DataFileMeta
		if j.t.changelogStep(s.Sections, u.OutputLevel, lk.maxLevel) {
			out, err = j.rewriteChangelog(ctx, s, u.OutputLevel, lk, true)
		} else {
			out, err = j.rewrite(ctx, s, u.OutputLevel, lk)
		}
		if err != nil {
			return nil, nil, err
		}
		for _, sec := range s.Sections {
			for _, r := range sec {
				before = append(before, r.Files...)
				if j.dvs != nil {
					for _, f := range r.Files {
						j.dvs.RemoveDeletionVector(f.FileName)
					}
				}
			}
		}
		after = append(after, out...)
	}
	return before, after, nil
}

// markLevel0 marks deleted the versions above the output level of the keys
// of the level-0 files l0 (read with their deletion vectors), in key order
// (LookupChangelogMergeFunctionWrapper.getResult with a deletion-vector
// LookupStrategy; for an upgrade without rewrite, CHANGELOG_NO_REWRITE).
func (j *bucketJob) markLevel0(ctx context.Context, l0 []manifest.DataFileMeta, lk *DVLookup) error {
	for k, err := range j.level0Keys(ctx, l0) {
		if err != nil {
			return err
		}
		if _, err := lk.MarkReplaced(ctx, k); err != nil {
			return err
		}
	}
	return nil
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
		for rec, rerr := range j.readFile(ctx, &group[i], t.ts.Fields, nil) {
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
	return j.flush(ctx, w)
}

// flush closes w's open file and records every file w wrote in j.written
// (deleted when the job fails); it returns the files.
func (j *bucketJob) flush(ctx context.Context, w *datafile.RollingWriter) ([]manifest.DataFileMeta, error) {
	files, err := w.Flush(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		j.written = append(j.written, fileLocation(j.dir, &f))
	}
	return files, nil
}
